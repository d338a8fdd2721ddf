"""SQL text helpers shared by the store and the audit: quoting, literals, names.

Every identifier is double-quoted, so names keep the DDL's spelling and may be keywords (`order`, `user`).
Data tables live in DuckDB's `main` schema, or in the schema their DDL names (`sales.orders`), and every
reference goes through `table_ref`: `main."orders"`, `"sales"."orders"`. An unqualified name inside a view
of the `stateforge` schema would not resolve once the file is ATTACHed under another name.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from stateforge.schema.model import DEFAULT_NAMESPACE, split_name
from stateforge.types import type_kind

if TYPE_CHECKING:
    from stateforge.schema.model import ForeignKey, Table

METADATA_SCHEMA = "stateforge"
"""The DuckDB schema that holds the model's metadata tables and the audit views."""

DATA_SCHEMA = DEFAULT_NAMESPACE
"""The DuckDB schema that holds the domain's tables of the default namespace (others have their own)."""


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


def namespace_ref(namespace: str) -> str:
    """A DuckDB schema as SQL: `main`, or the quoted namespace (`"sales"`)."""
    return DATA_SCHEMA if namespace == DATA_SCHEMA else quote_ident(namespace)


def table_ref(table: Table | str) -> str:
    """The fully qualified reference of a data table, namespace and name quoted apart: `main."orders"`,
    `"sales"."orders"`. `table` is a `Table` or a table's identity (`Table.name`: `sales.orders`)."""
    name = table if isinstance(table, str) else table.name
    namespace, local = split_name(name)
    return f"{namespace_ref(namespace)}.{quote_ident(local)}"


def in_namespace(table: Table | str, local: str) -> str:
    """The reference of another relation `local` in the namespace of `table` (a rebuilt copy, a sequence)."""
    name = table if isinstance(table, str) else table.name
    return f"{namespace_ref(split_name(name)[0])}.{quote_ident(local)}"


def meta_ref(name: str) -> str:
    """The reference of a metadata table or view: `stateforge."tables"`."""
    return f"{METADATA_SCHEMA}.{quote_ident(name)}"


def column_list(columns: Iterable[str], alias: str | None = None) -> str:
    """`"a", "b"` or, with an alias, `c."a", c."b"`."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + quote_ident(c) for c in columns)


def sequence_name(table: str, column: str) -> str:
    """The sequence that feeds an identity column: `<table>_<column>_seq`, in the DDL's spelling, in the
    table's namespace (`sales.orders_id_seq` for `sales.orders`)."""
    return f"{table}_{column}_seq"


def sequence_ref(table: str, column: str) -> str:
    """The sequence of an identity column as SQL: `"orders_id_seq"` in main, `"sales"."orders_id_seq"`."""
    namespace, local = split_name(table)
    seq = quote_ident(f"{local}_{column}_seq")
    return seq if namespace == DATA_SCHEMA else f"{quote_ident(namespace)}.{seq}"


def nextval(table: str, column: str) -> str:
    """`nextval('"orders_id_seq"')`: the default expression of an identity column."""
    return f"nextval({quote_literal(sequence_ref(table, column))})"


def describe_key(table: str, columns: Sequence[str]) -> str:
    """`orders(region, code)`: a readable name for a table's column list."""
    return f"{table}({', '.join(columns)})"


# --- constraints as SQL -----------------------------------------------------------------------------


def in_list_sql(column: str, values: Sequence[Any]) -> str:
    """`"status" IN ('new', 'paid')`: the CHECK expression that enforces a column's allowed values."""
    return f"{quote_ident(column)} IN ({', '.join(quote_literal(v) for v in values)})"


# --- foreign keys whose two ends have different types -------------------------------------------------

_NUMBERS = frozenset({"int", "decimal", "float"})
_DATES = frozenset({"date", "ts"})
_EXACT_NUMBER = "DECIMAL(38,10)"
"""What a text column is read as to meet an integer or DECIMAL key: exact, so '1.5' is not key 2 (a
TRY_CAST to INTEGER rounds), and wide enough for any BIGINT."""


def key_cast(child_type: str, key_type: str) -> str | None:
    """The type a referencing column of `child_type` is read as (TRY_CAST) to be compared with the key of
    `key_type` it references; None when DuckDB compares the two as they are (the same kind, numbers of
    any width or scale, dates with timestamps).

    A VARCHAR column may reference an INTEGER key (SQLite accepts it; the parser keeps text columns, and
    widens the other direction, `stateforge.schema.constraints`). Compared as they are, DuckDB would cast
    the text to INTEGER and fail the whole query on the first value that is not a number. Read as the
    key's type instead, as SQLite reads a foreign key: '027' is key 27, 'x' is no key (an orphan).
    """
    child, key = type_kind(child_type), type_kind(key_type)
    if child == key or {child, key} <= _NUMBERS or {child, key} <= _DATES:
        return None
    if key in ("int", "decimal"):
        return _EXACT_NUMBER
    return "DOUBLE" if key == "float" else key_type


