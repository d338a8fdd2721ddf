"""Readable names for rows, so that a verdict says "playlist 'Road Trip'" rather than "playlist_id 812".

`human_column(table)` picks the column people know a row by (name, title, username, email, code, ...).
`db_labeler(con_or_path, schema)` looks that column up in a database for rows of the base state; rows a
diff inserts are named from their own values (see `compare`).

    with db_labeler("artifacts/music/music.duckdb", schema) as labels:
        verdict = compare(expected, actual, schema=schema, labels=labels)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb

from stateforge.schema.model import Schema, Table
from stateforge.store.sql import quote_ident, table_ref

Labeler = Callable[[str, dict[str, Any]], str | None]
"""(table, key columns -> values) -> a readable label for that row, or None."""

HUMAN_NAMES = (
    "name", "title", "username", "nickname", "display_name", "full_name", "email", "subject", "code", "tag",
    "label", "handle", "slug", "headline",
)
TEXT_TYPES = ("VARCHAR", "CHAR", "TEXT", "STRING", "BPCHAR", "NVARCHAR")


def _is_text(table: Table, name: str) -> bool:
    return table.has_column(name) and table.column(name).base_type.startswith(TEXT_TYPES)


def human_column(table: Table) -> str | tuple[str, str] | None:
    """The column a person names a row of `table` by; `(first_name, last_name)` for people; None if none.

    The first of HUMAN_NAMES the table has as a text column, else the first text column whose name ends
    in `name` or `title` (`room_name`, `job_title`).
    """
    for name in HUMAN_NAMES[:6]:
        if _is_text(table, name):
            return table.column(name).name
    if _is_text(table, "first_name") and _is_text(table, "last_name"):
        return (table.column("first_name").name, table.column("last_name").name)
    for name in HUMAN_NAMES[6:]:
        if _is_text(table, name):
            return table.column(name).name
    for column in table.columns:
        if column.name.lower().endswith(("name", "title")) and _is_text(table, column.name):
            return column.name
    return None


def label_of(table: Table, row: dict[str, Any]) -> str | None:
    """The label of a row given as a dict (a row of a diff), or None."""
    column = human_column(table)
    if column is None:
        return None
    columns = column if isinstance(column, tuple) else (column,)
    values = [row.get(c) for c in columns]
    if all(v is None for v in values):
        return None
    return " ".join(str(v) for v in values if v is not None)


class DbLabeler:
    """Labels rows of the database at `con_or_path` (read-only), one query per row, cached.

    Given a path, it opens the file on first use and keeps it open until `close()` (or the end of a
    `with` block); given a connection, it uses it and leaves it open.
    """

    def __init__(self, con_or_path: duckdb.DuckDBPyConnection | str | Path, schema: Schema) -> None:
        self._schema = schema
        self._path = None if isinstance(con_or_path, duckdb.DuckDBPyConnection) else Path(con_or_path)
        self._con = con_or_path if self._path is None else None
        self._cache: dict[tuple[str, tuple[tuple[str, Any], ...]], str | None] = {}

    def __call__(self, table: str, key: dict[str, Any]) -> str | None:
        cache_key = (table.lower(), tuple(sorted(key.items())))
        if cache_key not in self._cache:
            self._cache[cache_key] = self._lookup(table, key)
        return self._cache[cache_key]

    def _lookup(self, table: str, key: dict[str, Any]) -> str | None:
        if not key or not self._schema.has_table(table):
            return None
        model = self._schema.table(table)
        column = human_column(model)
        if column is None or not all(model.has_column(k) for k in key):
            return None
        columns = column if isinstance(column, tuple) else (column,)
        where = " AND ".join(f"{quote_ident(k)} = ?" for k in key)
        picked = ", ".join(quote_ident(c) for c in columns)
        sql = f"SELECT {picked} FROM {table_ref(model.name)} WHERE {where}"
        try:
            rows = self._connection().execute(sql, list(key.values())).fetchall()
        except duckdb.Error:
            return None  # a label is a courtesy: a row or value the base does not have has none
        if len(rows) != 1:
            return None
        return label_of(model, dict(zip(columns, rows[0], strict=True)))

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            self._con = duckdb.connect(str(self._path), read_only=True)
        return self._con

    def close(self) -> None:
        """Close the connection this labeler opened (a connection it was given stays open)."""
        if self._path is not None and self._con is not None:
            self._con.close()
            self._con = None

    def __enter__(self) -> DbLabeler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def db_labeler(con_or_path: duckdb.DuckDBPyConnection | str | Path, schema: Schema) -> DbLabeler:
    """A labeler over a database (a connection to it, or its path): see `DbLabeler`."""
    return DbLabeler(con_or_path, schema)
