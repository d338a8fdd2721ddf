"""Recipes of the workplace: storylines whose steps cross HR, ITSM and the calendar (stories.py,
onboarding.py), composed of the members' own steps where they fit (stateforge.tasks.members)."""

from __future__ import annotations

from .onboarding import ONBOARD_EVERYWHERE
from .stories import STORYLINES

RECIPES = [story.recipe() for story in [*STORYLINES, ONBOARD_EVERYWHERE]]
"""The default tier: the cross-system storylines."""

TIERS = {"long": RECIPES}
