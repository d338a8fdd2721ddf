"""The `evaluate` flow: the stages of `stateforge.evaluate.STAGES`, each one a Prefect task.

    prepare -> episodes-1, episodes-2, ... (a batch of (task, trial) pairs each, on a thread pool)
            -> summarize (summary.json)

A task runs a batch of episodes, not one (Prefect's per-task overhead would dwarf an episode). The stages,
their order and their work live in `stateforge.evaluate.runner`; this flow only says how to run one, so the
CLI and the flow write the same run folders. The summary is also a markdown artifact; a run whose harness
failed (more infrastructure errors than allowed) fails the flow after writing everything.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from stateforge.errors import NotCleanError
from stateforge.evaluate import EvalRun, Limits, run_evaluation
from stateforge.evaluate.report import summary_markdown
from stateforge.flows.stage_task import as_task


@flow(name="evaluate", log_prints=True)
def evaluate(
    domain: str = "music",
    solver: str | None = None,
    model: str | None = None,
    k: int | None = None,
    db: str | None = None,
    tasks_file: str | None = None,
    tasks: str | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    resume: str | None = None,
    base_url: str | None = None,
    options: dict[str, str] | None = None,
    max_tool_calls: int = 200,
    max_turns: int = 30,
    timeout: float = 600.0,
    retries: int = 2,
    max_infra_share: float = 0.1,
    seed: int = 0,
    out: str | None = None,
    pool: str | None = None,
    shards: int | None = None,
    pool_timeout: float | None = None,
    distractors: int | None = None,
    with_plan: bool | None = None,
) -> dict[str, Any]:
    """Evaluate a solver on a built domain's tasks (default: artifacts/<domain>/<domain>.duckdb and its
    tasks.jsonl); the run goes to artifacts/<domain>/runs/<run_id>/. `solver` is required for a new run
    (oracle, noop, openai, ...); to resume one, pass `resume` (its id) and nothing else it was asked.
    With `pool`, the episodes run as `shards` flow runs of `evaluate-shard` on that Prefect process work
    pool (`stateforge.flows.evaluate_pool`), merged into the same run. `distractors` and `with_plan`: the
    ablations (tools of other packs in each toolkit; the task's reference plan told to the solver)."""
    run = EvalRun(
        domain, solver=solver, model=model, k=k, db=db,
        tasks_file=tasks_file, task_filter=tasks, limit=limit, concurrency=concurrency, resume=resume,
        base_url=base_url, options=dict(options or {}), retries=retries, max_infra_share=max_infra_share,
        seed=seed, out=out, distractors=distractors, with_plan=with_plan,
        limits=Limits(max_tool_calls=max_tool_calls, max_turns=max_turns, wall_seconds=timeout),
    )
    if pool:
        from stateforge.flows.evaluate_pool import evaluate_on_pool  # (it imports this module)

        summary = evaluate_on_pool(run, pool, shards, timeout=pool_timeout, say=get_run_logger().info)
    else:
        summary = run_evaluation(run, runner=as_task)
    create_markdown_artifact(
        summary_markdown(summary),
        key=f"evaluate-{summary['domain']}".lower().replace("_", "-"),
        description=f"Evaluation {summary['run_id']} of {summary['solver']} on {summary['domain']}",
    )
    get_run_logger().info(
        "run %s: %s episodes, %s passed, %s failed, %s infrastructure errors; Avg@%s %s -> %s",
        summary["run_id"], summary["episodes"], summary["passed"], summary["failed"],
        summary["infra_errors"], summary["k"], summary["avg_at_k"], summary["folder"],
    )
    if not summary["harness"]["ok"]:
        raise NotCleanError(f"run {summary['run_id']}: {summary['harness']['why']}")
    return summary
