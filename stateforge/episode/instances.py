"""DuckDB instances for episodes: started ahead of need, closed off the caller's path, and used again.

Starting an instance costs ~14 CPU ms (it registers its function catalog) and closing one ~2 ms, more than
the rest of an episode's opening and closing together. Three helpers keep that off the episodes' bill:

- `SpareInstance`: one plain instance started by a background thread, taken by the next new episode;
- `Reaper`: closes connections in a background thread;
- `lease` / `give_back`: an instance made for one pooled copy (`pool.py`) serves that copy's next
  episodes too. It is locked down once, before its first ATTACH, with that copy's files (`FILES`) as the
  only ones it may open (`allowed_paths`; then `enable_external_access = false`, `lock_configuration`:
  the same lockdown as `LOCKDOWN`, which no SET can undo). Each episode gets a cursor of it, a
  connection of its own: its temporary tables and macros, prepared statements, variables and `USE` go
  with the cursor at close (and so does every cursor made from it). While the episode runs the instance
  holds no catalog but the copy (`memory` is detached): whatever the episode creates is in the copy's
  WAL, which is deleted. At close the instance takes a fresh, empty `memory` catalog, detaches the copy,
  and goes back to the pool beside it only if it is `pristine`: exactly the catalogs memory, system and
  temp, and one connection (its own). Otherwise it is closed and the next episode of that copy starts a
  new one.

An instance serves one episode at a time, so concurrent episodes still share nothing but the read-only
source file. Measured with `bench/episode.py`: see docs/BENCHMARKS.md, "Episode".
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sys
import threading
from pathlib import Path

import duckdb

from stateforge.store.sql import quote_ident, quote_literal

log = logging.getLogger(__name__)

INSTANCE_CONFIG = {"threads": 1}
"""How each episode's DuckDB instance starts (settings that lockdown later freezes)."""

CATALOG = "episode"
"""The name the episode's database is attached under (and made the default)."""

HOLDER = "memory"
"""The in-memory catalog an idle instance uses as its default (detached while an episode runs)."""

RECYCLE = (
    "SET checkpoint_on_detach = 'DISABLED'",
    "SET checkpoint_threshold = '1TB'",
)
"""For a copy that goes back to the pool (`pool.py`): its main file is never written, commits stay in the
WAL, and closing detaches it without a checkpoint."""

LOCKDOWN = (
    "SET enable_external_access = false",
    "SET autoload_known_extensions = false",
    "SET autoinstall_known_extensions = false",
    "SET allow_community_extensions = false",
    "SET lock_configuration = true",
)

FILES = ("", ".wal", ".wal.checkpoint", ".wal.recovery")
"""The files of a database DuckDB may open: the file itself, its WAL, and the two WALs a checkpoint and a
recovery write beside it. A pooled instance may open these of its copy, and nothing else."""

PRISTINE = (
    "SELECT database_name, NULL FROM duckdb_databases() "
    "UNION ALL SELECT 'connections', count FROM duckdb_connection_count()"
)
EXPECTED = {("memory", None), ("system", None), ("temp", None), ("connections", 1)}
"""What `PRISTINE` finds on an idle instance that nothing outlived: its catalogs and its one connection
(its own). Its settings need no check: `lock_configuration` was set before its first episode, and no SET
can change a setting after that, itself included."""

