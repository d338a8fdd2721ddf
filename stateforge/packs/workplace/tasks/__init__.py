"""Recipes of the workplace: storylines whose steps cross HR, ITSM and the calendar (stories.py)."""

from __future__ import annotations

from .stories import STORYLINES

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: the cross-system storylines."""

TIERS = {"long": RECIPES}
