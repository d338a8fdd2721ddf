"""Everything the audit report shows, read from one database file (opened read-only).

    profile = collect(Path("artifacts/music/music.duckdb"))     # DatabaseProfile

Reads the model (`stateforge.model`), what the build recorded (`stateforge.build_meta`, and
`stateforge.build_report` when stored), runs the audit (`stateforge.validation.audit`) and the pack's rules
(`stateforge.report.rules`), then profiles every table: its columns (`stateforge.report.columns`) and the
fan-out of its foreign keys (`stateforge.report.fanout`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb

from stateforge.errors import StoreError
from stateforge.report.columns import profile_columns
from stateforge.report.fanout import fanout
from stateforge.report.model import DatabaseProfile, RuleResult, TableProfile
from stateforge.report.rules import check_rules, stored_config
from stateforge.schema.model import Schema
from stateforge.store import connect
from stateforge.store.build_meta import read_build_meta
from stateforge.store.metadata import read_model
from stateforge.validation.audit import audit

SAMPLE_ROWS = 200_000
"""Tables above this many rows have their distributions drawn from a sample of about this many."""


def _build_report(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'stateforge' AND table_name = 'build_report'"
    ).fetchall()
    if not found[0][0]:
        return None
    rows = con.execute("SELECT report FROM stateforge.build_report").fetchall()
    return json.loads(rows[0][0]) if rows else None


def _model_version(con: duckdb.DuckDBPyConnection) -> str | None:
    rows = con.execute("SELECT stateforge_version FROM stateforge.model").fetchall()
    return rows[0][0] if rows else None


def _table_profiles(con: duckdb.DuckDBPyConnection, schema: Schema, counts: dict[str, int],
                    checks: list[dict[str, Any]], build: dict[str, Any] | None,
                    sample_rows: int) -> list[TableProfile]:
    built = {t.get("table"): t for t in (build or {}).get("tables", [])}
    incoming: dict[str, list[str]] = {}
    for t in schema.tables:
        for fk in t.foreign_keys:
            incoming.setdefault(fk.ref_table.lower(), []).append(f"{t.name}({', '.join(fk.columns)})")
    out = []
    for table in schema.tables:
        rows = counts[table.name]
        columns, sampled = profile_columns(con, table, rows=rows, sample_rows=sample_rows)
        mine = [c for c in checks if c["table"] == table.name]
        orphans = {tuple(c["columns"]): c["count"] for c in mine if c["check"] == "foreign_key"}
        fanouts = [fanout(con, table, fk, orphans=orphans.get(tuple(fk.columns), 0),
                          parent=schema.table(fk.ref_table))
                   for fk in table.foreign_keys if schema.has_table(fk.ref_table)]
        out.append(TableProfile(
            name=table.name, description=table.description, rows=rows, primary_key=tuple(table.primary_key),
            columns=columns, fanouts=fanouts, referenced_by=incoming.get(table.name.lower(), []),
            violations=mine, sampled=sampled, build=built.get(table.name),
        ))
    return out


def collect(db_path: str | Path, *, sample_rows: int = SAMPLE_ROWS) -> DatabaseProfile:
    """The report's data for the database at `db_path` (see the module docstring)."""
    if sample_rows < 1:
        raise StoreError(f"--sample-rows must be at least 1, got {sample_rows}.")
    path = Path(db_path)
    with connect(path, read_only=True) as con:
        schema, _ = read_model(con)
        meta = read_build_meta(con)
        inputs = json.loads(meta["inputs"]) if "inputs" in meta else None
        build = _build_report(con)
        checked = audit(con, schema, sample=5)
        report = checked.to_dict()
        report.pop("seconds", None)  # timings would make the same file give different bytes
        config, problem = stored_config(inputs)
        rules: list[RuleResult] = check_rules(con, config, build, schema) if config is not None else []
        tables = _table_profiles(con, schema, checked.tables, report["checks"], build, sample_rows)
        version = _model_version(con)
    return DatabaseProfile(
        file=path.name, size_bytes=path.stat().st_size, domain=(inputs or {}).get("domain"),
        tables=tables, audit=report, rules=rules, inputs=inputs, build=build, now=meta.get("now"),
        sample_rows=sample_rows, stateforge_version=version, notes=[problem] if problem else [],
    )
