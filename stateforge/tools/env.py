"""`Env`: what a tool sees of its episode. Reads with parameters, a frozen clock, and the only write path.

    user = env.one("SELECT user_id FROM users WHERE username = ?", [owner])
    playlist = env.insert("playlists", {"owner_id": user["user_id"], "name": name, "created_at": env.now})
    env.update("playlists", playlist["playlist_id"], {"name": "Road Trip"})
    env.update_where("playlist_songs", "playlist_id = ? AND position > ?", [pid, pos],
                     {"position": Expr("position - 1")})
    env.delete("playlists", {"playlist_id": pid})

`env.actor` is who the episode acts as (`stateforge.tools.actor`: the person's key and roles), or None when
the episode acts as no one; `env.acting()` is the actor, or a `ToolError` saying no one is signed in.

Reads run one SELECT each (no writes, no wall clock, no randomness; checked once per SQL text). Writes
enforce the model's foreign keys with their ON DELETE / ON UPDATE actions, VARCHAR(n) lengths, and turn
DuckDB's key, NOT NULL and CHECK failures into `ConstraintError`s naming table, column and value. All of a
call's work is one transaction, owned by the episode.

A call made inside `cancellable(event)` (the MCP server's, for a request the client may cancel) checks
`event` at every read and write, and the episode once more just before it commits: once it is set, the
call raises `CallCancelled` and is rolled back whole.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import datetime as dt
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import duckdb

from stateforge.schema.model import Schema, Table
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tools.actor import Actor
from stateforge.tools.context import Changes, Frag, KeyAllocator, SchemaIndex, WriteContext
from stateforge.tools.deletes import delete_rows
from stateforge.tools.errors import CallCancelled, ToolDefinitionError, ToolError
from stateforge.tools.sqlcheck import check_read
from stateforge.tools.writes import insert_rows, update_rows

Params = Sequence[Any] | Mapping[str, Any] | None
_CANCEL: contextvars.ContextVar[threading.Event | None] = contextvars.ContextVar(
    "stateforge_cancel", default=None
)
CANCELLED = "the client cancelled this call before it committed: it was rolled back, nothing was changed."


@contextlib.contextmanager
def cancellable(event: threading.Event) -> Iterator[None]:
    """Calls made inside (in this thread) are rolled back once `event` is set before they commit."""
    token = _CANCEL.set(event)
    try:
        yield
    finally:
        _CANCEL.reset(token)


class Env:
    """The environment of one tool call (made by `Episode.call`; tools never build one)."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        index: SchemaIndex,
        now: dt.datetime,
        allocator: KeyAllocator | None = None,
        actor: Actor | None = None,
    ) -> None:
        self._ctx = WriteContext(con=con, index=index, allocator=allocator or KeyAllocator())
        self._now = now
        self._actor = actor
        self._cancel = _CANCEL.get()
        self.reads: set[str] = set()
        """Tables the tool's queries read (lower case), for the check against its declaration."""
        self.reads_unknown = False
        """True when a query could not be analysed (its tables are then not checked)."""

    # --- what the tool may know -------------------------------------------------------------------

    @property
    def now(self) -> dt.datetime:
        """The episode's frozen clock: the same for every call (never the wall clock)."""
        return self._now

    @property
    def actor(self) -> Actor | None:
        """Who the episode acts as (`actor.person`: their key in the pack's people table, `actor.roles`),
        or None when it acts as no one (a pack without `actors:`, an episode opened without one)."""
        return self._actor

    def acting(self, role: str | None = None) -> Actor:
        """The actor; a `ToolError` when the episode acts as no one, or (with `role`) when the actor does
        not hold `role`. A tool that acts for someone calls it first."""
        if self._actor is None:
            raise ToolError(
                "no one is signed in to this session, so there is no one to act for; the session must be "
                "opened as a person (stateforge mcp ... --as PERSON, or the task's actor)."
            )
        if role is not None and not self._actor.has_role(role):
            held = ", ".join(self._actor.roles) or "none"
            raise ToolError(f"{self._actor.person} acts as {held}, not {role}: only a {role} may do this.")
        return self._actor

    @property
    def today(self) -> dt.date:
        """The date of `now`."""
        return self._now.date()

    @property
    def schema(self) -> Schema:
        """The model of the database (tables, keys, foreign keys, comments)."""
        return self._ctx.index.schema

    @property
    def changes(self) -> Changes:
        """Rows changed so far in this call, per table."""
        return self._ctx.changes

    def table(self, name: str) -> Table:
        """The model of table `name` (case-insensitive)."""
        return self._ctx.index.table(name)

    def check_cancelled(self) -> None:
        """`CallCancelled` when the call's request was cancelled (see `cancellable`); else nothing."""
        if self._cancel is not None and self._cancel.is_set():
            raise CallCancelled(CANCELLED)

    def within(self, namespace: str, actor: Actor | None) -> Env:
        """This call's environment as a tool written for one DuckDB schema of a composed pack sees it: bare
        table names resolve in `namespace` (the caller sets DuckDB's search path for the SQL), acting for
        `actor` (the member's person). It shares the transaction, the key allocator, the changes and the
        reads of this one (`stateforge.tools.compose`)."""
        inner = Env.__new__(Env)
        inner._ctx = dataclasses.replace(self._ctx, index=self._ctx.index.within(namespace))
        inner._now, inner._actor, inner._cancel = self._now, actor, self._cancel
        inner.reads, inner.reads_unknown = self.reads, False
        return inner

    # --- reads ------------------------------------------------------------------------------------

    def query(self, sql: str, params: Params = None) -> list[dict[str, Any]]:
        """The rows of one SELECT, as dicts; values only through `params` (`?` list or `$name` mapping)."""
        self.check_cancelled()
        info = check_read(self._ctx.con, sql)
        if info.tables is None:
            self.reads_unknown = True
        else:
            self.reads |= {self._ctx.index.table(t).name.lower() for t in info.tables
                           if self._ctx.index.has_table(t)}
        cursor = self._ctx.con.execute(sql, params if params is not None else [])
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def one(self, sql: str, params: Params = None) -> dict[str, Any] | None:
        """The single row of a query, or None when there is none.

        More than one row is a `ToolError` ("... matches 3 rows; ..."): a lookup by what a user knows must
        name one thing, and a tool must not act on an arbitrary one of several.
        """
        rows = self.query(sql, params)
        if len(rows) > 1:
            raise ToolError(
                f"the lookup matches {len(rows)} rows where one was expected; be more specific "
                "(for example give the id)."
            )
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Params = None) -> Any:
        """The first column of the first row (None when there is no row)."""
        rows = self.query(sql, params)
        return next(iter(rows[0].values())) if rows and rows[0] else None

    def page(
        self,
        sql: str,
        params: Params = None,
        *,
        order_by: str,
        limit: int = 20,
        offset: int = 0,
        hide: Iterable[str] = (),
    ) -> dict[str, Any]:
        """One page of a query's rows and their total: `{"total", "offset", "limit", "rows"}`.

        `order_by` (SQL over the query's output columns, e.g. `"title, song_id"`) must make the order total,
        so that pages neither repeat nor skip rows: end it with a key. The total is counted by a second
        query only when the page does not show it: a page shorter than `limit` (or an empty first page)
        is the last one, so the total is `offset` plus its rows. `hide`: output columns the rows leave out
        (ids a user never sees, sort helpers), usable in `order_by` all the same.
        """
        bound = list(params.values()) if isinstance(params, Mapping) else list(params or [])
        if isinstance(params, Mapping):
            rows = self.query(
                f"SELECT * FROM ({sql}) AS matching ORDER BY {order_by} LIMIT $limit OFFSET $offset",
                {**params, "limit": limit, "offset": offset},
            )
        else:
            rows = self.query(
                f"SELECT * FROM ({sql}) AS matching ORDER BY {order_by} LIMIT ? OFFSET ?",
                [*bound, limit, offset],
            )
        if limit > 0 and (0 < len(rows) < limit or (offset == 0 and not rows)):
            total = offset + len(rows)  # the last page: the rows before it and its own are all there are
        else:
            total = self.scalar(f"SELECT count(*) FROM ({sql}) AS matching", params)
        for row in rows:
            for column in hide:
                row.pop(column, None)
        return {"total": total, "offset": offset, "limit": limit, "rows": rows}

    def get(self, table: str, key: Any) -> dict[str, Any] | None:
        """The row of `table` with this key (see `update` for the forms of `key`), or None."""
        model = self.table(table)
        where, params = self._key(model, key, "get")
        return self.one(f"SELECT * FROM {table_ref(model.name)} WHERE {where}", params)

    # --- writes -----------------------------------------------------------------------------------

    def insert(self, table: str, values: Mapping[str, Any]) -> dict[str, Any]:
        """Insert one row; returns it as stored (defaults filled, a missing surrogate key allocated)."""
        self.check_cancelled()
        return insert_rows(self._ctx, self.table(table), [values])[0]

    def insert_many(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Insert rows in one statement per run of rows with the same columns; returns them as stored."""
        self.check_cancelled()
        return insert_rows(self._ctx, self.table(table), list(rows))

    def update(self, table: str, key: Any, changes: Mapping[str, Any]) -> int:
        """Change the row with this key; returns the rows changed (0 or 1).

        `key` is the value of a single-column primary key, or a mapping that names every column of the
        primary key or of a UNIQUE key. A value in `changes` may be an `Expr` (SQL over the old row).
        """
        self.check_cancelled()
        model = self.table(table)
        return update_rows(self._ctx, model, self._key(model, key, "update"), changes)

    def update_where(self, table: str, where: str, params: Sequence[Any], changes: Mapping[str, Any]) -> int:
        """Change every row matching the SQL condition `where` (`?` bound to `params`); returns the count."""
        self.check_cancelled()
        model = self.table(table)
        return update_rows(self._ctx, model, self._where(model, where, params), changes)

    def delete(self, table: str, key: Any) -> int:
        """Delete the row with this key (forms as in `update`), applying ON DELETE actions; returns 0 or 1
        (what the actions changed besides is in `env.changes`)."""
        self.check_cancelled()
        model = self.table(table)
        return delete_rows(self._ctx, model, self._key(model, key, "delete"))

    def delete_where(self, table: str, where: str, params: Sequence[Any]) -> int:
        """Delete every row matching `where`, applying ON DELETE actions; returns how many matched."""
        self.check_cancelled()
        model = self.table(table)
        return delete_rows(self._ctx, model, self._where(model, where, params))

    # --- helpers ----------------------------------------------------------------------------------

    def _key(self, table: Table, key: Any, verb: str) -> Frag:
        if not isinstance(key, Mapping):
            if len(table.primary_key) != 1:
                raise ToolDefinitionError(
                    f"env.{verb}({table.name}, {key!r}): the table's key has columns "
                    f"({', '.join(table.primary_key) or 'none'}); pass a mapping of column to value."
                )
            key = {table.primary_key[0]: key}
        named = {table.column(c).name.lower() for c in key if table.has_column(c)}
        if len(named) != len(key):
            unknown = [c for c in key if not table.has_column(c)]
            raise ToolDefinitionError(f"env.{verb}({table.name}): no column {unknown[0]!r} in the key.")
        if not any({c.lower() for c in unique} <= named for unique in table.unique_keys):
            keys = " or ".join("(" + ", ".join(u) + ")" for u in table.unique_keys) or "none"
            raise ToolDefinitionError(
                f"env.{verb}({table.name}, {dict(key)!r}): a key names every column of the primary key or "
                f"of a UNIQUE key: {keys}. Use env.{verb}_where for any other condition."
            )
        where = " AND ".join(f"{quote_ident(table.column(c).name)} = ?" for c in key)
        return where, list(key.values())

    def _where(self, table: Table, where: str, params: Sequence[Any]) -> Frag:
        info = check_read(self._ctx.con, f"SELECT 1 FROM {table_ref(table.name)} WHERE {where}")
        if info.tables is None:
            self.reads_unknown = True
        else:  # a subquery of the condition reads other tables
            index = self._ctx.index
            found = {index.table(t).name.lower() for t in info.tables if index.has_table(t)}
            self.reads |= found - {table.name.lower()}
        return f"({where})", list(params)
