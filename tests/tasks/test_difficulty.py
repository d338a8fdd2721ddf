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
