"""Recipes of the game pack: the offline task generator's programs (docs/tasks.md, "Writing recipes").

One module per part of the product, as the tools are split, each saying in its docstring what it holds:
friends, mail, clans, builds and collection (the warm-up tier), stories (the default tier's storylines, and
the warm-up tasks made of their steps); `common` holds what they share. docs/tasks.md ("The game pack's
recipes") lists them with their capabilities and infeasible variants.
"""

from __future__ import annotations

from stateforge.tasks import Recipe
from stateforge.tools.collect import defined_in

from . import builds, clans, collection, friends, mail
from .stories import STORYLINES, WARMUP_STORYLINES

WARMUP = [
    *defined_in(friends, mail, clans, builds, collection, kind=Recipe),
    *(story.recipe() for story in WARMUP_STORYLINES),
]
"""The warm-up tier: short tasks (`generate-tasks --tier warmup`), each module's recipes in the order it
defines them, then the long tier's steps that make a short task on their own (stories.py)."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines (stories.py)."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
