"""SQL text helpers shared by the store and the audit: quoting, literals, names.

Every identifier is double-quoted, so names keep the DDL's spelling and may be keywords (`order`, `user`).
Data tables live in DuckDB's `main` schema and are always referenced as `main."name"`: an unqualified name
inside a view of the `stateforge` schema would not resolve once the file is ATTACHed under another name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot import exp

from pipeline.schema.model import Column, Table

METADATA_SCHEMA = "stateforge"
"""The DuckDB schema that holds the model's metadata tables and the audit views."""

DATA_SCHEMA = "main"
"""The DuckDB schema that holds the domain's tables."""


def quote_ident(name: str) -> str:
    """`name` as a double-quoted SQL identifier (inner quotes doubled): `order` -> `"order"`."""
    return '"' + name.replace('"', '""') + '"'


def quote_literal(value: Any) -> str:
    """A Python value as a DuckDB literal: strings quoted, numbers and booleans bare, None as NULL."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return "'" + value.isoformat() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def table_ref(table: str) -> str:
    """The fully qualified reference of a data table: `main."orders"`."""
    return f"{DATA_SCHEMA}.{quote_ident(table)}"


def meta_ref(name: str) -> str:
    """The reference of a metadata table or view: `stateforge."tables"`."""
    return f"{METADATA_SCHEMA}.{quote_ident(name)}"


def column_list(columns: Iterable[str], alias: str | None = None) -> str:
    """`"a", "b"` or, with an alias, `c."a", c."b"`."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + quote_ident(c) for c in columns)


def sequence_name(table: str, column: str) -> str:
    """The sequence that feeds an identity column: `<table>_<column>_seq`, in the DDL's spelling."""
    return f"{table}_{column}_seq"


def nextval(table: str, column: str) -> str:
    """`nextval('"orders_id_seq"')`: the default expression of an identity column."""
    return f"nextval({quote_literal(quote_ident(sequence_name(table, column)))})"


def describe_key(table: str, columns: Sequence[str]) -> str:
    """`orders(region, code)`: a readable name for a table's column list."""
    return f"{table}({', '.join(columns)})"


# --- allowed values --------------------------------------------------------------------------------


def allowed_values(column: Column) -> list[Any]:
    """The column's allowed values without NULL (NULL is governed by NOT NULL, not by the list)."""
    return [v for v in column.allowed_values or [] if v is not None]


def allowed_values_sql(column: Column) -> str:
    """`"status" IN ('new', 'paid')`: the CHECK expression that enforces the column's allowed values."""
    values = ", ".join(quote_literal(v) for v in allowed_values(column))
    return f"{quote_ident(column.name)} IN ({values})"


def uncovered_allowed_values(table: Table) -> list[Column]:
    """Columns whose allowed values no CHECK of the table already enforces.

    Decision: the model's allowed values become a `CHECK (col IN (...))` (in the DDL, and as an
    `allowed_values` audit check) only when the table has no equivalent CHECK, i.e. one that parses as
    `col IN (<literals>)` over the same set of values. The parser derives allowed values from such
    CHECKs, and enforcing or auditing the same rule twice would report every bad row twice.
    """
    return [
        c
        for c in table.columns
        if allowed_values(c) and not any(_is_in_list(chk.sql, c) for chk in table.checks)
    ]


def _is_in_list(sql: str, column: Column) -> bool:
    try:
        tree = sqlglot.parse_one(sql, dialect="duckdb")
    except sqlglot.errors.SqlglotError:
        return False
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if not isinstance(tree, exp.In) or not isinstance(tree.this, exp.Column):
        return False
    if tree.this.name.lower() != column.name.lower() or tree.args.get("query"):
        return False
    try:
        listed = {str(e.to_py()) for e in tree.expressions}
    except ValueError:  # not a literal
        return False
    return listed == {str(v) for v in allowed_values(column)}
