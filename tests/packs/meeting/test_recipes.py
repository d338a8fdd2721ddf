"""The meeting pack's task recipes on the pack built small (scale 0.05, the session's `meeting_db`): every
recipe makes a task the gate keeps, each infeasible kind the pack offers (missing, forbidden, capacity,
hours) is proven by the gate, tasks replay on their own to their expected diff, the requests keep the
pack's promises (an employee speaking, no internal ids but those the app shows), and the same seed gives
the same tasks.jsonl bytes.

Recipes run through the real `RecipeContext` and `Gate` (real episodes over a real DuckDB file), as the
offline generator runs them; only the scheduling is done here, so each recipe is tried on its own.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from stateforge.diff import diff_files
from stateforge.domain.loader import schemas_dir
from stateforge.episode import Episode
from stateforge.packs.meeting.tasks.common import article, next_monday, workdays
from stateforge.tasks import load_recipes
from stateforge.tasks.runner import generate_tasks
from stateforge.tasks.verifiers import rows_match
from stateforge.tasks.workspace import Workspace, fetch
from stateforge.tools import CANNOT_COMPLETE, Toolkit, load_toolkit
from tests.packs.kept import Kept, keep_first

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("meeting-pack")]

RECIPES = load_recipes(schemas_dir() / "meeting", "warmup")
"""The warm-up tier (the default tier is the storylines: test_stories.py)."""
ATTEMPTS = 8
"""Attempts per recipe before the test gives up on it (most keep their first draft)."""
KINDS = ("missing", "forbidden", "capacity", "hours")
"""The infeasible kinds of the pack: a colleague, unit or meeting that does not exist; a policy of
domain.yaml; a limit (seats, invitees, occurrences, days of absence); a building's opening hours."""
SPEAKS = re.compile(r"^(I'm|This is|Hi,|Hello,) ")


@pytest.fixture(scope="module")
def kit() -> Toolkit:
    return load_toolkit("meeting")


