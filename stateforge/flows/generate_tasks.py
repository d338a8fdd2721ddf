"""The `generate-tasks` flow: the stages of `stateforge.tasks.STAGES`, each one a Prefect task.

    prepare -> generate-1, generate-2, ... (rounds of attempts until enough tasks pass the gate)
            -> write (tasks.jsonl) -> report (generation_report.json)

The stages, their order and their work live in `stateforge.tasks.runner`; this flow only says how to run one
(as a task named after it), so the CLI and the flow write byte-identical task files and equal reports. The
report is also a markdown artifact; a run that kept fewer tasks than asked fails after writing them.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from stateforge.errors import NotCleanError
from stateforge.flows.stage_task import as_task
from stateforge.tasks.llm.options import generator_backend
from stateforge.tasks.report import report_markdown
from stateforge.tasks.runner import GenerationRun, run_generation


@flow(name="generate-tasks", log_prints=True)
def generate_tasks(
    domain: str = "music",
    db: str | None = None,
    n: int = 150,
    seed: int = 0,
    backend: str | None = None,
    out: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    no_cache: bool = False,
    max_turns: int | None = None,
    max_tool_calls: int | None = None,
    max_tokens: int | None = None,
) -> dict[str, Any]:
    """Generate tasks on a built domain (default: artifacts/<domain>/<domain>.duckdb) that pass the gate;
    write tasks.jsonl and generation_report.json beside it (or into `out`).

    Offline recipes unless an LLM is configured (`backend="openai"` and `model`, or OPENAI_BASE_URL and
    STATEFORGE_LLM_MODEL in the environment): then an LLM agent proposes the tasks, within the limits
    (`max_turns`, `max_tool_calls`, `max_tokens` per task's conversation).
    """
    chosen, options = generator_backend(
        backend, model=model, base_url=base_url, no_cache=no_cache, max_turns=max_turns,
        max_tool_calls=max_tool_calls, max_tokens=max_tokens,
    )
    run = GenerationRun(domain, db=db, n=n, seed=seed, backend=chosen, out=out, generator_options=options)
    report = run_generation(run, runner=as_task)
    create_markdown_artifact(
        report_markdown(report),
        key=f"tasks-{report['domain']}".lower().replace("_", "-"),
        description=f"Task generation report of {report['domain']}",
    )
    get_run_logger().info(
        "%s of %s tasks kept (%s infeasible) -> %s", report["kept"], n, report["infeasible"], run.path
    )
    if not report["target_met"]:
        raise NotCleanError(report["why"])
    return report
