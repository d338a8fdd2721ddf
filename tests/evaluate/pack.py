"""A small built pack with generated tasks, made once per test process (the evaluate tests and the flow
test share it): tests/fixtures/ddl/postgres_dump.sql built with --rows 40, and the tasks the offline
generator keeps on it (feasible and infeasible ones, through the generic toolkit)."""

from __future__ import annotations

import threading
from pathlib import Path

from pipeline.build import build_domain
from pipeline.tasks import Task, generate_tasks, read_tasks
from tests.conftest import FIXTURES

_LOCK = threading.Lock()
_BUILT: dict[str, Path] = {}


def built_pack(root: Path) -> Path:
    """The database (tasks.jsonl beside it), built under `root` at most once per process. Never write to
    it: evaluations copy it."""
    with _LOCK:
        if "pg" not in _BUILT:
            out = root / "eval-pack"
            build_domain(str(FIXTURES / "ddl" / "postgres_dump.sql"), rows=40, seed=5, out=out)
            db = out / "postgres_dump.duckdb"
            for seed in range(3, 13):  # the first task seed that keeps both kinds (about 1 task in 12 is
                generate_tasks(db, n=12, seed=seed)  # infeasible, so a change in the data can lose it)
                kept = pack_tasks(db)
                if any(t.feasible for t in kept) and any(not t.feasible for t in kept):
                    break
            _BUILT["pg"] = db
        return _BUILT["pg"]


def pack_tasks(db: Path) -> list[Task]:
    """The tasks generated on `db`."""
    return read_tasks(db.parent / "tasks.jsonl")
