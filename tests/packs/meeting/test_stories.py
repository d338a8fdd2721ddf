"""The meeting storylines on the pack built small (scale 0.05, the session's `meeting_db`): the default tier,
composed tasks the gate keeps with their steps and knobs, infeasible ones declined after the work and
refused by the policy they name, and the grading of those tasks: the reference passes, doing nothing passes
only the infeasible ones, and every mutant kind fails where it applies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.domain.loader import schemas_dir
from stateforge.evaluate import evaluate
from stateforge.evaluate.mutants import kind_report
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS
from stateforge.packs.meeting.tasks.stories import STORYLINES
from stateforge.tasks import Task, load_recipes
from stateforge.tasks.jsonl import write_tasks
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit, load_toolkit
from tests.packs.kept import keep_first

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("meeting-pack")]

ATTEMPTS = 8
NUMBERED = re.compile(r"(^|\s)[1-9][.)]\s")
SMALL = {
    "team_sync_series",
    "unit_all_hands",
    "answer_invitations",
    "team_room_short",
    "series_room_taken",
    "desk_days_past_window",
}
"""The storylines that find their situation in the small build (the others need the full-size data:
organizers with several meetings in a stretch, offices with free desks for a team)."""


@pytest.fixture(scope="module")
def kit() -> Toolkit:
    return load_toolkit("meeting")


@pytest.fixture(scope="module")
def workspace(meeting_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with Workspace(meeting_db, workdir=tmp_path_factory.mktemp("stories")) as ws:
        yield ws


@pytest.fixture(scope="module")
def kept(workspace: Workspace, kit: Toolkit) -> dict[str, Task]:
    """The first kept task of each storyline (attempts until one is kept)."""
    return keep_first(workspace, kit, STORYLINES, seed=3, attempts=ATTEMPTS).kept


@pytest.fixture(scope="module")
def tasks_file(kept: dict[str, Task], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_tasks(tmp_path_factory.mktemp("story-tasks") / "tasks.jsonl", kept.values())


def _records(summary: dict) -> list:
    folder = RunFolder.open(Path(summary["folder"]))
    try:
        return list(folder.records())
    finally:
        folder.close()


def test_default_tier_is_the_storylines_and_warmup_is_selectable() -> None:
    pack = schemas_dir() / "meeting"
    assert [r.name for r in load_recipes(pack)] == [s.name for s in STORYLINES]
    assert "cancel_meetings_in_range" in [r.name for r in load_recipes(pack, "warmup")]


def test_storylines_make_long_composed_tasks(kept: dict[str, Task]) -> None:
    assert SMALL <= set(kept), sorted(SMALL - set(kept))
    series = kept["team_sync_series"]
    p = series.provenance
    assert p.storyline == "team_sync_series" and p.steps[0] == "staff_team"
    assert p.horizon == len(series.reference_calls) >= 12
    assert {"aggregation", "solver_filtering"} <= set(p.knobs)
    assert "cross_step_dependency" in series.capabilities
    tools = [c.tool for c in series.reference_calls]
    assert tools.index("create_meeting_series") < tools.index("book_room")  # rooms for what step 3 made
    assert sum(series.diff.summary.values()) >= 25
    hands = kept["unit_all_hands"]
    assert "boundary_distractor" in hands.provenance.knobs and hands.provenance.distractors
    for task in kept.values():
        # one paragraph, not a numbered specification (room names such as "Atlas 2.139" hold digits)
        assert "\n" not in task.instruction and not NUMBERED.search(task.instruction)


def test_infeasible_storylines_decline_after_working_by_the_policy_they_name(kept: dict[str, Task]) -> None:
    declined = {name: t for name, t in kept.items() if not t.feasible}
    assert {"team_room_short", "series_room_taken", "desk_days_past_window"} <= set(declined)
    named = {
        "team_room_short": "room_fits_meeting",
        "series_room_taken": "room_fits_meeting",
        "desk_days_past_window": "desk_booking",
    }
    for name, task in declined.items():
        assert task.reference_calls[-1].tool == CANNOT_COMPLETE
        assert len(task.reference_calls) >= 4  # reads, the refused write, the decline
        assert "found_by_working" in task.provenance.knobs
        assert task.provenance.infeasible is not None
        assert task.provenance.infeasible.policy == named[name]
        assert task.expected_diff["summary"] == {"inserted": 0, "deleted": 0, "updated": 0}


def test_the_reference_passes_and_doing_nothing_passes_only_the_infeasible(
    meeting_db: Path, tasks_file: Path, kept: dict[str, Task], tmp_path: Path
) -> None:
    oracle = evaluate(meeting_db, solver="oracle", tasks_file=tasks_file, out=tmp_path / "o", report=False)
    assert oracle["passed"] == oracle["episodes"] == len(kept)
    noop = _records(evaluate(meeting_db, solver="noop", tasks_file=tasks_file, out=tmp_path / "n",
                             report=False))
    passed = {r.task_id for r in noop if r.outcome == "pass"}
    assert passed == {t.id for t in kept.values() if not t.feasible}


@pytest.mark.parametrize("kind", MUTANT_KINDS)
def test_every_mutant_fails_where_it_applies(
    kind: str, meeting_db: Path, tasks_file: Path, kept: dict[str, Task], tmp_path: Path
) -> None:
    records = _records(
        evaluate(meeting_db, solver=f"mutant:{kind}", tasks_file=tasks_file, out=tmp_path, report=False)
    )
    report = kind_report(kind, records, {t.id: t for t in kept.values()})
    assert report["episodes"] == len(kept)
    for record in records:
        if record.solver_details["applicable"]:
            assert record.outcome == "fail", (record.task_id, record.solver_details["did"])
    if not report["applicable"]:
        pytest.skip(f"{kind} applies to no storyline task of the small pack: {report['not_applicable']}")
