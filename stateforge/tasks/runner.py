"""Generating a task set: the stages, written down once, and the one driver that runs them.

    report = generate_tasks("music", n=150, seed=7)                 # the CLI: every stage called directly
    report = run_generation(GenerationRun("music"), runner=as_task)  # the flow: every stage a Prefect task

    prepare -> generate-1, generate-2, ... (rounds of attempts until n tasks are kept or attempts run out)
            -> write (tasks.jsonl, atomically) -> report (generation_report.json)

Deterministic for a database and a seed: the recipes' order, every choice they make and the instruction's
wording come from seeded generators, reads are ordered, and the episode clock is frozen; so the same
inputs give a byte-identical tasks.jsonl.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateforge.domain import list_domains, load_domain
from stateforge.domain.loader import schemas_dir
from stateforge.domain.modules import has_part
from stateforge.errors import StateforgeError, TerminalError
from stateforge.resources import artifacts_dir
from stateforge.stages import Runner, Stage, direct, run_stages, until
from stateforge.tasks.draft import Draft
from stateforge.tasks.gate import Gate, GateResult
from stateforge.tasks.generators import Generator, Want, make_generator
from stateforge.tasks.grading import domain_policy
from stateforge.tasks.jsonl import write_tasks
from stateforge.tasks.model import CAPABILITIES, Task
from stateforge.tasks.recipes import RECIPES_PART, Recipe, load_recipes
from stateforge.tasks.report import generation_report, write_report
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit, toolkit_for
from stateforge.tools.loader import DATABASE_SUFFIXES, domain_name

ROUND = 25
"""Attempts per round (one `generate-<k>` step of the flow)."""
CAPABILITY_SHARE = 0.2
"""Below this share of the kept tasks, a capability is asked for (the target is 15%; this leaves room)."""
INFEASIBLE_SHARE = 0.15
"""The share of infeasible tasks the runner aims at (the target is at least 10%)."""
MIN_INFEASIBLE_SHARE = 0.10
"""The share of infeasible tasks every set keeps (docs/tasks.md): the last places of a set are held for
infeasible tasks while it is below, and a run that cannot reach it misses its target (exit 1)."""
HELD_BACK = "held back: the set needs infeasible tasks"
"""The skip reason of a feasible draft not kept because the remaining places are for infeasible ones."""
TASKS_FILE = "tasks.jsonl"
REPORT_FILE = "generation_report.json"


@dataclass
class Attempt:
    """One attempt: which recipe (or model), what became of it, how long it took."""

    number: int
    source: str
    outcome: str
    """kept, rejected, skipped or error."""
    reason: str | None = None
    detail: str | None = None
    feasible: bool | None = None
    capabilities: tuple[str, ...] = ()
    changed_rows: int = 0
    seconds: float = 0.0
    task_id: str | None = None


@dataclass
class GenerationRun:
    """One generation: what was asked for, then what each stage produced."""

    target: str | Path
    """A pack name, a pack folder, a DDL file, or a built database file."""
    db: str | Path | None = None
    """The built database (default: artifacts/<name>/<name>.duckdb, or `target` when it is one)."""
    n: int = 150
    seed: int = 0
    backend: str = "offline"
    out: str | Path | None = None
    """Where tasks.jsonl and the report go (default: the database's folder)."""
    recipes: list[Recipe] | None = None
    """The recipes to run (default: the pack's `tasks`, else the generic set)."""
    toolkit: Toolkit | None = None
    """The solver's tools (default: the pack's `tools`, else the generic toolkit)."""
    tier: str | None = None
    """The pack's task tier (`TIERS` of its tasks/: `long`, the default, or `warmup`)."""
    max_attempts: int | None = None
    """Give up after this many attempts (default: 8 per task asked, at least 100)."""
    workdir: str | Path | None = None
    """Where episode copies go (default: the system's temp folder)."""
    on_attempt: Callable[[Attempt, int], None] | None = None
    """Called after each attempt with it and the number of tasks kept so far (progress bars)."""
    generator_options: dict[str, Any] = field(default_factory=dict)
    """Keyword arguments for the backend's generator (the LLM generator's: `settings`, `limits`)."""

    name: str = ""
    db_path: Path | None = None
    out_dir: Path | None = None
    workspace: Workspace | None = None
    gate: Gate | None = None
    generator: Generator | None = None
    kept: list[Task] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    path: Path | None = None
    """The written tasks.jsonl."""
    report: dict[str, Any] | None = None

    @property
    def limit(self) -> int:
        return self.max_attempts if self.max_attempts is not None else max(100, 8 * self.n)

    def done(self) -> bool:
        """Enough tasks kept, attempts spent, or nothing left to try."""
        return (
            len(self.kept) >= self.n
            or len(self.attempts) >= self.limit
            or (self.generator is not None and self.generator.exhausted)
        )

    def want(self) -> Want:
        """What the kept set lacks: the capability furthest below its share, and infeasible tasks."""
        counts = Counter(c for t in self.kept for c in t.capabilities)
        total = len(self.kept)
        lacking = min(CAPABILITIES, key=lambda c: counts[c])
        capability = lacking if total >= 3 and counts[lacking] < CAPABILITY_SHARE * total else None
        infeasible = sum(not t.feasible for t in self.kept) < INFEASIBLE_SHARE * (total + 1)
        only = len(self.kept) + infeasible_needed(self) >= self.n
        return Want(
            attempt=len(self.attempts) + 1,
            capability=None if only else capability,
            infeasible=infeasible or only,
            only_infeasible=only,
        )


# --- the stages, in order ------------------------------------------------------------------------


def resolve(target: str | Path, db: str | Path | None) -> tuple[str, Path, Path | None]:
    """(domain name, database path, pack folder or None) of what `generate-tasks` was given."""
    path = Path(target)
    if path.is_file() and path.suffix.lower() in DATABASE_SUFFIXES:
        from stateforge.store import connect

        with connect(path, read_only=True) as con:
            name = domain_name(con) or path.stem
        pack = schemas_dir() / name if name in list_domains() else None
        return name, Path(db) if db else path, pack
    pack = load_domain(str(target))
    name = pack.name
    default = artifacts_dir() / name / f"{name}.duckdb"
    return name, Path(db) if db else default, pack.root


def prepare(run: GenerationRun) -> None:
    """Open the built database, the solver's toolkit, the recipes, the gate and the generator."""
    run.name, run.db_path, pack = resolve(run.target, run.db)
    if not run.db_path.is_file():
        raise TerminalError(
            f"no database at {run.db_path}: build it first (`stateforge build-domain {run.target}`) or pass "
            "the built file with --db."
        )
    run.out_dir = Path(run.out) if run.out else run.db_path.parent
    run.workspace = Workspace(run.db_path, workdir=run.workdir)
    ws = run.workspace
    toolkit = run.toolkit or toolkit_for(ws.schema, ws.domain, pack_dir=pack)
    recipes = run.recipes
    if recipes is None:
        if pack is not None and has_part(pack, RECIPES_PART):
            recipes = load_recipes(pack, run.tier)
        else:
            from stateforge.tasks.generic_recipes import GENERIC_RECIPES

            recipes = list(GENERIC_RECIPES)
    run.recipes = recipes
    run.gate = Gate(ws, toolkit, defaults=domain_policy(ws.config, ws.schema))
    run.generator = make_generator(
        run.backend, ws, toolkit, recipes=recipes, seed=run.seed, gate=run.gate, **run.generator_options
    )


def generate_round(run: GenerationRun) -> None:
    """Up to `ROUND` attempts: a proposal from the generator, its chosen draft through the gate."""
    assert run.generator is not None and run.gate is not None
    for _ in range(ROUND):
        if run.done():
            return
        want = run.want()
        proposal = run.generator.propose(want)
        number = want.attempt
        if not proposal.drafts:
            outcome = "error" if proposal.error else "skipped"
            attempt = Attempt(
                number,
                proposal.source,
                outcome,
                proposal.error or proposal.skipped,
                proposal.detail,
                capabilities=proposal.capabilities,
                seconds=proposal.seconds,
            )
            run.generator.feedback(proposal, kept=False)
        elif proposal.drafts[0].feasible and len(run.kept) + infeasible_needed(run) >= run.n:
            attempt = Attempt(
                number, proposal.source, "skipped", HELD_BACK, proposal.detail,
                capabilities=proposal.capabilities, seconds=proposal.seconds,
            )  # not the recipe's failure: no feedback, so it is not retired for it
        else:
            draft = proposal.drafts[0]
            # A generator that judged its draft with the run's gate already (the LLM generator, whose
            # conversation hears the verdict) hands the verdict over: the gate runs once per draft.
            result = proposal.verdict if proposal.verdict is not None else run.gate.check(draft)
            attempt = _judged(number, proposal.source, draft, result, proposal.seconds)
            if result.task is not None:
                run.kept.append(result.task)
            run.generator.feedback(proposal, kept=result.task is not None)
        run.attempts.append(attempt)
        if run.on_attempt is not None:
            run.on_attempt(attempt, len(run.kept))


def infeasible_needed(run: GenerationRun) -> int:
    """How many more infeasible tasks the kept set needs to reach `MIN_INFEASIBLE_SHARE` of `run.n`."""
    have = sum(not t.feasible for t in run.kept)
    return max(0, math.ceil(MIN_INFEASIBLE_SHARE * run.n - 1e-9) - have)


def _judged(number: int, source: str, draft: Draft, result: GateResult, seconds: float) -> Attempt:
    rejection = result.rejection
    return Attempt(
        number,
        source,
        "kept" if result.task is not None else "rejected",
        rejection.reason if rejection else None,
        rejection.detail if rejection else None,
        feasible=draft.feasible,
        capabilities=draft.capabilities,
        changed_rows=result.changed_rows,
        seconds=seconds + result.seconds,
        task_id=result.task.id if result.task is not None else None,
    )


def write(run: GenerationRun) -> None:
    """Write tasks.jsonl (atomically: a failure leaves the previous file)."""
    assert run.out_dir is not None
    run.path = write_tasks(run.out_dir / TASKS_FILE, run.kept)


def report(run: GenerationRun) -> None:
    """Assemble the generation report and write it beside the tasks; close the workspace."""
    assert run.out_dir is not None
    run.report = generation_report(run)
    write_report(run.out_dir / REPORT_FILE, run.report)
    _close(run)


def _close(run: GenerationRun) -> None:
    """Close the generator (if it holds anything, e.g. an LLM client) and the workspace."""
    close = getattr(run.generator, "close", None)
    if callable(close):
        close()
    if run.workspace is not None:
        run.workspace.close()


STAGES: tuple[Stage, ...] = (
    Stage("prepare", prepare),
    Stage("generate", generate_round, parts=until(lambda run: run.done())),
    Stage("write", write),
    Stage("report", report),
)
"""Every generation, in this order: the CLI, the flow and the tests run exactly these."""


def run_generation(run: GenerationRun, runner: Runner = direct) -> dict[str, Any]:
    """Run every stage of `STAGES` on `run` through `runner`; return the generation report."""
    try:
        run_stages(run, STAGES, runner)
    except BaseException:
        _close(run)
        raise
    assert run.report is not None
    return run.report


def generate_tasks(
    db_or_domain: str | Path,
    *,
    n: int = 150,
    seed: int = 0,
    backend: str = "offline",
    out: str | Path | None = None,
    db: str | Path | None = None,
    recipes: list[Recipe] | None = None,
    toolkit: Toolkit | None = None,
    max_attempts: int | None = None,
    tier: str | None = None,
    on_attempt: Callable[[Attempt, int], None] | None = None,
    generator_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Generate up to `n` tasks that pass the gate on a built database; write tasks.jsonl and the report.

    `generator_options` go to the backend's generator (for `openai`: `settings`, an `LLMSettings`, and
    `limits`, a `GeneratorLimits`).

    Returns the report (`target_met` says whether `n` were kept). `StateforgeError` for bad input: no such
    pack or database, a broken pack `tasks/`, an unknown backend.
    """
    if n < 1:
        raise StateforgeError(f"--n must be at least 1, got {n}.")
    run = GenerationRun(
        db_or_domain,
        db=db,
        n=n,
        seed=seed,
        backend=backend,
        out=out,
        recipes=recipes,
        toolkit=toolkit,
        max_attempts=max_attempts,
        tier=tier,
        on_attempt=on_attempt,
        generator_options=dict(generator_options or {}),
    )
    return run_generation(run)
