"""The game pack's task recipes on the pack built small (scale 0.05, the session's `game_db`): every recipe
makes a task that passes the gate, each kind of infeasible variant is proven by the gate, tasks replay on
their own to their expected diff, and the same seed gives the same tasks.jsonl bytes.

Recipes run through the real `RecipeContext` and `Gate` (real episodes over a real DuckDB file), as the
offline generator runs them; only the scheduling is done here, so each recipe is tried on its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from stateforge.diff import diff_files
from stateforge.domain.loader import schemas_dir
from stateforge.episode import Episode
from stateforge.tasks import CAPABILITIES, Gate, RecipeContext, Skip, Task, load_recipes, read_tasks
from stateforge.tasks.grading import domain_policy
from stateforge.tasks.recipes import Recipe
from stateforge.tasks.runner import GenerationRun, run_generation
from stateforge.tasks.verifiers import rows_match
from stateforge.tasks.workspace import Workspace, fetch
from stateforge.tools import CANNOT_COMPLETE, Toolkit

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("game_pack")]

RECIPES = load_recipes(schemas_dir() / "game", "warmup")
BY_NAME = {r.name: r for r in RECIPES}
TRIES = 8
"""Attempts (seeds) a recipe gets to find a situation in the small build."""


class Bench:
    """One workspace and gate over the small build, shared by the module's tests."""

    def __init__(self, db: Path, kit: Toolkit, workdir: Path) -> None:
        self.db, self.kit = db, kit
        self.ws = Workspace(db, workdir=workdir)
        self.gate = Gate(self.ws, kit, defaults=domain_policy(self.ws.config, self.ws.schema))
        self.kept: dict[str, Task] = {}

    def first_task(self, recipe: Recipe, *, infeasible: bool = False, kind: str | None = None) -> Task:
        """The first draft of `recipe` (or its infeasible variant, of `kind`) the gate keeps."""
        why: list[str] = []
        for attempt in range(1, TRIES + 1):
            ctx = RecipeContext(self.ws, self.kit, recipe, seed=7, attempt=attempt)
            try:
                recipe(ctx)
                feasible, variant = ctx.drafts()
            except Skip as skip:
                why.append(f"skip: {skip.reason}")
                continue
            finally:
                ctx.close()
            draft = variant if infeasible else feasible
            if draft is None or (kind is not None and draft.infeasible.kind != kind):
                why.append("no variant of that kind")
                continue
            result = self.gate.check(draft)
            if result.task is not None:
                return result.task
            why.append(f"rejected: {result.rejection.detail}")
        pytest.fail(f"{recipe.name}: no task in {TRIES} attempts: {why}")


@pytest.fixture(scope="module")
def bench(game_db: Path, kit: Toolkit, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bench]:
    made = Bench(game_db, kit, tmp_path_factory.mktemp("recipes"))
    yield made
    made.ws.close()


def test_the_pack_has_enough_recipes_for_every_capability():
    assert len(RECIPES) >= 20
    covered = {c for r in RECIPES for c in r.capabilities}
    assert covered == set(CAPABILITIES)
    for capability in CAPABILITIES:
        assert sum(capability in r.capabilities for r in RECIPES) >= 5, capability
    assert {r.difficulty for r in RECIPES} == {"easy", "medium", "hard"}
    assert all(r.description for r in RECIPES)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_every_recipe_makes_a_task_that_passes_the_gate(name: str, bench: Bench):
    task = bench.first_task(BY_NAME[name])
    bench.kept[name] = task
    assert task.feasible and not task.diff.empty
    assert set(task.capabilities) >= set(BY_NAME[name].capabilities)
    assert task.provenance.recipe == name
    assert any(v.kind == "goal" for v in task.verifiers)
    assert all(ref.expected == 1 for ref in task.references)
    speaker = next(r for r in task.references if r.entity.startswith("player "))
    assert speaker.params[0] in task.instruction  # the player says who they are


INFEASIBLE = [
    ("delete_hero_builds", "missing"),  # a hero the player has no builds for
    ("claim_season_rewards", None),  # the running season (forbidden) or one that does not exist (missing)
    ("kick_inactive_members", "forbidden"),  # an ordinary member cannot kick
    ("replace_item_in_builds", "forbidden"),  # an item no longer sold
    ("fit_clan_to_members", "capacity"),  # a limit below the clan's members
    ("create_rune_page", "capacity"),  # more than 10 runes of a colour
]


@pytest.mark.parametrize(("name", "kind"), INFEASIBLE)
def test_infeasible_variants_are_refused_by_the_service(name: str, kind: str | None, bench: Bench):
    task = bench.first_task(BY_NAME[name], infeasible=True, kind=kind)
    assert not task.feasible
    assert task.diff.empty and task.expected_diff["summary"] == {"inserted": 0, "deleted": 0, "updated": 0}
    infeasible = task.provenance.infeasible
    assert infeasible is not None and infeasible.error and infeasible.because
    assert kind is None or infeasible.kind == kind
    assert task.reference_calls[-1].tool == CANNOT_COMPLETE
    assert [v.name for v in task.verifiers if v.kind == "goal"] == ["nothing changed"]
    if infeasible.kind == "missing":
        assert any(ref.expected == 0 for ref in task.references)  # the named thing is proven absent


def test_tasks_replay_on_their_own_to_their_expected_diff(bench: Bench, tmp_path: Path):
    """Independently of the gate: the biggest kept task and an infeasible one, replayed on a fresh episode,
    give the expected diff, and every verifier holds on the state they leave."""
    biggest = bench.first_task(BY_NAME["delete_old_read_mail"])
    refused = bench.first_task(BY_NAME["kick_inactive_members"], infeasible=True)
    for task in (biggest, refused):
        with Episode.open(bench.db, toolkit=bench.kit, workdir=tmp_path, keep=True) as episode:
            results = [episode.call(c.tool, c.arguments) for c in task.reference_calls]
            path = episode.path
            declined = episode.declined
        if task.feasible:
            assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        else:
            assert [r.ok for r in results][-2:] == [False, True] and declined
        assert diff_files(bench.db, path).to_dict() == task.expected_diff
        with duckdb.connect(str(path), read_only=True) as con:
            for verifier in task.verifiers:
                assert rows_match(fetch(con, verifier.sql), verifier.expected), (task.id, verifier.name)
        path.unlink()


def test_the_same_seed_gives_the_same_tasks_file(game_db: Path, tmp_path: Path):
    """The default tier (the storylines) is as reproducible as the warm-up."""
    first = run_generation(GenerationRun(game_db, n=4, seed=5, out=tmp_path / "a"))
    second = run_generation(GenerationRun(game_db, n=4, seed=5, out=tmp_path / "b"))
    assert first["kept"] == second["kept"] == 4
    assert (tmp_path / "a" / "tasks.jsonl").read_bytes() == (tmp_path / "b" / "tasks.jsonl").read_bytes()
    recipes = {t.provenance.recipe for t in read_tasks(tmp_path / "a" / "tasks.jsonl")}
    assert recipes <= {r.name for r in load_recipes(schemas_dir() / "game")}
