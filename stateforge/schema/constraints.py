"""Keys and checks, wherever the DDL writes them: on a column, at table level, or in ALTER TABLE ADD."""

from __future__ import annotations

import re

from sqlglot import exp

from stateforge.errors import SchemaError
from stateforge.schema.clock import pin, reads_clock
from stateforge.schema.context import Context, OpenKey, add_check
from stateforge.schema.exprs import column_names, fk_actions, in_values, name_ref, normalize_check
from stateforge.schema.model import Check, Column, ForeignKey, Table, suggest
from stateforge.schema.translate import bracket_likes, to_duckdb
from stateforge.types import indexable


def apply_constraint(
    ctx: Context,
    table: Table,
    node: exp.Expr,
    *,
    column: str | None = None,
    name: str | None = None,
    at: exp.Expr | None = None,
) -> bool:
    """Apply one constraint node to `table` (`column`: the column it is written on, if inline).

    Returns False for a node that is not a key or check (the caller decides what to do with it).
    """
    if isinstance(node, exp.Constraint):  # CONSTRAINT name <one or more constraints>
        inner = node.expressions
        return all([apply_constraint(ctx, table, one, name=node.name, at=node) for one in inner])
    if isinstance(node, exp.ColumnConstraint):
        kind = node.args["kind"]
        return apply_constraint(ctx, table, kind, column=column, name=node.name or name, at=at or node)
    inline = [column] if column else []
    if isinstance(node, exp.PrimaryKeyColumnConstraint):
        set_primary_key(ctx, table, ctx.find_columns(table, inline, "PRIMARY KEY", node))
    elif isinstance(node, exp.PrimaryKey):
        set_primary_key(
            ctx, table, ctx.find_columns(table, column_names(node.expressions), "PRIMARY KEY", node)
        )
    elif isinstance(node, exp.UniqueColumnConstraint):
        schema = node.this
        names = column_names(schema.expressions) if isinstance(schema, exp.Schema) else inline
        add_unique(table, ctx.find_columns(table, names, "UNIQUE", node), ctx, ctx.at(node))
    elif isinstance(node, exp.ForeignKey):
        columns = ctx.find_columns(table, column_names(node.expressions), "FOREIGN KEY", node)
        add_foreign_key(ctx, table, columns, node.args["reference"], node, name)
    elif isinstance(node, exp.Reference):
        add_foreign_key(ctx, table, ctx.find_columns(table, inline, "REFERENCES", node), node, node, name)
    elif isinstance(node, exp.CheckColumnConstraint):
        add_check_expr(ctx, table, node.this, name, at=at)
    elif isinstance(node, exp.IndexColumnConstraint):
        # MySQL KEY / INDEX inside CREATE TABLE: not a constraint, but its columns must exist.
        ctx.find_columns(table, [n for n in column_names(node.expressions) if n], "INDEX", node)
    else:
        return False
    return True


def set_primary_key(ctx: Context, table: Table, columns: tuple[str, ...]) -> None:
    """Make `columns` the primary key of `table` (and NOT NULL); SchemaError for a second, different one."""
    if table.primary_key and [c.lower() for c in table.primary_key] != [c.lower() for c in columns]:
        raise ctx.error(
            f"a second primary key ({', '.join(columns)}); the first is ({', '.join(table.primary_key)})",
            table=table.name,
            hint="A table has one primary key: make the other a UNIQUE constraint.",
        )
    table.primary_key = columns
    for name in columns:
        table.column(name).nullable = False
    table.unique = [u for u in table.unique if not _same(u, columns)]


def add_unique(
    table: Table, columns: tuple[str, ...], ctx: Context | None = None, line: int | None = None
) -> None:
    """Add a UNIQUE constraint unless the primary key or another UNIQUE has the same columns.

    A key over a type DuckDB cannot index (a list such as INTEGER[], a STRUCT, a MAP, an INTERVAL) is kept
    in the model and left out of the DuckDB table (the batch checks and the audit enforce it): with `ctx`,
    a note at `line` says so.
    """
    if any(_same(columns, key) for key in table.unique_keys):
        return
    table.unique.append(columns)
    odd = [c for c in columns if not indexable(table.column(c).type)]
    if ctx is not None and odd:
        types = ", ".join(f"{c} {table.column(c).type}" for c in odd)
        ctx.note(
            f"UNIQUE ({', '.join(columns)}) over a type DuckDB cannot index ({types}): kept in the model and "
            "checked by the batch checks and the audit, left out of the DuckDB table",
            table=table.name, column=odd[0], line=line,
        )


