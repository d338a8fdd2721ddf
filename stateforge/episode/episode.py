"""`Episode`: a private, writable copy of a built database, and the calls a solver makes on it.

    with Episode.open("artifacts/music/music.duckdb") as ep:
        result = ep.call("create_playlist", {"owner": "ana", "name": "Road Trip"})
        result.ok, result.value, result.error, result.changes, result.ms
        ep.log                                   # every call, in order

Every call validates its arguments, runs the tool in one transaction, checks that the tool touched only the
tables it declares, then runs the domain rules that read a table the call changed; any failure rolls the
whole call back and comes back as a failed `ToolResult` saying why. The call's write log (`changes`,
cascades included) is what the grader trusts: the write helpers record every row they change, a tool's
queries cannot write (`sqlcheck`), and a call that recorded no change is rolled back, not committed. The
base file is never written (unless `persist=True`, which writes to it directly, one episode at a time).
"""

from __future__ import annotations

import dataclasses
import logging
import tempfile
import threading
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel

from stateforge.domain import DomainConfig
from stateforge.episode.domain_info import DomainInfo, file_key, read_domain_info
from stateforge.episode.pool import CLEAN_MTIME_NS, POOL
from stateforge.episode.results import ToolResult
from stateforge.episode.rules import RuleCheck
from stateforge.episode.storage import dispose, open_locked, release, remove_database, wal_of
from stateforge.episode.template import content_key, forget, template_for
from stateforge.errors import StoreError
from stateforge.schema.model import Schema
from stateforge.tools.actor import Actor, bind_actor
from stateforge.tools.context import KeyAllocator
from stateforge.tools.env import Env
from stateforge.tools.errors import ToolDefinitionError, ToolError
from stateforge.tools.loader import toolkit_for
from stateforge.tools.sqlcheck import check_read
from stateforge.tools.toolkit import CANNOT_COMPLETE, Toolkit
from stateforge.values import json_value

log = logging.getLogger(__name__)
_PERSISTED: set[Path] = set()
_PERSIST_LOCK = threading.Lock()


def default_workdir() -> Path:
    """Where episode copies go by default: `<system temp>/stateforge-episodes`."""
    return Path(tempfile.gettempdir()) / "stateforge-episodes"


