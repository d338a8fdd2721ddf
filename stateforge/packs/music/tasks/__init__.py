"""Recipes of the music pack: the offline task generator's programs (docs/tasks.md, the music section).

Each recipe finds a situation in the built database with SQL, picks one with the seeded rng, acts through
the pack's own tools (tools.py) on an episode, and writes the request as the listener would. They live in
modules beside this file, one area each: a playlist's songs, whole playlists, the library, listening,
the account (billing, devices, settings) and comments.
"""

from __future__ import annotations

from stateforge.tasks import Recipe
from stateforge.tools.collect import defined_in

from . import (
    account,
    comments,
    crates,
    curation,
    history,
    library,
    listening,
    playlist_songs,
    playlists,
    stories,
)

WARMUP = defined_in(playlist_songs, playlists, library, history, account, comments, kind=Recipe)
"""The warm-up tier: short, single-step tasks (`generate-tasks --tier warmup`): a playlist's songs, whole
playlists, the library, listening, the account and comments, each module's recipes as written there."""

STORYLINES = (*stories.STORYLINES, *crates.STORYLINES, *curation.STORYLINES, *listening.STORYLINES)
"""Every storyline of the pack (stories.py, crates.py, curation.py, listening.py)."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
