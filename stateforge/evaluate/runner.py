"""An evaluation: the stages, written down once, and the one driver that runs them.

    summary = evaluate("music", solver="oracle", k=3)                      # the CLI: stages called directly
    summary = run_evaluation(EvalRun("music", solver="oracle"), runner=as_task)   # the flow: stages as tasks

    prepare -> episodes-1, episodes-2, ... (a batch of (task, trial) pairs each, on a thread pool)
            -> summarize (summary.json)

`prepare` reads the tasks and checks they were made on this database, makes the solver (and runs its
preflight), opens the grader and the run folder (a new one, or the one `resume` names, whose finished
episodes are skipped); each `episodes` step runs one batch and appends its records; `summarize` computes
the metrics from everything the folder holds. The CLI, the flow and the tests share this file.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from stateforge import __version__
from stateforge.errors import TerminalError
from stateforge.evaluate.episodes import EpisodeContext, run_batch
from stateforge.evaluate.fingerprint import data_fingerprint
from stateforge.evaluate.grader import Grader
from stateforge.evaluate.records import EpisodeRecord, RunSpec
from stateforge.evaluate.registry import make_solver, solver_entry
from stateforge.evaluate.rundir import RunFolder, find_run, new_run_id
from stateforge.evaluate.selection import select_tasks
from stateforge.evaluate.solver import Limits, Solver, SolverConfig, close_solver, describe_solver, preflight
from stateforge.evaluate.summary import summarize
from stateforge.resources import artifacts_dir
from stateforge.stages import Runner, Stage, direct, run_stages, until
from stateforge.tasks import Task, read_tasks
from stateforge.tasks.runner import TASKS_FILE, resolve
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit, toolkit_for

BATCH = 50
"""(task, trial) pairs per `episodes` step (one Prefect task each)."""
RUNS = "runs"


@dataclass
class EvalRun:
    """One evaluation: what was asked for, then what each stage produced."""

    target: str | Path
    """A pack name, a pack folder, a DDL file, or a built database file."""
    solver: str | None = None
    """A registered solver name or `module:attribute` (None only to resume: the run's own)."""
    model: str | None = None
    k: int | None = None
    """Trials per task (default 1; to resume: the run's own)."""
    db: str | Path | None = None
    tasks_file: str | Path | None = None
    """Default: tasks.jsonl beside the database."""
    task_filter: str | None = None
    limit: int | None = None
    concurrency: int = 4
    resume: str | None = None
    """A run id (or folder) to continue."""
    out: str | Path | None = None
    """Where run folders go (default: artifacts/<domain>/runs)."""
    base_url: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    retries: int = 2
    max_infra_share: float = 0.1
    seed: int = 0
    batch: int = BATCH
    workdir: str | Path | None = None
    solver_object: Solver | None = None
    """A solver made by the caller (tests, notebooks) instead of `solver` by name."""
    toolkit: Toolkit | None = None
    """The tools the tasks were made with (default: the pack's `tools/`, else the generic toolkit)."""
    on_record: Callable[[EpisodeRecord | None, int, int], None] | None = None
    """Called with each record, the episodes done so far in this session and the session's total (a run on
    a work pool calls it with None and the episodes its shards have written so far)."""
    shard: str | None = None
    """One shard of a run on a work pool (`stateforge.evaluate.shards`): its episodes go to
    shards/<shard>/episodes.jsonl of the run (`resume`), and only `pairs` are run."""
    pairs: list[tuple[str, int]] | None = None
    """The (task id, trial) pairs of the shard."""
    report: bool = True
    """Write report.html at the end (benchmarks of the episodes alone turn it off)."""
    distractors: int | None = None
    """Tools of other packs added to each episode's toolkit, none of them needed (`--distractors N`;
    `stateforge.evaluate.distractors`); default 0 (to resume: the run's own)."""
    with_plan: bool | None = None
    """Give the solver each task's reference plan in words (`--with-plan`); default False (to resume: the
    run's own)."""
    notes: dict[str, Any] = field(default_factory=dict)
    """Added to the summary as they are (a run on a work pool: `pool`, `shards`)."""
    problems: list[str] = field(default_factory=list)
    """What went wrong outside the episodes (a shard that failed): each one makes the harness fail."""

    name: str = ""
    db_path: Path | None = None
    tasks: list[Task] = field(default_factory=list)
    folder: RunFolder | None = None
    context: EpisodeContext | None = None
    pending: list[tuple[Task, int]] = field(default_factory=list)
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.perf_counter)
    summary: dict[str, Any] | None = None

    @property
    def run_id(self) -> str | None:
        return self.folder.run_id if self.folder is not None else None

    @property
    def finished(self) -> bool:
        return not self.pending


