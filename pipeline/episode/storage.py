"""An episode's database: a private copy of the base file, opened on a locked-down DuckDB instance.

Opening costs about a file copy plus DuckDB's own work. Starting a DuckDB instance takes ~12 ms (it
registers its function catalog), so one plain instance is kept started ahead of need (`SpareInstance`,
refilled by a background thread after each use): an episode takes it, ATTACHes its copy and makes it the
default catalog, and only then switches external access, extension loading and every setting off for good:

    enable_external_access = false   no files, no network, no ATTACH, no COPY TO/FROM, no INSTALL
    autoload/autoinstall_known_extensions = false
    lock_configuration = true        no SET can undo any of it

An instance serves one episode and is closed with it, so concurrent episodes share nothing but the
(read-only) base file. Each runs one DuckDB thread: parallelism comes from concurrent episodes, and a
query of a tool call is too small to gain from more. Closing a throwaway copy removes the file at once
and leaves the instance's shutdown (~5 ms) to a background thread (`Reaper`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import shutil
import sys
import threading
from pathlib import Path

import duckdb

from pipeline.episode.pool import POOL
from pipeline.errors import StoreError
from pipeline.store.sql import quote_ident, quote_literal

INSTANCE_CONFIG = {"threads": 1}
"""How each episode's DuckDB instance starts (settings that lockdown later freezes)."""

CATALOG = "episode"
"""The name the episode's database is attached under (and made the default)."""

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


def wal_of(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside a database file."""
    return path.with_name(path.name + ".wal")


def copy_database(base: Path, copy: Path) -> None:
    """Copy a database file (and its WAL, if one is pending) to `copy`."""
    shutil.copyfile(base, copy)
    if wal_of(base).exists():
        shutil.copyfile(wal_of(base), wal_of(copy))


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
atexit.register(POOL.clear)  # after the two below (atexit runs in reverse): no instance holds a copy then
atexit.register(SPARE.shutdown)
atexit.register(REAPER.drain)


def dispose(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Close a throwaway episode: its files go now, its instance shuts down in the background.

    Where an open file cannot be removed (Windows), the connection is closed first, synchronously.
    """
    if os.name == "nt":
        _close(con)
        remove_database(path)
        return
    remove_database(path)
    REAPER.close(con)


def release(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Close a throwaway episode opened with `recycle`: its database is detached without a checkpoint and
    its copy goes back to the pool if still clean (`pool.py`), else it is deleted; the instance shuts down
    in the background. Where that cannot be done (Windows, interpreter shutdown, a detach that fails) the
    copy is disposed of."""
    if os.name == "nt" or sys.is_finalizing():
        POOL.forget(path)
        dispose(con, path)
        return
    try:
        con.execute("USE memory")
        con.execute(f"DETACH {quote_ident(CATALOG)}")
    except duckdb.Error:
        POOL.forget(path)
        dispose(con, path)
        return
    REAPER.close(con)
    POOL.give_back(path, wal_of(path))


def open_locked(
    path: Path, *, copy_from: Path | None = None, recycle: str | None = None
) -> duckdb.DuckDBPyConnection:
    """A locked-down connection whose default catalog is the database at `path`.

    With `copy_from`, `path` is first made a copy of that file, a throwaway: its commits skip fsync (3-5 ms
    each here; a crash loses the episode either way). Without it, `path` is the user's file and stays
    durable, or, with `recycle` (the key of the copy's source), a clean copy taken from the pool.
    `recycle` opens it so that its main file is never written (`RECYCLE`; close it with `release`). On any
    error the copy is removed and the error names the file.
    """
    throwaway = copy_from is not None or recycle is not None
    if copy_from is not None:
        try:
            copy_database(copy_from, path)
            if recycle is not None:
                POOL.stamp(path, recycle)
        except OSError as exc:
            remove_database(path)
            raise StoreError(
                f"cannot copy {copy_from} to {path}: {exc}. Check the disk space and the workdir."
            ) from exc
    try:
        con = SPARE.take()
    except duckdb.Error as exc:
        if throwaway:
            remove_database(path)
        raise StoreError(f"DuckDB could not start: {exc}") from exc
    try:
        con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(CATALOG)}")
        con.execute(f"USE {quote_ident(CATALOG)}")
        if throwaway:
            con.execute("SET fsync_mode = 'NONE'")
        for statement in (*(RECYCLE if recycle is not None else ()), *LOCKDOWN):
            con.execute(statement)
    except duckdb.Error as exc:
        con.close()
        if throwaway:
            POOL.forget(path)
            remove_database(path)
        raise StoreError(f"{path} cannot be opened as a DuckDB database: {exc}") from exc
    SPARE.refill()
    return con


def _close(con: object) -> None:
    if isinstance(con, duckdb.DuckDBPyConnection):
        with contextlib.suppress(duckdb.Error):
            con.close()


def remove_database(path: Path) -> None:
    """Delete a database file and its WAL (missing files are fine)."""
    for item in (path, wal_of(path)):
        with contextlib.suppress(FileNotFoundError):
            item.unlink()
