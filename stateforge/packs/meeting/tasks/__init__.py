"""Recipes of the meeting pack: the offline task generator's programs (docs/tasks.md, the meeting section).

Each recipe finds a situation in the built database with SQL, picks one with the seeded rng, acts through
the pack's own tools (tools.py) on an episode, and writes the request as the employee would. They live in
modules beside this file, one area each: an organizer's calendar, invitations, recurring series, rooms and
desks, people (absences, offboarding, working hours, offices), and recordings and notes. What they share
(naming people, meetings and rooms, sizes, days) is in `common`.

The default tier is the storylines of `stories` (long tasks of dependent steps); the short recipes above
stay as the warm-up tier (`generate-tasks --tier warmup`).
"""

from __future__ import annotations

from stateforge.tasks import Recipe
from stateforge.tools.collect import defined_in

from . import calendar, content, invites, people, places, series
from .stories import STORYLINES

WARMUP = defined_in(calendar, invites, series, places, people, content, kind=Recipe)
"""The warm-up tier: short, single-step tasks (`generate-tasks --tier warmup`): an organizer's calendar,
invitations, recurring series, rooms and desks, people, recordings and notes, each module's recipes as
written there."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines (stories.py)."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
