"""Faker pools kept on disk between processes: a build's pools come from files instead of Faker.

    cache = pool_cache()                                 # ./artifacts/cache/pools, or $STATEFORGE_POOL_CACHE
    values = cache.load(key) if cache else None          # None: not cached (or unreadable)
    cache.store(key, values)                             # atomically, as an Arrow IPC file

A pool is a pure function of its key: the provider, its arguments, the locale, the seed, the size, the
dedup flag, and what else decides Faker's output (Faker's version, Python's minor version, whose
`random` it draws from). So a hit returns exactly what Faker would make (Arrow IPC keeps the type and
every value), and a miss, a corrupt file or an unwritable folder only costs the Faker calls: the bytes
of a build never depend on the cache. `STATEFORGE_POOL_CACHE=off` turns it off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.metadata
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa

from stateforge.resources import artifacts_dir

FORMAT = 1
"""Bumped whenever what a pool holds changes for the same key (the conversion to Arrow, dedup)."""

_OFF = {"off", "0", "false", "no", ""}


class PoolCache:
    """A folder of pools, one Arrow IPC file each, named by the hash of the pool's key."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: dict[str, Any]) -> Path:
        """The file of the pool with this key."""
        text = json.dumps({**key, "faker": faker_version(), "python": sys.version_info[:2], "format": FORMAT},
                          sort_keys=True, default=str)
        digest = hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
        return self.root / digest[:2] / f"{digest}.arrow"

    def load(self, key: dict[str, Any]) -> pa.Array | None:
        """The cached pool, or None when there is none or it cannot be read."""
        path = self.path(key)
        try:
            with pa.memory_map(str(path)) as source:
                table = pa.ipc.open_file(source).read_all()
            return table.column(0).combine_chunks()
        except (OSError, pa.ArrowException, IndexError):
            return None

    def store(self, key: dict[str, Any], values: pa.Array) -> None:
        """Write the pool atomically (a temporary file renamed into place); failures are ignored."""
        path = self.path(key)
        with contextlib.suppress(OSError, pa.ArrowException):
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as sink, pa.ipc.new_file(sink, pa.schema([("v", values.type)])) as w:
                    w.write_table(pa.table({"v": values}))
                os.replace(tmp, path)
            finally:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


@functools.cache
def faker_version() -> str:
    """The installed Faker's version, read from its metadata (importing Faker costs more than a warm
    build's every pool)."""
    return importlib.metadata.version("Faker")


def pool_cache() -> PoolCache | None:
    """The cache in force: `$STATEFORGE_POOL_CACHE` (a folder, or `off`), else ./artifacts/cache/pools."""
    setting = os.environ.get("STATEFORGE_POOL_CACHE")
    if setting is not None and setting.strip().lower() in _OFF:
        return None
    return PoolCache(Path(setting) if setting else artifacts_dir() / "cache" / "pools")