class SpareInstance:
    """A plain in-memory DuckDB instance started ahead of need by a background thread, refilled after use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: duckdb.DuckDBPyConnection | None = None
        self._wanted = threading.Event()
        self._idle = threading.Event()
        self._idle.set()
        self._worker: threading.Thread | None = None
        self._stopped = False

    def take(self) -> duckdb.DuckDBPyConnection:
        """The spare instance, or a new one when none is ready (call `refill` once done with the opening)."""
        with self._lock:
            con, self._ready = self._ready, None
        return con if con is not None else duckdb.connect(":memory:", config=INSTANCE_CONFIG)

    def refill(self) -> None:
        """Have the background thread start the next spare (after the caller's own opening work, so that
        the two do not compete)."""
        with self._lock:
            if self._ready is not None:
                return
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name="episode-spare-duckdb", daemon=True)
                self._worker.start()
            self._idle.clear()
            self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._stopped:
                self._idle.set()
                return
            try:
                con: duckdb.DuckDBPyConnection | None = duckdb.connect(":memory:", config=INSTANCE_CONFIG)
            except duckdb.Error:
                con = None  # the next take() starts one itself and reports the error
            with self._lock:
                if self._ready is None:
                    self._ready, con = con, None
                if not self._wanted.is_set():
                    self._idle.set()
            _close(con)

    def wait(self) -> None:
        """Wait until no spare is being started (benchmarks settle background work with it)."""
        self._idle.wait(timeout=30)

    def shutdown(self) -> None:
        """Stop the background thread and close the spare (at interpreter exit)."""
        self._stopped = True
        self._wanted.set()
        worker = self._worker
        if worker is not None:
            worker.join(timeout=5)
        with self._lock:
            con, self._ready = self._ready, None
        _close(con)


class Reaper:
    """Closes connections in a background thread (the caller has already removed their files)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[duckdb.DuckDBPyConnection | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None

    def close(self, con: duckdb.DuckDBPyConnection) -> None:
        """Close `con` soon, off the caller's path (at once while the interpreter shuts down: a thread
        started then would keep it from exiting)."""
        if sys.is_finalizing():
            _close(con)
            return
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name="episode-reaper", daemon=True)
                self._worker.start()
        self._queue.put(con)

    def _run(self) -> None:
        while True:
            con = self._queue.get()
            if con is None:
                return
            _close(con)

    def drain(self) -> None:
        """Close everything queued and stop the thread (at interpreter exit, and in tests)."""
        worker = self._worker
        if worker is not None and worker.is_alive():
            self._queue.put(None)
            worker.join(timeout=30)


SPARE = SpareInstance()
REAPER = Reaper()


def lease(path: Path, instance: duckdb.DuckDBPyConnection | None) -> duckdb.DuckDBPyConnection:
    """A cursor over the pooled copy at `path`, attached as `CATALOG` and made the default, on `instance`
    (the one made for this copy by an earlier lease, from the pool) or on a new one locked down for it.

    Close it with `give_back`. Raises `duckdb.Error` (the instance is then closed).
    """
    made = instance is None
    con = SPARE.take() if instance is None else instance
    try:
        if made:
            files = ", ".join(quote_literal(str(path) + suffix) for suffix in FILES)
            con.execute(f"SET allowed_paths = [{files}]")
            for statement in ("SET fsync_mode = 'NONE'", *RECYCLE, *LOCKDOWN):
                con.execute(statement)
        con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(CATALOG)}")
        con.execute(f"USE {quote_ident(CATALOG)}")
        con.execute(f"DETACH {quote_ident(HOLDER)}")
        cursor = con.cursor()
        cursor.execute(f"USE {quote_ident(CATALOG)}")
    except duckdb.Error:
        _close(con)
        raise
    finally:
        if made:
            SPARE.refill()
    _LEASES[path] = con
    return cursor


def give_back(cursor: duckdb.DuckDBPyConnection, path: Path) -> duckdb.DuckDBPyConnection | None:
    """Close the episode's cursor and detach its copy: its instance, if `pristine`, to be pooled with the
    copy; else None (the instance is closed in the background)."""
    _close(cursor)
    con = _LEASES.pop(path, None)
    if con is None:
        return None
    try:
        con.execute(f"ATTACH ':memory:' AS {quote_ident(HOLDER)}")
        con.execute(f"USE {quote_ident(HOLDER)}")
        con.execute(f"DETACH {quote_ident(CATALOG)}")
        if pristine(con):
            return con
        log.info("the DuckDB instance of %s is not used again: something outlived its episode", path)
    except duckdb.Error as exc:
        log.info("the DuckDB instance of %s is not used again: %s", path, exc)
    REAPER.close(con)
    return None


def instance_of(path: Path) -> duckdb.DuckDBPyConnection | None:
    """The instance an open episode's copy at `path` is attached to (for tests and benchmarks)."""
    return _LEASES.get(path)


def leased(path: Path) -> bool:
    """Whether the copy at `path` is open through `lease`."""
    return path in _LEASES


def pristine(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether an idle instance holds nothing an episode left: only its own empty `memory` catalog, no
    other attached database, no other connection."""
    return set(con.execute(PRISTINE).fetchall()) == EXPECTED


def _close(con: object) -> None:
    if isinstance(con, duckdb.DuckDBPyConnection):
        with contextlib.suppress(duckdb.Error):
            con.close()


_LEASES: dict[Path, duckdb.DuckDBPyConnection] = {}
