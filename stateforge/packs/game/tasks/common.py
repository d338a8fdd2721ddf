"""What the game recipes share: choosing a player and speaking as them, the SQL fragments that say what a
player sees (their friends, their mailbox, their clan) and sizes of bulk changes. Thresholds that a boundary
("at most", "before", "since") decides by come from the data (`stateforge.tasks.picks.cut_points`).

Players are named by nickname (unique; the tools look them up by it), clans by name or tag, heroes, items and
runes by name, skins by name and hero, rune pages by name, builds, mail and matches by the numbers the game
shows. The frozen clock is the build's `now` (2026-06-30 23:59:59 for the pack's build).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from stateforge.tasks import RecipeContext, picks
from stateforge.tasks.verifiers import literal

SPEAKER = (
    "I'm {name}.",
    "My nickname is {name}.",
    "Hi, {name} here.",
    "This is {name} (my in-game name).",
    "Hello, I play as {name}.",
)
"""How a player introduces themself: the game knows them by nickname only."""

BANDS: tuple[tuple[int, int], ...] = ((2, 12), (12, 50), (50, 260))
"""Sizes of a bulk change (rows it touches): a few, dozens, hundreds."""
BAND_WEIGHTS: tuple[float, ...] = (0.35, 0.35, 0.3)

MAIL_LABELS = {
    "system": "system mail",
    "friend": "mail from friends",
    "clan": "clan mail",
    "event": "event mail",
    "compensation": "compensation mail",
    "season_reward": "season-reward mail",
}
"""How a player calls each mail category (the mailbox shows them as tabs)."""

RELATION_WORDS = {
    "friend": "plain friend",
    "close_friend": "close friend",
    "mentor": "mentor",
    "bestie": "bestie",
    "partner": "partner",
}


def not_banned(ctx: RecipeContext, alias: str = "p") -> str:
    """SQL: the player `alias` is not serving a ban at 'now' (banned players cannot trade or socialise)."""
    return f"({alias}.banned_until IS NULL OR {alias}.banned_until <= {literal(ctx.now)})"


def banned(ctx: RecipeContext, alias: str = "p") -> str:
    """SQL: the player `alias` is serving a ban at 'now'."""
    return f"({alias}.banned_until IS NOT NULL AND {alias}.banned_until > {literal(ctx.now)})"


def visible_mail(ctx: RecipeContext, alias: str = "m") -> str:
    """SQL: mail `alias` is still in its recipient's mailbox (neither deleted nor expired)."""
    return f"(NOT {alias}.is_deleted AND {alias}.expires_at > {literal(ctx.now)})"


def unclaimed(alias: str = "m") -> str:
    """SQL: mail `alias` has rewards still to claim."""
    return (
        f"EXISTS (SELECT 1 FROM mail_attachments AS ua WHERE ua.mail_id = {alias}.mail_id "
        "AND ua.claimed_at IS NULL)"
    )


FRIENDS_OF = """
    SELECT player_b_id AS friend_id, relation, intimacy, since FROM friendships WHERE player_a_id = $pid
    UNION ALL
    SELECT player_a_id AS friend_id, relation, intimacy, since FROM friendships WHERE player_b_id = $pid
"""
"""A player's friends (bind `$pid`): a friendship is stored once per pair, the lower id first."""


def introduce(ctx: RecipeContext, nickname: str) -> str:
    """Open the instruction as the player speaking, and record that the nickname names one player; returns
    the opening sentence."""
    return picks.introduce(ctx, "player", "players", {"nickname": nickname}, nickname, variants=SPEAKER)


def named(ctx: RecipeContext, table: str, name: str, what: str) -> None:
    """Record that `name` names exactly one row of a catalogue table with unique names (heroes, items, runes,
    hero_roles, clans)."""
    ctx.unique(f"{what} {name}", table, name=name)


def friends(ctx: RecipeContext, player_id: int, extra: str = "", order: str = "nickname") -> list[dict]:
    """The player's friends with their profile columns (nickname, last_login_at, banned_until, ...)."""
    return ctx.sql(
        f"SELECT f.friend_id, f.relation, f.intimacy, f.since, p.nickname, p.last_login_at, p.banned_until "
        f"FROM ({FRIENDS_OF}) AS f JOIN players AS p ON p.player_id = f.friend_id {extra} ORDER BY {order}",
        {"pid": player_id},
    )


sized = functools.partial(picks.sized, bands=BANDS, weights=BAND_WEIGHTS)
"""`stateforge.tasks.picks.sized` with the game bands."""


def band(ctx: RecipeContext, bands: Sequence[tuple[int, int]] = BANDS) -> tuple[int, int]:
    """A size band drawn with the rng (weights `BAND_WEIGHTS` for the default bands, else equal)."""
    weights = BAND_WEIGHTS if tuple(bands) == BANDS else [1.0] * len(bands)
    return bands[ctx.rng.choices(range(len(bands)), weights=weights)[0]]


pages = picks.read_pages
"""`stateforge.tasks.picks.read_pages`: every row of a paged read tool, as reference reads."""