# --- the stages, in order ------------------------------------------------------------------------


def prepare(run: EvalRun) -> None:
    """Read and select the tasks, check them against the database, make the solver and the grader, and
    open the run folder (new, or the one to resume, with its finished episodes left out)."""
    run.name, run.db_path, pack = resolve(run.target, run.db)
    if not run.db_path.is_file():
        raise TerminalError(
            f"no database at {run.db_path}: build it first (`stateforge build-domain {run.target}`) or pass "
            "the built file with --db."
        )
    # Absolute paths in run.json: a resumed run, and the workers of a pool, may start from another folder.
    run.db_path = run.db_path.resolve()
    tasks_path = (Path(run.tasks_file) if run.tasks_file else run.db_path.parent / TASKS_FILE).resolve()
    all_tasks = read_tasks(tasks_path)
    with Workspace(run.db_path, workdir=run.workdir) as ws:
        info = ws.info
        fingerprint = data_fingerprint(run.db_path, ws)  # computed once per process while unchanged
    _check_tasks(all_tasks, tasks_path, run.db_path, info.name, fingerprint)
    runs_dir = (Path(run.out) if run.out else artifacts_dir() / info.name / RUNS).resolve()
    resumed = RunFolder.open(find_run(run.resume, [runs_dir])) if run.resume else None
    if resumed is not None:
        spec = _resumed_spec(run, resumed.spec, tasks_path, fingerprint)
    else:
        spec = _new_spec(run, all_tasks, tasks_path, fingerprint, info.name)
    by_id = {t.id: t for t in all_tasks}
    missing = [i for i in spec.task_ids if i not in by_id]
    if missing:
        raise TerminalError(f"{tasks_path}: the run's task {missing[0]} is not in it; start a new run.")
    run.tasks = [by_id[i] for i in spec.task_ids]
    kit = run.toolkit or toolkit_for(info.schema, info.name, pack_dir=pack)
    if spec.distractors:  # the other packs' tools load and suffice, before anything is written
        from stateforge.evaluate.distractors import with_distractors

        with_distractors(kit, spec.distractors, seed=spec.seed, key=spec.run_id)
    solver = run.solver_object or make_solver(
        spec.solver, spec.solver_config, tasks={t.id: t for t in run.tasks}
    )
    try:
        preflight(solver)
        grader = Grader(run.db_path, info.schema, info.config)
    except BaseException:
        close_solver(solver)
        raise
    try:
        if resumed is None:
            spec = spec.model_copy(update={
                "solver_settings": describe_solver(solver), "toolkit": {"name": kit.name, "tools": kit.names}
            })
        run.folder = resumed or RunFolder.create(runs_dir, spec)
    except BaseException:
        grader.close()
        close_solver(solver)
        raise
    run.context = EpisodeContext(
        db_path=run.db_path,
        toolkit=kit,
        solver=solver,
        grader=grader,
        limits=spec.solver_config.limits,
        seed=spec.seed,
        retries=spec.retries,
        workdir=Path(run.workdir) if run.workdir else None,
        instructions=functools.cache(partial(_instructions, info.config, info.now, info.name)),
        distractors=spec.distractors,
        with_plan=spec.with_plan,
    )
    if run.shard is not None:
        run.folder = run.folder.shard(run.shard)
    elif resumed is not None:
        from stateforge.evaluate.shards import merge_shards  # (shards runs these stages: imported here)

        merge_shards(run.folder)  # what shards on a work pool left behind counts as done
    finished = {r.key for r in run.folder.records() if r.outcome != "infra_error"}
    run.pending = [(t, trial) for trial in range(spec.k) for t in run.tasks if (t.id, trial) not in finished]
    if run.pairs is not None:
        wanted = set(map(tuple, run.pairs))
        run.pending = [(t, trial) for t, trial in run.pending if (t.id, trial) in wanted]
    run.total = len(run.pending)
    run.started = time.perf_counter()


