"""Recipes of the music pack: the offline task generator's programs (docs/tasks.md, the music section).

Each recipe finds a situation in the built database with SQL, picks one with the seeded rng, acts through
the pack's own tools (tools.py) on an episode, and writes the request as the listener would. They live in
modules beside this file, one area each: a playlist's songs, whole playlists, the library, listening,
the account (billing, devices, settings) and comments.
"""

from __future__ import annotations

from . import crates, curation, listening, stories
from .account import (
    allow_explicit_content,
    refund_recent_charge,
    register_new_device,
    sign_out_unused_devices,
    switch_to_cheapest_plan,
)
from .comments import delete_old_comments, edit_latest_comment, reply_to_comment
from .history import (
    delete_artist_plays,
    delete_busiest_day,
    delete_history_span,
    delete_skipped_plays,
    play_from_chart,
)
from .library import (
    follow_top_artists,
    like_whole_album,
    mute_followed_artists,
    unfollow_muted_before,
    unlike_artist,
    unlike_liked_before,
)
from .playlist_songs import (
    add_album_to_playlist,
    remove_artist_from_playlist,
    remove_explicit_from_playlist,
    remove_songs_added_before,
    remove_unplayed_from_playlist,
)
from .playlists import (
    copy_public_playlist,
    delete_small_private_playlists,
    move_most_played_to_top,
    playlist_of_most_played,
    trim_playlist_to_length,
)

WARMUP = [
    # a playlist's songs
    remove_artist_from_playlist,
    remove_songs_added_before,
    remove_explicit_from_playlist,
    add_album_to_playlist,
    remove_unplayed_from_playlist,
    # whole playlists
    playlist_of_most_played,
    copy_public_playlist,
    move_most_played_to_top,
    trim_playlist_to_length,
    delete_small_private_playlists,
    # the library
    unlike_artist,
    unlike_liked_before,
    like_whole_album,
    mute_followed_artists,
    unfollow_muted_before,
    follow_top_artists,
    # listening
    delete_history_span,
    delete_artist_plays,
    delete_skipped_plays,
    delete_busiest_day,
    play_from_chart,
    # the account
    refund_recent_charge,
    switch_to_cheapest_plan,
    register_new_device,
    sign_out_unused_devices,
    allow_explicit_content,
    # comments
    delete_old_comments,
    reply_to_comment,
    edit_latest_comment,
]
"""The warm-up tier: short, single-step tasks (`generate-tasks --tier warmup`)."""

STORYLINES = (*stories.STORYLINES, *crates.STORYLINES, *curation.STORYLINES, *listening.STORYLINES)
"""Every storyline of the pack (stories.py, crates.py, curation.py, listening.py)."""

RECIPES = [story.recipe() for story in STORYLINES]
"""The default tier: composed, long-horizon storylines."""

TIERS = {"long": RECIPES, "warmup": WARMUP}
"""Selectable task sets; the first is the default."""
