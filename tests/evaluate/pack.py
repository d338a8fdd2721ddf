"""A small built pack with generated tasks, made once a session (the evaluate tests and the flow
test share it): tests/fixtures/ddl/postgres_dump.sql built with --rows 40, and the tasks the offline
generator keeps on it (feasible and infeasible ones, through the generic toolkit)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.build import build_domain
from stateforge.tasks import Task, generate_tasks, read_tasks
from tests.conftest import FIXTURES
from tests.shared import shared_build


def built_pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The database (tasks.jsonl beside it), built once for the session (every xdist worker reads the same
    file). Never write to it: evaluations copy it."""

    def make(out: Path) -> Path:
        build_domain(str(FIXTURES / "ddl" / "postgres_dump.sql"), rows=40, seed=5, out=out)
        db = out / "postgres_dump.duckdb"
        # the first task seed whose set serves every test: feasible and infeasible tasks, and a few
        # short feasible ones for the scripted solvers (about 1 task in 12 is infeasible, so a change
        # in the data or the recipes can lose one kind at a given seed)
        for seed in range(3, 23):
            generate_tasks(db, n=12, seed=seed)
            if suits(pack_tasks(db)):
                return db
        raise AssertionError(f"no task seed in 3..22 keeps the task kinds the tests need on {db}")

    return shared_build(tmp_path_factory, "eval-pack", make)


SHORT_CALLS = 4  # a "short" task: at most this many reference calls
SHORT_TASKS = 3  # the scripted solver tests replay this many short feasible tasks


def short_feasible(tasks: list[Task]) -> list[Task]:
    """The feasible tasks with at most SHORT_CALLS reference calls, in file order."""
    return [t for t in tasks if t.feasible and len(t.reference_calls) <= SHORT_CALLS]


def suits(tasks: list[Task]) -> bool:
    """Whether a task set has what the evaluate tests need: SHORT_TASKS short feasible tasks and an
    infeasible one."""
    return len(short_feasible(tasks)) >= SHORT_TASKS and any(not t.feasible for t in tasks)


def pack_tasks(db: Path) -> list[Task]:
    """The tasks generated on `db`."""
    return read_tasks(db.parent / "tasks.jsonl")