class Episode:
    """One isolated run over a built database. Make it with `Episode.open`; close it (or use `with`)."""

    def __init__(
        self,
        *,
        base: Path,
        path: Path,
        con: duckdb.DuckDBPyConnection,
        info: DomainInfo,
        toolkit: Toolkit,
        keep: bool,
        persist: bool,
        source: Path | None = None,
        actor: Actor | None = None,
    ) -> None:
        self._base = base
        self._actor = actor
        self._source = source or base
        self._path = path
        self._con: duckdb.DuckDBPyConnection | None = con
        self._info = info
        self._toolkit = toolkit
        self._keep = keep
        self._persist = persist
        self._allocator = KeyAllocator()
        self._log: list[ToolResult] = []
        self._lock = threading.RLock()
        self._commits_at: int | None = self._commit_mark()
        """The WAL's size after the last call (at open: before any); None when it cannot tell."""
        self._unlogged = False
        """Whether a write was committed between two calls (the WAL grew outside every call)."""

    @classmethod
    def open(
        cls,
        db_path: str | Path,
        *,
        toolkit: Toolkit | None = None,
        workdir: str | Path | None = None,
        keep: bool = False,
        persist: bool = False,
        pack: str | Path | None = None,
        actor: Actor | str | None = None,
    ) -> Episode:
        """A new episode over the built database `db_path`.

        `toolkit`: the tools callable in it (default: the pack's `tools/`, else the generic toolkit;
        `pack` names a pack folder outside `stateforge/packs/`). `workdir`: where the copy goes (default: the
        system temp folder). `keep`: leave the copy on disk at close. `persist`: no copy, calls write to
        `db_path` itself (one persisting episode per file in this process). `actor`: who the tools act for
        (`env.actor`), checked against the pack's `actors:` (`bind_actor`: a `NoActor` error when the pack
        declares none or its people table does not hold them); roles left out are every role they hold.

        Without `keep` or `persist` the copy is made from the base's template (`template.py`: the base
        without its audit views, which ATTACH would otherwise rebuild every time), kept in
        `<workdir>/.templates/` and made on the first episode of each base content.
        """
        base = Path(db_path).resolve()
        if not base.is_file():
            raise StoreError(
                f"no database at {db_path}: the file does not exist. Build it first "
                "(`stateforge build-domain`)."
            )
        if persist:
            with _PERSIST_LOCK:
                if base in _PERSISTED:
                    raise StoreError(
                        f"{base} is already open for writing by another persisting episode; "
                        "close that one first (one writer at a time)."
                    )
                _PERSISTED.add(base)
            path = folder = base
        else:
            folder = (Path(workdir) if workdir else default_workdir()).resolve()
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{base.stem}-{uuid.uuid4().hex[:12]}.duckdb"
        try:
            key = None if persist else file_key(base)  # a persisting episode's file changes under it
            if persist or keep:
                source = None if persist else base
                con = open_locked(path, copy_from=source)
            else:
                source = template_for(base, folder)
                path, con = _open_pooled(base, folder, source)
            try:
                info = read_domain_info(con, str(base), file_key=key)
                kit = toolkit or toolkit_for(info.schema, info.name, pack_dir=Path(pack) if pack else None)
                kit.check(info.schema)
                bound = bind_actor(con, info.config, actor)
            except BaseException:
                if persist:
                    con.close()
                else:
                    POOL.forget(path)
                    dispose(con, path)
                raise
        except BaseException:
            if persist:
                with _PERSIST_LOCK:
                    _PERSISTED.discard(base)
            raise
        return cls(
            base=base, path=path, con=con, info=info, toolkit=kit, keep=keep, persist=persist, source=source,
            actor=bound,
        )

    # --- what it is -------------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """The episode's database file (the copy; the base itself with `persist`)."""
        return self._path

    @property
    def base_path(self) -> Path:
        """The built database the episode was opened on."""
        return self._base

    @property
    def domain(self) -> str:
        """The domain's name, as its build recorded it."""
        return self._info.name

    @property
    def schema(self) -> Schema:
        """The model of the database."""
        return self._info.schema

    @property
    def config(self) -> DomainConfig:
        """The domain config its build recorded (domain.yaml)."""
        return self._info.config

    @property
    def now(self) -> Any:
        """The frozen clock every call sees."""
        return self._info.now

    @property
    def actor(self) -> Actor | None:
        """Who the tools act for (`env.actor`), or None."""
        return self._actor

    @property
    def rules(self) -> tuple[RuleCheck, ...]:
        """The domain's rules, as checked after each call."""
        return self._info.rules

    @property
    def toolkit(self) -> Toolkit:
        """The tools callable in this episode."""
        return self._toolkit

    @property
    def log(self) -> list[ToolResult]:
        """Every call so far, in order (a copy)."""
        with self._lock:
            return list(self._log)

    @property
    def declined(self) -> str | None:
        """The reason of the first successful `cannot_complete` call, or None."""
        for result in self.log:
            if result.tool == CANNOT_COMPLETE and result.ok:
                return str(result.value.get("reason"))
        return None

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The episode's DuckDB connection, for privileged readers (graders, task generators).

        It has the same lockdown as every call (no files, no network, no settings); writes made through
        it bypass the tool layer's foreign keys, rules and log, so solvers never get it.
        """
        return self._connection()

    @property
    def closed(self) -> bool:
        """Whether `close` was called."""
        return self._con is None

    # --- calls ------------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Run one tool call in one transaction and log it; never raises for what the call did wrong."""
        with self._lock:
            started = time.perf_counter()
            self._note_unlogged()
            result = self._run(tool, arguments)
            result.ms = round((time.perf_counter() - started) * 1000, 3)
            self._log.append(result)
            if self._commits_at is not None:  # once it cannot tell, it never can again
                self._commits_at = self._commit_mark()
            return result

    def unlogged_writes(self) -> bool | None:
        """Whether something committed a write outside every call (through `connection`), which the log
        does not record: False when every committed write was a call's, True when one was not, None when
        this cannot tell (the episode is not on a pooled copy, or its main file was written: a CHECKPOINT).

        How: a pooled copy's main file is never written (`pool.py`), so every commit appends to the WAL
        beside it; the file's size (`os.stat`, its bytes are never read) is noted after each call, and a
        size that moved before the next call, or before this one, is a write no call made."""
        with self._lock:
            self._note_unlogged()
            return None if self._commits_at is None else self._unlogged

    def _commit_mark(self) -> int | None:
        """The size of the copy's WAL (0 when there is none yet), or None when it cannot tell what was
        committed: the base itself, or a main file written since it was made clean."""
        if self._persist or self._path == self._base:
            return None
        try:
            if self._path.stat().st_mtime_ns != CLEAN_MTIME_NS:
                return None
            return wal_of(self._path).stat().st_size
        except FileNotFoundError:
            return 0
        except OSError:
            return None

    def _note_unlogged(self) -> None:
        mark = self._commit_mark()
        if mark is None or self._commits_at is None:
            self._commits_at = None
        elif mark != self._commits_at:
            self._unlogged = True

    def _run(self, name: str, arguments: Mapping[str, Any] | None) -> ToolResult:
        con = self._connection()
        shown = json_value(dict(arguments)) if isinstance(arguments, Mapping) else json_value(arguments)
        if arguments is None:
            shown = {}
        try:
            tool = self._toolkit[name]
            validated = tool.validate(arguments)
        except ToolError as exc:
            return _failed(name, shown, exc)
        env = Env(con, self._info.index, self._info.now, self._allocator, actor=self._actor)
        con.execute("BEGIN TRANSACTION")
        try:
            value = _jsonable(tool.run(env, validated))
            _check_declaration(tool, env)
            if not isinstance(value, dict):
                raise ToolDefinitionError(
                    f"tool {name} returned {type(value).__name__}: every tool returns a JSON object (wrap a "
                    'list as {"<what>": [...]}; docs/tools.md, "Results").'
                )
            checked = self._check_rules(env.changes.tables, env.changes.columns)
            env.check_cancelled()  # a call cancelled before it commits keeps nothing (tools/env.py)
            # a call whose write log is empty keeps nothing: a write no helper recorded cannot persist
            con.execute("COMMIT" if env.changes.counts else "ROLLBACK")
        except BaseException as exc:
            _rollback(con)
            if isinstance(exc, ToolError | ToolDefinitionError):
                return _failed(name, shown, exc)
            if isinstance(exc, Exception):
                log.exception("tool %s failed", name)
                return _failed(name, shown, exc, internal=True)
            raise
        return ToolResult(
            tool=name,
            arguments=shown,
            ok=True,
            value=value,
            changes=env.changes.to_dict(),
            rules_checked=checked,
        )

    def _check_rules(
        self, changed: set[str], columns: Mapping[str, frozenset[str] | None] | None = None
    ) -> list[str]:
        """Run the rules that read a changed column (`RuleCheck.applies`); the first one broken raises
        `RuleError`."""
        checked = []
        for rule in self._info.rules:
            if changed and rule.applies(changed, columns):
                checked.append(rule.name)
                count, rows = rule.violations(self._connection())
                if count:
                    raise rule.error(count, rows)
        return checked

    def query(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """Rows of one SELECT on the episode's current state (for graders and tests; not a solver path)."""
        with self._lock:
            con = self._connection()
            check_read(con, sql)
            cursor = con.execute(sql, params if params is not None else [])
            names = [d[0] for d in cursor.description or []]
            return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    # --- lifecycle --------------------------------------------------------------------------------

    def reset(self) -> None:
        """Back to the base state: a fresh copy, fresh id allocation, an empty log."""
        if self._persist:
            raise StoreError(
                f"{self._base}: a persisting episode writes to the base itself and cannot reset."
            )
        with self._lock:
            con, self._con = self._connection(), None
            if self._keep:
                con.close()
                remove_database(self._path)
                self._con = open_locked(self._path, copy_from=self._source)
            else:
                release(con, self._path)
                self._source = template_for(self._base, self._path.parent)
                self._path, self._con = _open_pooled(self._base, self._path.parent, self._source)
            self._allocator = KeyAllocator()
            self._log = []
            self._commits_at, self._unlogged = self._commit_mark(), False

    def close(self) -> None:
        """Close the database; delete the copy unless `keep` (a persisting episode keeps its writes)."""
        with self._lock:
            if self._con is None:
                return
            con, self._con = self._con, None
            if not (self._keep or self._persist):
                release(con, self._path)
                return
            try:
                con.execute("CHECKPOINT")
            finally:
                con.close()
                if self._persist:
                    with _PERSIST_LOCK:
                        _PERSISTED.discard(self._base)

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten episode must not leave its copy behind
        if getattr(self, "_con", None) is not None:
            try:
                self.close()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is None:
            raise StoreError(f"the episode over {self._base} is closed; open a new one.")
        return self._con

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self._log)} calls"
        return f"Episode({self._base.name} -> {self._path.name}, {state})"


