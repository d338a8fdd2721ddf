"""Recipes of the workplace: storylines whose steps cross HR, ITSM and the calendar (stories.py,
onboarding.py, transfers.py, leave.py), composed of the members' own steps where they fit
(stateforge.tasks.members), and the infeasible requests whose first write is refused or breaks the
procedure (blocked.py)."""

from __future__ import annotations

from .blocked import BLOCKED_STORIES
from .leave import BEFORE_MY_LEAVE, LEAVE_OVER_BALANCE
from .onboarding import ONBOARD_EVERYWHERE
from .stories import STORYLINES
from .transfers import TRANSFER_EVERYWHERE

RECIPES = [
    story.recipe()
    for story in [*STORYLINES, ONBOARD_EVERYWHERE, TRANSFER_EVERYWHERE, BEFORE_MY_LEAVE, *BLOCKED_STORIES,
                  LEAVE_OVER_BALANCE]
]
"""The default tier: the cross-system storylines and the infeasible requests."""

TIERS = {"long": RECIPES}
