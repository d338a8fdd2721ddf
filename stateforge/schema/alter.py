"""ALTER TABLE: added constraints (Oracle's `ADD ( ..., ... )` too), added and modified columns, defaults,
SQL Server's `ADD CONSTRAINT df DEFAULT (expr) FOR col`, and partitions attached to their parent.

An ALTER TABLE that sqlglot cannot read at all loses what it would add: a note says what, never an error.
"""

from __future__ import annotations

import re

from sqlglot import exp

from stateforge.errors import SchemaError
from stateforge.schema.classify import relation_ref
from stateforge.schema.columns import add_column, apply_column_constraints, new_column
from stateforge.schema.constraints import apply_constraint
from stateforge.schema.context import Context
from stateforge.schema.exprs import default_sql, name_ref
from stateforge.schema.model import Table
from stateforge.schema.objects import parse_noting
from stateforge.schema.partitions import attach, is_attach
from stateforge.schema.split import Statement
from stateforge.schema.syntax import parse
from stateforge.schema.types import map_type

# Forms sqlglot reads as an opaque Command: pg_dump's identity columns, Oracle's MODIFY (col [NOT] NULL).
_ADD_IDENTITY = re.compile(
    r"ALTER\s+COLUMN\s+(?P<column>\S+)\s+ADD\s+GENERATED\b.*\bAS\s+IDENTITY", re.I | re.S
)
_MODIFY_NULL = re.compile(
    r"\bMODIFY\s*\(\s*(?P<column>\"[^\"]+\"|\w+)\s+(?P<not>NOT\s+)?NULL\b[^,]*\)\s*$", re.I
)
_ADD = re.compile(r"\bADD\b", re.IGNORECASE)
# ALTER TABLE t ADD CHECK (...): sqlglot reads only the named form, so the CHECK is given a placeholder name.
_ADD_CHECK = re.compile(r"\bADD\s+CHECK\s*\(", re.IGNORECASE)
_UNNAMED = "stateforge_unnamed_check"
# SQL Server: ALTER TABLE t ADD [CONSTRAINT name] DEFAULT (expr) FOR col
_DEFAULT_FOR = re.compile(
    r"\bADD\s+(?:CONSTRAINT\s+\S+\s+)?DEFAULT\s+(?P<expr>.+?)\s+FOR\s+(?P<column>\[[^\]]+\]|\"[^\"]+\"|\w+)\s*$",
    re.IGNORECASE | re.DOTALL,
)


def read_alter_table(ctx: Context, stmt: Statement) -> str | None:
    """Apply an ALTER TABLE; return "alter_table" when nothing in it concerns keys or columns."""
    if is_attach(stmt.text):
        return attach(ctx, stmt)
    ctx.table = _altered(ctx, stmt) or None
    if (match := _DEFAULT_FOR.search(stmt.text)) is not None:
        return _default_for(ctx, stmt, match)
    text = _ADD_CHECK.sub(f"ADD CONSTRAINT {_UNNAMED} CHECK (", stmt.text)
    try:
        alter = parse_noting(ctx, stmt, "ALTER TABLE", text=text).expr
    except SchemaError as err:
        if _ADD.search(stmt.text):  # it may add a key: say what is lost
            ctx.note(
                f"ALTER TABLE not read, so the keys or columns it adds are lost: {stmt.text[:100]!r} "
                f"({err.message})",
                table=ctx.table,
            )
        return "alter_table"
    if isinstance(alter, exp.Command):
        return _read_command(ctx, stmt)
    if not isinstance(alter, exp.Alter):
        return "alter_table"
    name = ctx.resolve(name_ref(alter.this))
    table = _table(ctx, name, exists=bool(alter.args.get("exists")), node=alter.this)
    if table is None:
        return "partition" if name.lower() in ctx.partitions else "alter_table"
    applied = False
    for action in alter.args.get("actions") or []:
        for node in action.expressions if isinstance(action, exp.Schema) else [action]:
            if _apply(ctx, table, node):
                applied = True
            else:
                ctx.note(f"ALTER TABLE action not applied: {node.sql(ctx.dialect)[:100]!r}", table=table.name)
    return None if applied else "alter_table"


def _read_command(ctx: Context, stmt: Statement) -> str | None:
    """The ALTER TABLE forms sqlglot does not parse but that change a column."""
    match = _ADD_IDENTITY.search(stmt.text) or _MODIFY_NULL.search(stmt.text)
    if match is None:
        if _ADD.search(stmt.text) and not ctx.elsewhere(_altered(ctx, stmt)):
            ctx.note(
                f"ALTER TABLE not read, so the keys or columns it adds are lost: {stmt.text[:100]!r} "
                "(sqlglot reads it as an opaque command)",
                table=ctx.table,
            )
        return "alter_table"
    table = _table(ctx, _altered(ctx, stmt), exists=False)
    if table is None:
        return "alter_table"
    column = table.column(ctx.find_columns(table, [match.group("column").strip('"`')], "ALTER TABLE")[0])
    if match.re is _ADD_IDENTITY:
        column.identity = True
    else:
        column.nullable = not match.group("not")
    return None