def run_episodes(run: EvalRun) -> None:
    """Run the next batch of pending (task, trial) pairs and append their records to episodes.jsonl."""
    assert run.context is not None and run.folder is not None
    batch, run.pending = run.pending[: run.batch], run.pending[run.batch :]
    folder = run.folder

    def record(item: EpisodeRecord) -> None:
        folder.append(item)
        run.done += 1
        if run.on_record is not None:
            run.on_record(item, run.done, run.total)

    run_batch(run.context, batch, concurrency=run.concurrency, on_record=record)
    folder.sync()


def summarize_run(run: EvalRun) -> None:
    """Compute the summary from every record of the run and write summary.json; release the solver,
    the grader and the folder."""
    assert run.folder is not None
    seconds = time.perf_counter() - run.started
    run.summary = summarize(run.folder.spec, run.folder.records(), seconds=seconds, episodes_run=run.done)
    run.summary.update(run.notes)
    if run.problems:
        health = run.summary["harness"]
        health["ok"] = False
        health["why"] = "; ".join([*([health["why"]] if health["why"] else []), *run.problems])
    run.summary["folder"] = str(run.folder.path)
    run.summary["report"] = _write_report(run.folder, run.summary) if run.report else None
    run.folder.write_summary(run.summary)
    release(run)


def _write_report(folder: RunFolder, summary: dict[str, Any]) -> str | None:
    """Write report.html; a report that cannot be drawn is logged, never the end of a finished run (its
    summary and episodes are written whatever happens: `stateforge eval-report` makes the report again)."""
    from stateforge.evaluate.htmlreport import write_run_report  # matplotlib: imported when a run ends

    try:
        return str(write_run_report(folder, summary))
    except Exception:  # noqa: BLE001 - see the docstring
        logging.getLogger(__name__).exception(
            "run %s: report.html could not be written; make it with `stateforge eval-report %s`",
            folder.run_id, folder.path,
        )
        return None


def release(run: EvalRun) -> None:
    """Close what the run holds open (idempotent)."""
    ctx, run.context = run.context, None
    if ctx is not None:
        try:
            close_solver(ctx.solver)
        finally:
            ctx.grader.close()
    if run.folder is not None:
        run.folder.close()


STAGES: tuple[Stage, ...] = (
    Stage("prepare", prepare),
    Stage("episodes", run_episodes, parts=until(lambda run: run.finished)),
    Stage("summarize", summarize_run),
)
"""Every evaluation, in this order: the CLI, the flow and the tests run exactly these."""


def run_evaluation(run: EvalRun, runner: Runner = direct) -> dict[str, Any]:
    """Run every stage of `STAGES` on `run` through `runner`; return the summary."""
    run_all(run, STAGES, runner)
    assert run.summary is not None
    return run.summary


def run_all(run: EvalRun, stages: tuple[Stage, ...], runner: Runner = direct) -> None:
    """Run `stages` in order on `run` through `runner`, then release what the run holds, whatever
    happened."""
    try:
        run_stages(run, stages, runner)
    finally:
        release(run)


def evaluate(target: str | Path, **options: Any) -> dict[str, Any]:
    """Evaluate a solver on a built domain with every stage called directly; return the summary.

    `options` are the fields of `EvalRun` (solver, model, k, db, tasks_file, task_filter, limit,
    concurrency, resume, ...). `TerminalError` for bad input: no database or tasks, tasks made on other
    data, an unknown solver, a filter that selects nothing, a run to resume that asked for something else.
    """
    return run_evaluation(EvalRun(target, **options))


# --- helpers -------------------------------------------------------------------------------------


