"""Statements that are not CREATE TABLE but shape tables: indexes, comments, types, domains, drops, and
SQL Server's descriptions (`sp_addextendedproperty`).

Each reader returns the kind to count in `Schema.skipped`, or None when the statement was read. A
statement sqlglot cannot read loses at most what it would have added: that loss is a note, never an error.
"""

from __future__ import annotations

import re

from sqlglot import exp

from stateforge.errors import SchemaError
from stateforge.schema.classify import classify, dropped_tables
from stateforge.schema.columns import user_type
from stateforge.schema.constraints import add_unique
from stateforge.schema.context import Context, UserType
from stateforge.schema.exprs import column_names, name_ref, table_name
from stateforge.schema.model import Column
from stateforge.schema.namespaces import Ref
from stateforge.schema.split import Statement
from stateforge.schema.syntax import Parsed, parse
from stateforge.schema.types import map_type

_DOMAIN = re.compile(r"CREATE\s+DOMAIN\s+(?P<name>\S+)\s+(?:AS\s+)?(?P<body>.+)", re.IGNORECASE | re.DOTALL)
_TYPE_FROM = re.compile(r"CREATE\s+TYPE\s+(?P<name>\S+)\s+FROM\s+(?P<body>.+)", re.IGNORECASE | re.DOTALL)
_COMMENT_ON = re.compile(r"COMMENT\s+ON\s+(TABLE|COLUMN)\b", re.IGNORECASE)
_PROPERTY = re.compile(r"@(?P<key>\w+)\s*=\s*N?'(?P<value>(?:[^']|'')*)'", re.IGNORECASE)
_STRING = re.compile(r"N?'((?:[^']|'')*)'")
_PROPERTY_KEYS = ("name", "value", "level0type", "level0name", "level1type", "level1name", "level2type",
                  "level2name")  # fmt: skip


def parse_noting(ctx: Context, stmt: Statement, what: str, *, text: str | None = None,
                 dialect: str | None = None) -> Parsed:  # fmt: skip
    """`parse`, with a note for every clause sqlglot could not read and that was left out."""
    parsed = parse(stmt, dialect or ctx.dialect, source=ctx.source, what=what, text=text)
    for line, dropped in parsed.dropped:
        ctx.note(f"{what}: left out what sqlglot cannot read: {dropped}", table=ctx.table, line=line)
    return parsed


def _lost(ctx: Context, stmt: Statement, what: str, err: SchemaError, lost: str) -> None:
    ctx.note(f"{what} not read, so {lost} is lost: {stmt.text[:100]!r} ({err.message})", table=ctx.table)


def drop(ctx: Context, stmt: Statement) -> str:
    """DROP TABLE of a table defined above (old mysqldump's placeholder tables for views) removes it."""
    for ref in dropped_tables(stmt.text):
        table = ctx.tables.pop(ctx.resolve(ref).lower(), None)
        if table is not None:
            ctx.schema.tables.remove(table)
            ctx.open_keys = [key for key in ctx.open_keys if key.table is not table]
    return "drop"


def create_index(ctx: Context, stmt: Statement) -> str | None:
    """A CREATE UNIQUE INDEX on columns becomes a UNIQUE constraint; any index's columns must exist."""
    unique = classify(stmt.text, ctx.dialect) == "unique_index"
    try:
        parsed = parse_noting(ctx, stmt, "CREATE INDEX")
    except SchemaError as err:
        if unique:
            _lost(ctx, stmt, "CREATE UNIQUE INDEX", err, "the UNIQUE constraint it makes")
        return "index"
    index = parsed.expr.this if isinstance(parsed.expr, exp.Create) else None
    if not isinstance(index, exp.Index) or index.args.get("table") is None:
        if unique:
            ctx.note(
                "CREATE UNIQUE INDEX not read, so the UNIQUE constraint it makes is lost: "
                f"{stmt.text[:100]!r} (sqlglot reads it as an opaque command)"
            )
        return "index"
    name = ctx.resolve(name_ref(index.args["table"]))
    if not ctx.has_table(name) and ctx.elsewhere(name):
        return "index"
    table = ctx.find_table(name, "CREATE INDEX", index.args["table"])
    ctx.table = table.name
    params = index.args.get("params")
    names = column_names(params.args.get("columns") or [] if params else [])
    what = "CREATE UNIQUE INDEX" if unique else "CREATE INDEX"
    columns = ctx.find_columns(table, [n for n in names if n], what, index)
    if not unique:
        return "index"
    if None in names or not names:
        ctx.note(
            f"unique index on an expression is not a UNIQUE constraint; skipped: {stmt.text[:100]!r}",
            table=table.name,
        )
        return "index"
    if parsed.partial:
        ctx.note(
            f"partial unique index kept as UNIQUE ({', '.join(columns)}), stricter than the DDL",
            table=table.name,
        )
    add_unique(table, columns, ctx, ctx.at(index))
    return None


