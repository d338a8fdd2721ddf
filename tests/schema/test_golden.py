"""Golden files: each fixture dump parses to exactly its `.expected.json` (the CLI's `--json` output).

Regenerate after a deliberate change with `UPDATE_GOLDEN=1 pytest tests/schema/test_golden.py`, then
read the diff line by line before committing it: the golden files are the reviewed truth.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from stateforge.graph import schema_report
from stateforge.schema import parse_ddl
from tests.schema.helpers import FIXTURES, create_in_duckdb

DUMPS = {
    "postgres_dump.sql": "postgres",
    "mysql_dump.sql": "mysql",
    "sqlite_schema.sql": "sqlite",
    "oracle_script.sql": "oracle",
    "duckdb_schema.sql": "duckdb",
    "rails_structure.sql": "postgres",
    "pg_partitioned.sql": "postgres",
    "pg_namespaces.sql": "postgres",
    "tsql_script.sql": "tsql",
}


@pytest.fixture(autouse=True)
def _in_fixtures(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(FIXTURES)  # includes are found relative to the bare file names used as sources


def report_of(path: Path) -> dict:
    # The source is the bare file name, so the report does not depend on where the checkout lives.
    return schema_report(parse_ddl(path.read_text(), source=path.name))


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_dump_matches_golden(name: str) -> None:
    path = FIXTURES / name
    expected_path = path.with_suffix(".expected.json")
    report = report_of(path)
    if os.environ.get("UPDATE_GOLDEN"):
        expected_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    expected = json.loads(expected_path.read_text())
    assert report == expected
    assert report["dialect"] == DUMPS[name], "the dialect is detected from the dump itself"


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_dump_tables_are_valid_duckdb(name: str) -> None:
    """Types, defaults and CHECKs are SQL DuckDB accepts: create every table and insert nothing wrong."""
    schema = parse_ddl((FIXTURES / name).read_text(), source=name)
    con = create_in_duckdb(schema)
    created = {row[0].lower() for row in con.sql("SELECT table_name FROM duckdb_tables()").fetchall()}
    assert created == {t.name.lower() for t in schema.tables}


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_report_has_the_keys_the_cli_promises(name: str) -> None:
    report = report_of(FIXTURES / name)
    for key in (
        "tables",
        "fill_order",
        "cycles",
        "cycle_details",
        "deferred_foreign_keys",
        "skipped_statements",
        "notes",
    ):
        assert key in report
    table = report["tables"][0]
    assert {"name", "columns", "primary_key", "unique", "foreign_keys", "checks"} <= set(table)
    assert {"name", "type", "nullable"} <= set(table["columns"][0])
    assert all(
        isinstance(cycle, list) and all(isinstance(t, str) for t in cycle) for cycle in report["cycles"]
    )
