"""Running episodes: one (task, trial) on a fresh episode, graded; infrastructure errors retried; batches of
them on a thread pool.

    record = run_episode(ctx, task, trial)                    # an EpisodeRecord: pass, fail or infra_error
    records = run_batch(ctx, [(task, 0), (task, 1)], concurrency=4, on_record=folder.append)

One attempt: `Episode.open` (a fresh copy of the base, the frozen clock), the solver's `solve` through an
`EpisodeHandle`, then `Grader.grade`. An attempt is an infrastructure error when the episode cannot be
opened, the solver raises or reports `infra_error`, a tool fails with an infrastructure error
(`ToolResult.infra_error`), or grading fails; it is then run again on a fresh episode, up to `retries`
times (not after a `TerminalError`, which would fail the same way). What remains is recorded as
`infra_error`, kept apart from the agent's passes and fails.

Episodes are independent (each its own copy and DuckDB instance), so a batch runs them on a thread pool;
records are handed to `on_record` in the batch's order, whatever order they finish in, so episodes.jsonl
reads the same for the same run.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateforge.episode import Episode
from stateforge.errors import TerminalError
from stateforge.evaluate.grader import Grade, Grader
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.records import EpisodeRecord, TaskFacts
from stateforge.evaluate.solver import (
    Assignment,
    EpisodeAborted,
    LimitReached,
    Limits,
    Solver,
    SolverOutcome,
)
from stateforge.evaluate.timing import Stopwatch
from stateforge.tasks import Task
from stateforge.tools import Toolkit
from stateforge.values import json_value

BACKOFF = 0.5
"""Seconds before the first retry of an infrastructure error (doubled for each further one)."""


@dataclass
class EpisodeContext:
    """What every episode of a run shares."""

    db_path: Path
    toolkit: Toolkit
    solver: Solver
    grader: Grader
    limits: Limits
    seed: int = 0
    retries: int = 2
    workdir: Path | None = None
    backoff: float = BACKOFF
    instructions: Callable[..., str] | None = None
    """The service's instructions for an actor (`instructions(actor, plan=...)`, cached, shared); None: the
    handle works them out."""
    distractors: int = 0
    """Tools of other packs added to each episode's toolkit (`distractors.py`), chosen per task."""
    with_plan: bool = False
    """Give the solver the task's reference plan in words (the assignment, the instructions, MCP's)."""

    def toolkit_of(self, task: Task) -> Toolkit:
        """The toolkit of `task`'s episodes: the run's, with its distractors when the run asks for them."""
        if not self.distractors:
            return self.toolkit
        from stateforge.evaluate.distractors import with_distractors

        return with_distractors(self.toolkit, self.distractors, seed=self.seed, key=task.id)


@dataclass
class Attempt:
    """One attempt's record, and whether an infrastructure error in it is worth another try."""

    record: EpisodeRecord
    retry: bool = False


@dataclass
class _Solved:
    outcome: SolverOutcome | None = None
    infra: str | None = None
    retry: bool = True
    details: dict[str, Any] = field(default_factory=dict)


def episode_seed(seed: int, task_id: str, trial: int) -> int:
    """The seed of one episode: stable for (run seed, task, trial), different across them."""
    return int(hashlib.sha256(f"{seed}:{task_id}:{trial}".encode()).hexdigest()[:8], 16)


def run_episode(ctx: EpisodeContext, task: Task, trial: int) -> EpisodeRecord:
    """Run (task, trial) until it is graded or its retries are spent; its record either way."""
    infra: list[str] = []
    attempts = 0
    while True:
        attempts += 1
        try:
            attempt = attempt_episode(ctx, task, trial)
        except Exception as exc:  # noqa: BLE001 - a harness bug is an infrastructure error of this episode
            attempt = Attempt(_infra_record(task, trial, f"the harness failed: {_error(exc)}",
                                            details={"traceback": _tail(exc)}), retry=True)
        record = attempt.record
        if record.outcome != "infra_error":
            break
        infra.append(record.reasons[0] if record.reasons else "infrastructure error")
        if not attempt.retry or attempts > ctx.retries:
            break
        time.sleep(ctx.backoff * 2 ** (attempts - 1))
    return record.model_copy(update={"attempts": attempts, "infra_errors": infra})


