"""Recipes of the ITSM pack: the service desk (incidents.py), problems, changes and the CAB (changes.py), the
catalogue, knowledge and the CMDB (catalog.py), storylines that chain them (long.py: fan-outs over the CMDB;
stories.py) and infeasible requests whose blocker is met after the reads."""

from __future__ import annotations

from .catalog import RECIPES as CATALOG_RECIPES
from .changes import RECIPES as CHANGE_RECIPES
from .changes import high_risk_through_cab
from .incidents import RECIPES as INCIDENT_RECIPES
from .long import LONG_BLOCKED, LONG_STORYLINES
from .stories import BLOCKED, COMPLIANCE, STORYLINES

WARMUP = [*INCIDENT_RECIPES, *CHANGE_RECIPES, *CATALOG_RECIPES]
"""Single-situation recipes (`generate-tasks --tier warmup`), most with an infeasible variant."""

RECIPES = [
    *(story.recipe() for story in (*LONG_STORYLINES, *STORYLINES, *LONG_BLOCKED)),
    *BLOCKED,
    *COMPLIANCE,
    high_risk_through_cab,
]
"""The default tier: the long storylines (long.py) and the shorter ones (stories.py), the infeasible
requests whose blocker is met by working, and the tests of compliance; the warm-up recipes are their own
tier."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
