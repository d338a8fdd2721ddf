"""The game storylines on the pack built small (scale 0.05): composed tasks the gate keeps, with their
horizon, steps and knobs in provenance; infeasible ones declined after the work, refused by the policy they
name; and the reference's reads are what makes a write reachable (a removal list from nowhere is rejected)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from stateforge.domain.loader import schemas_dir
from stateforge.packs.game.tasks.stories import STORYLINES
from stateforge.tasks import Gate, Task, domain_policy, load_recipes
from stateforge.tasks.gate import draft_of
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit
from tests.packs.kept import keep_first

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("game_pack")]

ATTEMPTS = 12


@pytest.fixture(scope="module")
def workspace(game_db: Path) -> Iterator[Workspace]:
    with Workspace(game_db) as ws:
        yield ws


@pytest.fixture(scope="module")
def gate(workspace: Workspace, kit: Toolkit) -> Gate:
    return Gate(workspace, kit, defaults=domain_policy(workspace.config, workspace.schema))


@pytest.fixture(scope="module")
def kept(workspace: Workspace, kit: Toolkit, gate: Gate) -> dict[str, Task]:
    """The first kept task of each storyline (attempts until one is kept)."""
    return keep_first(workspace, kit, STORYLINES, seed=1, attempts=ATTEMPTS, gate=gate).kept


def test_default_tier_is_storylines_and_warmup_is_selectable() -> None:
    pack = schemas_dir() / "game"
    assert [r.name for r in load_recipes(pack)] == [s.name for s in STORYLINES]
    assert "prune_inactive_friends" in [r.name for r in load_recipes(pack, "warmup")]


def test_storylines_make_long_composed_tasks(kept: dict[str, Task], kit: Toolkit) -> None:
    feasible = [t for t in kept.values() if t.feasible]
    assert len(feasible) >= 3, sorted(kept)
    for task in feasible:
        p = task.provenance
        assert p.horizon == len(task.reference_calls) >= 8, (p.storyline, p.horizon)
        assert "cross_step_dependency" in task.capabilities
        assert p.knobs and p.steps
        writes = [c for c in task.reference_calls if kit[c.tool].kind == "write"]
        assert len(writes) >= 1 and len(task.reference_calls) > len(writes)
        assert "\n" not in task.instruction and not re.search(r"(^|\s)[1-3][.)]\s", task.instruction)


def test_infeasible_storylines_decline_after_working_by_their_policy(kept: dict[str, Task]) -> None:
    declined = [t for t in kept.values() if not t.feasible]
    assert declined, "no infeasible storyline kept on the small build"
    for task in declined:
        assert task.reference_calls[-1].tool == CANNOT_COMPLETE
        assert len(task.reference_calls) >= 3  # reads, the refused write, the decline
        assert "found_by_working" in task.provenance.knobs
        why = task.provenance.infeasible
        assert why is not None and why.policy in (
            "purchases",
            "clan_membership",
            "season_rewards",
        )
        assert task.expected_diff["summary"] == {"inserted": 0, "deleted": 0, "updated": 0}


def test_a_removal_list_from_nowhere_is_rejected(kept: dict[str, Task], gate: Gate) -> None:
    """Without the friend-list pages the reference read, the friends it removes were never shown."""
    task = next((t for t in kept.values() if "remove_friends" in [c.tool for c in t.reference_calls]), None)
    if task is None:
        pytest.skip("no friend-list clean-up kept on the small build")
    draft = draft_of(task)
    calls = [c for c in draft.calls if c.tool != "list_friends"]
    result = gate.check(replace(draft, calls=calls))
    gate.forget()
    assert result.rejection is not None and result.rejection.reason == "unreached_argument"
    assert "remove_friends.friends" in result.rejection.detail