def attempt_episode(ctx: EpisodeContext, task: Task, trial: int) -> Attempt:
    """One attempt at (task, trial) on a fresh episode."""
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    started = time.perf_counter()
    watch = Stopwatch()
    try:
        with watch.part("open"):
            # every solver's episode acts as the task's actor (`env.actor`), bound here for all of them
            episode = Episode.open(ctx.db_path, toolkit=ctx.toolkit_of(task), workdir=ctx.workdir,
                                   actor=task.actor)
    except Exception as exc:  # noqa: BLE001 - the disk, the file, DuckDB: the harness's problem
        record = _infra_record(task, trial, f"the episode could not be opened: {_error(exc)}")
        return Attempt(record.model_copy(update={"started_at": started_at}), retry=True)
    try:
        with watch.part("solve"):
            solved = _solve(ctx, task, trial, episode)
        log = episode.log
        broken = next((r for r in log if r.infra_error), None)
        infra, retry = solved.infra, solved.retry
        if broken is not None:
            infra = f"tool {broken.tool} failed ({broken.error_kind}: infrastructure): {broken.error}"
            retry = True
        grade: Grade | None = None
        if infra is None:
            try:
                grade = ctx.grader.grade(task, episode, watch)
            except TerminalError as exc:
                infra, retry = f"grading failed: {exc}", False
            except Exception as exc:  # noqa: BLE001
                infra, retry = f"grading failed: {_error(exc)}", True
                solved.details["traceback"] = _tail(exc)
    finally:
        with watch.part("close"):  # (grading closed it already, unless it did not run)
            episode.close()
    outcome = solved.outcome or SolverOutcome()
    record = EpisodeRecord(
        task_id=task.id,
        trial=trial,
        outcome="infra_error" if infra is not None else ("pass" if grade and grade.passed else "fail"),
        reasons=[infra] if infra is not None else (grade.reasons if grade else []),
        failures=grade.failures if grade and infra is None else [],
        task=TaskFacts.of(task),
        stop_reason=outcome.stop_reason,
        declined=grade.declined if grade else None,
        messages=json_value(outcome.messages),
        tool_calls=[r.model_dump(mode="json") for r in log],
        n_tool_calls=len(log),
        turns=outcome.turns,
        prompt_tokens=outcome.prompt_tokens,
        completion_tokens=outcome.completion_tokens,
        cost_usd=round(outcome.cost_usd, 6),
        cost_known=outcome.cost_known,
        llm_calls=outcome.llm_calls,
        verifiers=[v.to_dict() for v in grade.verifiers] if grade else [],
        diff=grade.diff_summary if grade else {},
        mismatches=grade.mismatches if grade else 0,
        exact=grade.exact if grade else False,
        wall_seconds=round(time.perf_counter() - started, 4),
        timings=watch.wall,
        cpu_ms=watch.cpu,
        solver_details=json_value({**outcome.details, **solved.details}),
        started_at=started_at,
    )
    return Attempt(record, retry=retry)


def _solve(ctx: EpisodeContext, task: Task, trial: int, episode: Episode) -> _Solved:
    """Run the solver on the episode; what it returned, or the infrastructure error it met."""
    plan = tuple(task.reference_plan) if ctx.with_plan else ()
    handle = EpisodeHandle(episode, ctx.limits, instructions=ctx.instructions, plan=plan)
    assignment = Assignment(
        task_id=task.id,
        trial=trial,
        instruction=task.instruction,
        domain=task.domain,
        limits=ctx.limits,
        seed=episode_seed(ctx.seed, task.id, trial),
        plan=plan,
    )
    try:
        outcome = ctx.solver.solve(assignment, handle)
    except LimitReached as exc:
        return _Solved(SolverOutcome(stop_reason=exc.what, details={"limit": str(exc)}))
    except EpisodeAborted as exc:
        return _Solved(infra=str(exc))
    except TerminalError as exc:
        return _Solved(infra=f"the solver failed: {exc}", retry=False)
    except Exception as exc:  # noqa: BLE001 - a solver's crash is an infrastructure error, not a fail
        return _Solved(infra=f"the solver crashed: {_error(exc)}", details={"traceback": _tail(exc)})
    if not isinstance(outcome, SolverOutcome):
        return _Solved(
            infra=f"the solver returned {type(outcome).__name__}, not a SolverOutcome", retry=False
        )
    if handle.limit_hit and outcome.stop_reason == "done":
        outcome.stop_reason = handle.limit_hit
    if outcome.infra_error:
        return _Solved(outcome, infra=outcome.infra_error)
    return _Solved(outcome)


def _infra_record(
    task: Task, trial: int, reason: str, details: dict[str, Any] | None = None
) -> EpisodeRecord:
    return EpisodeRecord(
        task_id=task.id,
        trial=trial,
        outcome="infra_error",
        reasons=[reason],
        task=TaskFacts.of(task),
        solver_details=details or {},
    )


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _tail(exc: BaseException, lines: int = 12) -> str:
    """The last lines of the traceback (where it broke)."""
    text = "".join(traceback.format_exception(exc))
    return "\n".join(text.rstrip().splitlines()[-lines:])



def run_batch(
    ctx: EpisodeContext,
    pairs: list[tuple[Task, int]],
    *,
    concurrency: int = 1,
    on_record: Callable[[EpisodeRecord], None] | None = None,
) -> list[EpisodeRecord]:
    """Run `pairs` of (task, trial) with up to `concurrency` at once; records in the order of `pairs`.

    `on_record` gets each record in that order as soon as it and every one before it are done (so a
    record on disk is never ahead of an unfinished one). Ctrl-C cancels what has not started.
    """
    if concurrency <= 1:
        out = []
        for task, trial in pairs:
            out.append(run_episode(ctx, task, trial))
            if on_record is not None:
                on_record(out[-1])
        return out
    out: list[EpisodeRecord] = []
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="episode")
    try:
        futures: list[Future[EpisodeRecord]] = [pool.submit(run_episode, ctx, t, k) for t, k in pairs]
        for future in futures:  # in order: a record is handed on once every one before it is
            out.append(future.result())
            if on_record is not None:
                on_record(out[-1])
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return out
