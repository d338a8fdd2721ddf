"""Helpers for the schema parser's tests: where the fixture dumps live, and a DuckDB to try a schema in."""

from __future__ import annotations

from pathlib import Path

import duckdb

from stateforge.schema import Schema, Table

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ddl"


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_table_sql(table: Table) -> str:
    """A DuckDB CREATE TABLE for `table`: types, NOT NULL, defaults, keys and checks (no foreign keys)."""
    items = []
    for column in table.columns:
        parts = [quote(column.name), column.type]
        if column.generated is not None:
            items.append(" ".join([*parts, f"GENERATED ALWAYS AS ({column.generated}) VIRTUAL"]))
            continue
        if not column.nullable:
            parts.append("NOT NULL")
        if column.default is not None:
            parts.append(f"DEFAULT {column.default}")
        items.append(" ".join(parts))
    if table.primary_key:
        items.append(f"PRIMARY KEY ({', '.join(map(quote, table.primary_key))})")
    items += [f"UNIQUE ({', '.join(map(quote, key))})" for key in table.unique]
    items += [
        (f"CONSTRAINT {quote(check.name)} " if check.name else "") + f"CHECK ({check.sql})"
        for check in table.checks
    ]
    return f"CREATE TABLE {quote(table.name)} ({', '.join(items)})"


def create_in_duckdb(schema: Schema) -> duckdb.DuckDBPyConnection:
    """Create every table of `schema` in a new in-memory DuckDB (DuckDB refuses what it cannot run)."""
    con = duckdb.connect()
    for table in schema.tables:
        con.execute(create_table_sql(table))
    return con