def comment(ctx: Context, stmt: Statement) -> str | None:
    """COMMENT ON TABLE / COLUMN: the description of a table or column."""
    if not _COMMENT_ON.match(stmt.text):
        return "comment"
    try:
        node = parse_noting(ctx, stmt, "COMMENT").expr
    except SchemaError as err:
        _lost(ctx, stmt, "COMMENT", err, "the description")
        return "comment"
    target, text = node.this, node.args.get("expression")
    description = text.name if isinstance(text, exp.Literal) else None
    if isinstance(target, exp.Column) and target.args.get("table"):  # COMMENT ON COLUMN [s.]t.c
        namespace = target.args.get("db")
        ref = Ref(namespace.name if namespace is not None else None, target.args["table"].name)
    else:
        ref = name_ref(target)
    name = ctx.resolve(ref)
    if not ctx.has_table(name) and ctx.elsewhere(name):
        return "comment"
    table = ctx.find_table(name, "COMMENT ON", target)
    if isinstance(target, exp.Column):
        column = table.column(ctx.find_columns(table, [target.name], "COMMENT ON COLUMN", target)[0])
        column.description = description
    else:
        table.description = description
    return None


def extended_property(ctx: Context, stmt: Statement) -> str | None:
    """SQL Server's `EXEC sp_addextendedproperty 'MS_Description', ...`: a table's or column's description."""
    if "sp_addextendedproperty" not in stmt.text.lower():
        return "call"
    found = {m["key"].lower(): m["value"].replace("''", "'") for m in _PROPERTY.finditer(stmt.text)}
    if not found:  # positional: name, value, level0type, level0name, ...
        strings = [s.replace("''", "'") for s in _STRING.findall(stmt.text)]
        found = dict(zip(_PROPERTY_KEYS, strings, strict=False))
    levels = {found.get(f"level{i}type", "").upper(): found.get(f"level{i}name") for i in range(3)}
    if found.get("name", "").lower() != "ms_description" or not levels.get("TABLE"):
        return "extended_property"
    name = ctx.resolve(Ref(levels.get("SCHEMA"), levels["TABLE"] or ""))
    if not ctx.has_table(name) and ctx.elsewhere(name):
        return "extended_property"
    table = ctx.find_table(name, "sp_addextendedproperty")
    if levels.get("COLUMN"):
        column = table.column(ctx.find_columns(table, [levels["COLUMN"]], "sp_addextendedproperty")[0])
        column.description = found.get("value")
    else:
        table.description = found.get("value")
    return None


def create_type(ctx: Context, stmt: Statement) -> str | None:
    """CREATE TYPE ... AS ENUM (...), a DuckDB alias, or SQL Server's CREATE TYPE ... FROM base."""
    if (match := _TYPE_FROM.match(stmt.text)) is not None:
        return alias_type(ctx, stmt, match["name"], match["body"], "CREATE TYPE")
    try:  # postgres' reader knows CREATE TYPE ... AS ENUM; duckdb's does not
        create = parse(stmt, "postgres", source=ctx.source, what="CREATE TYPE").expr
    except SchemaError:
        return "type"
    dt = create.args.get("expression") if isinstance(create, exp.Create) else None
    if not isinstance(dt, exp.DataType):
        return "type"
    if dt.this == exp.DType.ENUM:
        values = [e.to_py() for e in dt.expressions if isinstance(e, exp.Literal)]
        template = Column(name="VALUE", type="VARCHAR", allowed_values=values)
    else:
        mapped = map_type(dt, ctx.dialect)
        template = Column(
            name="VALUE",
            type=mapped.type,
            length=mapped.length,
            precision=mapped.precision,
            scale=mapped.scale,
            allowed_values=mapped.allowed_values,
        )
    ctx.user_types[table_name(create.this).lower()] = UserType(template)
    return None


def create_domain(ctx: Context, stmt: Statement) -> str | None:
    """CREATE DOMAIN: read as a one-column table whose column is VALUE."""
    match = _DOMAIN.match(stmt.text)
    if match is None:
        return "domain"
    return alias_type(ctx, stmt, match["name"], match["body"], "CREATE DOMAIN")


def alias_type(ctx: Context, stmt: Statement, name: str, body: str, what: str) -> str | None:
    """A named type over a base type (a domain, a T-SQL alias type), read as the column `VALUE <body>`."""
    kind = "domain" if what == "CREATE DOMAIN" else "type"
    text = f"CREATE TABLE {name} (VALUE {body})"
    try:
        create = parse_noting(ctx, stmt, what, text=text).expr
    except SchemaError as err:
        _lost(ctx, stmt, what, err, f"the type {name}")
        return kind
    if not isinstance(create, exp.Create) or not isinstance(create.this, exp.Schema):
        return kind
    ctx.user_types[table_name(create.this).lower()] = user_type(ctx, create.this.expressions[0])
    return None
