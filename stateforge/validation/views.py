"""The audit as views inside the file, generated from the model, for anyone with a DuckDB CLI.

    SELECT * FROM stateforge.violations WHERE count > 0;  -- every violated constraint
    SELECT * FROM stateforge.fk_orphans;                   -- one row per foreign key
    SELECT * FROM stateforge.table_stats;                  -- row counts

The views are plain SQL over `main."<table>"` (no Python functions), built from the same `CheckQuery`
objects `stateforge.validation.audit.audit()` runs, so they count exactly what the audit counts. Column names
map
to the audit's `Violation` fields: kind = check, table_name = table, constraint_name = constraint.
"""

from __future__ import annotations

import duckdb

from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Schema
from stateforge.store.sql import METADATA_SCHEMA, meta_ref, quote_ident, quote_literal
from stateforge.validation.checks import CheckQuery, build_checks, row_count_sql

VIEWS = ("table_stats", "fk_orphans", "violations")


def _list_literal(values: tuple[str, ...]) -> str:
    return "[" + ", ".join(quote_literal(v) for v in values) + "]::VARCHAR[]"


def _union(parts: list[str], empty: str) -> str:
    return "\nUNION ALL\n".join(parts) if parts else f"{empty} WHERE false"


def violations_sql(checks: list[CheckQuery]) -> str:
    """One row per check: kind, table_name, constraint_name, columns, count."""
    parts = [
        f"SELECT {quote_literal(q.kind)} AS kind, {quote_literal(q.table)} AS table_name, "
        f"{quote_literal(q.constraint)} AS constraint_name, {_list_literal(q.columns)} AS columns, "
        f"count(*) AS count FROM ({q.offenders}) AS o"
        for q in checks
    ]
    empty = (
        "SELECT NULL::VARCHAR AS kind, NULL::VARCHAR AS table_name, NULL::VARCHAR AS constraint_name, "
        "NULL::VARCHAR[] AS columns, NULL::BIGINT AS count"
    )
    return _union(parts, empty)


def fk_orphans_sql(checks: list[CheckQuery]) -> str:
    """One row per foreign key: table_name, constraint_name, columns, ref_table, ref_columns, orphan_count."""
    parts = [
        f"SELECT {quote_literal(q.table)} AS table_name, {quote_literal(q.constraint)} AS constraint_name, "
        f"{_list_literal(q.columns)} AS columns, {quote_literal(q.ref_table or '')} AS ref_table, "
        f"{_list_literal(q.ref_columns)} AS ref_columns, count(*) AS orphan_count FROM ({q.offenders}) AS o"
        for q in checks
        if q.kind == "foreign_key"
    ]
    empty = (
        "SELECT NULL::VARCHAR AS table_name, NULL::VARCHAR AS constraint_name, NULL::VARCHAR[] AS columns, "
        "NULL::VARCHAR AS ref_table, NULL::VARCHAR[] AS ref_columns, NULL::BIGINT AS orphan_count"
    )
    return _union(parts, empty)


def install_views(con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan) -> list[str]:
    """(Re)create the audit views in the `stateforge` schema; returns their qualified names.

    The SQL is generated from the model at the time of the call: rerun it after the model changes. The
    views are created unbound (`WITH (DEFER_BINDING)`): DuckDB checks their syntax now and binds them when
    a query first reads them, so a build does not pay for binding the ~270 checks of `violations` (tens
    of ms) that nobody may read; the tests read every view of every shipped pack.
    """
    checks = build_checks(schema)
    order = [t for t in plan.order if schema.has_table(t)]
    order += [t for t in schema.table_names if t not in order]
    bodies = {
        "table_stats": row_count_sql(order),
        "fk_orphans": fk_orphans_sql(checks),
        "violations": violations_sql(checks),
    }
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(METADATA_SCHEMA)}")
    for name in VIEWS:
        con.execute(f"CREATE OR REPLACE VIEW {meta_ref(name)} WITH (DEFER_BINDING) AS\n{bodies[name]}")
    return [f"{METADATA_SCHEMA}.{name}" for name in VIEWS]
