"""What to diff: the user tables of two attached catalogs, their columns, and the key of each.

Tables are every base table outside the `stateforge` metadata schema (views are not data). A table in
DuckDB's `main` schema is named by its name alone, one in another schema as `schema.table`. Keys come from
the Stateforge model stored in the file (`pipeline.store.read_model`) when there is one, else from DuckDB's
catalog (`duckdb_constraints()`, unique indexes over plain columns), so a plain DuckDB file diffs too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from pipeline.diff.keys import choose_key, table_key
from pipeline.diff.model import DiffError
from pipeline.schema.model import Schema, suggest
from pipeline.store import METADATA_SCHEMA, read_model
from pipeline.store.sql import DATA_SCHEMA, quote_ident, quote_literal

SYSTEM_SCHEMAS = (METADATA_SCHEMA, "information_schema", "pg_catalog")


@dataclass(frozen=True)
class Column:
    name: str
    type: str
    """DuckDB's spelling of the type (`DECIMAL(8,2)`, `ENUM('a', 'b')`, `INTEGER[]`)."""
    nullable: bool


@dataclass(frozen=True)
class TableSpec:
    """One table to diff, as both catalogs have it."""

    schema: str
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] | None
    """The key columns (catalog spelling), or None: compared as a multiset of whole rows."""

    @property
    def label(self) -> str:
        """The table's name in a diff: `songs`, or `audit.events` outside `main`."""
        return self.name if self.schema == DATA_SCHEMA else f"{self.schema}.{self.name}"

    def ref(self, catalog: str) -> str:
        """`"catalog"."schema"."table"`."""
        return ".".join(quote_ident(p) for p in (catalog, self.schema, self.name))

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def values(self) -> list[Column]:
        """The columns outside the key (all of them for a multiset table)."""
        key = {k.lower() for k in self.key or ()}
        return [c for c in self.columns if c.name.lower() not in key]


def _columns(con: duckdb.DuckDBPyConnection, catalog: str, schema: str | None) -> dict[tuple[str, str], list]:
    where = f"AND c.schema_name = {quote_literal(schema)}" if schema else ""
    excluded = ", ".join(quote_literal(s) for s in SYSTEM_SCHEMAS)
    rows = con.execute(
        "SELECT c.schema_name, c.table_name, c.column_name, c.data_type, c.is_nullable "
        "FROM duckdb_columns() AS c JOIN duckdb_tables() AS t USING (database_name, schema_name, table_name) "
        f"WHERE c.database_name = ? AND NOT t.internal AND NOT t.temporary "
        f"AND c.schema_name NOT IN ({excluded}) {where} "
        "ORDER BY c.schema_name, c.table_name, c.column_index",
        [catalog],
    ).fetchall()
    tables: dict[tuple[str, str], list] = {}
    for schema_name, table, column, data_type, nullable in rows:
        tables.setdefault((schema_name, table), []).append(Column(column, data_type, bool(nullable)))
    return tables


def _model(con: duckdb.DuckDBPyConnection, catalog: str) -> Schema | None:
    """The Stateforge model stored in `catalog`, or None for a plain DuckDB file."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = 'model'",
        [catalog, METADATA_SCHEMA],
    ).fetchone()
    if not found or not found[0]:
        return None
    before = con.execute("SELECT current_database(), current_schema()").fetchone()
    con.execute(f"USE {quote_ident(catalog)}")
    try:
        return read_model(con)[0]
    finally:
        con.execute(f"USE {quote_ident(before[0])}.{quote_ident(before[1])}")


def _catalog_key(
    con: duckdb.DuckDBPyConnection, catalog: str, schema: str, table: str, columns: list[Column]
) -> tuple[str, ...] | None:
    rows = con.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE database_name = ? AND schema_name = ? AND table_name = ? "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE') ORDER BY constraint_index",
        [catalog, schema, table],
    ).fetchall()
    primary = next((tuple(cols) for kind, cols in rows if kind == "PRIMARY KEY"), ())
    unique = [tuple(cols) for kind, cols in rows if kind == "UNIQUE"]
    names = {c.name.lower(): c.name for c in columns}
    for (expressions,) in con.execute(
        "SELECT expressions FROM duckdb_indexes() WHERE database_name = ? AND schema_name = ? "
        "AND table_name = ? AND is_unique ORDER BY index_name",
        [catalog, schema, table],
    ).fetchall():
        parts = [p.strip().strip('"') for p in re.sub(r"^\[|\]$", "", expressions or "").split(",")]
        if parts and all(p.lower() in names for p in parts):  # plain columns only, not expressions
            unique.append(tuple(names[p.lower()] for p in parts))
    return choose_key(primary, unique, [c.name for c in columns if not c.nullable])


def _model_key(
    model: Schema | None, schema: str, table: str, columns: list[Column]
) -> tuple[str, ...] | None:
    """The key the model gives, in the catalog's spelling; None when the model does not know the table."""
    if model is None or schema != DATA_SCHEMA or not model.has_table(table):
        return None
    key = table_key(model.table(table))
    names = {c.name.lower(): c.name for c in columns}
    if key is None or not all(k.lower() in names for k in key):
        return None
    return tuple(names[k.lower()] for k in key)


