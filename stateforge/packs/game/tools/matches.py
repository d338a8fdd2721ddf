"""Match history, match details, player statistics and rank history: read-only (the game servers write them).

A match is shown by its number (match_id), as in the game's replay list.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool

from .common import (
    TIER_RANK,
    Descending,
    Limit,
    Mode,
    Nickname,
    Offset,
    Where,
    find_hero,
    find_player,
    find_season,
    page_of,
    sorted_by,
)

MatchHero = Annotated[str | None, Field(description="Only matches played with this hero.")]
MatchMode = Annotated[Mode | None, Field(description="Only matches of this mode.")]
StartedAfter = Annotated[dt.date | None, Field(description="Only matches started on or after this date.")]
StartedBefore = Annotated[dt.date | None, Field(description="Only matches started on or before this date.")]
RESULT = (
    "CASE WHEN m.winning_side IS NULL THEN 'remake' WHEN m.winning_side = p.side THEN 'win' ELSE 'loss' END"
)


def _match_filters(
    env: Env,
    player_id: int,
    hero: str | None,
    mode: str | None,
    season: str | None,
    started_after: dt.date | None,
    started_before: dt.date | None,
) -> Where:
    where = Where().add("p.player_id = ?", player_id).when(mode, "m.mode = ?")
    where.when(hero, "p.hero_id = ?", by=lambda name: find_hero(env, name)["hero_id"])
    where.when(season, "m.season_id = ?", by=lambda name: find_season(env, name)["season_id"])
    return where.between(started_after, started_before, "CAST(m.started_at AS DATE)")


@tool(reads=("players", "matches", "match_participants", "heroes", "seasons"))
def search_matches(
    env: Env,
    player: Nickname,
    hero: MatchHero = None,
    mode: MatchMode = None,
    season: str | None = None,
    result: Literal["win", "loss", "remake"] | None = None,
    started_after: StartedAfter = None,
    started_before: StartedBefore = None,
    descending: Descending = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A player's match history as the client's replay list shows it, newest first (filtered by hero, mode,
    season, result and dates): when, mode, season, hero, side, result, K/D/A, gold, rating and MVP. Who
    else played is in get_match.

    Args:
        season: Only matches of this season (name or number, e.g. "S36").
        result: Only won, lost or remade matches.
        descending: Newest first (the default); false for oldest first.
    """
    pid = find_player(env, player)["player_id"]
    where = _match_filters(env, pid, hero, mode, season, started_after, started_before)
    where.when(result, f"{RESULT} = ?")
    sql = (
        "SELECT m.match_id, m.started_at, m.mode, m.map_name, s.name AS season, h.name AS hero, p.side, "
        "p.lane, "
        f"{RESULT} AS result, p.kills, p.deaths, p.assists, p.gold_earned, p.rating, p.is_mvp AS mvp, "
        "m.duration_seconds FROM match_participants AS p JOIN matches AS m ON m.match_id = p.match_id "
        "JOIN heroes AS h ON h.hero_id = p.hero_id JOIN seasons AS s ON s.season_id = m.season_id "
        f"WHERE {where.sql}"
    )
    order_by = sorted_by("started_at", descending, "match_id")
    return page_of(env, sql, where.params, order_by, limit, offset)


@tool(reads=("matches", "match_participants", "match_events", "players", "heroes", "seasons"))
def get_match(env: Env, match_id: int) -> dict:
    """One match in full: mode, season, duration, winner, the ten players by side with stats, and its events.

    Args:
        match_id: The match number.
    """
    match = env.one(
        "SELECT m.match_id, m.mode, m.map_name, s.name AS season, m.started_at, m.ended_at, "
        "m.duration_seconds, m.winning_side FROM matches AS m JOIN seasons AS s ON s.season_id = "
        "m.season_id WHERE m.match_id = ?",
        [match_id],
    )
    if match is None:
        raise ToolError(f"no match {match_id}; search_matches lists a player's matches with their numbers.")
    players = env.query(
        "SELECT p.slot, p.side, pl.nickname, h.name AS hero, p.lane, p.kills, p.deaths, p.assists, "
        "p.gold_earned, p.damage_dealt, p.damage_taken, p.rating, p.is_mvp AS mvp FROM match_participants "
        "AS p JOIN players AS pl ON pl.player_id = p.player_id JOIN heroes AS h ON h.hero_id = p.hero_id "
        "WHERE p.match_id = ? ORDER BY p.slot",
        [match_id],
    )
    match["blue"] = [p for p in players if p["side"] == "blue"]
    match["red"] = [p for p in players if p["side"] == "red"]
    by_slot = {p["slot"]: p["nickname"] for p in players}
    events = env.query(
        "SELECT at_second, event_type, actor_slot, victim_slot FROM match_events WHERE match_id = ? "
        "ORDER BY at_second, event_id",
        [match_id],
    )
    match["events"] = [
        {
            "at_second": e["at_second"],
            "event": e["event_type"],
            "by": by_slot.get(e["actor_slot"]),
            "victim": by_slot.get(e["victim_slot"]),
        }
        for e in events
    ]
    return match


