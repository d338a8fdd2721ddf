"""Recipes of the workplace: storylines whose steps cross HR, ITSM and the calendar (stories.py,
onboarding.py, transfers.py), composed of the members' own steps where they fit
(stateforge.tasks.members), and the infeasible requests whose first write is refused or breaks the
procedure (blocked.py)."""

from __future__ import annotations

from .blocked import BLOCKED_STORIES
from .onboarding import ONBOARD_EVERYWHERE
from .stories import STORYLINES
from .transfers import TRANSFER_EVERYWHERE

RECIPES = [
    story.recipe() for story in [*STORYLINES, ONBOARD_EVERYWHERE, TRANSFER_EVERYWHERE, *BLOCKED_STORIES]
]
"""The default tier: the cross-system storylines and the infeasible requests."""

TIERS = {"long": RECIPES}
