"""The `build-domain` flow: parse, plan, fill (a task per table), rules, audit, publish.

Every task calls one stage of `pipeline.build`; the logic lives there, so the CLI and this flow build
byte-identical databases.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from pipeline import build as stages
from pipeline.llm.fill import LLMFill
from pipeline.llm.settings import LLMSettings, llm_settings
from pipeline.report import build_report, report_markdown

# Results stay in memory: the flow's products are the database and its report, not Prefect results.
_task = task(cache_policy=NO_CACHE, persist_result=False)


@_task(name="parse-and-plan")
def parse_and_plan(
    domain: str,
    dialect: str | None,
    scale: float,
    rows: int | None,
    seed: int | None,
    out: str | None,
    llm: LLMSettings | None,
    drop_missing_references: bool = False,
) -> stages.Build:
    return stages.prepare(
        domain, dialect=dialect, scale=scale, rows=rows, seed=seed, out=out, llm=llm,
        drop_missing_references=drop_missing_references,
    )


@_task(name="open-database")
def open_database(build: stages.Build, resume: bool) -> list[str]:
    return stages.open_partial(build, resume=resume)


@_task(name="fill-table", task_run_name="fill-{table}")
def fill(build: stages.Build, table: str, llm: LLMFill | None) -> Any:
    return stages.fill_one(build, table, llm=llm)


@_task(name="second-pass-and-rules")
def rules(build: stages.Build) -> dict[str, Any]:
    return stages.finish_fill(build)


@_task(name="audit")
def audit(build: stages.Build) -> Any:
    return stages.audit_partial(build)


@_task(name="publish")
def publish(build: stages.Build, report: dict[str, Any]) -> str:
    return str(stages.publish(build, report))


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
) -> dict[str, Any]:
    """Build a domain pack (or a bare DDL file) into a fully consistent DuckDB database.

    Offline unless an LLM is configured (`backend="openai"` and `model`, or OPENAI_BASE_URL and
    STATEFORGE_LLM_MODEL in the environment): then the LLM writes the columns that need meaning.
    """
    logger = get_run_logger()
    llm = llm_settings(
        backend=backend, model=model, base_url=base_url, whole_rows=whole_rows, no_cache=no_cache
    )
    build = parse_and_plan(domain, dialect, scale, rows, seed, out, llm, drop_missing_references)
    done = set(open_database(build, resume))
    enrich = stages.open_llm(build)
    try:
        for table in build.plan.order:
            if table not in done:
                fill(build, table, enrich)
    finally:
        if enrich is not None:
            enrich.close()
    finish = rules(build)
    checked = audit(build)
    report = build_report(build, finish, checked, resumed=sorted(done), llm=enrich)
    path = publish(build, report)
    create_markdown_artifact(
        report_markdown(report),
        key=f"build-{build.name}".lower().replace("_", "-"),
        description=f"Build report of {build.name}",
    )
    logger.info("built %s: %s rows in %s tables", path, report["totals"]["rows"], len(build.rows))
    return report
