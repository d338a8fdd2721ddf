"""Reading DuckDB's catalog for a diff: the attached databases, their tables and columns, their keys.

Three cheap queries describe both sides (`duckdb_databases()`, `duckdb_columns()`, `duckdb_views()`:
joining `duckdb_tables()` instead costs three times as much). Keys come from the Stateforge model stored in
the file (`stateforge.store.read_model`, cached per file) when there is one, else from the catalog
(`duckdb_constraints()`, unique indexes over plain columns), so a plain DuckDB file diffs too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from stateforge.diff.keys import choose_key
from stateforge.diff.model import DiffError
from stateforge.schema.model import Schema
from stateforge.store import METADATA_SCHEMA, read_model
from stateforge.store.sql import quote_ident

SYSTEM_SCHEMAS = frozenset({METADATA_SCHEMA, "information_schema", "pg_catalog"})

TableName = tuple[str, str]
"""(DuckDB schema, table)."""


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    """DuckDB's spelling of the type (`DECIMAL(8,2)`, `ENUM('a', 'b')`, `INTEGER[]`)."""
    nullable: bool


@dataclass
class Catalog:
    """An attached database: where it is, and its user tables with their columns in order."""

    name: str
    path: str | None
    readonly: bool
    tables: dict[TableName, list[Column]] = field(default_factory=dict)
    has_model: bool = False
    """Whether it holds a Stateforge model (`stateforge.model`)."""


def read_catalogs(
    con: duckdb.DuckDBPyConnection, base: str, after: str, schema: str | None, names: tuple[str, str]
) -> tuple[Catalog, Catalog]:
    """Both catalogs with their user tables (views and system schemas left out, `schema` alone if given).

    `DiffError` naming a catalog (as `names` call it) that is not attached.
    """
    wanted = [base, after]
    found = {
        name: Catalog(name, path, bool(readonly))
        for name, path, readonly in con.execute(
            "SELECT database_name, path, readonly FROM duckdb_databases() WHERE database_name IN (?, ?)",
            wanted,
        ).fetchall()
    }
    for catalog, shown in zip(wanted, names, strict=True):
        if catalog not in found:
            raise DiffError(f"no catalog {catalog} ({shown}) is attached to this connection: ATTACH it.")
    views = {
        tuple(row)
        for row in con.execute(
            "SELECT database_name, schema_name, view_name FROM duckdb_views() WHERE database_name IN (?, ?)",
            wanted,
        ).fetchall()
    }
    rows = con.execute(
        "SELECT database_name, schema_name, table_name, column_name, data_type, is_nullable "
        "FROM duckdb_columns() WHERE database_name IN (?, ?) ORDER BY schema_name, table_name, column_index",
        wanted,
    ).fetchall()
    for catalog, schema_name, table, column, data_type, nullable in rows:
        if (schema_name, table) == (METADATA_SCHEMA, "model"):
            found[catalog].has_model = True
        if schema_name in SYSTEM_SCHEMAS or (schema and schema_name != schema):
            continue
        if (catalog, schema_name, table) not in views:
            found[catalog].tables.setdefault((schema_name, table), []).append(
                Column(column, data_type, bool(nullable))
            )
    return found[base], found[after]


_MODELS: dict[tuple[str, int, int], Schema] = {}
"""Models read from database files, by (path, mtime, size): grading many episodes reads one base."""


def stored_model(con: duckdb.DuckDBPyConnection, catalog: Catalog) -> Schema | None:
    """The Stateforge model stored in `catalog`, or None for a plain DuckDB file."""
    if not catalog.has_model:
        return None
    stamp = None
    if catalog.path and Path(catalog.path).is_file():
        stat = Path(catalog.path).stat()
        stamp = (str(Path(catalog.path).resolve()), stat.st_mtime_ns, stat.st_size)
        if stamp in _MODELS:
            return _MODELS[stamp]
    current, current_schema = con.execute("SELECT current_database(), current_schema()").fetchall()[0]
    con.execute(f"USE {quote_ident(catalog.name)}").fetchall()
    try:
        model = read_model(con)[0]
    finally:
        con.execute(f"USE {quote_ident(current)}.{quote_ident(current_schema)}").fetchall()
    if stamp is not None:
        _MODELS.clear()  # one base at a time is the common case; keep memory flat
        _MODELS[stamp] = model
    return model


def catalog_keys(
    con: duckdb.DuckDBPyConnection, catalog: Catalog, tables: list[TableName]
) -> dict[TableName, tuple[str, ...] | None]:
    """The key of each of `tables` by the key rule, from the catalog's constraints and unique indexes."""
    if not tables:
        return {}
    primary: dict[TableName, tuple[str, ...]] = {}
    unique: dict[TableName, list[tuple[str, ...]]] = {}
    for schema, table, kind, columns in con.execute(
        "SELECT schema_name, table_name, constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') "
        "ORDER BY schema_name, table_name, constraint_index",
        [catalog.name],
    ).fetchall():
        if kind == "PRIMARY KEY":
            primary[(schema, table)] = tuple(columns)
        else:
            unique.setdefault((schema, table), []).append(tuple(columns))
    for schema, table, expressions in con.execute(
        "SELECT schema_name, table_name, expressions FROM duckdb_indexes() WHERE database_name = ? "
        "AND is_unique ORDER BY schema_name, table_name, index_name",
        [catalog.name],
    ).fetchall():
        names = {c.name.lower(): c.name for c in catalog.tables.get((schema, table), [])}
        parts = [p.strip().strip('"') for p in re.sub(r"^\[|\]$", "", expressions or "").split(",")]
        if parts and all(p.lower() in names for p in parts):  # plain columns only, not expressions
            unique.setdefault((schema, table), []).append(tuple(names[p.lower()] for p in parts))
    return {
        t: choose_key(
            primary.get(t, ()), unique.get(t, []), [c.name for c in catalog.tables[t] if not c.nullable]
        )
        for t in tables
    }
