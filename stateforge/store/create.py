"""Create a DuckDB database from the schema model: tables, sequences and metadata.

Tables get their primary keys, UNIQUE, NOT NULL, CHECK and defaults; foreign keys are not declared to
DuckDB (see DESIGN.md: they block deletes and updates the write tools need and slow bulk inserts 3x) and
live in the metadata tables instead, where the audit checks them.

Tables outside the default namespace live in DuckDB schemas of their own (`CREATE SCHEMA "sales"`), and
so do their sequences and their rebuilt copies.

Identity columns: DuckDB has no AUTO_INCREMENT, so each gets a sequence `<table>_<column>_seq` and
`DEFAULT nextval(...)`. DuckDB 2.0.1 has no `ALTER SEQUENCE ... RESTART` and refuses to drop a sequence a
default depends on, so `reset_sequences` drops the default, recreates the sequence and sets it again.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable
from pathlib import Path

import duckdb

from stateforge.constraints import Coverage, table_constraints
from stateforge.errors import StoreError
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Column, Schema, Table
from stateforge.store.metadata import write_metadata
from stateforge.store.sql import (
    column_list,
    in_list_sql,
    in_namespace,
    namespace_ref,
    nextval,
    quote_ident,
    quote_literal,
    sequence_name,
    sequence_ref,
    table_ref,
)

COVERAGE = Coverage(
    "the DDL (stateforge.store.create)",
    enforces={
        "type": ("the column type",),
        "range": ("the column type (DuckDB refuses a value the type cannot hold)",),
        "not_null": ("NOT NULL",),
        "allowed_values": ("CHECK (col IN (...))",),
        "unique": ("PRIMARY KEY", "UNIQUE (a key over a type DuckDB cannot index, a list say, is left to the "
                   "batch checks and the audit)"),
        "check": ("CHECK",),
        "default": ("DEFAULT", "DEFAULT nextval(...)"),
    },
    leaves={
        "max_length": "DuckDB accepts VARCHAR(n) but ignores n: the batch checks and the audit enforce it",
        "foreign_key": "not declared to DuckDB (DESIGN.md, decision 1): the batch checks, the audit and the "
        "orphan cleanup enforce foreign keys",
    },
)
"""How the DDL enforces each kind of constraint of the description."""


def column_ddl(table: Table, column: Column, *, constraints: bool = True) -> str:
    """One column definition: name, type, default (identity: the sequence) and, with constraints, NOT NULL.

    A generated column is `GENERATED ALWAYS AS (expr) VIRTUAL` (DuckDB computes it; it takes no default
    and no constraint).
    """
    parts = [quote_ident(column.name), column.type]
    if column.generated is not None:
        return " ".join([*parts, f"GENERATED ALWAYS AS ({column.generated}) VIRTUAL"])
    if column.identity:
        parts.append(f"DEFAULT {nextval(table.name, column.name)}")
    elif column.default is not None:
        parts.append(f"DEFAULT {column.default}")
    if constraints and not column.nullable:
        parts.append("NOT NULL")
    return " ".join(parts)


def table_ddl(table: Table, *, constraints: bool = True) -> str:
    """`CREATE TABLE main."t" (...)` for one table.

    With `constraints=False` only the columns, their types and defaults are created (defaults restrict
    nothing): the form bulk loading and the audit's tests use.
    """
    lines = [column_ddl(table, c, constraints=constraints) for c in table.columns]
    if constraints:
        tc = table_constraints(table)
        for key in tc.unique_keys:
            if not key.indexed:
                continue  # DuckDB cannot index the type: the batch checks and the audit enforce the key
            lines.append(f"{'PRIMARY KEY' if key.primary else 'UNIQUE'} ({column_list(key.columns)})")
        for check in tc.checks:
            name = f"CONSTRAINT {quote_ident(check.name)} " if check.name else ""
            lines.append(f"{name}CHECK ({check.sql})")
        for column in tc.columns:
            if column.enforced_allowed:
                lines.append(f"CHECK ({in_list_sql(column.name, column.enforced_allowed)})")
    body = ",\n    ".join(lines)
    return f"CREATE TABLE {table_ref(table)} (\n    {body}\n)"


def _comments(table: Table) -> list[str]:
    out = []
    if table.description:
        out.append(f"COMMENT ON TABLE {table_ref(table)} IS {quote_literal(table.description)}")
    for c in table.columns:
        if c.description:
            target = f"{table_ref(table)}.{quote_ident(c.name)}"
            out.append(f"COMMENT ON COLUMN {target} IS {quote_literal(c.description)}")
    return out


def ordered_tables(schema: Schema, plan: FillPlan) -> list[Table]:
    """The schema's tables in fill order; tables the plan does not name follow in DDL order."""
    try:
        first = [schema.table(name) for name in plan.order]
    except KeyError as exc:
        raise StoreError(f"the fill plan names a table the schema does not have: {exc.args[0]}") from exc
    named = {t.name for t in first}
    return first + [t for t in schema.tables if t.name not in named]


