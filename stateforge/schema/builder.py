"""Read statements one by one into a Schema: tables, ALTERs, indexes, comments, types, domains, partitions.

Every statement is read under a guard: an unexpected exception becomes an InternalError that names the
file, line, table and column being read (a bug to report), never a bare AttributeError.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from sqlglot import exp

from stateforge.errors import InternalError, SchemaError, StateforgeError
from stateforge.schema import objects
from stateforge.schema.alter import read_alter_table
from stateforge.schema.batches import schema_elements
from stateforge.schema.classify import READ_KINDS, classify, relation_name, relation_ref
from stateforge.schema.columns import apply_column_constraints, new_column
from stateforge.schema.constraints import apply_constraint, resolve_foreign_keys
from stateforge.schema.context import Context
from stateforge.schema.enforce import enforce
from stateforge.schema.exprs import name_ref, table_name
from stateforge.schema.model import Column, Schema, Table
from stateforge.schema.namespaces import unquote
from stateforge.schema.partitions import is_partition_of, note_partitions, partition_of
from stateforge.schema.rules import create_rule, procedure_call
from stateforge.schema.seeds import finish_seeds, read_insert
from stateforge.schema.split import Statement

_COLUMN_ITEMS = (exp.ColumnDef, exp.Identifier)
_NAME = r"(?:\"(?:[^\"]|\"\")+\"|\[[^\]]+\]|[\w$#]+)"
_SCHEMA_NAME = re.compile(
    rf"CREATE\s+SCHEMA\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:(?P<name>(?!AUTHORIZATION\b){_NAME})|AUTHORIZATION\s+"
    rf"(?P<owner>{_NAME}))",
    re.IGNORECASE,
)
"""CREATE SCHEMA name [AUTHORIZATION owner], or CREATE SCHEMA AUTHORIZATION owner (the schema is named
after its owner)."""
_SETTINGS = frozenset({"set", "use", "session", "select"})
"""Kinds that may move the session's namespace (see namespaces.py); they stay counted as skipped."""