def add_foreign_key(
    ctx: Context,
    table: Table,
    columns: tuple[str, ...],
    reference: exp.Expr,
    node: exp.Expr,
    name: str | None,
) -> None:
    """Record a foreign key; its referenced table and columns are checked once the whole file is read."""
    target = reference.this
    ref_columns = column_names(target.expressions) if isinstance(target, exp.Schema) else []
    on_delete, on_update = fk_actions(node)
    ref = name_ref(target)
    fk = ForeignKey(
        columns=columns,
        ref_table=str(ref),
        ref_columns=tuple(c for c in ref_columns if c),
        on_delete=on_delete,
        on_update=on_update,
        name=name,
    )
    table.foreign_keys.append(fk)
    ctx.open_keys.append(OpenKey(table, fk, ctx.at(node), ctx.source, ref, tuple(ctx.ns.path)))


def add_check_expr(
    ctx: Context, table: Table, expr: exp.Expr, name: str | None, at: exp.Expr | None = None
) -> None:
    """Add a CHECK as DuckDB SQL; a `column IN (literals)` check also gives the column's allowed values.

    A CHECK that reads the clock (now(), CURRENT_DATE, ...) keeps that form in `Check.relative` and is
    enforced with the clock pinned to `Schema.clock` (see clock.py).
    """
    written = expr
    expr = normalize_check(expr).unnest()
    if ctx.dialect == "tsql":
        expr = bracket_likes(expr)
    # A subquery's columns belong to its own tables (and DuckDB refuses the subquery anyway).
    own = [c for c in expr.find_all(exp.Column) if not c.table and c.find_ancestor(exp.Select) is None]
    names = list(dict.fromkeys(c.name for c in own))
    columns = ctx.find_columns(table, names, "CHECK", expr)
    found = in_values(expr)
    if found:
        column = table.column(found[0])
        if column.allowed_values is None:
            column.allowed_values = found[1]
    duck = to_duckdb(expr, copy=False)  # `expr` is normalize_check's own copy
    sql = duck.sql("duckdb")
    relative = sql if reads_clock(duck) else None
    if relative is not None:
        sql = pin(duck, ctx.schema.clock).sql("duckdb")
    ctx.written(table, "check", sql, written, at=None if written.find(exp.Identifier) else at)
    add_check(table, Check(sql=sql, columns=columns, name=name, relative=relative))


def resolve_foreign_keys(ctx: Context) -> None:
    """Point every foreign key at its table and columns as defined; SchemaError for one that cannot be.

    A bare name is looked up along the search path of the statement that wrote it (namespaces.py). A
    reference to a partition points at the table it was folded into. A reference to a table the DDL
    does not define is an error, unless `ctx.drop_missing_references`: then the key is dropped, with a note.
    """
    for key in ctx.open_keys:
        fk = key.fk
        ctx.line, ctx.source, ctx.table, ctx.column = key.line, key.file, key.table.name, fk.columns[0]
        if key.ref is not None:
            fk.ref_table = ctx.resolve(key.ref, key.path)
        parent = ctx.tables.get(fk.ref_table.lower()) or ctx.partitions.get(fk.ref_table.lower())
        if parent is None:
            if ctx.drop_missing_references:
                key.table.foreign_keys.remove(fk)
                ctx.note(
                    f"FOREIGN KEY ({', '.join(fk.columns)}) dropped: it references {fk.ref_table}, which the "
                    "DDL does not define (--drop-missing-references)",
                    table=key.table.name,
                    column=fk.columns[0],
                )
                continue
            raise _fk_error(
                ctx,
                key,
                f'references table "{fk.ref_table}", which is not defined.'
                f"{suggest(fk.ref_table, ctx.schema.table_names)}",
                "Define the referenced table, fix its name, or drop the foreign key; if the table lives "
                "in another file installed separately, pass --drop-missing-references "
                "(drop_missing_references=True) to drop such keys with a note.",
            )
        fk.ref_table = parent.name
        if not fk.ref_columns:
            if not parent.primary_key:
                raise _fk_error(
                    ctx,
                    key,
                    f"references {parent.name} without naming columns, and {parent.name} has no primary key",
                    f"Name the referenced columns: REFERENCES {parent.name} (...).",
                )
            fk.ref_columns = parent.primary_key
        for name in fk.ref_columns:
            if not parent.has_column(name):
                raise _fk_error(
                    ctx,
                    key,
                    f"references {parent.name}.{name}, which does not exist."
                    f"{suggest(name, parent.column_names)}",
                    f"Reference a column of {parent.name}, or add the column there.",
                )
        fk.ref_columns = tuple(parent.column(name).name for name in fk.ref_columns)
        if len(fk.ref_columns) != len(fk.columns):
            raise _fk_error(
                ctx,
                key,
                f"has {len(fk.columns)} column(s) but references {len(fk.ref_columns)} "
                f"({parent.name}: {', '.join(fk.ref_columns)})",
                "List as many referenced columns as referencing ones, in the same order.",
            )
        _warn_types(ctx, key.table, fk, parent)
    ctx.table = ctx.column = None


