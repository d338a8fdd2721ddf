"""Constraint checks the tool layer adds to DuckDB's, and DuckDB's own failures made readable.

DuckDB enforces PRIMARY KEY, UNIQUE, NOT NULL and CHECK, with terse messages; `translate` turns them
into `ConstraintError`s that name the table, the column and the value. What DuckDB does not enforce is
checked here: VARCHAR(n) lengths (`check_lengths`) and the model's foreign keys (`check_parents`: every
written foreign key must point at an existing row).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb

from stateforge.schema.model import ForeignKey, Table
from stateforge.store.sql import fk_casts, quote_ident, read_as, table_ref
from stateforge.tools.context import WriteContext
from stateforge.tools.errors import ConstraintError
from stateforge.values import json_value

SHOWN = 5
"""Rows named in a message before "and N more"."""

_DUPLICATE = re.compile(r'Duplicate key "(.*)" violates (primary key|unique) constraint', re.S)
_NOT_NULL = re.compile(r'NOT NULL constraint failed: (?:"?[^".]+"?)\."?([^"]+)"?')
_CHECK = re.compile(r"CHECK constraint failed on table \"?([^\"]+)\"? with expression CHECK\((.*)\)", re.S)


def show(value: Any) -> str:
    """A value as a message shows it: strings quoted, long ones cut."""
    value = json_value(value)
    text = repr(value) if isinstance(value, str) else ("NULL" if value is None else str(value))
    return text if len(text) <= 60 else text[:50] + f"... ({len(str(value))} characters)"


def row_key(table: Table) -> tuple[str, ...]:
    """The columns that name a row of `table` in messages: its primary key, else its first UNIQUE key,
    else all its columns."""
    keys = table.unique_keys
    return keys[0] if keys else tuple(table.column_names)


def describe(table: Table, rows: Sequence[Mapping[str, Any]], total: int | None = None) -> str:
    """`users 42`, `users 42, 43 and 5 more`, `playlist_songs (playlist_id 5, song_id 9)`."""
    key = row_key(table)
    total = len(rows) if total is None else total
    shown = []
    for row in rows[:SHOWN]:
        lowered = {k.lower(): v for k, v in row.items()}
        values = [lowered.get(c.lower()) for c in key]
        if len(key) == 1:
            shown.append(show(values[0]))
        else:
            shown.append("(" + ", ".join(f"{c} {show(v)}" for c, v in zip(key, values, strict=True)) + ")")
    more = f" and {total - len(shown)} more" if total > len(shown) else ""
    return f"{table.name} {', '.join(shown)}{more}"


def check_lengths(table: Table, rows: Iterable[Mapping[str, Any]]) -> None:
    """`ConstraintError` for a text longer than its column's VARCHAR(n)/CHAR(n) (DuckDB does not check)."""
    limits = {c.name.lower(): c for c in table.columns if c.length}
    if not limits:
        return
    for row in rows:
        for name, value in row.items():
            column = limits.get(name.lower())
            if column is not None and isinstance(value, str) and len(value) > (column.length or 0):
                raise ConstraintError(
                    f"table {table.name}, column {column.name}: {len(value)} characters, at most "
                    f"{column.length} allowed ({column.type})."
                )


