"""Scale-out: an evaluation's (task, trial) pairs as shards run by the workers of a Prefect work pool.

    summary = evaluate_on_pool(EvalRun("music", solver="oracle", k=3), pool="eval", shards=4)

    prepare (here: checks, the run folder)  ->  deployment `evaluate-shard/<pool>` on the process pool
      ->  one flow run per shard (workers anywhere run `evaluate_shard`: episodes into the run folder)
      ->  wait  ->  merge the shards' episodes by run id  ->  summarize (summary.json, report.html)

Workers: `prefect worker start --pool <pool> --type process` on each machine, with Stateforge installed
and the run folder, database and tasks file at the same paths (docs/evaluate.md, "Scale-out"). The pool is
created (type `process`) when missing; the deployment is (re)applied on every run, and it runs the shard
flow by its module path (`stateforge.flows.evaluate_pool.evaluate_shard`), so workers import it from their own
installation: no code is shipped.
"""

from __future__ import annotations

import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefect import flow
from prefect.client.orchestration import get_client
from prefect.client.schemas.actions import WorkPoolCreate
from prefect.client.schemas.filters import WorkerFilter, WorkerFilterStatus
from prefect.deployments import run_deployment
from prefect.exceptions import ObjectNotFound
from prefect.types.entrypoint import EntrypointType

from stateforge.errors import TerminalError
from stateforge.evaluate.rundir import EPISODES_FILE, SHARDS_DIR
from stateforge.evaluate.runner import EvalRun, prepare, release, summarize_run
from stateforge.evaluate.shards import merge_shards, run_shard, split, workers
from stateforge.evaluate.solver import close_solver
from stateforge.flows.stage_task import as_task

SHARD_FLOW = "evaluate-shard"
POLL_SECONDS = 2.0


@flow(name=SHARD_FLOW, log_prints=True, persist_result=False)
def evaluate_shard(run_dir: str, shard: str, pairs: list[list[Any]], concurrency: int = 4) -> dict[str, Any]:
    """Run one shard of an evaluation on this worker: `pairs` ([task id, trial]) of the run in `run_dir`,
    episodes into `run_dir/shards/<shard>/episodes.jsonl` (batches of episodes as Prefect tasks)."""
    return run_shard(run_dir, shard, pairs, concurrency=concurrency, runner=as_task)


def ensure_pool(pool: str) -> bool:
    """Create the process work pool `pool` unless it exists; True when it was created."""
    from prefect.workers.process import ProcessWorker

    with get_client(sync_client=True) as client:
        try:
            found = client.read_work_pool(pool)
        except ObjectNotFound:
            template = ProcessWorker.get_default_base_job_template()
            client.create_work_pool(WorkPoolCreate(name=pool, type="process", base_job_template=template))
            return True
    if found.type != "process":
        raise TerminalError(
            f"work pool {pool!r} is of type {found.type!r}: the evaluation's shards run on a `process` pool "
            "(workers started with `prefect worker start --pool NAME --type process`). Use another name."
        )
    return False


def deploy_shards(pool: str) -> str:
    """Apply the deployment `evaluate-shard/<pool>` on the pool; return its name."""
    deployment = evaluate_shard.to_deployment(name=pool, entrypoint_type=EntrypointType.MODULE_PATH)
    deployment.apply(work_pool_name=pool)
    return f"{SHARD_FLOW}/{pool}"


def online_workers(pool: str) -> list[str]:
    """The names of the workers polling `pool` now."""
    online = WorkerFilter(status=WorkerFilterStatus(any_=["ONLINE"]))
    with get_client(sync_client=True) as client:
        return [w.name for w in client.read_workers_for_work_pool(pool, worker_filter=online)]


def _lines(path: Path) -> int:
    return sum(1 for _ in path.open(encoding="utf-8")) if path.is_file() else 0