def _open_pooled(base: Path, folder: Path, source: Path) -> tuple[Path, duckdb.DuckDBPyConnection]:
    """A throwaway copy of `source` (the base's template, or the base) in `folder`, opened: a clean copy
    from the pool (`pool.py`) when there is one, else a new one. A pooled copy that fails to open is
    deleted, and a template another process removed meanwhile is made again, once each."""
    for attempt in range(3):
        key = content_key(source)
        if attempt == 0:
            POOL.drop_source(str(source) + "|", keep=key)  # copies of an earlier content of `source`
        path = POOL.take(key)
        fresh = path is None
        if path is None:
            path = folder / f"{base.stem}-{uuid.uuid4().hex[:12]}.duckdb"
        try:
            return path, open_locked(path, copy_from=source if fresh else None, recycle=key)
        except StoreError as exc:
            if attempt == 2:
                raise
            if fresh:
                if source == base or not isinstance(exc.__cause__, FileNotFoundError) or source.exists():
                    raise
                forget(base, folder)
                source = template_for(base, folder)
    raise AssertionError("unreachable")


def _check_declaration(tool: Any, env: Env) -> None:
    """The tool wrote and read only the tables it declares (its declaration feeds the coverage report)."""
    writes = {t.lower() for t in tool.writes}
    wrote = sorted(t for t in env.changes.direct if t.lower() not in writes)
    if wrote:
        raise ToolDefinitionError(
            f"tool {tool.name} wrote {', '.join(wrote)} without declaring it: add it to writes=(...) "
            f"(declared: {', '.join(tool.writes) or 'none'})."
        )
    allowed = writes | {t.lower() for t in tool.reads}
    read = sorted(t for t in env.reads if t not in allowed)
    if read:
        raise ToolDefinitionError(
            f"tool {tool.name} read {', '.join(read)} without declaring it: add it to reads=(...) "
            f"(declared: {', '.join(tool.reads) or 'none'})."
        )


def _jsonable(value: Any) -> Any:
    if isinstance(value, BaseModel):
        value = value.model_dump()
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    return json_value(value)


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # nothing to roll back: the transaction failed to start


def _failed(name: str, arguments: Any, exc: BaseException, *, internal: bool = False) -> ToolResult:
    if internal:
        kind, text = "internal", f"{name} failed: {type(exc).__name__}: {exc}"
    else:
        kind, text = getattr(exc, "kind", "tool"), str(exc)
    facts = exc.attrs() if isinstance(exc, ToolError) else {}
    return ToolResult(
        tool=name,
        arguments=arguments,
        ok=False,
        error=text,
        error_kind=kind,
        policy=facts.get("policy"),
        rule=facts.get("rule"),
        argument=facts.get("argument"),
    )