def check_parents(ctx: WriteContext, table: Table, fk: ForeignKey, rows: Sequence[Mapping[str, Any]]) -> None:
    """`ConstraintError` if a written row's foreign key `fk` (all columns set) points at no parent row."""
    lowered = [{k.lower(): v for k, v in row.items()} for row in rows]
    wanted = {tuple(r.get(c.lower()) for c in fk.columns) for r in lowered}
    wanted = {t for t in wanted if all(v is not None for v in t)}
    if not wanted:
        return
    parent = ctx.index.table(fk.ref_table)
    casts = fk_casts(table, fk, parent)  # a column of another type is read as its key's (key_cast)
    ordered = sorted(wanted, key=repr)
    if 1 < len(ordered) <= 8 and len(fk.ref_columns) == 1:
        # one query for them all, each value compared as the one-key query compares it (same casts)
        column, value = quote_ident(fk.ref_columns[0]), read_as("?", casts[0])
        flags = ", ".join(f"bool_or({column} = {value})" for _ in ordered)
        marks = ", ".join(value for _ in ordered)
        sql = f"SELECT {flags} FROM {table_ref(parent.name)} WHERE {column} IN ({marks})"
        keys = [t[0] for t in ordered]
        found = ctx.con.execute(sql, keys + keys).fetchone() or ()
        missing = [t for t, ok in zip(ordered, found, strict=True) if not ok]
    elif len(ordered) <= 8:
        match = " AND ".join(
            f"{quote_ident(c)} = {read_as('?', cast)}" for c, cast in zip(fk.ref_columns, casts, strict=True)
        )
        sql = f"SELECT 1 FROM {table_ref(parent.name)} WHERE {match} LIMIT 1"
        missing = [t for t in ordered if not ctx.con.execute(sql, list(t)).fetchall()]
    else:
        names = [f"k{i}" for i in range(len(fk.columns))]
        unnest = ", ".join(f"unnest(?) AS {n}" for n in names)
        match = " AND ".join(
            f"p.{quote_ident(r)} = {read_as(f'k.{n}', cast)}"
            for r, n, cast in zip(fk.ref_columns, names, casts, strict=True)
        )
        sql = (
            f"SELECT {', '.join('k.' + n for n in names)} FROM (SELECT {unnest}) AS k "
            f"WHERE NOT EXISTS (SELECT 1 FROM {table_ref(parent.name)} AS p WHERE {match})"
        )
        params = [[t[i] for t in ordered] for i in range(len(names))]
        # in the order of `ordered`, as the other branches: the message is the same at every run
        missing = sorted((tuple(r) for r in ctx.con.execute(sql, params).fetchall()), key=repr)
    if missing:
        cols = ", ".join(fk.columns)
        values = "; ".join(", ".join(show(v) for v in t) for t in missing[:SHOWN])
        more = f" and {len(missing) - SHOWN} more" if len(missing) > SHOWN else ""
        raise ConstraintError(
            f"table {table.name}: {cols} = {values}{more} refers to no row of "
            f"{parent.name}({', '.join(fk.ref_columns)}); use an existing one."
        )


def translate(
    exc: duckdb.Error,
    ctx: WriteContext,
    table: Table,
    values: Mapping[str, Any] | None = None,
) -> ConstraintError:
    """A readable `ConstraintError` for DuckDB's refusal of a write to `table` (of `values`, when known)."""
    text = str(exc).split("\n")[0]
    if isinstance(exc, duckdb.ConstraintException):
        found = _DUPLICATE.search(text)
        if found:
            pairs = [p.split(": ", 1) for p in found.group(1).split(", ")]
            cols = [p[0] for p in pairs]
            given = {k.lower(): v for k, v in (values or {}).items()}
            shown = ", ".join(f"{p[0]} {_key_value(p, given)}".strip() for p in pairs)
            what = "the primary key" if found.group(2) == "primary key" else "unique"
            return ConstraintError(
                f"table {table.name}: a row with {shown} already exists ({', '.join(cols)}: {what}); "
                "choose another value."
            )
        found = _NOT_NULL.search(text)
        if found:
            return ConstraintError(
                f"table {table.name}, column {found.group(1)}: a value is required (NOT NULL)."
            )
        found = _CHECK.search(text)
        if found:
            expression = found.group(2).strip()
            if not (expression.startswith("(") and expression.endswith(")")):
                expression = f"({expression})"
            involved = ""
            if values:
                names = [k for k in values if re.search(rf"\b{re.escape(k)}\b", expression, re.I)]
                involved = ", ".join(f"{k} = {show(values[k])}" for k in names)
            return ConstraintError(
                f"table {table.name}: the row breaks CHECK {expression}"
                + (f" with {involved}" if involved else "")
                + "."
            )
    if isinstance(exc, duckdb.ConversionException | duckdb.InvalidInputException) and values:
        culprit = _bad_value(ctx, table, values)
        if culprit:
            return ConstraintError(culprit)
    return ConstraintError(f"table {table.name}: the database refused the write: {text}")


def _key_value(pair: list[str], given: Mapping[str, Any]) -> str:
    """A duplicate key's value: as the caller gave it when known, else DuckDB's spelling."""
    if pair[0].lower() in given:
        return show(given[pair[0].lower()])
    return pair[1] if len(pair) > 1 else ""


def _bad_value(ctx: WriteContext, table: Table, values: Mapping[str, Any]) -> str | None:
    """Which value does not convert to its column's type (probed one by one)."""
    for name, value in values.items():
        if value is None or not table.has_column(name):
            continue
        column = table.column(name)
        try:
            [(ok,)] = ctx.con.execute(f"SELECT TRY_CAST(? AS {column.type}) IS NOT NULL", [value]).fetchall()
        except duckdb.Error:
            ok = False
        if not ok:
            allowed = (
                f" Allowed: {', '.join(map(show, column.allowed_values))}." if column.allowed_values else ""
            )
            where = f"table {table.name}, column {column.name}"
            return f"{where}: {show(value)} is not a valid {column.type}.{allowed}"
    return None
