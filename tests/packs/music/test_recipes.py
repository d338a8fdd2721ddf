"""The music pack's task recipes on the pack built small (scale 0.05): every recipe makes a task the gate
keeps, each infeasible kind the pack offers (missing, forbidden, capacity) is proven by the gate, the
tasks keep the pack's promises (a listener speaking, no internal ids, boundaries that matter), and the
same seed gives the same tasks.jsonl bytes."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.domain.loader import schemas_dir
from stateforge.packs.music.tasks.common import month_span, months_back
from stateforge.packs.music.tasks.playlists import _prefix
from stateforge.tasks import load_recipes
from stateforge.tasks.runner import generate_tasks
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit
from tests.packs.kept import Kept, keep_first

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("music_pack")]

RECIPES = load_recipes(schemas_dir() / "music", "warmup")
ATTEMPTS = 8
"""Attempts per recipe before the test gives up on it (most keep their first draft)."""
KINDS = ("missing", "forbidden", "capacity")
"""The infeasible kinds of the pack; `hours` has no place in a music app (nothing has opening hours)."""


@pytest.fixture(scope="module")
def workspace(music_db: Path) -> Iterator[Workspace]:
    with Workspace(music_db) as ws:
        yield ws


@pytest.fixture(scope="module")
def outcomes(workspace: Workspace, music_kit: Toolkit) -> Kept:
    """Each recipe tried until the gate keeps one of its feasible drafts; its variants gated while a kind
    is still unproven."""
    return keep_first(workspace, music_kit, RECIPES, seed=5, attempts=ATTEMPTS, variants="kept")


@pytest.mark.parametrize("name", [r.name for r in RECIPES])
def test_every_recipe_makes_a_task_the_gate_keeps(outcomes: Kept, name: str) -> None:
    assert name in outcomes.kept, outcomes.tried[name]
    task = outcomes.kept[name]
    assert task.feasible and not task.diff.empty
    assert task.provenance.recipe == name
    assert any(v.kind == "goal" for v in task.verifiers)
    assert all(ref.expected == 1 for ref in task.references)


def test_the_recipes_cover_the_five_capabilities_and_three_difficulties() -> None:
    assert len(RECIPES) >= 20
    capabilities = {c for r in RECIPES for c in r.capabilities}
    assert len(capabilities) == 5
    assert {r.difficulty for r in RECIPES} == {"easy", "medium", "hard"}
    assert sum(1 for r in RECIPES if "aggregation_computation" in r.capabilities) >= 5


def test_a_listener_speaks_and_no_internal_id_is_named(outcomes: Kept) -> None:
    for task in outcomes.kept.values():
        assert re.match(r"^(I'm|This is|Hi,|Hello,) ", task.instruction), task.instruction
        assert re.search(r"@[\w.]+", task.instruction), task.instruction
        words = task.instruction.lower()
        assert not re.search(r"\b(playlist|song|artist|album|play|comment|device)_id\b", words)
        numbers = {int(n) for n in re.findall(r"(?<![\w@.-])\d{3,}(?![\w.-])", task.instruction)}
        numbers -= set(range(1900, 2101))  # years
        ids = {
            v
            for call in task.reference_calls
            for k, v in call.arguments.items()
            if k in ("playlist", "song", "comment_id", "reply_to") and isinstance(v, int)
        }
        assert not numbers & ids, task.instruction


@pytest.mark.parametrize("kind", KINDS)
def test_each_infeasible_kind_is_proven_by_the_gate(outcomes: Kept, kind: str) -> None:
    task = outcomes.variants.get(kind)
    assert task is not None, f"no recipe offered a kept {kind} variant: {sorted(outcomes.variants)}"
    assert not task.feasible and task.diff.empty
    assert task.reference_calls[-1].tool == CANNOT_COMPLETE
    info = task.provenance.infeasible
    assert info is not None and info.kind == kind and info.error
    if kind == "missing":
        assert any(ref.expected == 0 for ref in task.references)  # proven absent on the base
        assert "no " in info.error
    else:  # the service refused by a named policy of domain.yaml
        assert "(policy: " in info.error
    if kind == "capacity":
        assert "device_limit" in info.error
    assert [v.kind for v in task.verifiers if v.kind == "goal"] == ["goal"]


def test_boundary_tasks_hinge_on_the_day_they_name(outcomes: Kept) -> None:
    """remove_songs_added_before names a day on which songs were added: the day's songs leave exactly when
    the request includes it."""
    task = outcomes.kept["remove_songs_added_before"]
    cutoff = dt.date.fromisoformat(task.reference_calls[-1].arguments["added_before"])
    inclusive = (
        "on or before" in task.instruction
        or "including" in task.instruction
        or "or earlier" in (task.instruction)
    )
    named = cutoff - dt.timedelta(days=1) if inclusive else cutoff
    assert any(form in task.instruction for form in _forms(named))


def _forms(day: dt.date) -> list[str]:
    return [day.isoformat(), f"{day:%B} {day.day}, {day.year}", f"{day.day} {day:%B} {day.year}"]


def test_the_cut_of_a_trimmed_playlist() -> None:
    songs = [{"s": 100}, {"s": 200}, {"s": 300}]
    assert _prefix(songs, 300, lambda s: s["s"]) == 2  # 100 + 200 fits exactly ("at most")
    assert _prefix(songs, 299, lambda s: s["s"]) == 1
    assert _prefix(songs, 600, lambda s: s["s"]) == 3


def test_months() -> None:
    assert months_back(dt.date(2026, 6, 30), 0) == dt.date(2026, 6, 1)
    assert months_back(dt.date(2026, 2, 14), 3) == dt.date(2025, 11, 1)
    assert month_span(dt.date(2025, 12, 9)) == (dt.date(2025, 12, 1), dt.date(2026, 1, 1), "December 2025")


def test_the_same_seed_gives_the_same_tasks_file(music_db: Path, tmp_path: Path) -> None:
    first = generate_tasks(music_db, n=4, seed=3, out=tmp_path / "a", tier="warmup")
    second = generate_tasks(music_db, n=4, seed=3, out=tmp_path / "b", tier="warmup")
    assert second["kept"] == 4
    assert first["target_met"] and first["kept"] == 4, first["why"]
    assert first["errors"] == []
    one, two = (tmp_path / "a" / "tasks.jsonl").read_bytes(), (tmp_path / "b" / "tasks.jsonl").read_bytes()
    assert one == two and len(one.splitlines()) == 4
    assert set(first["recipes"]) == {r.name for r in RECIPES}  # the pack's recipes, not the generic set