@tool(reads=("players", "matches", "match_participants", "heroes", "seasons"))
def get_player_stats(
    env: Env,
    player: Nickname,
    season: str | None = None,
    mode: MatchMode = None,
    hero: MatchHero = None,
    started_after: StartedAfter = None,
    started_before: StartedBefore = None,
) -> dict:
    """A player's record over their matches (optionally of a season, mode, hero or period): wins, win rate,
    K/D/A, MVPs, average rating, and the heroes they played most.

    Args:
        season: Only matches of this season (name or number).
    """
    pid = find_player(env, player)["player_id"]
    where = _match_filters(env, pid, hero, mode, season, started_after, started_before)
    base = f"FROM match_participants AS p JOIN matches AS m ON m.match_id = p.match_id WHERE {where.sql}"
    stats: dict[str, Any] = (
        env.one(
            f"SELECT count(*) AS matches, count(*) FILTER (WHERE {RESULT} = 'win') AS wins, count(*) FILTER "
            f"(WHERE {RESULT} = 'loss') AS losses, count(*) FILTER (WHERE {RESULT} = 'remake') AS remakes, "
            "coalesce(sum(p.kills), 0) AS kills, coalesce(sum(p.deaths), 0) AS deaths, "
            "coalesce(sum(p.assists), 0) AS assists, count(*) FILTER (WHERE p.is_mvp) AS mvps, "
            f"round(avg(p.rating), 2) AS average_rating {base}",
            where.params,
        )
        or {}
    )
    decided = stats["wins"] + stats["losses"]
    stats["win_rate"] = round(100 * stats["wins"] / decided, 1) if decided else None
    stats["kda"] = (
        round((stats["kills"] + stats["assists"]) / max(stats["deaths"], 1), 2) if stats["matches"] else None
    )
    stats["most_played"] = env.query(
        f"SELECT h.name AS hero, count(*) AS matches, count(*) FILTER (WHERE {RESULT} = 'win') AS wins "
        f"FROM match_participants AS p JOIN matches AS m ON m.match_id = p.match_id JOIN heroes AS h "
        f"ON h.hero_id = p.hero_id WHERE {where.sql} GROUP BY h.name ORDER BY matches DESC, h.name LIMIT 5",
        where.params,
    )
    stats["by_mode"] = env.query(
        f"SELECT m.mode, count(*) AS matches {base} GROUP BY m.mode ORDER BY m.mode", where.params
    )
    return stats


@tool(reads=("players", "rank_history", "seasons"))
def get_rank_history(
    env: Env,
    player: Nickname,
    season: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
    reason: Literal["match_win", "match_loss", "season_reset", "decay", "protection_card"] | None = None,
    descending: Descending = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A player's ranked tier over time (each change with its reason), with their current and highest tier.

    Args:
        season: Only records during this season (name or number).
        since: Only records on or after this date.
        until: Only records on or before this date.
        reason: Only changes for this reason.
        descending: Newest first (the default).
    """
    pid = find_player(env, player)["player_id"]
    where = Where().add("player_id = ?", pid).when(reason, "change_reason = ?")
    if season is not None:
        found = find_season(env, season)
        where.add("CAST(recorded_at AS DATE) BETWEEN ? AND ?", found["starts_on"], found["ends_on"])
    where.between(since, until, "CAST(recorded_at AS DATE)")
    sql = f"SELECT seq_no, recorded_at, tier, stars, change_reason FROM rank_history WHERE {where.sql}"
    page = env.page(
        sql, where.params, order_by=f"seq_no {'DESC' if descending else 'ASC'}", limit=limit, offset=offset
    )
    page["current"] = env.one(
        "SELECT tier, stars, recorded_at FROM rank_history WHERE player_id = ? ORDER BY seq_no DESC LIMIT 1",
        [pid],
    )
    page["highest"] = env.one(
        f"SELECT tier, stars, recorded_at FROM rank_history WHERE {where.sql} "
        f"ORDER BY {TIER_RANK.format('tier')} DESC, stars DESC, seq_no LIMIT 1",
        where.params,
    )
    return page
