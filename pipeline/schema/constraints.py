"""Keys and checks, wherever the DDL writes them: on a column, at table level, or in ALTER TABLE ADD."""

from __future__ import annotations

from sqlglot import exp

from pipeline.errors import SchemaError
from pipeline.schema.context import Context, OpenKey, add_check
from pipeline.schema.exprs import column_names, fk_actions, in_values, normalize_check, table_name
from pipeline.schema.model import Check, ForeignKey, Table, suggest


def apply_constraint(
    ctx: Context, table: Table, node: exp.Expr, *, column: str | None = None, name: str | None = None
) -> bool:
    """Apply one constraint node to `table` (`column`: the column it is written on, if inline).

    Returns False for a node that is not a key or check (the caller decides what to do with it).
    """
    if isinstance(node, exp.Constraint):  # CONSTRAINT name <one or more constraints>
        return all([apply_constraint(ctx, table, inner, name=node.name) for inner in node.expressions])
    if isinstance(node, exp.ColumnConstraint):
        return apply_constraint(ctx, table, node.args["kind"], column=column, name=node.name or name)
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
        add_unique(table, ctx.find_columns(table, names, "UNIQUE", node))
    elif isinstance(node, exp.ForeignKey):
        columns = ctx.find_columns(table, column_names(node.expressions), "FOREIGN KEY", node)
        add_foreign_key(ctx, table, columns, node.args["reference"], node, name)
    elif isinstance(node, exp.Reference):
        add_foreign_key(ctx, table, ctx.find_columns(table, inline, "REFERENCES", node), node, node, name)
    elif isinstance(node, exp.CheckColumnConstraint):
        add_check_expr(ctx, table, node.this, name)
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


def add_unique(table: Table, columns: tuple[str, ...]) -> None:
    """Add a UNIQUE constraint unless the primary key or another UNIQUE has the same columns."""
    if not any(_same(columns, key) for key in table.unique_keys):
        table.unique.append(columns)


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
    fk = ForeignKey(
        columns=columns,
        ref_table=table_name(target),
        ref_columns=tuple(c for c in ref_columns if c),
        on_delete=on_delete,
        on_update=on_update,
        name=name,
    )
    table.foreign_keys.append(fk)
    ctx.open_keys.append(OpenKey(table, fk, ctx.at(node)))


def add_check_expr(ctx: Context, table: Table, expr: exp.Expr, name: str | None) -> None:
    """Add a CHECK as DuckDB SQL; a `column IN (literals)` check also gives the column's allowed values."""
    expr = normalize_check(expr).unnest()
    names = list(dict.fromkeys(c.name for c in expr.find_all(exp.Column) if not c.table))
    columns = ctx.find_columns(table, names, "CHECK", expr)
    found = in_values(expr)
    if found:
        column = table.column(found[0])
        if column.allowed_values is None:
            column.allowed_values = found[1]
    add_check(table, Check(sql=expr.sql("duckdb"), columns=columns, name=name))


def resolve_foreign_keys(ctx: Context) -> None:
    """Point every foreign key at its table and columns as defined; SchemaError for one that cannot be."""
    for key in ctx.open_keys:
        fk = key.fk
        ctx.line = key.line
        if not ctx.has_table(fk.ref_table):
            raise _fk_error(
                ctx,
                key,
                f'references table "{fk.ref_table}", which is not defined.'
                f"{suggest(fk.ref_table, ctx.schema.table_names)}",
                "Define the referenced table, fix its name, or drop the foreign key.",
            )
        parent = ctx.tables[fk.ref_table.lower()]
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


def _fk_error(ctx: Context, key: OpenKey, message: str, hint: str) -> SchemaError:
    what = f"FOREIGN KEY ({', '.join(key.fk.columns)})"
    return ctx.error(f"{what} {message}", table=key.table.name, column=key.fk.columns[0], hint=hint)


def _same(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    return [c.lower() for c in a] == [c.lower() for c in b]