def _altered(ctx: Context, stmt: Statement) -> str:
    """The identity of the table an ALTER TABLE that sqlglot did not parse names (from its text)."""
    ref = relation_ref(stmt.text)
    return ctx.resolve(ref) if ref is not None else ""


def _table(ctx: Context, name: str, *, exists: bool, node: exp.Expr | None = None) -> Table | None:
    """The altered table; None when it is a view or a partition, or `IF EXISTS` allows it to be missing."""
    if not ctx.has_table(name) and (exists or ctx.elsewhere(name)):
        return None
    table = ctx.find_table(name, "ALTER TABLE", node)
    ctx.table = table.name
    return table


def _default_for(ctx: Context, stmt: Statement, match: re.Match[str]) -> str | None:
    """SQL Server's `ALTER TABLE t ADD CONSTRAINT df DEFAULT (expr) FOR col`: the column's default."""
    table = _table(ctx, _altered(ctx, stmt), exists=False)
    if table is None:
        return "alter_table"
    column = table.column(ctx.find_columns(table, [match["column"].strip('[]"')], "DEFAULT ... FOR")[0])
    try:
        text = f"SELECT {match['expr']}"
        node = parse(stmt, ctx.dialect, source=ctx.source, what="DEFAULT", text=text).expr
    except SchemaError as err:
        ctx.note(f"DEFAULT not read, so it is lost: {match['expr'][:100]!r} ({err.message})",
                 table=table.name, column=column.name)  # fmt: skip
        return "alter_table"
    value = node.expressions[0] if isinstance(node, exp.Select) and node.expressions else node
    column.default, sequence = default_sql(value, column.type)
    column.identity = column.identity or sequence
    ctx.written(table, "default", column.name, value)
    return None


def _apply(ctx: Context, table: Table, node: exp.Expr) -> bool:
    if isinstance(node, exp.AddConstraint):
        return all([_add_constraint(ctx, table, inner) for inner in node.expressions])
    if isinstance(node, exp.ColumnDef):
        add_column(ctx, table, node)
        return True
    if isinstance(node, exp.AlterColumn):
        _alter_column(ctx, table, node)
        return True
    if isinstance(node, exp.ModifyColumn) and isinstance(node.this, exp.ColumnDef):
        _modify_column(ctx, table, node.this)
        return True
    return apply_constraint(ctx, table, node)


def _add_constraint(ctx: Context, table: Table, node: exp.Expr) -> bool:
    """One constraint of ADD; an unnamed `ADD CHECK (...)` (named by `_ADD_CHECK` to parse) stays unnamed."""
    if isinstance(node, exp.Constraint) and node.name == _UNNAMED:
        return all([apply_constraint(ctx, table, one, at=node) for one in node.expressions])
    return apply_constraint(ctx, table, node)


def _alter_column(ctx: Context, table: Table, node: exp.AlterColumn) -> None:
    """ALTER COLUMN ... SET/DROP DEFAULT, SET/DROP NOT NULL, TYPE, COMMENT."""
    column = table.column(ctx.find_columns(table, [node.name], "ALTER COLUMN", node)[0])
    args = node.args
    if args.get("dtype") is not None:
        mapped = map_type(args["dtype"], ctx.dialect)
        column.type, column.length = mapped.type, mapped.length
        column.precision, column.scale = mapped.precision, mapped.scale
    if args.get("default") is not None:
        column.default, sequence = default_sql(args["default"], column.type)
        column.identity = column.identity or sequence
        ctx.written(table, "default", column.name, args["default"])
    if args.get("allow_null") is not None:
        column.nullable = bool(args["allow_null"])  # SET NOT NULL / DROP NOT NULL
    elif args.get("drop"):
        column.default = None  # DROP DEFAULT
    if args.get("comment") is not None:
        column.description = args["comment"].name


def _modify_column(ctx: Context, table: Table, node: exp.ColumnDef) -> None:
    """MySQL MODIFY: the column is defined anew (phpMyAdmin adds AUTO_INCREMENT this way)."""
    old = table.column(ctx.find_columns(table, [node.name], "MODIFY", node)[0])
    index = table.columns.index(old)
    scratch = Table(name=table.name, columns=[c for c in table.columns if c is not old])
    column, later = new_column(ctx, scratch, node)
    column.description = column.description or old.description
    column.nullable = column.nullable and old.name not in table.primary_key
    table.columns[index] = column
    apply_column_constraints(ctx, table, column, later)
