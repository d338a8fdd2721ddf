"""Episode copies used again: a closed episode's file goes back to a pool, and the next episode of the same
source opens it instead of copying the whole database anew.

An episode's DuckDB instance never writes its copy's main file. Its commits go to the WAL beside it
(`fsync_mode = NONE`), automatic checkpoints are out of reach (`checkpoint_threshold`), and at close the
database is DETACHed with `checkpoint_on_detach = DISABLED`, so the checkpoint that would fold the WAL into
the file never runs (`storage.RECYCLE`). Deleting the WAL then brings the file back to its source's state.

That is checked, not assumed. A copy gets a fixed past mtime (`CLEAN_MTIME_NS`) when it is made, and is
pooled, and later taken, only while its size, its mtime and its DuckDB headers are what they were then and
no WAL is beside it. Any write to the main file (a CHECKPOINT through `Episode.connection`, a bulk insert
DuckDB writes straight into free blocks, an instance a stray cursor kept alive) sets its mtime to the
present: such a copy is deleted and the next episode copies the source again. DuckDB's file lock keeps a
copy from being opened by two instances at once. Idle copies are deleted at exit (at most `MAX_IDLE` are
kept per source), and with their source when it changes.

An idle copy may wait with the locked DuckDB instance its last episode ran on (`instances.py`: an instance
allowed to open that file alone); the next episode of the copy takes both (`take`, then `instance`). An
instance is closed (`close_instance`) when its copy leaves the pool.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CLEAN_MTIME_NS = 1_000_000_000
"""The mtime a pooled copy keeps while its main file is unwritten (1970-01-01T00:00:01Z)."""

HEAD = 3 * 4096
"""Bytes read to check a copy's headers: DuckDB's main header and its two database headers, which every
checkpoint rewrites."""

MAX_IDLE = 8
"""Clean copies kept per source; more are deleted."""


@dataclass(frozen=True)
class Stamp:
    """What a clean copy looks like: its source (path and content key), size and headers."""

    source: str
    size: int
    head: bytes


class CopyPool:
    """Clean copies of episode sources, ready to be opened; safe to use from many threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._stamps: dict[Path, Stamp] = {}
        self._idle: dict[str, list[Path]] = {}
        self._instances: dict[Path, Any] = {}
        self.close_instance: Callable[[Any], None] = _close
        """How an instance whose copy leaves the pool is closed (`storage` hands it to its reaper)."""

    def stamp(self, path: Path, source: str) -> None:
        """Mark the fresh copy at `path` (of the source whose key is `source`) as clean."""
        os.utime(path, ns=(CLEAN_MTIME_NS, CLEAN_MTIME_NS))
        with path.open("rb") as fh:
            head = fh.read(HEAD)
        with self._lock:
            self._stamps[path] = Stamp(source, path.stat().st_size, head)

    def take(self, source: str) -> Path | None:
        """A clean copy of `source` no episode has open, or None; copies found no longer clean are
        deleted."""
        while True:
            with self._lock:
                idle = self._idle.get(source)
                if not idle:
                    return None
                path = idle.pop()
                stamp = self._stamps.get(path)
            if stamp is not None and _clean(path, stamp):
                return path
            self._drop(path)

    def instance(self, path: Path) -> Any | None:
        """The instance that waited with the copy at `path` (just taken), or None; the caller owns it."""
        with self._lock:
            return self._instances.pop(path, None)

    def give_back(self, path: Path, wal: Path, *, instance: Any | None = None) -> bool:
        """Return a closed episode's copy: its WAL is deleted and, if the main file is still clean, the copy
        is pooled (True), with `instance` (its idle DuckDB instance) if given; otherwise both go (False)."""
        with contextlib.suppress(FileNotFoundError):
            wal.unlink()
        with self._lock:
            stamp = self._stamps.get(path)
            if instance is not None:
                self._instances[path] = instance
        if stamp is None or not _clean(path, stamp):
            self._drop(path)
            return False
        with self._lock:
            idle = self._idle.setdefault(stamp.source, [])
            if len(idle) < MAX_IDLE:
                idle.append(path)
                return True
        self._drop(path)
        return False

    def holds(self, path: Path) -> bool:
        """Whether `path` is an idle copy in the pool, clean (what a closed episode's copy is, if it was
        not deleted)."""
        with self._lock:
            idle = any(path in paths for paths in self._idle.values())
            stamp = self._stamps.get(path)
        return idle and stamp is not None and _clean(path, stamp)

    def holds_any(self) -> bool:
        """Whether any idle copy waits in the pool."""
        with self._lock:
            return any(self._idle.values())

    def forget(self, path: Path) -> None:
        """Stop tracking `path` (an episode kept it, or deleted it); an instance waiting with it is closed."""
        with self._lock:
            self._stamps.pop(path, None)
            instance = self._instances.pop(path, None)
        if instance is not None:
            self.close_instance(instance)

    def drop_source(self, prefix: str, keep: str) -> None:
        """Delete the idle copies of every source whose key starts with `prefix` but `keep` (the earlier
        contents of a base that changed)."""
        with self._lock:
            stale = [s for s in self._idle if s.startswith(prefix) and s != keep]
            paths = [p for s in stale for p in self._idle.pop(s)]
        for path in paths:
            self._drop(path)

    def clear(self) -> None:
        """Delete every idle copy and close the instances waiting with them, here and now (at exit)."""
        with self._lock:
            paths = [p for idle in self._idle.values() for p in idle]
            self._idle.clear()
            instances = list(self._instances.values())
            self._instances.clear()
        for instance in instances:
            _close(instance)
        for path in paths:
            self._drop(path)

    def _drop(self, path: Path) -> None:
        self.forget(path)
        for item in (path, path.with_name(path.name + ".wal")):
            with contextlib.suppress(FileNotFoundError):
                item.unlink()


def _close(instance: Any) -> None:
    with contextlib.suppress(Exception):
        instance.close()


def _clean(path: Path, stamp: Stamp) -> bool:
    """Whether the copy at `path` is as it was stamped: no WAL, same size, mtime and headers."""
    try:
        stat = path.stat()
        if path.with_name(path.name + ".wal").exists():
            return False
        if stat.st_size != stamp.size or stat.st_mtime_ns != CLEAN_MTIME_NS:
            return False
        with path.open("rb") as fh:
            return fh.read(HEAD) == stamp.head
    except OSError:
        return False


POOL = CopyPool()