def _mismatch(label: str, base: list[Column], after: list[Column], base_name: str, after_name: str) -> str:
    old = {c.name: c.type for c in base}
    new = {c.name: c.type for c in after}
    parts = []
    if gone := [c for c in old if c not in new]:
        parts.append(f"columns only in {base_name}: {', '.join(gone)}")
    if added := [c for c in new if c not in old]:
        parts.append(f"columns only in {after_name}: {', '.join(added)}")
    for c in old:
        if c in new and old[c] != new[c]:
            parts.append(f"column {c} is {old[c]} in {base_name} but {new[c]} in {after_name}")
    return f"table {label}: " + "; ".join(parts)


def table_specs(
    con: duckdb.DuckDBPyConnection,
    base: str,
    after: str,
    *,
    schema: str | None = None,
    tables: list[str] | None = None,
    names: tuple[str, str] | None = None,
) -> list[TableSpec]:
    """The tables to diff between catalogs `base` and `after`, sorted by their diff name.

    `schema` limits the diff to one DuckDB schema; `tables` to some tables (names as the diff spells them,
    case-insensitive). `names` are how messages call the two sides (file paths; default: catalog names).
    `DiffError` when a table exists on one side only or its columns differ, naming the table and columns.
    """
    base_name, after_name = names or (base, after)
    old, new = _columns(con, base, schema), _columns(con, after, schema)
    label = {key: key[1] if key[0] == DATA_SCHEMA else f"{key[0]}.{key[1]}" for key in old | new}
    if tables:
        known = {label[k].lower(): k for k in label}
        wanted = []
        for t in tables:
            if t.lower() not in known:
                raise DiffError(
                    f'no table "{t}" in {base_name} or {after_name}.{suggest(t, sorted(label.values()))} '
                    "Name a table as the diff does: `table`, or `schema.table` outside the main schema."
                )
            wanted.append(known[t.lower()])
        old = {k: v for k, v in old.items() if k in wanted}
        new = {k: v for k, v in new.items() if k in wanted}
    problems = []
    for side, keys in ((base_name, old.keys() - new.keys()), (after_name, new.keys() - old.keys())):
        if keys:
            names = sorted(label[k] for k in keys)
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            verb = "exists" if len(names) == 1 else "exist"
            problems.append(f"{'table' if len(names) == 1 else 'tables'} {shown} {verb} only in {side}")
    for key in sorted(old.keys() & new.keys()):
        if [(c.name, c.type) for c in old[key]] != [(c.name, c.type) for c in new[key]]:
            if sorted((c.name, c.type) for c in old[key]) != sorted((c.name, c.type) for c in new[key]):
                problems.append(_mismatch(label[key], old[key], new[key], base_name, after_name))
    if problems:
        raise DiffError(
            "the two databases do not have the same tables and columns, so their rows cannot be compared: "
            + "; ".join(problems)
            + ". Diff two states of one database (the same DDL), or limit the diff with --table."
        )
    model = _model(con, base) or _model(con, after)
    specs = []
    for key in sorted(old, key=lambda k: label[k]):
        columns = old[key]
        found = _model_key(model, key[0], key[1], columns)
        if found is None:
            found = _catalog_key(con, base, key[0], key[1], columns)
        specs.append(TableSpec(schema=key[0], name=key[1], columns=tuple(columns), key=found))
    return specs
