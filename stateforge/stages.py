"""One stage driver for every pipeline: build, task generation, evaluation and release.

A pipeline is a tuple of named `Stage`s run in order on one run object. A stage runs once, or splits into
several runs (`parts`): once per item (`each`: a table to fill, a baseline solver) or again and again until
the run says it is done (`until`: generation rounds, episode batches). Every run of a stage goes through a
`Runner`, `runner(stage, label, work)`: the CLI and the tests use `direct`, which calls `work()`; each Prefect
flow passes one that wraps `work` in a task named after the stage and labelled after the run:

    STAGES = (
        Stage("prepare", prepare),
        Stage("fill-table", fill_table, parts=each(pending_tables, prefix="fill")),   # fill-users, ...
        Stage("generate", generate_round, parts=until(lambda run: run.done())),     # generate-1, ...
    )
    run_stages(run, STAGES)              # or run_stages(run, STAGES, runner=as_task) in a flow

So the CLI, the flows and the tests run exactly the same steps in the same order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

Part = tuple[str, tuple[Any, ...]]
"""One run of a stage: its label and the arguments passed after the run object."""

Parts = Callable[["Stage", Any], Iterable[Part]]
"""How a stage splits into runs, given the stage and the run object; consumed lazily, one run at a time."""


@dataclass(frozen=True)
class Stage:
    """One named step of a pipeline: `run(run_object, *part_arguments)`."""

    name: str
    run: Callable[..., None]
    parts: Parts | None = None
    """The runs of this stage (`each`, `until`); None: one run, labelled with the stage's name."""

    def runs(self, run: Any) -> Iterable[Part]:
        """The (label, arguments) of each run of this stage on `run`."""
        return ((self.name, ()),) if self.parts is None else self.parts(self, run)


def each(items: Callable[[Any], Iterable[Any]], *, prefix: str | None = None) -> Parts:
    """One run per item of `items(run)`, labelled `<prefix>-<item>` (prefix: the stage's name), with the item
    as its argument. `items` may be a generator holding a resource (a connection) while the runs last: it is
    closed when the stage ends, normally or not."""

    def parts(stage: Stage, run: Any) -> Iterator[Part]:
        head = prefix or stage.name
        for item in items(run):
            yield f"{head}-{item}", (item,)

    return parts


def until(done: Callable[[Any], bool]) -> Parts:
    """Runs labelled `<name>-1`, `<name>-2`, ... for as long as `done(run)` is false, asked before each."""

    def parts(stage: Stage, run: Any) -> Iterator[Part]:
        count = 0
        while not done(run):
            count += 1
            yield f"{stage.name}-{count}", ()

    return parts


Runner = Callable[[Stage, str, Callable[[], None]], None]
"""How to run one step: `runner(stage, label, work)` must call `work()` once (and may wrap it)."""


def direct(stage: Stage, label: str, work: Callable[[], None]) -> None:
    """The plain runner: call the step."""
    work()


def run_stages(run: Any, stages: Iterable[Stage], runner: Runner = direct) -> None:
    """Run every stage of `stages` on `run`, in order, each of its runs through `runner`."""
    for stage in stages:
        runs = iter(stage.runs(run))
        try:
            for label, arguments in runs:
                runner(stage, label, partial(stage.run, run, *arguments))
        finally:
            # A generator of parts may hold a resource (build's connection): release it now, not at GC.
            close = getattr(runs, "close", None)
            if close is not None:
                close()
