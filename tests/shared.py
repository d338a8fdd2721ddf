"""Builds shared by every test process of a session (the xdist workers of `make test`): each is made once,
behind a file lock, under the folder the workers' temporary folders share, and read by all of them.

Only for databases the tests never write to (episodes, workspaces and servers work on copies or open the
file read-only). Without xdist the session's own temporary folder holds them, so no run reads another's.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

_LOCK = threading.Lock()
_MADE: dict[str, Path] = {}
DONE = ".built"
"""Written in a build's folder once the build is complete: the built file's name."""


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`<basetemp's parent>/shared` under xdist (every worker's basetemp is `pytest-N/popen-gwK`), else
    `<basetemp>/shared`."""
    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared"
    root.mkdir(parents=True, exist_ok=True)
    return root


def shared_build(tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[Path], Path]) -> Path:
    """The file `make(folder)` builds in `folder` (and returns), made once for the whole session under the
    name `key`: the first process to ask builds it while the others wait on the lock. Never write to it."""
    with _LOCK:
        if key in _MADE:
            return _MADE[key]
        folder = shared_root(tmp_path_factory) / key
        folder.mkdir(exist_ok=True)
        with open(folder.with_name(f"{key}.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            done = folder / DONE
            if done.is_file():
                path = folder / done.read_text()
            else:
                path = make(folder)
                done.write_text(path.relative_to(folder).as_posix())
        _MADE[key] = path
        return path


def pack_at(tmp_path_factory: pytest.TempPathFactory, pack: str, scale: float) -> Path:
    """The pack `pack` built offline at `scale` with its own seed, once for the session."""
    from stateforge.build import build_domain

    def make(out: Path) -> Path:
        build_domain(pack, scale=scale, out=out)
        return out / f"{pack}.duckdb"

    return shared_build(tmp_path_factory, f"{pack}-{scale}", make)
