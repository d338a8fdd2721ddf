"""The model inside the database file: metadata tables in the `stateforge` schema, and reading them back.

Someone with only the DuckDB CLI sees the whole model with plain queries (`FROM stateforge.foreign_keys`);
`stateforge.model` holds the exact JSON of `Schema.to_dict()` and `FillPlan.to_dict()`, which
`read_model` turns back into objects. The other tables are flat views of the same JSON, for people.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

import stateforge
from stateforge.errors import StoreError
from stateforge.graph.plan import Cycle, DeferredKey, FillPlan
from stateforge.schema.model import ForeignKey, Schema
from stateforge.store.sql import METADATA_SCHEMA, meta_ref, quote_ident, quote_literal, sequence_name

FORMAT_VERSION = 1
"""Bumped when the metadata tables change incompatibly; `read_model` refuses newer formats."""

_ARROW = {
    "VARCHAR": pa.string(),
    "JSON": pa.string(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "BOOLEAN": pa.bool_(),
    "VARCHAR[]": pa.list_(pa.string()),
}

# name -> (comment, [(column, DuckDB type)])
METADATA_TABLES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "model": ("One row: the full model as JSON (Schema.to_dict, FillPlan.to_dict) and its format version.", [
        ("format_version", "INTEGER"), ("stateforge_version", "VARCHAR"), ("dialect", "VARCHAR"),
        ("source", "VARCHAR"), ("schema_json", "JSON"), ("plan_json", "JSON"),
    ]),
    "tables": ("One row a table: its DuckDB schema and name there, DDL position, fill position and "
               "generation, cycle membership. table_name is the name used everywhere else: bare in main, "
               "schema.table in any other schema.", [
        ("table_name", "VARCHAR"), ("ordinal", "INTEGER"), ("description", "VARCHAR"),
        ("fill_position", "INTEGER"), ("generation", "INTEGER"), ("cycle", "INTEGER"),
        ("primary_key", "VARCHAR[]"), ("source_line", "INTEGER"), ("schema_name", "VARCHAR"),
        ("local_name", "VARCHAR"),
    ]),
    "columns": ("One row a column, as the DDL defines it (identity columns are fed by sequence_name).", [
        ("table_name", "VARCHAR"), ("column_name", "VARCHAR"), ("ordinal", "INTEGER"), ("type", "VARCHAR"),
        ("nullable", "BOOLEAN"), ("default_sql", "VARCHAR"), ("identity", "BOOLEAN"),
        ("sequence_name", "VARCHAR"), ("allowed_values", "VARCHAR[]"), ("description", "VARCHAR"),
    ]),
    "foreign_keys": ("One row a foreign key. Not declared to DuckDB: audited (see stateforge.fk_orphans).", [
        ("table_name", "VARCHAR"), ("constraint_name", "VARCHAR"), ("columns", "VARCHAR[]"),
        ("ref_table", "VARCHAR"), ("ref_columns", "VARCHAR[]"), ("on_delete", "VARCHAR"),
        ("on_update", "VARCHAR"), ("deferred", "BOOLEAN"), ("unbroken_cycle", "BOOLEAN"),
    ]),
    "unique_keys": ("One row a PRIMARY KEY or UNIQUE constraint.", [
        ("table_name", "VARCHAR"), ("kind", "VARCHAR"), ("columns", "VARCHAR[]"),
    ]),
    "checks": ("One row a CHECK constraint, as DuckDB SQL.", [
        ("table_name", "VARCHAR"), ("constraint_name", "VARCHAR"), ("sql", "VARCHAR"),
        ("columns", "VARCHAR[]"),
    ]),
    "cycles": ("One row a foreign-key cycle; broken: every cycle edge is a nullable, deferred FK.", [
        ("cycle", "INTEGER"), ("tables", "VARCHAR[]"), ("broken", "BOOLEAN"),
    ]),
    "skipped_statements": ("DDL statements that are not tables (views, functions, ...), by kind.", [
        ("kind", "VARCHAR"), ("count", "BIGINT"),
    ]),
}


def _fk_key(table: str, fk: ForeignKey) -> tuple[str, tuple[str, ...], str, tuple[str, ...]]:
    return (table.lower(), tuple(c.lower() for c in fk.columns), fk.ref_table.lower(),
            tuple(c.lower() for c in fk.ref_columns))


def _rows(schema: Schema, plan: FillPlan) -> dict[str, list[dict[str, Any]]]:
    """The rows of every metadata table."""
    fill = {name.lower(): i for i, name in enumerate(plan.order)}
    gen = {name.lower(): g for g, names in enumerate(plan.generations) for name in names}
    cycle_of = {name.lower(): i for i, c in enumerate(plan.cycles) for name in c.tables}
    deferred = {_fk_key(d.table, d.fk) for d in plan.deferred}
    unbroken = {_fk_key(d.table, d.fk) for d in plan.unbroken}
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in METADATA_TABLES}
    rows["model"].append({
        "format_version": FORMAT_VERSION, "stateforge_version": stateforge.__version__,
        "dialect": schema.dialect, "source": schema.source,
        "schema_json": json.dumps(schema.to_dict(), default=str),
        "plan_json": json.dumps(plan.to_dict(), default=str),
    })
    for ordinal, t in enumerate(schema.tables):
        key = t.name.lower()
        rows["tables"].append({
            "table_name": t.name, "ordinal": ordinal, "description": t.description,
            "fill_position": fill.get(key), "generation": gen.get(key), "cycle": cycle_of.get(key),
            "primary_key": list(t.primary_key) or None, "source_line": t.line,
            "schema_name": t.namespace, "local_name": t.local_name,
        })
        for i, c in enumerate(t.columns):
            rows["columns"].append({
                "table_name": t.name, "column_name": c.name, "ordinal": i, "type": c.type,
                "nullable": c.nullable, "default_sql": c.default, "identity": c.identity,
                "sequence_name": sequence_name(t.name, c.name) if c.identity else None,
                "allowed_values": None if c.allowed_values is None else [str(v) for v in c.allowed_values],
                "description": c.description,
            })
        for fk in t.foreign_keys:
            rows["foreign_keys"].append({
                "table_name": t.name, "constraint_name": fk.name, "columns": list(fk.columns),
                "ref_table": fk.ref_table, "ref_columns": list(fk.ref_columns),
                "on_delete": fk.on_delete, "on_update": fk.on_update,
                "deferred": _fk_key(t.name, fk) in deferred,
                "unbroken_cycle": _fk_key(t.name, fk) in unbroken,
            })
        kinds = [("PRIMARY KEY", t.primary_key)] if t.primary_key else []
        for kind, cols in kinds + [("UNIQUE", u) for u in t.unique if u]:
            rows["unique_keys"].append({"table_name": t.name, "kind": kind, "columns": list(cols)})
        for chk in t.checks:
            rows["checks"].append({
                "table_name": t.name, "constraint_name": chk.name, "sql": chk.sql,
                "columns": list(chk.columns),
            })
    for i, c in enumerate(plan.cycles):
        rows["cycles"].append({"cycle": i, "tables": list(c.tables), "broken": c.broken})
    for kind, count in sorted(schema.skipped.items()):
        rows["skipped_statements"].append({"kind": kind, "count": count})
    return rows


def write_metadata(con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan) -> None:
    """Create the `stateforge` schema and its metadata tables, filled from the model (via Arrow)."""
    con.execute(f"CREATE SCHEMA IF NOT EXISTS {quote_ident(METADATA_SCHEMA)}")
    for name, rows in _rows(schema, plan).items():
        comment, columns = METADATA_TABLES[name]
        ddl = ", ".join(f"{quote_ident(c)} {t}" for c, t in columns)
        con.execute(f"CREATE OR REPLACE TABLE {meta_ref(name)} ({ddl})")
        con.execute(f"COMMENT ON TABLE {meta_ref(name)} IS {quote_literal(comment)}")
        arrow = pa.Table.from_pylist(rows, schema=pa.schema([(c, _ARROW[t]) for c, t in columns]))
        view = f"_stateforge_{name}_rows"
        con.register(view, arrow)
        try:
            con.execute(f"INSERT INTO {meta_ref(name)} SELECT * FROM {quote_ident(view)}")
        finally:
            con.unregister(view)


def is_stateforge(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the connected database has a `stateforge.model` table."""
    found = con.sql(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        f"AND schema_name = {quote_literal(METADATA_SCHEMA)} AND table_name = 'model'"
    ).fetchall()
    return bool(found[0][0])