def create_tables(
    con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan, *, constraints: bool = True
) -> None:
    """Create the schema's sequences and tables on an open connection, and write the model's metadata.

    The caller owns the transaction. A table that cannot be created raises `StoreError` naming it.
    """
    for namespace in schema.namespaces:
        try:
            con.execute(f"CREATE SCHEMA IF NOT EXISTS {namespace_ref(namespace)}")
        except duckdb.Error as exc:
            raise StoreError(
                f"namespace {namespace}: DuckDB refused to create it as a schema ({exc}). Rename the schema "
                "in the DDL file."
            ) from exc
    for table in ordered_tables(schema, plan):
        statements = [
            f"CREATE SEQUENCE {sequence_ref(table.name, c.name)} START 1"
            for c in table.columns
            if c.identity
        ]
        statements += [table_ddl(table, constraints=constraints), *_comments(table)]
        for sql in statements:
            try:
                con.execute(sql)
            except duckdb.Error as exc:
                raise StoreError(
                    f"table {table.name}: DuckDB refused the generated DDL ({exc}).\n{sql}\n"
                    "Fix the table in the DDL file: types, defaults and CHECKs must be valid DuckDB SQL."
                ) from exc
    write_metadata(con, schema, plan)


REWRITE = "__sf_rewrite"
"""The name a table is rebuilt under by `rewrite_table`, before it takes the table's place."""


def rewrite_table(con: duckdb.DuckDBPyConnection, table: Table, select: str) -> None:
    """Replace every row of `table` with the rows of `select` (its stored columns, i.e. all but the generated
    ones, in table order), by building
    the table anew under a temporary name, with its constraints, defaults and comments, and moving it into
    place. The caller owns the transaction; the rows keep the order `select` gives them.

    Why not UPDATE: DuckDB 2.0.1 runs an UPDATE of a column that a CHECK reads together with an indexed
    column (`CHECK (parent_id <> id)` beside the primary key) as a delete and re-insert of every row, in
    time that grows with the square of the rows (60x a rewrite at 60,000 rows: bench/second_pass.py),
    where building the table again costs what its first insert did.
    """
    ddl = table_ddl(table)
    head = f"CREATE TABLE {table_ref(table)} ("
    if not ddl.startswith(head):  # table_ddl's own first line: a mismatch is a bug here, not bad input
        raise StoreError(f"table {table.name}: cannot rewrite it: unexpected DDL {ddl[:80]!r}")
    stored = column_list(c.name for c in table.columns if c.generated is None)
    copy = in_namespace(table, REWRITE)  # a rename cannot move a table to another schema
    statements = [
        f"DROP TABLE IF EXISTS {copy}",
        f"CREATE TABLE {copy} (" + ddl[len(head):],
        f"INSERT INTO {copy} ({stored}) {select}",
        f"DROP TABLE {table_ref(table)}",
        f"ALTER TABLE {copy} RENAME TO {quote_ident(table.local_name)}",
        *_comments(table),
    ]
    for sql in statements:
        try:
            con.execute(sql).fetchall()
        except duckdb.Error as exc:
            raise StoreError(f"table {table.name}: rewriting it failed ({exc}) at:\n{sql}") from exc


def reset_sequences(con: duckdb.DuckDBPyConnection, schema: Schema) -> dict[str, int]:
    """Restart every identity column's sequence just after the column's current maximum (1 if empty).

    Run it after rows were inserted with explicit ids, so that the next insert without an id gets a
    fresh one. Creates the sequence if it is missing. Returns {sequence name: next value}.
    """
    restarted: dict[str, int] = {}
    for table in schema.tables:
        for column in (c for c in table.columns if c.identity):
            ref, col = table_ref(table), quote_ident(column.name)
            seq = sequence_ref(table.name, column.name)
            [(top,)] = con.sql(f"SELECT max({col}) FROM {ref}").fetchall()
            start = int(top) + 1 if top is not None else 1
            for sql in (
                f"ALTER TABLE {ref} ALTER COLUMN {col} DROP DEFAULT",
                f"DROP SEQUENCE IF EXISTS {seq}",
                f"CREATE SEQUENCE {seq} START {start}",
                f"ALTER TABLE {ref} ALTER COLUMN {col} SET DEFAULT {nextval(table.name, column.name)}",
            ):
                con.execute(sql)
            restarted[sequence_name(table.name, column.name)] = start
    return restarted


Setup = Callable[[duckdb.DuckDBPyConnection, Schema, FillPlan], object]
"""More to create in the same transaction, e.g. `stateforge.validation.install_views` (the audit views)."""


def create_database(
    schema: Schema, plan: FillPlan, path: str | Path, *, overwrite: bool = False, setup: Setup | None = None
) -> Path:
    """Write a new DuckDB file at `path`: the schema's tables and metadata, then `setup(con, schema, plan)`.

    Atomic: the file is built under a temporary name in the same directory and moved into place with
    `os.replace`; on any error the temporary file is removed and whatever was at `path` is untouched.
    An existing `path` raises `StoreError` unless `overwrite` is true.
    """
    path = Path(path)
    _check_target(path, overwrite)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        con = duckdb.connect(str(tmp))
        try:
            con.begin()
            create_tables(con, schema, plan)
            if setup is not None:
                setup(con, schema, plan)
            con.commit()
            con.sql("CHECKPOINT")
        finally:
            con.close()
        _check_target(path, overwrite)
        # A WAL left beside an old file would be replayed onto the new one: remove it first.
        _remove(_wal(path))
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        _remove(_wal(tmp))
        raise
    return path


def _check_target(path: Path, overwrite: bool) -> None:
    if path.is_dir():
        raise StoreError(f"{path} is a directory; give the path of the database file to create.")
    if path.exists() and not overwrite:
        raise StoreError(f"{path} already exists; pass overwrite=True to replace it, or choose another path.")


def _wal(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
