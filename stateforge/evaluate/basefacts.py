"""What graders learn of a base database, kept per process while the file is unchanged.

    facts = base_facts(db_path, 64)    # the same object for every grader of this file, while unchanged
    ...                                # graders fill it lazily (under facts.lock)
    settle_facts(db_path, 64, facts)   # at the grader's close: dropped if the file changed meanwhile

A grader reads the base's catalog (its tables' specs), its row-group sums, the rows of the groups
episodes changed, whether each 'keys and constraints' verifier is clean on the base, the base's rows of
rule verifiers, the key counts of parent tables and the constraints its catalog declares: each once. A
run of 60 episodes paid these at every run (~0.2 s on music at scale 1, ~3 ms an episode); a process that
runs several evaluations of one database (a notebook, the flow's worker, the work pool's shards, the
benchmarks) now pays them once, as it does the data fingerprint (`fingerprint.py`).

Everything here is a function of the base file's bytes, and the cache trusts the same stamp as the
fingerprint's: the file's and its WAL's device, inode, size, mtime and ctime (`fingerprint.stamp_of`).
Facts are shared only for a file whose last change is `SETTLED` seconds old when its grader opens it (a
write within the same clock tick could go unseen otherwise); a grader whose file's stamp at its close is
not the one at its opening drops them. While a grader is open it holds the base attached READ_ONLY,
whose file lock keeps other processes from writing it; a write from this process changes
the stamp, so the next grader starts afresh.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stateforge.evaluate.fingerprint import SETTLED, FileStamp, stamp_of


@dataclass
class BaseFacts:
    """What graders of one base learnt of it (see the module docstring); mutate under `lock`."""

    stamp: FileStamp
    lock: threading.Lock = field(default_factory=threading.Lock)
    specs: dict[str, Any] | None = None
    """Lower-case table -> its `TableSpec` on the base (read from its catalog)."""
    sums: dict[str, Any] = field(default_factory=dict)
    """Lower-case table -> its group sums (`delta.Sums`)."""
    totals: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Lower-case table -> (rows, hash sum) of the whole table."""
    group_rows: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    """(table, group) -> the base's rows of that group."""
    clean: dict[str, bool] = field(default_factory=dict)
    """'keys and constraints' SQL -> whether it finds nothing on the base."""
    rows_of: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """SQL -> its rows on the base, as canonical JSON."""
    counts: dict[tuple[str, tuple[str, ...]], Counter[tuple[Any, ...]]] = field(default_factory=dict)
    """(table, columns) -> how many base rows hold each value."""
    declared: set[Any] | None = None
    """The constraints the base's catalog declares (`stateforge.validation.declared`)."""


def base_facts(path: Path, group: int, *, settled: float | None = None) -> BaseFacts:
    """The facts graders of the database at `path` with `group` rowids per group share: those cached for
    its current stamp, else new ones (cached when its last change is `settled` seconds old, default
    `SETTLED`)."""
    key = (Path(path).resolve(), group)
    stamp = stamp_of(key[0])
    with _LOCK:
        found = _CACHE.get(key)
        if found is not None and found.stamp == stamp:
            return found
        facts = BaseFacts(stamp)
        if time.time_ns() - stamp.changed_ns >= (SETTLED if settled is None else settled) * 1e9:
            _CACHE[key] = facts
        else:
            _CACHE.pop(key, None)
    return facts


def settle_facts(path: Path, group: int, facts: BaseFacts) -> None:
    """At a grader's close: forget `facts` if the file at `path` changed since they were made."""
    key = (Path(path).resolve(), group)
    try:
        same = stamp_of(key[0]) == facts.stamp
    except OSError:
        same = False
    if not same:
        with _LOCK:
            if _CACHE.get(key) is facts:
                del _CACHE[key]


def forget_facts(path: Path | None = None) -> None:
    """Drop the facts of `path` (of every file: None): the next grader reads the base anew."""
    with _LOCK:
        for key in [k for k in _CACHE if path is None or k[0] == Path(path).resolve()]:
            del _CACHE[key]


def shared(path: Path) -> bool:
    """Whether facts of `path` are cached (for tests)."""
    with _LOCK:
        return any(k[0] == Path(path).resolve() for k in _CACHE)


_LOCK = threading.Lock()
_CACHE: dict[tuple[Path, int], BaseFacts] = {}
