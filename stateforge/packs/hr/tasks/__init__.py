"""Recipes of the HR pack: storylines that chain the product's parts (stories.py, desk.py) and infeasible
requests whose blocker is met after the reads (blocked.py)."""

from __future__ import annotations

from .blocked import BLOCKED_STORIES
from .desk import DESK_STORYLINES
from .stories import STORYLINES

RECIPES = [story.recipe() for story in [*STORYLINES, *DESK_STORYLINES, *BLOCKED_STORIES]]
"""The default tier: the storylines and the infeasible requests."""

TIERS = {"long": RECIPES}
