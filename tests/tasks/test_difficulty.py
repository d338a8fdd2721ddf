"""The difficulty label follows the documented formula (stateforge/tasks/difficulty.py, docs/tasks.md)."""

from __future__ import annotations

import pytest

from stateforge.tasks.difficulty import difficulty, difficulty_points, knob_count, structure


@pytest.mark.parametrize(
    ("horizon", "writes", "knobs", "caps", "label"),
    [
        (1, 1, 0, ["cross_step_dependency"], "easy"),
        (3, 1, 0, ["cross_step_dependency"], "easy"),
        (3, 2, 0, ["cross_step_dependency"], "medium"),
        (8, 2, 1, ["cross_step_dependency"], "medium"),
        (24, 5, 0, ["cross_step_dependency"], "hard"),
        (8, 4, 1, ["full_data_acquisition", "cross_step_dependency"], "hard"),
    ],
)
def test_labels(horizon: int, writes: int, knobs: int, caps: list[str], label: str) -> None:
    assert difficulty(horizon, writes, knobs, caps) == label


def test_points_are_capped() -> None:
    points = difficulty_points(100, 50, 9, ["a", "b", "c", "d", "e"])
    assert points == {"horizon": 3, "writes": 2, "knobs": 3, "capabilities": 2, "total": 10}


def test_knobs_and_structure() -> None:
    assert knob_count({"knobs": ["paging", "distractor"]}) == 2
    assert knob_count({"details": {"knobs": {"paging": True, "detour": False}}}) == 1
    assert knob_count({}) == 0
    assert structure(["get", "put", "put", "cannot_complete"], lambda t: t == "put") == (3, 2)


def test_the_gate_labels_tasks_by_structure(tmp_path_factory: pytest.TempPathFactory) -> None:
    from stateforge.tasks.workspace import Workspace
    from stateforge.tools import toolkit_for
    from tests.evaluate.pack import built_pack, pack_tasks

    db = built_pack(tmp_path_factory)
    with Workspace(db) as ws:
        kit = toolkit_for(ws.info.schema, ws.info.name)
    for task in pack_tasks(db):
        horizon, writes = structure([c.tool for c in task.reference_calls], lambda t: kit[t].kind == "write")
        knobs = knob_count(task.provenance.model_dump())
        assert task.difficulty == difficulty(horizon, writes, knobs, task.capabilities), task.id