@pytest.fixture(scope="module")
def workspace(meeting_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with Workspace(meeting_db, workdir=tmp_path_factory.mktemp("recipes")) as ws:
        yield ws


@pytest.fixture(scope="module")
def outcomes(workspace: Workspace, kit: Toolkit) -> Kept:
    """Each recipe tried until the gate keeps one of its feasible drafts; its variants gated while their
    kind is still unproven (every attempt, so that rarer kinds get their chance)."""
    return keep_first(workspace, kit, RECIPES, seed=5, attempts=ATTEMPTS, variants="every")


def test_the_recipes_cover_the_five_capabilities_and_three_difficulties() -> None:
    assert len(RECIPES) >= 20
    for capability in (
        "multi_condition_filtering",
        "full_data_acquisition",
        "aggregation_computation",
        "cross_step_dependency",
        "precise_boundary_judgment",
    ):
        assert sum(capability in r.capabilities for r in RECIPES) >= 4, capability
    assert {r.difficulty for r in RECIPES} == {"easy", "medium", "hard"}
    assert all(r.description for r in RECIPES)


@pytest.mark.parametrize("name", [r.name for r in RECIPES])
def test_every_recipe_makes_a_task_the_gate_keeps(outcomes: Kept, name: str) -> None:
    assert name in outcomes.kept, outcomes.tried[name]
    task = outcomes.kept[name]
    assert task.feasible and not task.diff.empty
    assert task.provenance.recipe == name
    assert any(v.kind == "goal" for v in task.verifiers)
    assert all(ref.expected == 1 for ref in task.references)


def test_an_employee_speaks_and_no_internal_id_is_named(outcomes: Kept) -> None:
    """Requests that act for someone open with who speaks (their email names one employee); employee, room,
    desk and meeting ids never appear (series and recording ids do: the app shows them)."""
    for name, task in outcomes.kept.items():
        emails = [r.params[0] for r in task.references if r.entity.startswith("employee ")]
        if emails:
            assert SPEAKS.match(task.instruction), task.instruction
            assert emails[0] in task.instruction, (name, task.instruction)
        hidden = {
            v
            for call in task.reference_calls
            for k, v in call.arguments.items()
            if k == "meeting" and isinstance(v, int)
        }
        numbers = {int(n) for n in re.findall(r"(?<![\w@.:-])\d{3,}(?![\w.:-])", task.instruction)}
        assert not numbers & hidden, (name, task.instruction)
        assert not re.search(r"\b(employee|room|desk|meeting)_id\b", task.instruction)


@pytest.mark.parametrize("kind", KINDS)
def test_each_infeasible_kind_is_proven_by_the_gate(outcomes: Kept, kind: str) -> None:
    task = outcomes.variants.get(kind)
    assert task is not None, f"no recipe offered a kept {kind} variant: {sorted(outcomes.variants)}"
    assert not task.feasible and task.diff.empty
    assert task.expected_diff["summary"] == {"inserted": 0, "deleted": 0, "updated": 0}
    assert task.reference_calls[-1].tool == CANNOT_COMPLETE
    info = task.provenance.infeasible
    assert info is not None and info.kind == kind and info.error and info.because
    assert [v.name for v in task.verifiers if v.kind == "goal"] == ["nothing changed"]
    if kind == "missing":
        assert any(ref.expected == 0 for ref in task.references)  # proven absent on the base


def test_tasks_replay_on_their_own_to_their_expected_diff(
    outcomes: Kept, meeting_db: Path, kit: Toolkit, tmp_path: Path
) -> None:
    """Independently of the gate: the biggest kept task and an infeasible one, replayed on a fresh episode,
    give the expected diff, and every verifier holds on the state they leave."""
    biggest = max(outcomes.kept.values(), key=lambda t: sum(t.diff.summary.values()))
    assert sum(biggest.diff.summary.values()) >= 50
    refused = outcomes.variants["forbidden"]
    for task in (biggest, refused):
        with Episode.open(meeting_db, toolkit=kit, workdir=tmp_path, keep=True) as episode:
            results = [episode.call(c.tool, c.arguments) for c in task.reference_calls]
            path = episode.path
            declined = episode.declined
        if task.feasible:
            assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        else:
            assert [r.ok for r in results][-2:] == [False, True] and declined
        assert diff_files(meeting_db, path).to_dict() == task.expected_diff
        with duckdb.connect(str(path), read_only=True) as con:
            for verifier in task.verifiers:
                assert rows_match(fetch(con, verifier.sql), verifier.expected), (task.id, verifier.name)
        path.unlink()


def test_days_and_articles() -> None:
    tuesday = dt.date(2026, 3, 31)
    assert next_monday(tuesday) == dt.date(2026, 4, 6)
    assert next_monday(dt.date(2026, 4, 6)) == dt.date(2026, 4, 13)  # a Monday: the next one
    assert workdays(dt.date(2026, 4, 3), dt.date(2026, 4, 6)) == [dt.date(2026, 4, 3), dt.date(2026, 4, 6)]
    assert [
        article(w) for w in ("HDMI Cable", "PTZ Camera", "Projector", "85-inch Display", "USB-C Dock")
    ] == [
        "an",
        "a",
        "a",
        "an",
        "a",
    ]


def test_the_same_seed_gives_the_same_tasks_file(meeting_db: Path, tmp_path: Path) -> None:
    first = generate_tasks(meeting_db, n=4, seed=3, out=tmp_path / "a", tier="warmup")
    second = generate_tasks(meeting_db, n=4, seed=3, out=tmp_path / "b", tier="warmup")
    assert first["kept"] == second["kept"] == 4, first["why"]
    assert first["errors"] == []
    one, two = (tmp_path / "a" / "tasks.jsonl").read_bytes(), (tmp_path / "b" / "tasks.jsonl").read_bytes()
    assert one == two and len(one.splitlines()) == 4
    assert set(first["recipes"]) == {r.name for r in RECIPES}  # the pack's recipes, not the generic set
