"""The music storylines on the pack built small (scale 0.05): composed tasks the gate keeps, with their
horizon, steps and knobs in provenance; infeasible ones declined after the work; and the gate's new checks
(write arguments reachable, declared distractors present) reject a broken task with its reason."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from stateforge.domain.loader import schemas_dir
from stateforge.packs.music.tasks import STORYLINES
from stateforge.tasks import Gate, RecipeContext, Skip, Task, domain_policy, load_recipes
from stateforge.tasks.compose import Step, Storyline, step
from stateforge.tasks.draft import Call
from stateforge.tasks.gate import draft_of
from stateforge.tasks.recipes import RecipeDefinitionError
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit
from tests.packs.kept import keep_first

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("music_pack")]

ATTEMPTS = 10


@pytest.fixture(scope="module")
def workspace(music_db: Path) -> Iterator[Workspace]:
    with Workspace(music_db) as ws:
        yield ws


@pytest.fixture(scope="module")
def gate(workspace: Workspace, music_kit: Toolkit) -> Gate:
    return Gate(workspace, music_kit, defaults=domain_policy(workspace.config, workspace.schema))


@pytest.fixture(scope="module")
def kept(workspace: Workspace, music_kit: Toolkit, gate: Gate) -> dict[str, Task]:
    """The first kept task of each storyline (attempts until one is kept)."""
    return keep_first(workspace, music_kit, STORYLINES, seed=3, attempts=ATTEMPTS, gate=gate).kept


def test_default_tier_is_storylines_and_warmup_is_selectable() -> None:
    pack = schemas_dir() / "music"
    assert [r.name for r in load_recipes(pack)] == [s.name for s in STORYLINES]
    warmup = load_recipes(pack, "warmup")
    assert "remove_artist_from_playlist" in [r.name for r in warmup]
    with pytest.raises(RecipeDefinitionError, match="no task tier 'hard'"):
        load_recipes(pack, "hard")


def test_a_step_input_nobody_provides_is_a_definition_error() -> None:
    @step(inputs=("playlist",))
    def needs_playlist(story: object) -> None:
        pass

    with pytest.raises(RecipeDefinitionError, match="step needs_playlist needs playlist"):
        Storyline("broken", lambda story: None, (needs_playlist,), provides=("user",))
    assert isinstance(needs_playlist, Step)


def test_storylines_make_long_composed_tasks(kept: dict[str, Task]) -> None:
    assert {"artist_mixtape", "playlist_spring_clean"} <= set(kept)
    mixtape = kept["artist_mixtape"]
    p = mixtape.provenance
    assert p.storyline == "artist_mixtape" and p.steps[0] == "top_artists"
    assert p.horizon == len(mixtape.reference_calls) >= 10
    assert "cross_step_dependency" in mixtape.capabilities
    assert {"aggregation", "solver_filtering"} <= set(p.knobs)
    made = ("create_playlist", "add_songs_to_playlist")
    writes = [c.tool for c in mixtape.reference_calls if c.tool in made]
    assert writes == ["create_playlist", "add_songs_to_playlist"]
    assert "\n" not in mixtape.instruction and not any(f"{i}." in mixtape.instruction for i in (1, 2, 3))


def test_infeasible_storylines_decline_after_working(kept: dict[str, Task]) -> None:
    declined = [t for t in kept.values() if not t.feasible]
    assert declined, "no infeasible storyline kept on the small build"
    for task in declined:
        assert task.reference_calls[-1].tool == CANNOT_COMPLETE
        assert len(task.reference_calls) >= 3  # reads, the refused write, the decline
        assert "found_by_working" in task.provenance.knobs
        assert task.expected_diff["summary"] == {"inserted": 0, "deleted": 0, "updated": 0}


def test_a_write_argument_from_nowhere_is_rejected(
    kept: dict[str, Task], gate: Gate, workspace: Workspace
) -> None:
    task = kept["artist_mixtape"]
    draft = draft_of(task)
    artists = {c.arguments["artist"] for c in task.reference_calls if c.tool == "list_artist_albums"}
    stranger = workspace.query(  # a playable song on no album of the artists the reference looked at
        "SELECT max(s.song_id) AS id FROM songs AS s JOIN albums AS al ON al.album_id = s.album_id WHERE "
        f"s.is_available AND al.artist_id NOT IN ({', '.join(str(a) for a in artists)})"
    )[0]["id"]
    calls = []
    for call in draft.calls:
        if call.tool == "add_songs_to_playlist":
            call = Call(call.tool, {**call.arguments, "songs": [*call.arguments["songs"], stranger]})
        calls.append(call)
    result = gate.check(replace(draft, calls=calls, instruction=draft.instruction + " Thanks!"))
    gate.forget()
    assert result.rejection is not None and result.rejection.reason == "unreached_argument"
    assert "add_songs_to_playlist.songs" in result.rejection.detail


def test_a_declared_distractor_missing_from_the_data_is_rejected(kept: dict[str, Task], gate: Gate) -> None:
    draft = draft_of(kept["playlist_spring_clean"])
    absent = {"entity": "a song of -1 seconds", "sql": "SELECT count(*) FROM songs WHERE duration_ms < 0",
              "params": [], "expected": 1}
    provenance = {**draft.provenance, "distractors": [absent]}
    result = gate.check(replace(draft, provenance=provenance))
    gate.forget()
    assert result.rejection is not None and result.rejection.reason == "distractor_absent"


def test_the_stored_task_passes_the_gate_again(kept: dict[str, Task], gate: Gate) -> None:
    result = gate.check(draft_of(kept["artist_mixtape"]))
    gate.forget()
    assert result.task is not None, result.rejection
    assert result.task.provenance.horizon == kept["artist_mixtape"].provenance.horizon


def test_crate_and_curation_storylines_are_long_and_cross_step(kept: dict[str, Task]) -> None:
    assert {"follow_audit", "artist_purge", "genre_crate", "borrowed_device"} <= set(kept)
    audit = kept["follow_audit"]
    tools = [c.tool for c in audit.reference_calls]
    assert tools[0] == "list_followed_artists" and "unfollow_artists" in tools
    assert tools.count("get_artist") >= 6  # one page per followed artist: the latest release is on it
    assert "precise_boundary_judgment" in audit.capabilities
    purge = kept["artist_purge"]
    assert [c.tool for c in purge.reference_calls].count("remove_songs_from_playlist") >= 2
    assert "cross_step_dependency" in purge.capabilities
    crate = kept["genre_crate"]
    assert crate.provenance.steps[2:4] == ["new_playlist", "fill_playlist"]  # steps shared with the mixtape
    assert sum(crate.diff.summary.values()) >= 40
    borrowed = kept["borrowed_device"]
    assert [c.tool for c in borrowed.reference_calls][-1] == "sign_out_devices"
    assert "aggregation" in borrowed.provenance.knobs


def test_a_blocker_refused_by_another_policy_is_skipped(workspace: Workspace, music_kit: Toolkit) -> None:
    today = workspace.info.now.date()
    minor = workspace.query(
        "SELECT username FROM users WHERE status = 'active' AND birth_date > ? AND NOT "
        "explicit_content_allowed ORDER BY user_id LIMIT 1",
        [today.replace(year=today.year - 18)],
    )[0]["username"]
    recipe = STORYLINES[0].recipe()
    arguments = {"username": minor, "explicit_content_allowed": True}
    ctx = RecipeContext(workspace, music_kit, recipe, seed=1, attempt=0)
    try:
        with pytest.raises(Skip, match="another policy"):
            ctx.blocked("update_profile", arguments, kind="forbidden", because="x", policy="refund_window")
        ctx.blocked("update_profile", arguments, kind="forbidden", because="under 18",
                    policy="explicit_content_adults")
        assert ctx.declined is not None and ctx.declined.policy == "explicit_content_adults"
    finally:
        ctx.close()