def fk_casts(child: Table, fk: ForeignKey, parent: Table) -> tuple[str | None, ...]:
    """`key_cast` of each column of `fk` (a foreign key of `child`) against the column of `parent` it
    references."""
    return tuple(key_cast(child.column(c).type, parent.column(r).type)
                 for c, r in zip(fk.columns, fk.ref_columns, strict=True))


def read_as(expr: str, cast: str | None) -> str:
    """`expr` read as `cast` (`TRY_CAST(expr AS cast)`: a value that does not convert is NULL, matching
    nothing), or `expr` itself when `cast` is None."""
    return expr if cast is None else f"TRY_CAST({expr} AS {cast})"


def fk_match_sql(child_alias: str, child: Table, fk: ForeignKey, parent_alias: str, parent: Table) -> str:
    """The join condition "the row `child_alias` of `child` references the row `parent_alias` of `parent`
    through `fk`": `c."a" = p."id" AND ...`, each referencing column read as its key's type when the two
    differ (`key_cast`)."""
    casts = fk_casts(child, fk, parent)
    return " AND ".join(
        f"{parent_alias}.{quote_ident(r)} = {read_as(f'{child_alias}.{quote_ident(c)}', cast)}"
        for c, r, cast in zip(fk.columns, fk.ref_columns, casts, strict=True)
    )


def orphans_sql(
    child: str, columns: Sequence[str], parent: str, ref_columns: Sequence[str], select: str,
    casts: Sequence[str | None] | None = None,
) -> str:
    """The rows of `child` (aliased `c`) whose foreign key `columns` is set and matches no row of `parent`
    (aliased `p`) on `ref_columns`: `SELECT {select} FROM child AS c ANTI JOIN parent AS p ON ...`.

    `child` and `parent` are table references (`table_ref`) or registered relations. DuckDB's ANTI JOIN,
    not NOT EXISTS: 2.0.1 plans NOT EXISTS as a mark join, about 2x slower to find the orphans of 1M rows
    (bench/audit.py, bench/second_pass.py). A NULL in any column exempts the row (MATCH SIMPLE). `casts`
    (`fk_casts`) reads each column as its key's type where the two ends' types differ; a value that does
    not convert matches no parent, so its row is an orphan.
    """
    casts = casts or (None,) * len(columns)
    match = " AND ".join(
        f"p.{quote_ident(r)} = {read_as(f'c.{quote_ident(col)}', cast)}"
        for col, r, cast in zip(columns, ref_columns, casts, strict=True)
    )
    present = " AND ".join(f"c.{quote_ident(col)} IS NOT NULL" for col in columns)
    return f"SELECT {select} FROM {child} AS c ANTI JOIN {parent} AS p ON {match} WHERE {present}"


def orphan_counts_sql(
    children: Sequence[tuple[int, str, Sequence[str]]], parent: str, ref_columns: Sequence[str],
    casts: Sequence[str | None] | None = None,
) -> str:
    """The number of orphans of several foreign keys to the same `parent` key, in one anti-join: rows
    (tag, orphans) for each `(tag, child, columns)` that has any (one hash table of the parent, not one
    per child). The columns of every child must have the same types, so that their union compares with
    the parent exactly as each would alone (`orphans_sql`), and `casts` (`fk_casts`, the same for each
    child then) reads them as the key's types where the ends differ. A NULL in any column exempts the row.
    """
    keys = [f"k{i}" for i in range(len(ref_columns))]
    casts = casts or (None,) * len(ref_columns)
    parts = []
    for tag, child, columns in children:
        select = ", ".join(f"{read_as(quote_ident(c), cast)} AS {k}"
                           for c, cast, k in zip(columns, casts, keys, strict=True))
        present = " AND ".join(f"{quote_ident(c)} IS NOT NULL" for c in columns)
        parts.append(f"SELECT {int(tag)} AS tag, {select} FROM {child} WHERE {present}")
    match = " AND ".join(f"p.{quote_ident(r)} = c.{k}" for r, k in zip(ref_columns, keys, strict=True))
    union = " UNION ALL ".join(parts)
    return f"SELECT c.tag, count(*) FROM ({union}) AS c ANTI JOIN {parent} AS p ON {match} GROUP BY c.tag"