def evaluate_on_pool(
    run: EvalRun,
    pool: str,
    shards: int | None = None,
    *,
    timeout: float | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run an evaluation as shards on the work pool `pool` and merge them into one run; the summary.

    `shards`: how many (default: the workers online, at least 2). Run here: the checks and the run folder
    (`prepare`: a new run, or the one `run.resume` names, into which what the shards of an interrupted
    session wrote is merged first), then the merge and the summary. A shard that fails or is still running
    after `timeout` seconds makes the harness fail (summary `harness.why`); its finished episodes are kept,
    and `--resume RUN_ID --pool P` runs the rest."""
    say = say or (lambda text: print(text, file=sys.stderr))
    try:
        prepare(run)
        assert run.folder is not None and run.context is not None
        ctx, run.context = run.context, None  # episodes run on the workers: free the solver and the grader
        try:
            close_solver(ctx.solver)
        finally:
            ctx.grader.close()
        folder = run.folder
        pending = [(t.id, trial) for t, trial in run.pending]  # prepare merged what earlier shards left
        ensure_pool(pool)
        online = online_workers(pool)
        if not online:
            say(f"no worker polls work pool {pool!r} yet: start one on each machine with `prefect worker "
                f"start --pool {pool} --type process`; the shards wait for them.")
        parts = split(pending, shards or max(2, len(online))) if pending else []
        deployment = deploy_shards(pool) if parts else None
        session = secrets.token_hex(2)
        submitted = []
        for i, pairs in enumerate(parts, start=1):
            name = f"s{session}-{i}"
            flow_run = run_deployment(
                deployment, timeout=0, flow_run_name=f"{folder.run_id}-{name}",
                parameters={"run_dir": str(folder.path), "shard": name, "pairs": [list(p) for p in pairs],
                            "concurrency": run.concurrency},
            )
            submitted.append((name, flow_run.id, len(pairs)))
        if submitted:
            say(f"run {folder.run_id}: {len(pending)} episodes in {len(submitted)} shards on work pool "
                f"{pool!r} ({len(online)} workers online)")
        states, messages = _wait(run, folder.path, submitted, len(pending), timeout)
        run.done = merge_shards(folder)
        by_shard = {w["shard"]: w for w in workers(folder)}
        run.notes["shards"] = [
            {"shard": name, "flow_run": str(flow_run_id), "pairs": n, "state": states[name],
             "worker": by_shard.get(name, {}).get("worker"), "host": by_shard.get(name, {}).get("host"),
             "episodes_run": by_shard.get(name, {}).get("episodes_run")}
            for name, flow_run_id, n in submitted
        ]
        run.notes["pool"] = pool
        for name, flow_run_id, _n in submitted:
            if states[name] != "COMPLETED":
                why = f" ({messages[name]})" if messages.get(name) else ""
                run.problems.append(
                    f"shard {name} (flow run {flow_run_id}) ended {states[name]}{why}: its finished episodes "
                    f"are kept; run the rest with --resume {folder.run_id} --pool {pool}"
                )
        summarize_run(run)
    finally:
        release(run)
    assert run.summary is not None
    return run.summary


def _wait(run: EvalRun, folder: Path, submitted: list[tuple[str, Any, int]], total: int,
          timeout: float | None) -> tuple[dict[str, str], dict[str, str]]:
    """Poll the shards' flow runs until each is in a final state (or `timeout` passes); their state names
    and messages (a failed shard's: the worker's error). Progress (`run.on_record`) counts the episodes the
    shards have written so far."""
    states = {name: "SCHEDULED" for name, _id, _n in submitted}
    messages: dict[str, str] = {}
    deadline = None if timeout is None else time.monotonic() + timeout
    with get_client(sync_client=True) as client:
        while True:
            for name, flow_run_id, _n in submitted:
                state = client.read_flow_run(flow_run_id).state
                if state is not None:
                    states[name] = state.type.value
                    messages[name] = state.message or ""
            if run.on_record is not None:
                done = sum(_lines(folder / SHARDS_DIR / name / EPISODES_FILE) for name, _i, _n in submitted)
                run.on_record(None, done, total)
            if all(_final(s) for s in states.values()):
                return states, messages
            if deadline is not None and time.monotonic() > deadline:
                late = {n: s if _final(s) else f"still {s} after {timeout:.0f} s" for n, s in states.items()}
                return late, messages
            time.sleep(POLL_SECONDS)


def _final(state: str) -> bool:
    return state in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")
