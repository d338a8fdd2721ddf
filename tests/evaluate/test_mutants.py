"""Mutant solvers: each kind, where it applies to a task of the small pack, is failed by the grading while
the reference (the oracle) passes; where it does not apply, the episode says so and is neither."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.episode import ToolResult
from stateforge.evaluate import evaluate
from stateforge.evaluate.mutants import kind_report
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS
from stateforge.evaluate.solvers.mutations import MUTATIONS, _moved, _twin, field_of
from stateforge.tasks import Task


def test_every_kind_has_a_mutation() -> None:
    assert tuple(MUTATIONS) == MUTANT_KINDS


@pytest.fixture(scope="module")
def oracle_passes(pack_db: Path, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    summary = evaluate(pack_db, solver="oracle", out=tmp_path_factory.mktemp("runs"), concurrency=2,
                       report=False)
    folder = RunFolder.open(Path(summary["folder"]))
    try:
        return {r.task_id for r in folder.records() if r.outcome == "pass"}
    finally:
        folder.close()


@pytest.mark.parametrize("kind", MUTANT_KINDS)
def test_mutant_fails_where_it_applies(
    kind: str, pack_db: Path, tasks: list[Task], oracle_passes: set[str], tmp_path: Path
) -> None:
    summary = evaluate(pack_db, solver=f"mutant:{kind}", out=tmp_path, concurrency=2, report=False)
    folder = RunFolder.open(Path(summary["folder"]))
    try:
        records = list(folder.records())
    finally:
        folder.close()
    report = kind_report(kind, records, {t.id: t for t in tasks})
    assert report["episodes"] == len(tasks)
    assert report["applicable"] + sum(report["not_applicable"].values()) == len(tasks)
    for record in records:
        details = record.solver_details
        assert details["mutant"] == kind
        assert details["applicable"] == (record.stop_reason != "not_applicable")
        if details["applicable"]:
            assert record.task_id in oracle_passes  # the reference passes ...
            assert record.outcome == "fail", (record.task_id, details["did"])  # ... the mutant does not
        else:
            assert details["why"]
    if not report["applicable"]:
        pytest.skip(f"{kind} applies to no task of the small pack: {report['not_applicable']}")


def _result(value: object) -> ToolResult:
    return ToolResult(tool="search", ok=True, value=value)


def test_field_of_finds_the_other_items_of_the_lists_kind() -> None:
    page = {"total": 3, "rows": [{"song_id": 1, "title": "a", "plays": 2}, {"song_id": 2, "title": "b",
            "plays": 1}, {"song_id": 7, "title": "c", "plays": 1}]}
    assert field_of([1, 2], [_result(page)]) == [7]
    assert field_of([99], [_result(page)]) == []


def test_twin_is_the_same_name_other_entity() -> None:
    rows = {"rows": [{"playlist_id": 4, "title": "Road Trip", "owner": "ann"},
                     {"playlist_id": 9, "title": "Road Trip", "owner": "bob"},
                     {"playlist_id": 5, "title": "Gym", "owner": "ann"}]}
    assert _twin(4, [_result(rows)]) == 9
    assert _twin(5, [_result(rows)]) is None


@pytest.mark.parametrize(
    ("value", "lower", "moved"),
    [("2026-05-01", True, "2026-04-30"), ("2026-05-01T10:00:00", False, "2026-05-01T10:01:00"), (10, True, 9),
     ("9.99", False, "10.00"), (True, True, None), ("Road Trip", True, None)],
)
def test_a_bound_moves_one_unit_outward(value: object, lower: bool, moved: object) -> None:
    assert _moved(value, lower) == moved
