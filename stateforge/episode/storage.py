"""An episode's database: a private copy of the base file, opened on a locked-down DuckDB instance.

Opening costs about a file copy plus DuckDB's own work. The instance is locked down for good before any
episode code runs:

    enable_external_access = false   no files, no network, no ATTACH, no COPY TO/FROM, no INSTALL
    autoload/autoinstall_known_extensions = false
    lock_configuration = true        no SET can undo any of it

A throwaway copy from the pool (`pool.py`, the default) runs on an instance made for that copy alone and
used again by its next episodes (`instances.lease`: its only readable files are the copy's, and it is
used again only if nothing outlived the episode in it). Other episodes (`keep`, `persist`) take a plain
instance started ahead of need (`SpareInstance`), ATTACH their file, make it the default catalog, and only
then lock it down; it serves that episode alone. Either way an instance serves one episode at a time, so
concurrent episodes share nothing but the (read-only) base file. Each runs one DuckDB thread: parallelism
comes from concurrent episodes, and a query of a tool call is too small to gain from more. Closing a
throwaway copy removes or pools the file at once and leaves any instance's shutdown (~2-5 ms) to a
background thread (`Reaper`).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
from pathlib import Path

import duckdb

from stateforge.episode.instances import (
    CATALOG,
    LOCKDOWN,
    REAPER,
    RECYCLE,
    SPARE,
    give_back,
    lease,
    leased,
)
from stateforge.episode.pool import POOL
from stateforge.errors import StoreError
from stateforge.store.sql import quote_ident, quote_literal


def wal_of(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside a database file."""
    return path.with_name(path.name + ".wal")


def copy_database(base: Path, copy: Path) -> None:
    """Copy a database file (and its WAL, if one is pending) to `copy`."""
    shutil.copyfile(base, copy)
    if wal_of(base).exists():
        shutil.copyfile(wal_of(base), wal_of(copy))


atexit.register(POOL.clear)  # after the two below (atexit runs in reverse): no instance holds a copy then
atexit.register(SPARE.shutdown)
atexit.register(REAPER.drain)
POOL.close_instance = REAPER.close


def dispose(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Close a throwaway episode: its files go now, its instance shuts down in the background.

    Where an open file cannot be removed (Windows), the connection is closed first, synchronously.
    """
    if leased(path):  # a cursor of a pooled instance: detach first, then the instance goes
        instance = give_back(con, path)
        if instance is not None:
            REAPER.close(instance)
        POOL.forget(path)
        remove_database(path)
        return
    if os.name == "nt":
        _close(con)
        remove_database(path)
        return
    remove_database(path)
    REAPER.close(con)


def release(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Close a throwaway episode opened with `recycle`: its database is detached without a checkpoint and
    its copy goes back to the pool if still clean (`pool.py`), with its instance if that is `pristine`
    (`instances.py`), else it is deleted and the instance shuts down in the background. Where that cannot
    be done (Windows, interpreter shutdown, a detach that fails) the copy is disposed of."""
    if os.name == "nt" or sys.is_finalizing():
        POOL.forget(path)
        dispose(con, path)
        return
    if leased(path):
        POOL.give_back(path, wal_of(path), instance=give_back(con, path))
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
    `recycle` opens it so that its main file is never written (`RECYCLE`; close it with `release`), on
    the instance pooled with the copy when there is one (`instances.lease`). On any error the copy is
    removed and the error names the file.
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
    if recycle is not None and os.name != "nt":
        try:
            return lease(path, POOL.instance(path))
        except duckdb.Error as exc:
            POOL.forget(path)
            remove_database(path)
            raise StoreError(f"{path} cannot be opened as a DuckDB database: {exc}") from exc
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
