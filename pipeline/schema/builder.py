"""Read statements one by one into a Schema: tables, ALTERs, indexes, comments, enum types, domains."""

from __future__ import annotations

import re
from dataclasses import replace

from sqlglot import exp

from pipeline.errors import SchemaError
from pipeline.schema.alter import read_alter_table
from pipeline.schema.classify import READ_KINDS, classify, dropped_tables, relation_name
from pipeline.schema.columns import apply_column_constraints, new_column, user_type
from pipeline.schema.constraints import add_unique, apply_constraint, resolve_foreign_keys
from pipeline.schema.context import Context, UserType
from pipeline.schema.exprs import column_names, table_name
from pipeline.schema.model import Column, Schema, Table
from pipeline.schema.split import Statement
from pipeline.schema.syntax import Parsed, parse
from pipeline.schema.types import map_type

_DOMAIN = re.compile(r"CREATE\s+DOMAIN\s+(?P<name>\S+)\s+(?:AS\s+)?(?P<body>.+)", re.IGNORECASE | re.DOTALL)
_COMMENT_ON = re.compile(r"COMMENT\s+ON\s+(TABLE|COLUMN)\b", re.IGNORECASE)
_COLUMN_ITEMS = (exp.ColumnDef, exp.Identifier)


class Builder:
    """Feeds statements into a Schema; `finish` resolves foreign keys once every table is known.

    Each reader returns the kind to count in `Schema.skipped`, or None when the statement was read.
    """

    def __init__(self, dialect: str, source: str | None) -> None:
        self.ctx = Context(dialect=dialect, source=source, schema=Schema(dialect=dialect, source=source))
        self._readers = {
            "table": self._create_table,
            "alter_table": lambda stmt: read_alter_table(self.ctx, stmt),
            "unique_index": self._create_index,
            "index": self._create_index,
            "comment": self._comment,
            "type": self._create_type,
            "domain": self._create_domain,
            "drop": self._drop,
        }

    def read(self, stmt: Statement) -> None:
        """Read one statement: into the schema if it defines tables or keys, else count it as skipped."""
        kind = stmt.kind or classify(stmt.text, self.ctx.dialect)
        self.ctx.line = stmt.line
        if kind in ("view", "materialized_view") and (name := relation_name(stmt.text)):
            self.ctx.other_relations.add(name.lower())
        if kind in READ_KINDS:
            kind = self._readers[kind](stmt) or ""
        if kind:
            self.ctx.schema.skipped[kind] += 1

    def finish(self) -> Schema:
        """The schema, with every foreign key checked and pointing at tables and columns as defined."""
        schema = self.ctx.schema
        if not schema.tables:
            raise SchemaError(
                f"no CREATE TABLE found in {self.ctx.source or 'the DDL'}; is the dialect right?",
                file=self.ctx.source,
                hint=f"It was read as {self.ctx.dialect}; pass the dialect it is written in.",
            )
        resolve_foreign_keys(self.ctx)
        return schema

    def _parse(
        self, stmt: Statement, what: str, *, text: str | None = None, dialect: str | None = None
    ) -> Parsed:
        return parse(stmt, dialect or self.ctx.dialect, source=self.ctx.source, what=what, text=text)

    def _create_table(self, stmt: Statement) -> str | None:
        ctx = self.ctx
        parsed = self._parse(stmt, "CREATE TABLE")
        create = parsed.expr
        if not isinstance(create, exp.Create) or not isinstance(create.this, exp.Schema):
            if isinstance(create, exp.Create) and create.args.get("expression") is not None:
                ctx.note(f"CREATE TABLE {table_name(create.this)} AS SELECT has no column list; skipped")
                return "table_as_select"
            raise ctx.error(
                "cannot parse CREATE TABLE: sqlglot does not support this syntax",
                table=relation_name(stmt.text),
                hint="Simplify the statement, or pass the dialect the file is written in.",
            )
        name = table_name(create.this)
        if ctx.dialect == "sqlite" and name.lower().startswith("sqlite_"):
            return "sqlite_internal"  # sqlite_sequence and friends: sqlite's bookkeeping, not data
        if ctx.has_table(name):
            if create.args.get("exists"):
                return "table_if_not_exists"
            raise ctx.error(
                f"table {name} is defined twice (first at line {ctx.tables[name.lower()].line})",
                table=name,
                hint="Remove one definition, or rename one of the tables.",
            )
        table = Table(name=name, description=parsed.comment, line=stmt.line)
        ctx.add_table(table)
        items = create.this.expressions
        written_on: list[tuple[Column, list[exp.Expr]]] = []
        for item in items:
            if isinstance(item, _COLUMN_ITEMS):
                column, later = new_column(ctx, table, item)
                table.columns.append(column)
                written_on.append((column, later))
        for parent_name in parsed.inherits:
            # PostgreSQL inheritance: the parents' columns come first, unless the child redefines them.
            parent = ctx.find_table(parent_name, "INHERITS")
            table.columns[:0] = _copies(parent, table)
            table.checks.extend(replace(check) for check in parent.checks)
        # Keys and checks come after every column exists: a CHECK may read a column defined below it.
        for column, later in written_on:
            apply_column_constraints(ctx, table, column, later)
        for item in items:
            if isinstance(item, exp.LikeProperty):  # CREATE TABLE t (LIKE other)
                table.columns += _copies(ctx.find_table(table_name(item.this), "LIKE", item), table)
            elif not isinstance(item, _COLUMN_ITEMS) and not apply_constraint(ctx, table, item):
                ctx.note(f"table element ignored: {item.sql(ctx.dialect)[:100]!r}", table=name)
        if ctx.dialect == "sqlite" and not parsed.without_rowid and len(table.primary_key) == 1:
            key = table.column(table.primary_key[0])
            key.identity = key.identity or key.type == "INTEGER"  # an INTEGER PRIMARY KEY is the rowid
        return None

    def _drop(self, stmt: Statement) -> str:
        """DROP TABLE of a table defined above (old mysqldump's placeholder tables for views) removes it."""
        ctx = self.ctx
        for name in dropped_tables(stmt.text):
            table = ctx.tables.pop(name.lower(), None)
            if table is not None:
                ctx.schema.tables.remove(table)
                ctx.open_keys = [key for key in ctx.open_keys if key.table is not table]
        return "drop"

    def _create_index(self, stmt: Statement) -> str | None:
        """A CREATE UNIQUE INDEX on columns becomes a UNIQUE constraint; any index's columns must exist."""
        ctx = self.ctx
        unique = classify(stmt.text, ctx.dialect) == "unique_index"
        try:
            parsed = self._parse(stmt, "CREATE INDEX")
        except SchemaError:
            if unique:
                raise
            return "index"
        index = parsed.expr.this if isinstance(parsed.expr, exp.Create) else None
        if not isinstance(index, exp.Index) or index.args.get("table") is None:
            if unique:
                ctx.note(f"unique index not understood, skipped: {stmt.text[:100]!r}")
            return "index"
        name = table_name(index.args["table"])
        if not ctx.has_table(name) and name.lower() in ctx.other_relations:
            return "index"
        table = ctx.find_table(name, "CREATE INDEX", index.args["table"])
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
        add_unique(table, columns)
        return None

    def _comment(self, stmt: Statement) -> str | None:
        """COMMENT ON TABLE / COLUMN: the description of a table or column."""
        ctx = self.ctx
        if not _COMMENT_ON.match(stmt.text):
            return "comment"
        comment = self._parse(stmt, "COMMENT").expr
        target, text = comment.this, comment.args.get("expression")
        description = text.name if isinstance(text, exp.Literal) else None
        name = (
            target.args["table"].name
            if isinstance(target, exp.Column) and target.args.get("table")
            else target.name
        )
        if not ctx.has_table(name) and name.lower() in ctx.other_relations:
            return "comment"
        table = ctx.find_table(name, "COMMENT ON", target)
        if isinstance(target, exp.Column):
            column = table.column(ctx.find_columns(table, [target.name], "COMMENT ON COLUMN", target)[0])
            column.description = description
        else:
            table.description = description
        return None

    def _create_type(self, stmt: Statement) -> str | None:
        """CREATE TYPE ... AS ENUM (...) (or a DuckDB alias): what columns of that type become."""
        try:  # postgres' reader knows CREATE TYPE ... AS ENUM; duckdb's does not
            create = self._parse(stmt, "CREATE TYPE", dialect="postgres").expr
        except SchemaError:
            return "type"
        dt = create.args.get("expression") if isinstance(create, exp.Create) else None
        if not isinstance(dt, exp.DataType):
            return "type"
        if dt.this == exp.DType.ENUM:
            values = [e.to_py() for e in dt.expressions if isinstance(e, exp.Literal)]
            template = Column(name="VALUE", type="VARCHAR", allowed_values=values)
        else:
            mapped = map_type(dt, self.ctx.dialect)
            template = Column(
                name="VALUE",
                type=mapped.type,
                length=mapped.length,
                precision=mapped.precision,
                scale=mapped.scale,
                allowed_values=mapped.allowed_values,
            )
        self.ctx.user_types[table_name(create.this).lower()] = UserType(template)
        return None

    def _create_domain(self, stmt: Statement) -> str | None:
        """CREATE DOMAIN: read as a one-column table whose column is VALUE."""
        match = _DOMAIN.match(stmt.text)
        if match is None:
            return "domain"
        text = f"CREATE TABLE {match['name']} (VALUE {match['body']})"
        create = self._parse(stmt, "CREATE DOMAIN", text=text).expr
        if not isinstance(create, exp.Create) or not isinstance(create.this, exp.Schema):
            return "domain"
        self.ctx.user_types[table_name(create.this).lower()] = user_type(self.ctx, create.this.expressions[0])
        return None


def _copies(source: Table, target: Table) -> list[Column]:
    """Copies of the columns of `source` that `target` does not define itself."""
    return [
        replace(c, allowed_values=list(c.allowed_values) if c.allowed_values is not None else None)
        for c in source.columns
        if not target.has_column(c.name)
    ]
