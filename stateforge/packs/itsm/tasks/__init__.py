"""Recipes of the ITSM pack: the service desk (incidents.py), problems, changes and the CAB (changes.py), the
catalogue, knowledge and the CMDB (catalog.py), storylines that chain them and infeasible requests whose
blocker is met after the reads (stories.py)."""

from __future__ import annotations

from .catalog import RECIPES as CATALOG_RECIPES
from .changes import RECIPES as CHANGE_RECIPES
from .incidents import RECIPES as INCIDENT_RECIPES
from .stories import BLOCKED, COMPLIANCE, STORYLINES

WARMUP = [*INCIDENT_RECIPES, *CHANGE_RECIPES, *CATALOG_RECIPES]
"""Single-situation recipes (`generate-tasks --tier warmup`), most with an infeasible variant."""

RECIPES = [*(story.recipe() for story in STORYLINES), *WARMUP, *BLOCKED, *COMPLIANCE]
"""The default tier: storylines, the recipes, the infeasible requests and the tests of compliance."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