def _check_tasks(tasks: list[Task], path: Path, db: Path, domain: str, fingerprint: str) -> None:
    """Every task must be of this domain and made on this data (its `db_fingerprint`)."""
    for task in tasks:
        if task.domain != domain:
            raise TerminalError(
                f"{path}: task {task.id} is of the domain {task.domain!r}, but {db} holds {domain!r}. "
                "Pass the tasks of this database (--tasks-file) or its database (--db)."
            )
        if task.db_fingerprint != fingerprint:
            raise TerminalError(
                f"{path}: task {task.id} was made on other data (fingerprint {task.db_fingerprint}; {db} is "
                f"{fingerprint}). Its expected diff holds only on that data: evaluate on the database the "
                "tasks were made on (--db), or generate the tasks again on this one."
            )


def _resumed_spec(run: EvalRun, spec: RunSpec, tasks_path: Path, fingerprint: str) -> RunSpec:
    """The recorded request of the run to resume, checked against what was given again."""
    given = {"solver": run.solver, "model": run.model, "k": run.k, "distractors": run.distractors,
             "with_plan": run.with_plan}
    recorded = {"solver": spec.solver, "model": spec.model, "k": spec.k, "distractors": spec.distractors,
                "with_plan": spec.with_plan}
    differ = [
        f"{key} {given[key]!r} (the run has {recorded[key]!r})"
        for key in given
        if given[key] is not None and given[key] != recorded[key]
    ]
    if run.task_filter or run.limit:
        differ.append("--tasks / --limit (a resumed run keeps its own selection)")
    if differ:
        raise TerminalError(
            f"run {spec.run_id} cannot be resumed with {', '.join(differ)}: resume it with the options it "
            "was started with (or leave them out), or start a new run."
        )
    if spec.db_fingerprint != fingerprint or spec.tasks_sha256 != _sha256(tasks_path):
        raise TerminalError(
            f"run {spec.run_id} was made with other data or tasks (database {spec.db_fingerprint}, tasks "
            f"{spec.tasks_sha256[:12]}; now {fingerprint}, {_sha256(tasks_path)[:12]}): its episodes would "
            "not compare with new ones. Start a new run."
        )
    return spec


def _new_spec(run: EvalRun, tasks: list[Task], tasks_path: Path, fingerprint: str, domain: str) -> RunSpec:
    """What a new run asks for (checked before anything is written)."""
    if not run.solver and run.solver_object is None:
        raise TerminalError("which solver? Pass --solver NAME (oracle, noop, ...), or --resume RUN_ID.")
    if run.solver_object is None:
        solver_entry(str(run.solver))  # an unknown name fails before anything is written
    if run.k is not None and run.k < 1:
        raise TerminalError(f"-k must be at least 1, got {run.k}.")
    if not 0 <= run.max_infra_share <= 1:
        raise TerminalError(f"--max-infra-share must be between 0 and 1, got {run.max_infra_share}.")
    if run.concurrency < 1 or run.retries < 0:
        raise TerminalError("--concurrency must be at least 1 and --retries at least 0.")
    if run.distractors is not None and run.distractors < 0:
        raise TerminalError(f"--distractors must be 0 or more, got {run.distractors}.")
    selected = select_tasks(tasks, run.task_filter, limit=run.limit)
    solver = run.solver_object.name if run.solver_object is not None else str(run.solver)
    return RunSpec(
        run_id=new_run_id(solver),
        domain=domain,
        solver=solver,
        model=run.model,
        k=run.k or 1,
        seed=run.seed,
        db=str(run.db_path),
        db_fingerprint=fingerprint,
        tasks_file=str(tasks_path),
        tasks_sha256=_sha256(tasks_path),
        task_ids=[t.id for t in selected],
        task_filter=run.task_filter,
        limit=run.limit,
        solver_config=SolverConfig(
            model=run.model, base_url=run.base_url, options=dict(run.options), limits=run.limits,
            seed=run.seed,
        ),
        retries=run.retries,
        max_infra_share=run.max_infra_share,
        distractors=run.distractors or 0,
        with_plan=bool(run.with_plan),
        stateforge_version=__version__,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _instructions(config: Any, now: Any, name: str, actor: Any = None, plan: tuple[str, ...] = ()) -> str:
    from stateforge.mcp.target import instructions  # the MCP server's wording (imported when asked for)

    return instructions(config, now, name, actor=actor, plan=plan)