def _warn_types(ctx: Context, table: Table, fk: ForeignKey, parent: Table) -> None:
    """A note when a foreign key's columns cannot hold every value of the key they reference.

    Columns of another type family (an INTEGER column referencing a VARCHAR key, which SQLite accepts and
    stores the key's text in) are widened to the key's type, so that every key fits and the two ends
    compare in DuckDB; text columns (which hold a key's text) and narrower columns of the same family keep
    their type, and the fill draws only keys they can hold (`stateforge.fill.key_types`).
    """
    for name, ref in zip(fk.columns, fk.ref_columns, strict=True):
        child, key = table.column(name), parent.column(ref)
        problem = type_mismatch(child, key)
        if not problem:
            continue
        written = child.type
        if _family(child) != _family(key) and _family(child) != "VARCHAR" and not child.generated:
            child.type, child.length = key.type, key.length
            child.precision, child.scale = key.precision, key.scale
            if child.allowed_values is not None:
                child.allowed_values = [str(v) for v in child.allowed_values]
            problem += f"; the column is widened to {key.type}, the key's type, so that every key fits"
        else:
            problem += "; the fill draws only keys it can hold"
        ctx.note(
            f"FOREIGN KEY ({', '.join(fk.columns)}) -> {parent.name}({', '.join(fk.ref_columns)}): "
            f"{written} references {key.type}; {problem}",
            table=table.name,
            column=child.name,
        )


def _fk_error(ctx: Context, key: OpenKey, message: str, hint: str) -> SchemaError:
    what = f"FOREIGN KEY ({', '.join(key.fk.columns)})"
    return ctx.error(f"{what} {message}", table=key.table.name, column=key.fk.columns[0], hint=hint)


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return [c.lower() for c in a] == [c.lower() for c in b]


_INT_DIGITS = {"TINYINT": 2, "UTINYINT": 2, "SMALLINT": 4, "USMALLINT": 4, "INTEGER": 9, "UINTEGER": 9,
               "BIGINT": 18, "UBIGINT": 19, "HUGEINT": 38, "UHUGEINT": 38}  # fmt: skip
_TIME = re.compile(r"(DATE|TIME|TIMESTAMP|TIMESTAMPTZ|TIMESTAMP_(S|MS|NS))$")


def _family(column: Column) -> str:
    base = column.base_type
    if base in _INT_DIGITS or base == "DECIMAL":
        return "number"
    return "time" if _TIME.match(base) else base


def _digits(column: Column) -> tuple[int, int]:
    """(digits before the point, digits after it) that a number column holds."""
    base = column.base_type
    if base in _INT_DIGITS:
        return _INT_DIGITS[base], 0
    precision, scale = column.precision or 38, column.scale or 0
    return precision - scale, scale


def type_mismatch(child: Column, key: Column) -> str | None:
    """Why `child` may not hold every value of `key` (which it references), or None when it can."""
    family = _family(child)
    if family != _family(key):
        return "the types differ: a key value may not be storable in the referencing column"
    both_integers = child.base_type in _INT_DIGITS and key.base_type in _INT_DIGITS
    if family == "number" and not both_integers:  # INTEGER -> BIGINT is common and harmless: small keys
        (whole, scale), (key_whole, key_scale) = _digits(child), _digits(key)
        if whole < key_whole or scale < key_scale:
            return "the referencing column holds fewer digits than the key: some keys cannot be stored there"
    if family == "VARCHAR" and child.length is not None and (key.length is None or key.length > child.length):
        return "the referencing column is shorter than the key: some keys cannot be stored there"
    return None
