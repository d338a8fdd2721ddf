"""What the game recipes share: choosing a player and speaking as them, the SQL fragments that say what a
player sees (their friends, their mailbox, their clan), sizes of bulk changes, and thresholds picked from the
data so that a boundary ("at most", "before", "since") decides for at least one row.

Players are named by nickname (unique; the tools look them up by it), clans by name or tag, heroes, items and
runes by name, skins by name and hero, rune pages by name, builds, mail and matches by the numbers the game
shows. The frozen clock is the build's `now` (2026-06-30 23:59:59 for the pack's build).
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from typing import Any

from stateforge.tasks import RecipeContext, Skip, picks

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


def stamp(ctx: RecipeContext) -> str:
    """The frozen 'now' as a SQL literal (reads on the base must not use the wall clock)."""
    return f"TIMESTAMP '{ctx.now:%Y-%m-%d %H:%M:%S}'"


def not_banned(ctx: RecipeContext, alias: str = "p") -> str:
    """SQL: the player `alias` is not serving a ban at 'now' (banned players cannot trade or socialise)."""
    return f"({alias}.banned_until IS NULL OR {alias}.banned_until <= {stamp(ctx)})"


def banned(ctx: RecipeContext, alias: str = "p") -> str:
    """SQL: the player `alias` is serving a ban at 'now'."""
    return f"({alias}.banned_until IS NOT NULL AND {alias}.banned_until > {stamp(ctx)})"


def visible_mail(ctx: RecipeContext, alias: str = "m") -> str:
    """SQL: mail `alias` is still in its recipient's mailbox (neither deleted nor expired)."""
    return f"(NOT {alias}.is_deleted AND {alias}.expires_at > {stamp(ctx)})"


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


def day_of(value: dt.datetime | dt.date | str | None) -> dt.date | None:
    """The calendar day of a timestamp, a date or an ISO text a tool returned (what a player reads)."""
    if isinstance(value, dt.datetime):
        return value.date()
    if value is None or isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(str(value)[:10])


def cut_points(
    ctx: RecipeContext, values: Sequence[Any], *, low: float = 0.2, high: float = 0.9
) -> list[Any]:
    """Distinct candidate thresholds taken from the data (so a row sits exactly on the boundary), between the
    `low` and `high` quantiles of `values`, in an order shuffled with the rng."""
    ordered = sorted(v for v in values if v is not None)
    if not ordered:
        return []
    a, b = int(low * (len(ordered) - 1)), int(high * (len(ordered) - 1))
    points = list(dict.fromkeys(ordered[a : b + 1]))
    ctx.rng.shuffle(points)
    return points


def band(ctx: RecipeContext, bands: Sequence[tuple[int, int]] = BANDS) -> tuple[int, int]:
    """A size band drawn with the rng (weights `BAND_WEIGHTS` for the default bands, else equal)."""
    weights = BAND_WEIGHTS if tuple(bands) == BANDS else [1.0] * len(bands)
    return bands[ctx.rng.choices(range(len(bands)), weights=weights)[0]]


def cut_for(
    ctx: RecipeContext, points: Sequence[Any], count: Callable[[Any], int], low: int, high: int
) -> tuple[Any, int] | None:
    """A threshold of `points` whose `count(point)` lies in [`low`, `high`], chosen with the rng; when none
    does, the one whose count is nearest to the band (but at least 1); None when every count is 0."""
    counted = [(p, count(p)) for p in points]
    inside = [(p, n) for p, n in counted if low <= n <= high]
    if inside:
        return ctx.choice(inside)
    some = [(p, n) for p, n in counted if n >= 1]
    if not some:
        return None
    return min(some, key=lambda pn: (min(abs(pn[1] - low), abs(pn[1] - high)), str(pn[0])))


def in_list(values: Sequence[Any]) -> str:
    """A SQL list of integer ids, inlined (`IN (...)`) for goals that must hold self-contained."""
    ids = [int(v) for v in values]
    if not ids:
        raise Skip("nothing to act on")
    return "(" + ", ".join(str(v) for v in ids) + ")"


pages = picks.read_pages
"""`stateforge.tasks.picks.read_pages`: every row of a paged read tool, as reference reads."""
