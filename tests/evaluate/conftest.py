"""Fixtures of the evaluate tests: the small pack with its tasks (once per process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.tasks import Task
from tests.evaluate.pack import built_pack, pack_tasks


@pytest.fixture(scope="session")
def pack_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built database; its tasks.jsonl is beside it."""
    return built_pack(tmp_path_factory)


@pytest.fixture(scope="session")
def tasks(pack_db: Path) -> list[Task]:
    """Its tasks, with at least one feasible and one infeasible (the tests rely on both)."""
    found = pack_tasks(pack_db)
    assert any(t.feasible for t in found) and any(not t.feasible for t in found), "regenerate the fixture"
    return found
