"""The generator's privileged view of one built database: SQL on the base, episodes, and end states.

    with Workspace("artifacts/music/music.duckdb") as ws:
        ws.query("SELECT title FROM playlists WHERE owner_id = ?", [7])     # read-only, on the base
        episode = ws.episode(toolkit)                                        # a fresh copy to act on
        ...calls...
        with ws.end_state(episode) as end:                                   # closes the episode
            end.diff, end.query("SELECT ...")                                # the diff from the base

One private DuckDB instance holds the base attached read-only (`base`); an end state is the episode's copy
attached read-only beside it, so the diff and the verifiers run in one place (DuckDB cannot attach a file
another connection of the process holds open, so the episode is closed first). Values come back as
canonical JSON (`stateforge.values`), times with a zone in UTC.
"""

from __future__ import annotations

import hashlib
import itertools
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from stateforge.diff import Diff, diff_catalogs
from stateforge.diff.specs import TableSpec, table_specs
from stateforge.domain import DomainConfig
from stateforge.episode import Episode, read_domain_info
from stateforge.episode.domain_info import DomainInfo, file_key
from stateforge.episode.storage import remove_database
from stateforge.errors import StoreError
from stateforge.schema.model import Schema
from stateforge.store import table_hashes
from stateforge.store.sql import quote_ident, quote_literal, table_ref
from stateforge.tools import Toolkit
from stateforge.tools.actor import Actor
from stateforge.tools.sqlcheck import check_read
from stateforge.values import dumps, json_row

BASE = "base"
"""The catalog name of the base database inside the workspace."""


