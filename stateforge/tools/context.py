"""What the write helpers share during one call: the connection, a lookup index of the model, the key
allocator of the episode, and the tally of rows changed.

`SchemaIndex` is built once per model (tables by name, the foreign keys pointing at each table, the column
that gets max+1 ids); `Changes` counts inserted / updated / deleted rows per table and which tables the tool
wrote itself (cascades are counted but are not the tool's own writes).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb

from stateforge.schema.model import ForeignKey, Schema, Table, qualified, suggest
from stateforge.schema.types import INTEGER_TYPES
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tools.errors import ToolDefinitionError

Frag = tuple[str, list[Any]]
"""A piece of SQL and its positional parameters, in order."""


class Expr:
    """A SQL expression as the new value of a column in `env.update...`: `Expr("position - 1")`.

    Written by tool code (never built from an agent's text); its `?` parameters bind `params`, in order.
    """

    __slots__ = ("params", "sql")

    def __init__(self, sql: str, params: list[Any] | tuple[Any, ...] = ()) -> None:
        self.sql = sql
        self.params = list(params)

    def __repr__(self) -> str:
        return f"Expr({self.sql!r}, {self.params!r})"


class SchemaIndex:
    """Case-insensitive lookups over one schema model, computed once."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._tables = {t.name.lower(): t for t in schema.tables}
        self._children: dict[str, list[tuple[Table, ForeignKey]]] = {k: [] for k in self._tables}
        for table in schema.tables:
            for fk in table.foreign_keys:
                self._children.setdefault(fk.ref_table.lower(), []).append((table, fk))

    def table(self, name: str, *, where: str = "") -> Table:
        """The table called `name`; `ToolDefinitionError` (naming `where`) with a suggestion otherwise."""
        found = self._tables.get(name.lower())
        if found is None:
            raise ToolDefinitionError(
                f'{where or "env"}: no table "{name}".{suggest(name, self.schema.table_names)}'
            )
        return found

    def has_table(self, name: str) -> bool:
        """Whether the model has a table called `name` (case-insensitive)."""
        return name.lower() in self._tables

    def within(self, namespace: str) -> SchemaIndex:
        """This index as code written for one DuckDB schema sees it: a bare name is first looked up in
        `namespace` (`employees` -> `hr.employees`), as DuckDB's search path does (a composed pack's member
        tools; `stateforge.tools.compose`)."""
        return _Within(self, namespace)

    def children(self, table: Table) -> list[tuple[Table, ForeignKey]]:
        """Every (child table, foreign key) whose key references `table`."""
        return self._children.get(table.name.lower(), [])

    def allocated_key(self, table: Table) -> str | None:
        """The column that gets max+1 ids when an insert leaves it out: a single-column integer primary
        key that is not an identity (identity columns take their sequence's next value)."""
        if len(table.primary_key) != 1:
            return None
        column = table.column(table.primary_key[0])
        if column.identity or column.base_type not in INTEGER_TYPES:
            return None
        return column.name


class _Within(SchemaIndex):
    """A `SchemaIndex` whose bare names resolve in one namespace first (`SchemaIndex.within`)."""

    def __init__(self, base: SchemaIndex, namespace: str) -> None:
        self.schema = base.schema
        self._tables = base._tables
        self._children = base._children
        self._namespace = namespace

    def _local(self, name: str) -> str:
        inner = qualified(self._namespace, name).lower()
        return inner if "." not in name and inner in self._tables else name

    def table(self, name: str, *, where: str = "") -> Table:
        return super().table(self._local(name), where=where)

    def has_table(self, name: str) -> bool:
        return super().has_table(self._local(name))


@dataclass
class Changes:
    """Rows changed during one call, per table and kind; `direct`: tables the tool itself wrote."""

    counts: dict[str, Counter[str]] = field(default_factory=dict)
    direct: set[str] = field(default_factory=set)
    columns: dict[str, frozenset[str] | None] = field(default_factory=dict)
    """Per changed table, the columns (lower case) its updates set; None once a row was inserted or
    deleted (every column changed). Rules whose check reads none of them need not run again."""

    def add(self, table: str, kind: str, rows: int, *, direct: bool, columns: set[str] | None = None) -> None:
        """Count `rows` rows of `table` as `kind` (inserted / updated / deleted); `direct`: by the tool;
        `columns`: for an update, the columns it set."""
        if direct:
            self.direct.add(table)
        if rows:
            self.counts.setdefault(table, Counter())[kind] += rows
            key = table.lower()
            had = self.columns.get(key, frozenset())
            if kind != "updated" or columns is None or had is None:
                self.columns[key] = None
            else:
                self.columns[key] = had | {c.lower() for c in columns}

    @property
    def tables(self) -> set[str]:
        """Tables with at least one changed row."""
        return set(self.counts)

    def to_dict(self) -> dict[str, dict[str, int]]:
        """`{table: {"inserted": n, "updated": n, "deleted": n}}`, tables sorted, zero counts left out."""
        return {
            t: {k: c[k] for k in ("inserted", "updated", "deleted") if c[k]}
            for t, c in sorted(self.counts.items())
        }


class KeyAllocator:
    """max+1 ids for single-column integer keys, never reused within an episode (even after a delete).

    The first allocation for a column reads its current maximum; later ones count on from there, so the
    same calls in the same order get the same ids. Ids handed out in a call that is rolled back are not
    reused (like a database sequence).
    """

    def __init__(self) -> None:
        self._next: dict[tuple[str, str], int] = {}

    def allocate(self, con: duckdb.DuckDBPyConnection, table: Table, column: str, count: int) -> list[int]:
        """The next `count` ids of `table.column` (the first call reads the column's maximum)."""
        key = (table.name.lower(), column.lower())
        if key not in self._next:
            [(top,)] = con.execute(
                f"SELECT max({quote_ident(column)}) FROM {table_ref(table.name)}"
            ).fetchall()
            self._next[key] = int(top) + 1 if top is not None else 1
        start = self._next[key]
        self._next[key] = start + count
        return list(range(start, start + count))

    def observe(self, table: Table, column: str, values: list[Any]) -> None:
        """Explicit ids were written: later allocations go past them."""
        key = (table.name.lower(), column.lower())
        ints = [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
        if key in self._next and ints:
            self._next[key] = max(self._next[key], max(ints) + 1)

    def copy(self) -> KeyAllocator:
        """An independent allocator in the same state."""
        other = KeyAllocator()
        other._next = dict(self._next)
        return other


@dataclass
class WriteContext:
    """Everything the write helpers need during one call."""

    con: duckdb.DuckDBPyConnection
    index: SchemaIndex
    allocator: KeyAllocator
    changes: Changes = field(default_factory=Changes)

    def fetch(self, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
        """Rows of `sql` as dicts (column name -> value)."""
        cursor = self.con.execute(sql, params or [])
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
