"""The stages of a build, written down once, and the one driver that runs them.

    report = build_domain("music", scale=0.1)                    # the CLI: every stage called directly
    report = run_build(BuildRun("music"), runner=as_prefect_task)  # the flow: every stage a Prefect task

`STAGES` is the order; each `Stage` (`stateforge.stages`, the driver every pipeline shares) names a
function of the `BuildRun` (and, for `fill-table`, of a table: run once per table still to fill, in plan
order). `run_build` walks it and hands every step to a `Runner`, the caller's "how to run a stage":
`direct` calls it, the flow wraps it in a task. The
work itself lives in `stateforge.build.stages`; the CLI, the flow and the tests share this file, so they
cannot drift apart.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from stateforge.build import stages
from stateforge.domain import DomainPack
from stateforge.llm.settings import LLMSettings
from stateforge.stages import Runner, Stage, direct, each, run_stages

if TYPE_CHECKING:
    from stateforge.llm.fill import LLMFill
    from stateforge.validation.audit import AuditReport


FILL_THREADS = 1
"""DuckDB's threads while the tables fill: its INSERTs of a batch (50,000 rows) and their commits gain
nothing from a second thread (wall = CPU either way) and it competes with the worker making the next
batch; with one, music at scale 12.7 fills on ~0.5 s less CPU (bench/fill.py). The later stages (second
pass, rules, audit) open their own connections with DuckDB's default."""


@dataclass
class BuildRun:
    """One build: what was asked for, then what each stage produced."""

    domain: str | DomainPack
    """A pack name, a pack folder or a DDL file, or a pack already loaded (tests build in-memory packs)."""
    dialect: str | None = None
    scale: float = 1.0
    rows: int | None = None
    seed: int | None = None
    out: str | Path | None = None
    resume: bool = False
    llm: LLMSettings | None = None
    drop_missing_references: bool = False
    """Drop foreign keys to tables the DDL does not define (with a note) instead of failing."""
    skip_missing_includes: bool = False
    """Read past include commands whose file is missing (a note each) instead of failing."""
    ignore_seed_inserts: bool = False
    """Leave the DDL's INSERT ... VALUES rows out (they seed their tables otherwise)."""
    on_table_start: Callable[[str, int], None] | None = None
    """Called before a table is filled, with its planned rows (the CLI's progress bars)."""
    on_batch: Callable[[str, int, int], None] | None = None
    """Called after each batch with (table, rows written, rows planned)."""

    build: stages.Build | None = None
    resumed: list[str] = field(default_factory=list)
    """Tables a resumed build found complete, in plan order."""
    enrich: LLMFill | None = None
    finish: dict[str, Any] = field(default_factory=dict)
    audit: AuditReport | None = None
    report: dict[str, Any] | None = None
    path: Path | None = None
    """The published database."""
    _con: duckdb.DuckDBPyConnection | None = None

    @property
    def planned(self) -> stages.Build:
        """The build decided by the first stage (an error before it has run)."""
        if self.build is None:
            raise RuntimeError("the parse-and-plan stage has not run yet")
        return self.build

    def pending(self) -> list[str]:
        """The tables still to fill, in plan order."""
        return [t for t in self.planned.plan.order if t not in self.resumed]

    @contextlib.contextmanager
    def filling(self) -> Iterator[None]:
        """One connection to the partial file and the LLM fill (if any) for the table stages, closed after."""
        self.enrich = stages.open_llm(self.planned)
        try:
            with duckdb.connect(str(self.planned.partial_path)) as con:
                con.execute(f"SET threads = {FILL_THREADS}")
                self._con = con
                yield
        finally:
            self._con = None
            if self.enrich is not None:
                self.enrich.close()


# --- the stages, in order ------------------------------------------------------------------------


def parse_and_plan(run: BuildRun) -> None:
    """Load the domain, check its config, plan the fill, size the tables; check the LLM endpoint."""
    run.build = stages.prepare(
        run.domain,
        dialect=run.dialect,
        scale=run.scale,
        rows=run.rows,
        seed=run.seed,
        out=run.out,
        llm=run.llm,
        drop_missing_references=run.drop_missing_references,
        skip_missing_includes=run.skip_missing_includes,
        ignore_seed_inserts=run.ignore_seed_inserts,
    )


def open_database(run: BuildRun) -> None:
    """Create the partial file (or reopen it to resume) and note the tables already complete."""
    run.resumed = stages.open_partial(run.planned, resume=run.resume)


def fill_table(run: BuildRun, table: str) -> None:
    """Fill one table in one transaction and record it as complete."""
    if run.on_table_start is not None:
        run.on_table_start(table, run.planned.rows[table])
    stages.fill_one(run.planned, table, con=run._con, on_batch=run.on_batch, llm=run.enrich)


def second_pass_and_rules(run: BuildRun) -> None:
    """Give the deferred (cycle-breaking) foreign keys their values, then repair the domain's rules."""
    run.finish = stages.finish_fill(run.planned)


def audit(run: BuildRun) -> None:
    """Audit the partial file; not clean: `NotCleanError`, and nothing is published."""
    run.audit = stages.audit_partial(run.planned)


def publish(run: BuildRun) -> None:
    """Assemble the report, install the audit views and move the database into place."""
    assert run.audit is not None
    run.path, run.report = stages.publish(
        run.planned, run.finish, run.audit, resumed=run.resumed, llm=run.enrich
    )


def pending_tables(run: BuildRun) -> Iterator[str]:
    """The tables still to fill, in plan order, with the fill's connection open while they are filled."""
    with run.filling():
        yield from run.pending()


STAGES: tuple[Stage, ...] = (
    Stage("parse-and-plan", parse_and_plan),
    Stage("open-database", open_database),
    Stage("fill-table", fill_table, parts=each(pending_tables, prefix="fill")),
    Stage("second-pass-and-rules", second_pass_and_rules),
    Stage("audit", audit),
    Stage("publish", publish),
)
"""Every build, in this order: the CLI, the flow and the tests run exactly these."""


def run_build(run: BuildRun, runner: Runner = direct) -> dict[str, Any]:
    """Run every stage of `STAGES` on `run` through `runner`; return the build report."""
    run_stages(run, STAGES, runner)
    assert run.report is not None
    return run.report


def build_domain(
    domain: str | DomainPack,
    *,
    dialect: str | None = None,
    scale: float = 1.0,
    rows: int | None = None,
    seed: int | None = None,
    out: str | Path | None = None,
    resume: bool = False,
    llm: LLMSettings | None = None,
    on_table_start: Callable[[str, int], None] | None = None,
    on_batch: Callable[[str, int, int], None] | None = None,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> dict[str, Any]:
    """Build a domain with every stage called directly (the CLI and `make run`); return the report."""
    run = BuildRun(
        domain,
        dialect=dialect,
        scale=scale,
        rows=rows,
        seed=seed,
        out=out,
        resume=resume,
        llm=llm,
        on_table_start=on_table_start,
        on_batch=on_batch,
        drop_missing_references=drop_missing_references,
        skip_missing_includes=skip_missing_includes,
        ignore_seed_inserts=ignore_seed_inserts,
    )
    return run_build(run)
