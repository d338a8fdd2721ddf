"""The data fingerprint of a database file, computed once per process while the file is unchanged.

    fingerprint = data_fingerprint(db_path, workspace)    # `Workspace.fingerprint()`, cached

A run checks that its tasks were made on the database's data (`Task.db_fingerprint`): an md5 of every
table's rows in key order (`stateforge.store.table_hashes`), ~340 CPU ms on music at scale 1, which a run
of 60 episodes pays as ~6 ms an episode. A process that runs several evaluations of one database (a
notebook, the flow's worker, the work pool's shards, the benchmarks) computes it once.

The cache trusts the file's identity and change times, not its name: the key is the device, inode, size,
mtime and ctime of the file and of its WAL (absent or not). Any write to either changes their mtime and
ctime (ctime cannot be set back: `os.utime` sets it to the present), a file moved or copied over the path
changes its inode. Filesystem timestamps are coarse (a tick of the kernel's clock, a few ms), so a write
made within the same tick as the read would go unseen: a fingerprint is cached only for a file whose last
change is `SETTLED` seconds old or more when the stamp is taken, and only if the stamp taken after the
hashing is the one taken before (the way git treats "racily clean" index entries).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

SETTLED = 2.0
"""Seconds since a file's last change (mtime or ctime) before its fingerprint may be cached."""


class Fingerprinted(Protocol):
    """What computes the fingerprint (`stateforge.tasks.workspace.Workspace`)."""

    def fingerprint(self) -> str: ...


@dataclass(frozen=True)
class FileStamp:
    """Identity and change times of a database file and of its WAL (`wal` None: no WAL)."""

    main: tuple[int, int, int, int, int]
    wal: tuple[int, int, int, int, int] | None

    @property
    def changed_ns(self) -> int:
        """The latest change time (ns since the epoch) of the file and its WAL."""
        return max(max(s[3], s[4]) for s in (self.main, self.wal) if s is not None)


def stamp_of(path: Path) -> FileStamp:
    """The stamp of the database at `path` (`OSError` if it is missing)."""
    return FileStamp(_stat(path), _stat_or_none(path.with_name(path.name + ".wal")))


def data_fingerprint(path: Path, workspace: Fingerprinted, *, settled: float | None = None) -> str:
    """`workspace.fingerprint()` of the database at `path`, from the cache while the file's stamp is the
    one it was computed with; computed (and cached when the file's last change is `settled` seconds old,
    default `SETTLED`) otherwise."""
    settled = SETTLED if settled is None else settled
    key = Path(path).resolve()
    before = stamp_of(key)
    with _LOCK:
        found = _CACHE.get(key)
    if found is not None and found[0] == before:
        return found[1]
    fingerprint = workspace.fingerprint()
    after = stamp_of(key)
    if after == before and time.time_ns() - before.changed_ns >= settled * 1e9:
        with _LOCK:
            _CACHE[key] = (before, fingerprint)
    else:
        with _LOCK:
            _CACHE.pop(key, None)
    return fingerprint


def forget(path: Path | None = None) -> None:
    """Drop the cached fingerprint of `path` (of every file: None), so that the next run computes it."""
    with _LOCK:
        if path is None:
            _CACHE.clear()
        else:
            _CACHE.pop(Path(path).resolve(), None)


def cached(path: Path) -> bool:
    """Whether a fingerprint of `path` is cached (for tests)."""
    with _LOCK:
        return Path(path).resolve() in _CACHE


def _stat(path: Path) -> tuple[int, int, int, int, int]:
    st = os.stat(path)
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _stat_or_none(path: Path) -> tuple[int, int, int, int, int] | None:
    try:
        return _stat(path)
    except FileNotFoundError:
        return None


_LOCK = threading.Lock()
_CACHE: dict[Path, tuple[FileStamp, str]] = {}