def fetch(cursor: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> list[dict[str, Any]]:
    """The rows of `sql` as raw Python values (column -> value)."""
    result = cursor.execute(sql, params if params is not None else [])
    names = [d[0] for d in result.description or []]
    return [dict(zip(names, row, strict=True)) for row in result.fetchall()]


def checksums_sql(tables: list[str]) -> str:
    """One SELECT of (table, rows, checksum) per table, ordered by table: the row count and the sum of the
    row hashes, which any change of a row's values moves (order-free, so cheap: no sort, no text)."""
    parts = [
        f'SELECT {quote_literal(t)} AS "table", count(*) AS "rows", '
        f"coalesce(sum(hash(t)::HUGEINT), 0) AS checksum FROM {table_ref(t)} t"
        for t in tables
    ]
    return "SELECT * FROM (" + " UNION ALL ".join(parts) + ') AS c ORDER BY "table"'


@dataclass
class EndState:
    """An episode's state after its calls, attached read-only beside the base."""

    catalog: str
    diff: Diff
    cursor: duckdb.DuckDBPyConnection

    def query(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """Rows of one SELECT on the end state, as canonical JSON."""
        check_read(self.cursor, sql)
        return [json_row(r) for r in fetch(self.cursor, sql, params)]


class Workspace:
    """The base database of a generation run (see the module docstring). Not for threads."""

    def __init__(self, db_path: str | Path, *, workdir: str | Path | None = None) -> None:
        self.path = Path(db_path).resolve()
        if not self.path.is_file():
            raise StoreError(
                f"no database at {db_path}: build it first (`stateforge build-domain DOMAIN`), or pass the "
                "built file with --db."
            )
        self.workdir = Path(workdir) if workdir else Path(tempfile.gettempdir()) / "stateforge-tasks"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self._con = duckdb.connect(":memory:", config={"threads": 1})
        try:
            self._con.execute(f"ATTACH {quote_literal(str(self.path))} AS {BASE} (READ_ONLY)")
        except duckdb.Error as exc:
            self._con.close()
            raise StoreError(f"{self.path} cannot be opened as a DuckDB database: {exc}") from exc
        self._base = self._cursor(BASE)
        self.info: DomainInfo = read_domain_info(self._base, str(self.path), file_key=file_key(self.path))
        self._names = itertools.count(1)
        self._specs: list[TableSpec] | None = None
        self._hashes: dict[str, str] | None = None
        self._counts: dict[str, int] = {}
        self._checksums: dict[str, dict[str, Any]] | None = None

    def _cursor(self, catalog: str) -> duckdb.DuckDBPyConnection:
        cursor = self._con.cursor()
        cursor.execute(f"USE {quote_ident(catalog)}")
        cursor.execute("SET TimeZone = 'UTC'")
        return cursor

    # --- the base ---------------------------------------------------------------------------------

    @property
    def domain(self) -> str:
        """The domain's name, as its build recorded it."""
        return self.info.name

    @property
    def schema(self) -> Schema:
        return self.info.schema

    @property
    def config(self) -> DomainConfig:
        return self.info.config

    def query(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """Rows of one deterministic SELECT on the base, as raw Python values (DuckDB's types)."""
        check_read(self._base, sql)
        return fetch(self._base, sql, params)

    def query_json(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """Rows of one SELECT on the base, as canonical JSON."""
        return [json_row(r) for r in self.query(sql, params)]

    def table_hashes(self) -> dict[str, str]:
        """The md5 of every table's rows (`stateforge.store.table_hashes`), computed once."""
        if self._hashes is None:
            self._hashes = table_hashes(self._base, self.schema)
        return self._hashes

    def fingerprint(self) -> str:
        """A hash of the base's table hashes: which data a task was made on (16 hex digits)."""
        return hashlib.sha256(dumps(self.table_hashes()).encode()).hexdigest()[:16]

    def checksums(self) -> dict[str, dict[str, Any]]:
        """Every table's (table, rows, checksum) row on the base (`checksums_sql`), computed once."""
        if self._checksums is None:
            rows = self.query_json(checksums_sql([t.name for t in self.schema.tables]))
            self._checksums = {r["table"]: r for r in rows}
        return self._checksums

    def count(self, table: str) -> int:
        """Rows of `table` in the base (cached)."""
        if table not in self._counts:
            self._counts[table] = int(
                self._base.execute(f"SELECT count(*) FROM {table_ref(table)}").fetchall()[0][0]
            )
        return self._counts[table]

    # --- episodes and end states ------------------------------------------------------------------

    def episode(self, toolkit: Toolkit, *, diffed: bool = True, actor: Actor | None = None) -> Episode:
        """A fresh episode on a copy of the base, with `toolkit` (the solver's tools), acting as `actor`.
        Finish it with `end_state` (to diff it; `diffed=True`, the copy is kept at close) or `discard`:
        either removes the copy. An episode that will not be diffed closes faster (no checkpoint)."""
        return Episode.open(self.path, toolkit=toolkit, workdir=self.workdir, keep=diffed, actor=actor)

    def discard(self, episode: Episode) -> None:
        """Close `episode` and remove its copy."""
        path = episode.path
        episode.close()
        remove_database(path)

    @contextmanager
    def end_state(self, episode: Episode) -> Iterator[EndState]:
        """Close `episode` (keeping its copy), attach the copy and diff it from the base; removed after."""
        path = episode.path
        written = {t.lower() for r in episode.log if r.ok for t, n in r.changes.items() if any(n.values())}
        episode.close()
        catalog = f"end_{next(self._names)}"
        try:
            self._con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(catalog)} (READ_ONLY)")
            cursor = self._cursor(catalog)
            try:
                cur = self._con.cursor()
                if self._specs is None:  # every episode is a copy of the base: its tables are the base's
                    self._specs, _ = table_specs(cur, BASE, catalog, names=(str(self.path), "the episode"))
                diff = diff_catalogs(cur, BASE, catalog, specs=_written_specs(self._specs, written))
                yield EndState(catalog, diff, cursor)
            finally:
                cursor.close()
                self._con.execute(f"DETACH {quote_ident(catalog)}")
        finally:
            remove_database(path)

    def close(self) -> None:
        """Close the instance (the base file is never written)."""
        self._con.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _written_specs(specs: list[TableSpec], written: set[str]) -> list[TableSpec]:
    """The tables an episode's calls wrote (their write logs, cascades included): a call commits only what
    its log records (`stateforge.episode`), so no other table can differ. Every table when a logged name is
    not one of the specs' (then the diff does not rely on the log)."""
    labels = {s.label.lower() for s in specs}
    if not written <= labels:
        return specs
    return [s for s in specs if s.label.lower() in written]
