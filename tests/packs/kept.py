"""What a pack's recipes and storylines make on a small build: each one's first draft the gate keeps.

    found = keep_first(workspace, kit, STORYLINES, seed=3, attempts=8)
    found.kept["artist_mixtape"]          # the Task the gate kept
    found.tried["artist_mixtape"]         # why the earlier attempts made nothing (skip / rejection)

Shared by the packs' recipe and storyline tests, so that each module states only its seed, its attempts and
what it checks of the tasks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from stateforge.tasks import Gate, RecipeContext, Skip, Task, domain_policy
from stateforge.tasks.recipes import CallFailed, Recipe
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit


@dataclass
class Kept:
    """Per recipe (by name): its first kept task, why earlier attempts made none; variants by kind."""

    kept: dict[str, Task] = field(default_factory=dict)
    tried: dict[str, list[str]] = field(default_factory=dict)
    variants: dict[str, Task] = field(default_factory=dict)


def keep_first(
    workspace: Workspace,
    kit: Toolkit,
    recipes: Iterable[object],
    *,
    seed: int,
    attempts: int,
    gate: Gate | None = None,
    variants: Literal["kept", "every"] | None = None,
) -> Kept:
    """Try each recipe (a `Recipe`, or a storyline: anything with `.recipe()`) with attempts 0.. until the
    gate keeps its feasible draft. `variants`: gate the infeasible variant of each kind not yet proven,
    on the kept attempt only (`kept`) or on every attempt (`every`, so that rarer kinds get their chance);
    a variant the gate rejects is an assertion error naming the recipe and the rejection."""
    gate = gate or Gate(workspace, kit, defaults=domain_policy(workspace.config, workspace.schema))
    out = Kept()
    for item in recipes:
        recipe: Recipe = item if isinstance(item, Recipe) else item.recipe()  # type: ignore[attr-defined]
        why = out.tried.setdefault(recipe.name, [])
        for attempt in range(attempts):
            ctx = RecipeContext(workspace, kit, recipe, seed=seed, attempt=attempt)
            try:
                recipe(ctx)
                draft, variant = ctx.drafts()
            except Skip as skip:
                why.append(f"skip: {skip.reason} {skip.detail or ''}".strip())
                continue
            except CallFailed as failed:
                why.append(f"call failed: {failed}")
                continue
            finally:
                ctx.close()
            if variants == "every":
                _prove(gate, recipe, variant, out)
            result = gate.check(draft)
            if result.task is None:
                why.append(f"{result.rejection.reason}: {result.rejection.detail}")
                continue
            out.kept[recipe.name] = result.task
            if variants == "kept":
                _prove(gate, recipe, variant, out)
            break
    gate.forget()
    return out


def _prove(gate: Gate, recipe: Recipe, variant: object, out: Kept) -> None:
    if variant is None or variant.infeasible.kind in out.variants:  # type: ignore[attr-defined]
        return
    proven = gate.check(variant)  # type: ignore[arg-type]
    assert proven.task is not None, (recipe.name, proven.rejection)
    out.variants[variant.infeasible.kind] = proven.task  # type: ignore[attr-defined]
