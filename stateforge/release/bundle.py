"""Writing a bundle's files from a build, its tasks and its baseline runs (everything but the card and the
manifest, which `stateforge.release.card` and `stateforge.release.make` add).

    <bundle>/
      <domain>.duckdb              the database, rewritten reproducibly (`database`)
      data/<table>.parquet         one file per table, in key order (`parquet`)
      tasks.jsonl                  the tasks, and their JSON Schema: task.schema.json
      data/tasks.parquet           the same tasks with nested fields as JSON text (`flat_tasks`)
      tools.json                   the MCP `tools/list` of the domain's tools
      source/schema.sql            the DDL (and source/domain.yaml when the pack has one)
      reports/build_report.json    the build and generation reports, and one summary per baseline
      reports/generation_report.json
      reports/baseline-<solver>.json
      report.html                  the audit report of the database (`stateforge report`)
      README.md, manifest.json

Reports leave out what measures the run (`files.stable`) and name files relative to the bundle.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from stateforge.domain import DomainPack
from stateforge.graph import FillPlan
from stateforge.release.database import write_database
from stateforge.release.files import ReleaseError, stable, write_json
from stateforge.release.parquet import ParquetTable, export_tables, write_parquet
from stateforge.report import write_report
from stateforge.schema.model import Schema
from stateforge.store import connect
from stateforge.tasks.model import SCHEMA_FILE
from stateforge.tools import Toolkit
from stateforge.values import dumps

TASKS = "tasks.jsonl"
FLAT_TASKS = "data/tasks.parquet"
FLAT = (
    "reference_calls", "reference_plan", "expected_diff", "policy", "verifiers", "provenance", "references",
)
"""The task fields `flat_tasks` writes as JSON text: their shapes differ from task to task (tool arguments,
diffs of other tables), which column-typed readers (Hugging Face `datasets`, which reads one format per
folder: Parquet here) cannot infer."""
FLAT_SCHEMA = pa.schema(
    [("id", pa.string()), ("domain", pa.string()), ("db_fingerprint", pa.string()),
     ("instruction", pa.string()), ("capabilities", pa.list_(pa.string())), ("difficulty", pa.string()),
     ("feasible", pa.bool_()), *((name, pa.string()) for name in FLAT)]
)
TASK_SCHEMA = "task.schema.json"
TOOLS = "tools.json"
REPORT_HTML = "report.html"
BUILD_REPORT = "reports/build_report.json"
GENERATION_REPORT = "reports/generation_report.json"
SOURCE = "source"
RUN_ONLY = frozenset({"run_id", "folder", "timing", "database", "tasks_file", "file", "report"})
"""Keys of the top of a report that name the run or its absolute paths, not the result."""


def baseline_file(solver: str) -> str:
    """Where a baseline's summary goes in the bundle."""
    return f"reports/baseline-{solver}.json"


@dataclass
class Written:
    """What `write_bundle` wrote."""

    database: str
    table_hashes: dict[str, str]
    parquet: dict[str, ParquetTable]
    ddl: str
    domain_yaml: str | None
    reports: dict[str, Any] = field(default_factory=dict)
    """The stable reports, by bundle path."""


def relocate(report: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A report without its run-only top keys (`RUN_ONLY`), with `names` (bundle paths) added in their place
    and what measures the run taken out (`files.stable`)."""
    kept = {k: v for k, v in report.items() if k not in RUN_ONLY}
    return stable({**kept, **names})


def write_bundle(
    folder: Path,
    *,
    pack: DomainPack,
    schema: Schema,
    plan: FillPlan,
    built_db: Path,
    tasks_file: Path,
    toolkit: Toolkit,
    build_report: dict[str, Any],
    generation_report: dict[str, Any],
    baselines: dict[str, dict[str, Any]],
) -> Written:
    """Write the bundle's data files, reports and sources into `folder` (see the module docstring)."""
    name = f"{pack.name}.duckdb"
    stable_build = relocate(build_report, {"database": name})
    database = folder / name
    hashes = write_database(built_db, schema, plan, database, report=stable_build)
    with connect(database, read_only=True) as con:
        parquet = export_tables(con, schema, plan, folder)
    shutil.copyfile(tasks_file, folder / TASKS)
    write_parquet(flat_tasks(tasks_file), folder / FLAT_TASKS)
    shutil.copyfile(SCHEMA_FILE, folder / TASK_SCHEMA)
    write_json(folder / TOOLS, {"tools": toolkit.mcp_tools()})
    ddl, domain_yaml = _sources(folder, pack)
    reports = {
        BUILD_REPORT: stable_build,
        GENERATION_REPORT: relocate(generation_report, {"database": name, "tasks_file": TASKS}),
    }
    for solver, summary in sorted(baselines.items()):
        reports[baseline_file(solver)] = relocate(summary, {"database": name, "tasks_file": TASKS})
    for path, data in reports.items():
        write_json(folder / path, data)
    write_report(database, folder / REPORT_HTML)
    return Written(name, hashes, parquet, ddl, domain_yaml, reports)


def flat_tasks(tasks_file: Path) -> pa.Table:
    """The tasks of a tasks.jsonl as one Arrow table, a row a task in file order: every field of `FLAT` as
    canonical JSON text, the others (id, instruction, capabilities, difficulty, feasible, ...) as they are."""
    rows = []
    for line in tasks_file.read_text(encoding="utf-8").splitlines():
        if line.strip():
            task = json.loads(line)
            rows.append({k: dumps(task.get(k)) if k in FLAT else task.get(k) for k in FLAT_SCHEMA.names})
    return pa.Table.from_pylist(rows, schema=FLAT_SCHEMA)


def _sources(folder: Path, pack: DomainPack) -> tuple[str, str | None]:
    """Copy the DDL (and domain.yaml) into `source/`; their bundle paths."""
    from stateforge.domain.loader import CONFIG_FILE, DDL_FILE

    (folder / SOURCE).mkdir(parents=True, exist_ok=True)
    ddl = f"{SOURCE}/{DDL_FILE}"
    if pack.ddl_path is None:
        raise ReleaseError(f"pack {pack.name} has no DDL file: a release needs its DDL on disk.")
    shutil.copyfile(pack.ddl_path, folder / ddl)
    domain_yaml = None
    if pack.root is not None and (pack.root / CONFIG_FILE).is_file():
        domain_yaml = f"{SOURCE}/{CONFIG_FILE}"
        shutil.copyfile(pack.root / CONFIG_FILE, folder / domain_yaml)
    return ddl, domain_yaml
