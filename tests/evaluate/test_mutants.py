"""Mutant solvers: each kind applies to the feasible tasks of a small pack made for it
(tests/evaluate/errands: paged reads, a list write, a date range with an order at its edge, same-name
products, an additive write)
and is failed by the grading there while the reference (the oracle) passes; where a kind does not apply,
the episode says so and is neither. (ignore-procedure needs a procedure: the ITSM pack's tests.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.build import build_domain
from stateforge.episode import ToolResult
from stateforge.evaluate import evaluate
from stateforge.evaluate.mutants import EQUIVALENT, kind_report
from stateforge.evaluate.records import EpisodeRecord
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS
from stateforge.evaluate.solvers.mutations import MUTATIONS, _moved, _twin, field_of
from stateforge.tasks import Task, generate_tasks, read_tasks


def test_every_kind_has_a_mutation() -> None:
    assert tuple(MUTATIONS) == MUTANT_KINDS


ERRANDS = Path(__file__).parent / "errands"
"""A small shop pack whose storyline gives every mutant kind something to get wrong (errands/tasks)."""


@pytest.fixture(scope="module")
def errands(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Task]]:
    out = tmp_path_factory.mktemp("errands")
    assert build_domain(str(ERRANDS), out=out)["totals"]["violations"] == 0
    db = out / "errands.duckdb"
    generate_tasks(str(ERRANDS), db=db, n=6, seed=0, out=out)
    tasks = read_tasks(out / "tasks.jsonl")
    assert any(t.feasible for t in tasks) and any(not t.feasible for t in tasks)
    return db, tasks


@pytest.fixture(scope="module")
def oracle_records(
    errands: tuple[Path, list[Task]], tmp_path_factory: pytest.TempPathFactory
) -> list[EpisodeRecord]:
    db, _ = errands
    summary = evaluate(str(ERRANDS), db=db, solver="oracle", out=tmp_path_factory.mktemp("runs"),
                       concurrency=2, report=False)
    folder = RunFolder.open(Path(summary["folder"]))
    try:
        return list(folder.records())
    finally:
        folder.close()


@pytest.fixture(scope="module")
def oracle_passes(errands: tuple[Path, list[Task]], oracle_records: list[EpisodeRecord]) -> set[str]:
    _, tasks = errands
    passed = {r.task_id for r in oracle_records if r.outcome == "pass"}
    assert passed == {t.id for t in tasks}  # the reference passes every task
    assert all(r.exact for r in oracle_records)  # ... with exactly the reference's end state
    return passed


def test_a_pass_with_the_reference_s_end_state_is_an_equivalent_mutant_not_an_escape(
    errands: tuple[Path, list[Task]], oracle_records: list[EpisodeRecord], oracle_passes: set[str]
) -> None:
    """A mutant episode that ran and passed with exactly the reference's end state (the oracle's records,
    read as a mutant's) made no mistake the data can show: not applicable, with the reason; a pass that
    only a column's tolerance made is an escape."""
    _, tasks = errands
    by_id = {t.id: t for t in tasks}
    report = kind_report("add-item", oracle_records, by_id)
    assert (report["applicable"], report["escaped"], report["fail_share"]) == (0, 0, None)
    assert report["not_applicable"] == {EQUIVALENT: len(oracle_records)}
    tolerated = [oracle_records[0].model_copy(update={"exact": False}), *oracle_records[1:]]
    report = kind_report("add-item", tolerated, by_id)
    assert (report["applicable"], report["escaped"]) == (1, 1)
    assert report["escapes"][0]["task"] == oracle_records[0].task_id and not report["meets_target"]


PROCEDURAL = ("ignore-procedure",)
"""Kinds that need a `kind: procedure` policy, which errands has not: tests/packs/itsm/test_procedures.py."""


@pytest.mark.parametrize("kind", [k for k in MUTANT_KINDS if k not in PROCEDURAL])
def test_mutant_fails_where_it_applies(
    kind: str, errands: tuple[Path, list[Task]], oracle_passes: set[str], tmp_path: Path
) -> None:
    """Each kind applies to every feasible task of the errands storyline, and the grading fails it there."""
    db, tasks = errands
    summary = evaluate(str(ERRANDS), db=db, solver=f"mutant:{kind}", out=tmp_path, concurrency=2,
                       report=False)
    folder = RunFolder.open(Path(summary["folder"]))
    try:
        records = list(folder.records())
    finally:
        folder.close()
    report = kind_report(kind, records, {t.id: t for t in tasks})
    assert report["episodes"] == len(tasks)
    assert report["applicable"] + sum(report["not_applicable"].values()) == len(tasks)
    feasible = {t.id for t in tasks if t.feasible}
    for record in records:
        details = record.solver_details
        assert details["mutant"] == kind
        assert details["applicable"] == (record.stop_reason != "not_applicable")
        if record.task_id in feasible:
            assert details["applicable"], (record.task_id, details.get("why"))
        if details["applicable"]:
            assert record.task_id in oracle_passes
            assert record.outcome == "fail", (record.task_id, details["did"])  # the mistake is caught
        else:
            assert details["why"]


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
