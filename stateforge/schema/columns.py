"""One column definition -> a Column: its DuckDB type, NOT NULL, default, identity, comment, user types."""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from stateforge.schema.constraints import add_check_expr, apply_constraint
from stateforge.schema.context import Context, UserType
from stateforge.schema.exprs import default_sql, replace_value
from stateforge.schema.model import Column, Table
from stateforge.schema.translate import duckdb_sql
from stateforge.schema.types import map_type, user_type_name

# Written on a column but describing the table: applied once the column is part of it.
_TABLE_LEVEL = (
    exp.PrimaryKeyColumnConstraint,
    exp.UniqueColumnConstraint,
    exp.Reference,
    exp.CheckColumnConstraint,
)


def add_column(ctx: Context, table: Table, node: exp.Expr) -> Column:
    """Add the column `node` to `table` and apply the keys and checks written on it."""
    column, later = new_column(ctx, table, node)
    table.columns.append(column)
    apply_column_constraints(ctx, table, column, later)
    return column


def new_column(ctx: Context, table: Table, node: exp.Expr) -> tuple[Column, list[exp.Expr]]:
    """`build_column` for a column `table` does not have yet; SchemaError for a second one of that name."""
    if table.has_column(node.name):
        raise ctx.error(
            f'column "{node.name}" is defined twice',
            table=table.name,
            column=node.name,
            hint="Remove or rename one of them.",
            line=ctx.at(node),
        )
    return build_column(ctx, table, node)


def build_column(ctx: Context, table: Table, node: exp.Expr) -> tuple[Column, list[exp.Expr]]:
    """The Column for `node`, and the constraints on it that belong to the table (keys, checks).

    `node` is a ColumnDef, or a bare name (a sqlite column written without a type). A generated column
    (`GENERATED ALWAYS AS (expr) [STORED|VIRTUAL]`, MySQL `AS (expr)`, T-SQL `AS (expr) PERSISTED`) gets
    its expression as DuckDB SQL (enforce.py asks DuckDB whether it can compute it).
    """
    name = node.name
    ctx.column = name
    dt = node.args.get("kind") if isinstance(node, exp.ColumnDef) else None
    type_name = _user_type_name(ctx, dt)
    user = ctx.user_types.get(type_name) if type_name else None
    if user:
        column = replace(user.template, name=name, allowed_values=_copy(user.template.allowed_values))
        later: list[exp.Expr] = [replace_value(c, name) for c in user.checks]
        ctx.typed_columns.setdefault(type_name, []).append((table, column))  # for sp_bindrule on the type
    else:
        mapped = map_type(dt, ctx.dialect)
        column = Column(
            name=name,
            type=mapped.type,
            identity=mapped.identity,
            allowed_values=mapped.allowed_values,
            length=mapped.length,
            precision=mapped.precision,
            scale=mapped.scale,
        )
        later = []
        computed = any(_computed(c.args.get("kind")) is not None for c in node.args.get("constraints") or [])
        if mapped.note and not (dt is None and computed):  # DuckDB gives an untyped generated column its type
            ctx.note(mapped.note, table=table.name, column=name, line=ctx.at(node))
        if mapped.value_range:
            low, high = mapped.value_range
            col = exp.column(name, quoted=True)
            bound = col.between(low, high) if high is not None else col >= low
            later.append(exp.CheckColumnConstraint(this=bound))
    inline: list[exp.Expr] = []
    for constraint in node.args.get("constraints") or []:
        kind = constraint.args.get("kind")
        if isinstance(kind, _TABLE_LEVEL):
            inline.append(constraint)
        elif isinstance(kind, exp.NotNullColumnConstraint):
            column.nullable = bool(kind.args.get("allow_null"))
        elif isinstance(kind, exp.DefaultColumnConstraint):
            column.default, sequence = default_sql(kind.this, column.type)
            column.identity = column.identity or sequence
            ctx.written(table, "default", name, kind.this, at=node)
        elif (computed := _computed(kind)) is not None:
            column.generated = duckdb_sql(computed.unnest())
            ctx.written(table, "generated", name, computed.unnest(), at=node)
            if dt is None:
                ctx.untyped.add((table.name.lower(), name.lower()))
        elif isinstance(kind, (exp.AutoIncrementColumnConstraint, exp.GeneratedAsIdentityColumnConstraint)):
            column.identity = True
        elif isinstance(kind, exp.CommentColumnConstraint):
            column.description = kind.this.name
    return column, inline + later


def _computed(kind: exp.Expr | None) -> exp.Expr | None:
    """The expression of a generated column's constraint, or None for any other constraint."""
    if isinstance(kind, exp.ComputedColumnConstraint):
        return kind.this
    if isinstance(kind, exp.GeneratedAsIdentityColumnConstraint) and kind.args.get("expression"):
        return kind.args["expression"]
    return None


def apply_column_constraints(ctx: Context, table: Table, column: Column, constraints: list[exp.Expr]) -> None:
    """Apply the keys and checks written on `column` (which is already in `table`)."""
    for constraint in constraints:
        if isinstance(constraint, exp.CheckColumnConstraint):  # derived from the type (MySQL YEAR)
            add_check_expr(ctx, table, constraint.this, None)
        else:
            apply_constraint(ctx, table, constraint, column=column.name)


def user_type(ctx: Context, node: exp.ColumnDef) -> UserType:
    """A domain, read from a column definition that stands for it (named VALUE)."""
    column, later = build_column(ctx, Table(name="(domain)"), node)
    checks = [c if isinstance(c, exp.ColumnConstraint) else exp.ColumnConstraint(kind=c) for c in later]
    checks = [c for c in checks if isinstance(c.args.get("kind"), exp.CheckColumnConstraint)]
    return UserType(template=column, checks=checks)


def _user_type_name(ctx: Context, dt: exp.DataType | None) -> str | None:
    """The user type (enum type, domain, alias type) `dt` names, lower-case, or None; a domain may reuse a
    built-in name (pagila's `year`)."""
    name = user_type_name(dt)
    if name is None and dt is not None and isinstance(dt.this, exp.DType) and not dt.expressions:
        name = dt.this.value.lower()
    return name if name and name in ctx.user_types else None


def _copy(values: list | None) -> list | None:
    return list(values) if values is not None else None