def read_model(con: duckdb.DuckDBPyConnection) -> tuple[Schema, FillPlan]:
    """The schema model and fill plan stored in the connected database."""
    if not is_stateforge(con):
        raise StoreError("this database has no stateforge.model table: it was not made by create_database().")
    rows = con.sql(f"SELECT format_version, schema_json, plan_json FROM {meta_ref('model')}").fetchall()
    if len(rows) != 1:
        raise StoreError(f"stateforge.model must hold one row, it holds {len(rows)}: rebuild the database.")
    version, schema_json, plan_json = rows[0]
    if version > FORMAT_VERSION:
        raise StoreError(
            f"the database's metadata format is {version}; this Stateforge reads up to {FORMAT_VERSION}. "
            "Upgrade Stateforge."
        )
    schema = Schema.from_dict(json.loads(schema_json))
    return schema, plan_from_dict(json.loads(plan_json), schema)


def plan_from_dict(data: dict[str, Any], schema: Schema) -> FillPlan:
    """The inverse of `FillPlan.to_dict`; deferred keys are matched back to the schema's foreign keys."""
    def key(d: dict[str, Any]) -> DeferredKey:
        wanted = (d["table"].lower(), tuple(c.lower() for c in d["columns"]), d["ref_table"].lower(),
                  tuple(c.lower() for c in d["ref_columns"]))
        if schema.has_table(d["table"]):
            for fk in schema.table(d["table"]).foreign_keys:
                if _fk_key(d["table"], fk) == wanted:
                    return DeferredKey(d["table"], fk)
        fk = ForeignKey(tuple(d["columns"]), d["ref_table"], tuple(d["ref_columns"]))
        return DeferredKey(d["table"], fk)

    cycles = [
        Cycle(tables=list(c["tables"]), deferred=[key(d) for d in c["deferred"]],
              unbroken=[key(d) for d in c["unbroken"]])
        for c in data.get("cycles", [])
    ]
    return FillPlan(generations=[list(g) for g in data["generations"]], cycles=cycles)


def connect(path: str | Path, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open a Stateforge database; `StoreError` naming the file if it is missing or not one."""
    path = Path(path)
    if not path.is_file():
        raise StoreError(f"no Stateforge database at {path}: the file does not exist. Build it first.")
    try:
        con = duckdb.connect(str(path), read_only=read_only)
    except duckdb.Error as exc:
        raise StoreError(f"{path} cannot be opened as a DuckDB database: {exc}") from exc
    if not is_stateforge(con):
        con.close()
        raise StoreError(
            f"{path} is a DuckDB database but not a Stateforge one (it has no stateforge.model table); "
            "create it with create_database()."
        )
    return con
