"""What DuckDB will enforce: every default, CHECK and generated column is tried against DuckDB at parse
time (probe.py), so that all the unusable ones are reported at once, by `stateforge schema`, instead of
one table per failed build.

An expression DuckDB refuses is left out of the model's enforced parts and kept in `Table.unenforced`,
as the DDL writes it, with DuckDB's reason and a note: a refused default is not applied (the generator
fills the column), a refused CHECK is not enforced, a refused generated column becomes a plain nullable
column that the generator fills. DuckDB supports no constraint on a generated column: a generated column
in a key becomes a plain column, its NOT NULL is dropped and a CHECK that reads it is not enforced.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp

from stateforge.schema.context import Context
from stateforge.schema.model import Column, Table, Unenforced
from stateforge.schema.probe import Probe
from stateforge.schema.satisfiable import impossible
from stateforge.schema.translate import concatenate_text

_ON_GENERATED = "DuckDB supports no constraint on a generated column"


def enforce(ctx: Context) -> None:
    """Try every expression of every table against DuckDB; move the refused ones to `Table.unenforced`."""
    probe = Probe()
    try:
        for table in ctx.schema.tables:
            ctx.table, ctx.column, ctx.line = table.name, None, table.line or 0
            if ctx.dialect == "tsql":
                _concatenations(table)
            _generated_columns(ctx, probe, table)
            _defaults(ctx, probe, table)
            _checks(ctx, probe, table)
    finally:
        probe.close()
        ctx.table = ctx.column = None


def _note(
    ctx: Context, table: Table, message: str, column: str | None = None, line: int | None = None
) -> None:
    ctx.note(message, table=table.name, column=column, line=line or table.line, file=table.file)


def _source(ctx: Context, table: Table, kind: str, key: str, fallback: str) -> tuple[str, int | None]:
    """How the DDL writes an expression, and its line (the table's when unknown)."""
    found = ctx.sources.get((table.name.lower(), kind, key.lower()))
    return (found[0].sql(ctx.dialect), found[1]) if found else (fallback, table.line)


def _generated_columns(ctx: Context, probe: Probe, table: Table) -> None:
    keyed = {c.lower() for key in table.unique_keys for c in key}
    keyed |= {c.lower() for fk in table.foreign_keys for c in fk.columns}
    for column in table.columns:
        if column.generated is None:
            continue
        ctx.column = column.name
        source, line = _source(ctx, table, "generated", column.name, column.generated)
        untyped = (table.name.lower(), column.name.lower()) in ctx.untyped
        if column.name.lower() in keyed:
            _plain(column, untyped)
            _note(ctx, table, f"generated column in a key; {_ON_GENERATED}, so it is a plain column, "
                  f"filled like any other (its expression: {source})", column.name, line)  # fmt: skip
            continue
        names = [n for n in _columns_read(column.generated, table) if n.lower() != column.name.lower()]
        reads = [table.column(n) for n in names]
        refusal, found = probe.generated(column.generated, column, reads, typed=not untyped)
        if refusal is not None:
            table.unenforced.append(Unenforced("generated", source, refusal, column=column.name))
            _plain(column, untyped)
            _note(ctx, table, f"generated column that DuckDB cannot compute ({refusal}); a plain nullable "
                  f"column, filled like any other: {source}", column.name, line)  # fmt: skip
            continue
        column.type = found
        if not column.nullable:
            _note(ctx, table, f"NOT NULL of a generated column is not enforced ({_ON_GENERATED})",
                  column.name, line)  # fmt: skip
        column.nullable, column.length, column.allowed_values = True, None, None
        column.default = None


def _concatenations(table: Table) -> None:
    """SQL Server concatenates strings with `+`; DuckDB with `||` (which needs the column types)."""
    text = {c.name.lower() for c in table.columns if c.base_type == "VARCHAR"}
    for column in table.columns:
        if column.generated is not None:
            column.generated = concatenate_text(column.generated, text)
        if column.default is not None and not column.identity:
            column.default = concatenate_text(column.default, text)
    for check in table.checks:
        check.sql = concatenate_text(check.sql, text)
        if check.relative is not None:
            check.relative = concatenate_text(check.relative, text)


def _plain(column: Column, untyped: bool) -> None:
    column.generated = None
    column.nullable = True
    if untyped:
        column.type = "VARCHAR"


def _columns_read(sql: str, table: Table) -> list[str]:
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except sqlglot.errors.ParseError:
        return []
    names = dict.fromkeys(c.name for c in tree.find_all(exp.Column) if not c.table)
    return [table.column(n).name for n in names if table.has_column(n)]


def _defaults(ctx: Context, probe: Probe, table: Table) -> None:
    for column in table.columns:
        if column.default is None or column.identity or column.generated is not None:
            continue
        ctx.column = column.name
        refusal = probe.default(column.default, column)
        if refusal is not None:
            source, line = _source(ctx, table, "default", column.name, column.default)
            table.unenforced.append(Unenforced("default", source, refusal, column=column.name))
            message = f"DEFAULT {source} left out: DuckDB cannot run it ({refusal})"
            _note(ctx, table, message, column.name, line)
            column.default = None


def _checks(ctx: Context, probe: Probe, table: Table) -> None:
    generated = {c.lower() for c in table.generated_columns}
    kept = []
    for check in table.checks:
        ctx.column = check.columns[0] if check.columns else None
        source, line = _source(ctx, table, "check", check.sql, check.relative or check.sql)
        label = f"CHECK {check.name} " if check.name else "CHECK "
        if any(c.lower() in generated for c in check.columns):
            refusal: str | None = f"it reads a generated column; {_ON_GENERATED}"
        else:
            refusal = probe.check(check.sql, [table.column(c) for c in check.columns])
        if refusal is None:
            _satisfiable(ctx, probe, table, check, f"{label}({source})", line)
            kept.append(check)
            continue
        table.unenforced.append(Unenforced("check", source, refusal, name=check.name))
        _note(ctx, table, f"{label}({source}) is not enforced: {refusal}", line=line)
    table.checks = kept


def _satisfiable(ctx: Context, probe: Probe, table: Table, check, label: str, line: int | None) -> None:
    """A CHECK that no non-NULL value can pass: an error when its columns are all NOT NULL (no row could
    be stored), else a note (only rows with a NULL there can pass)."""
    reason = impossible(check, table)
    if reason is None and not check.columns and probe.always_false(check.sql):
        reason = "it is always false"
    if reason is None:
        return
    key = {c.lower() for c in table.primary_key}
    nullable = [c for c in check.columns if table.column(c).nullable and c.lower() not in key]
    if not nullable:
        raise ctx.error(
            f"{label} can never hold ({reason}), so no row of {table.name} can be stored",
            table=table.name,
            line=line,
            hint="Fix the CHECK's bounds or values (or drop the CHECK).",
        )
    _note(ctx, table, f"{label} can hold only where {', '.join(nullable)} is NULL ({reason})", line=line)
