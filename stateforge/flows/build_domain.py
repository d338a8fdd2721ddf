"""The `build-domain` flow: the stages of `stateforge.build.STAGES`, each one a Prefect task.

    parse-and-plan -> open-database -> fill-<table> (each table, in plan order) -> second-pass-and-rules
                   -> audit -> publish

The stages, their order and their work live in `stateforge.build`; this flow only says how to run one
(as a task named after it), so the CLI and the flow build byte-identical databases and equal reports.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact

from stateforge.build import BuildRun, report_markdown, run_build
from stateforge.flows.stage_task import as_task
from stateforge.llm.settings import llm_settings


@flow(name="build-domain", log_prints=True)
def build_domain(
    domain: str = "music",
    scale: float = 1.0,
    seed: int | None = None,
    rows: int | None = None,
    out: str | None = None,
    dialect: str | None = None,
    resume: bool = False,
    backend: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    whole_rows: bool = False,
    no_cache: bool = False,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> dict[str, Any]:
    """Build a domain pack (or a bare DDL file) into a fully consistent DuckDB database.

    Offline unless an LLM is configured (`backend="openai"` and `model`, or OPENAI_BASE_URL and
    STATEFORGE_LLM_MODEL in the environment): then the LLM writes the columns that need meaning.
    """
    llm = llm_settings(
        backend=backend, model=model, base_url=base_url, whole_rows=whole_rows, no_cache=no_cache
    )
    run = BuildRun(
        domain, dialect=dialect, scale=scale, rows=rows, seed=seed, out=out, resume=resume, llm=llm,
        drop_missing_references=drop_missing_references, skip_missing_includes=skip_missing_includes,
        ignore_seed_inserts=ignore_seed_inserts,
    )
    report = run_build(run, runner=as_task)
    create_markdown_artifact(
        report_markdown(report),
        key=f"build-{report['domain']}".lower().replace("_", "-"),
        description=f"Build report of {report['domain']}",
    )
    get_run_logger().info(
        "built %s: %s rows in %s tables", run.path, report["totals"]["rows"], report["totals"]["tables"]
    )
    return report