class Builder:
    """Feeds statements into a Schema; `finish` resolves foreign keys once every table is known.

    Each reader returns the kind to count in `Schema.skipped`, or None when the statement was read.
    """

    def __init__(self, dialect: str, source: str | None, *, drop_missing_references: bool = False,
                 ignore_seed_inserts: bool = False) -> None:
        self.source = source
        self.ctx = Context(
            dialect=dialect,
            source=source,
            schema=Schema(dialect=dialect, source=source),
            drop_missing_references=drop_missing_references,
            ignore_seed_inserts=ignore_seed_inserts,
        )
        ctx = self.ctx
        self._readers = {
            "table": self._create_table,
            "alter_table": lambda stmt: read_alter_table(ctx, stmt),
            "unique_index": lambda stmt: objects.create_index(ctx, stmt),
            "index": lambda stmt: objects.create_index(ctx, stmt),
            "comment": lambda stmt: objects.comment(ctx, stmt),
            "type": lambda stmt: objects.create_type(ctx, stmt),
            "domain": lambda stmt: objects.create_domain(ctx, stmt),
            "drop": lambda stmt: objects.drop(ctx, stmt),
            "call": lambda stmt: procedure_call(ctx, stmt),
            "rule": lambda stmt: create_rule(ctx, stmt),
            "schema": self._create_schema,
            "insert": lambda stmt: read_insert(ctx, stmt),
        }

    def read(self, stmt: Statement) -> None:
        """Read one statement: into the schema if it defines tables or keys, else count it as skipped."""
        ctx = self.ctx
        ctx.source, ctx.line = stmt.source or self.source, stmt.line
        ctx.table, ctx.column = relation_name(stmt.text) if stmt.kind is None else None, None
        kind = stmt.kind or classify(stmt.text, ctx.dialect)
        try:
            if kind in ("view", "materialized_view") and (ref := relation_ref(stmt.text)):
                ctx.other_relations.add(ctx.relation_name(ref).lower())
            if kind in _SETTINGS and ctx.ns.read_setting(stmt.text):
                pass  # SET search_path, USE, ALTER SESSION: read, and still counted as skipped
            if kind in READ_KINDS or kind in self._readers:
                kind = self._readers[kind](stmt) or ""
        except StateforgeError:
            raise
        except Exception as exc:  # a bug: say where the parser was when it happened
            raise _internal(ctx, f"reading a {kind.replace('_', ' ')} statement", exc) from exc
        if kind:
            ctx.schema.skipped[kind] += 1

    def finish(self) -> Schema:
        """The schema, with every foreign key checked and pointing at tables and columns as defined, and
        every expression tried against DuckDB (the refused ones noted and kept aside)."""
        ctx = self.ctx
        schema = ctx.schema
        if not schema.tables:
            raise SchemaError(
                f"no CREATE TABLE found in {self.source or 'the DDL'}; is the dialect right?",
                file=self.source,
                hint=f"It was read as {ctx.dialect}; pass the dialect it is written in.",
            )
        with _guarded(ctx, "resolving foreign keys"):
            resolve_foreign_keys(ctx)
        with _guarded(ctx, "trying the expressions against DuckDB"):
            enforce(ctx)
        note_partitions(ctx)
        with _guarded(ctx, "trying the seed rows against DuckDB"):
            finish_seeds(ctx)
        return schema

    def _create_schema(self, stmt: Statement) -> str | None:
        """CREATE SCHEMA s CREATE TABLE ... CREATE VIEW ...: each element is read as a statement."""
        elements = schema_elements(stmt, self.ctx.dialect)
        if not elements:
            return "schema"
        ns = self.ctx.ns
        named = _SCHEMA_NAME.match(stmt.text)
        saved = list(ns.path)
        if named is not None:  # its elements are created in the schema, and their bare names found there
            name = unquote(named["name"] or named["owner"])
            ns.path = [name, *[p for p in saved if p.lower() != name.lower()]]
        try:
            for element in elements:
                self.read(element)
        finally:
            ns.path = saved
        return "schema"

    def _create_table(self, stmt: Statement) -> str | None:
        ctx = self.ctx
        if is_partition_of(stmt.text):
            return partition_of(ctx, stmt)
        parsed = objects.parse_noting(ctx, stmt, "CREATE TABLE")
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
        name = ctx.created_name(name_ref(create.this))
        ctx.table = name
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
        table = Table(name=name, description=parsed.comment, line=stmt.line, file=ctx.source)
        ctx.add_table(table)
        if parsed.partition_by:
            ctx.note(f"{parsed.partition_by[:100]} read and ignored: partitions are one table", table=name)
        items = create.this.expressions
        written_on: list[tuple[Column, list[exp.Expr]]] = []
        for item in items:
            if isinstance(item, _COLUMN_ITEMS):
                column, later = new_column(ctx, table, item)
                table.columns.append(column)
                written_on.append((column, later))
        for parent_ref in parsed.inherits:
            # PostgreSQL inheritance: the parents' columns come first, unless the child redefines them.
            parent = ctx.find_table(ctx.resolve(parent_ref), "INHERITS")
            table.columns[:0] = _copies(parent, table)
            table.checks.extend(replace(check) for check in parent.checks)
        # Keys and checks come after every column exists: a CHECK may read a column defined below it.
        for column, later in written_on:
            apply_column_constraints(ctx, table, column, later)
        ctx.column = None
        for item in items:
            if isinstance(item, exp.LikeProperty):  # CREATE TABLE t (LIKE other)
                source = ctx.find_table(ctx.resolve(name_ref(item.this)), "LIKE", item)
                table.columns += _copies(source, table)
            elif not isinstance(item, _COLUMN_ITEMS) and not apply_constraint(ctx, table, item):
                ctx.note(f"table element ignored: {item.sql(ctx.dialect)[:100]!r}", table=name)
        if ctx.dialect == "sqlite" and not parsed.without_rowid and len(table.primary_key) == 1:
            key = table.column(table.primary_key[0])
            key.identity = key.identity or key.type == "INTEGER"  # an INTEGER PRIMARY KEY is the rowid
        return None

def _copies(source: Table, target: Table) -> list[Column]:
    """Copies of the columns of `source` that `target` does not define itself."""
    return [
        replace(c, allowed_values=list(c.allowed_values) if c.allowed_values is not None else None)
        for c in source.columns
        if not target.has_column(c.name)
    ]


def _internal(ctx: Context, stage: str, exc: Exception) -> InternalError:
    """The InternalError for `exc`, naming where the parser was when it happened (read from `ctx` then)."""
    return InternalError(stage, exc, file=ctx.source, line=ctx.line, table=ctx.table, column=ctx.column)


@contextmanager
def _guarded(ctx: Context, stage: str) -> Iterator[None]:
    """Any unexpected exception inside becomes an InternalError naming where the parser was."""
    try:
        yield
    except StateforgeError:
        raise
    except Exception as exc:
        raise _internal(ctx, stage, exc) from exc
