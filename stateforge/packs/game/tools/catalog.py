"""The game's catalogue, read-only: heroes, skins, items, runes, seasons and their rewards.

The build fills these tables and no player action changes them (the shop sells from them; see
account.py for purchases).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, tool

from .common import (
    TIER_RANK,
    Descending,
    Lane,
    Limit,
    Offset,
    Rarity,
    RuneColor,
    Tier,
    Where,
    find_hero,
    find_player,
    find_role,
    find_season,
    page_of,
    sorted_by,
)


@tool(reads=("heroes", "hero_roles", "player_heroes", "players"))
def search_heroes(
    env: Env,
    name_contains: str | None = None,
    role: str | None = None,
    lane: Lane | None = None,
    free_rotation: bool | None = None,
    owned_by: str | None = None,
    not_owned_by: str | None = None,
    sort_by: Literal["name", "price_gold", "price_diamonds", "released_on"] = "name",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The hero roster as the in-game shop shows it: by name, role tab, lane and owned / not owned, sorted by
    name, price or release; each hero with its attack type, difficulty, prices and release date.

    Args:
        name_contains: Part of the hero's name (case-insensitive).
        role: The hero's role: Tank, Fighter, Assassin, Mage, Marksman or Support.
        lane: The lane the hero is usually played in.
        free_rotation: true for the heroes free to play this week, false for the others.
        owned_by: Only heroes this player (nickname) owns.
        not_owned_by: Only heroes this player (nickname) does not own yet.
        sort_by: The order of the results.
    """
    where = Where().text(name_contains, "h.name")
    where.when(role, "h.role_id = ?", by=lambda name: find_role(env, name)["role_id"])
    where.when(lane, "h.lane = ?").when(free_rotation, "h.is_free_rotation = ?")
    own = "EXISTS (SELECT 1 FROM player_heroes AS o WHERE o.hero_id = h.hero_id AND o.player_id = ?)"
    where.when(owned_by, own, by=lambda name: find_player(env, name)["player_id"])
    where.when(not_owned_by, "NOT " + own, by=lambda name: find_player(env, name)["player_id"])
    sql = (
        "SELECT h.hero_id, h.name, h.title, r.name AS role, h.lane, h.attack_type, h.difficulty, "
        "h.price_gold, h.price_diamonds, h.base_hp, h.released_on, h.is_free_rotation AS free_rotation "
        f"FROM heroes AS h JOIN hero_roles AS r ON r.role_id = h.role_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "hero_id")
    return page_of(env, sql, where.params, order_by, limit, offset, "hero_id")


@tool(reads=("heroes", "hero_roles", "skins", "hero_builds"))
def get_hero(env: Env, name: str) -> dict:
    """A hero's details: role, lane, prices, base HP, release date, its skins and how many official builds.

    Args:
        name: The hero's name, e.g. "Li Bai".
    """
    hero_id = find_hero(env, name)["hero_id"]
    hero = env.one(
        "SELECT h.name, h.title, r.name AS role, r.description AS role_description, h.lane, h.attack_type, "
        "h.difficulty, h.price_gold, h.price_diamonds, h.base_hp, h.released_on, h.is_free_rotation AS "
        "free_rotation FROM heroes AS h JOIN hero_roles AS r ON r.role_id = h.role_id WHERE h.hero_id = ?",
        [hero_id],
    )
    assert hero is not None
    hero["skins"] = env.query(
        "SELECT name, rarity, price_diamonds, released_on, is_limited AS limited FROM skins WHERE hero_id = "
        "? ORDER BY released_on, skin_id",
        [hero_id],
    )
    hero["official_builds"] = env.scalar(
        "SELECT count(*) FROM hero_builds WHERE hero_id = ? AND player_id IS NULL", [hero_id]
    )
    return hero


@tool(reads=("skins", "heroes", "player_skins", "players"))
def search_skins(
    env: Env,
    name_contains: str | None = None,
    hero: str | None = None,
    rarity: list[Rarity] | None = None,
    min_price: Annotated[int, Field(ge=0)] | None = None,
    max_price: Annotated[int, Field(ge=0)] | None = None,
    limited: bool | None = None,
    released_after: dt.date | None = None,
    released_before: dt.date | None = None,
    owned_by: str | None = None,
    not_owned_by: str | None = None,
    sort_by: Literal["name", "hero", "price_diamonds", "released_on", "rarity"] = "name",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search hero skins by name, hero, rarity, diamond price, limited edition and release date.

    Args:
        name_contains: Part of the skin's name (case-insensitive).
        hero: Only skins of this hero (name).
        rarity: Only skins of these rarities.
        min_price: Only skins costing at least this many diamonds.
        max_price: Only skins costing at most this many diamonds.
        limited: true for limited-edition skins (never sold in the shop), false for the others.
        released_after: Only skins released on or after this date.
        released_before: Only skins released on or before this date.
        owned_by: Only skins this player (nickname) owns.
        not_owned_by: Only skins this player (nickname) does not own.
        sort_by: The order of the results (rarity: common first).
    """
    where = Where().text(name_contains, "s.name")
    where.when(hero, "s.hero_id = ?", by=lambda name: find_hero(env, name)["hero_id"])
    if rarity:
        where.add("list_contains(?, s.rarity)", list(rarity))
    where.between(min_price, max_price, "s.price_diamonds").when(limited, "s.is_limited = ?")
    where.between(released_after, released_before, "s.released_on")
    own = "EXISTS (SELECT 1 FROM player_skins AS o WHERE o.skin_id = s.skin_id AND o.player_id = ?)"
    where.when(owned_by, own, by=lambda name: find_player(env, name)["player_id"])
    where.when(not_owned_by, "NOT " + own, by=lambda name: find_player(env, name)["player_id"])
    sql = (
        "SELECT s.skin_id, s.name, h.name AS hero, s.rarity, s.price_diamonds, s.released_on, "
        "s.is_limited AS limited, list_position(['common', 'rare', 'epic', 'legendary', 'mythic'], s.rarity) "
        f"AS rarity_rank FROM skins AS s JOIN heroes AS h ON h.hero_id = s.hero_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "skin_id", {"rarity": "rarity_rank"})
    return page_of(env, sql, where.params, order_by, limit, offset, "rarity_rank", "skin_id")


@tool(reads=("items",))
def search_items(
    env: Env,
    name_contains: str | None = None,
    category: Literal["attack", "magic", "defense", "movement", "jungle", "support"] | None = None,
    tier: Annotated[int, Field(ge=1, le=3)] | None = None,
    min_price: Annotated[int, Field(ge=0)] | None = None,
    max_price: Annotated[int, Field(ge=0)] | None = None,
    include_inactive: bool = False,
    sort_by: Literal["name", "price_gold", "tier"] = "name",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search the in-match item shop by name, category, tier and gold price.

    Args:
        name_contains: Part of the item's name (case-insensitive).
        category: attack, magic, defense, movement, jungle or support.
        tier: 1 = basic component, 2 = intermediate, 3 = finished item.
        min_price: Only items costing at least this much gold.
        max_price: Only items costing at most this much gold.
        include_inactive: Also list items removed from the shop (they cannot go into builds).
        sort_by: The order of the results.
        descending: Sort from the largest value down.
    """
    where = Where().text(name_contains, "name").when(category, "category = ?").when(tier, "tier = ?")
    where.between(min_price, max_price, "price_gold")
    if not include_inactive:
        where.add("is_active")
    sql = (
        f"SELECT item_id, name, category, tier, price_gold, is_active AS active FROM items WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "item_id")
    return page_of(env, sql, where.params, order_by, limit, offset, "item_id")


@tool(reads=("runes",))
def list_runes(env: Env, color: RuneColor | None = None, name_contains: str | None = None) -> dict:
    """The runes that rune pages are made of, with their colour and bonus (a page holds 10 of each colour).

    Args:
        color: Only runes of this colour.
        name_contains: Part of the rune's name (case-insensitive).
    """
    where = Where().when(color, "color = ?").text(name_contains, "name")
    rows = env.query(
        f"SELECT name, color, level, bonus FROM runes WHERE {where.sql} ORDER BY color, name, rune_id",
        where.params,
    )
    return {"total": len(rows), "runes": rows}


@tool(reads=("seasons",))
def list_seasons(env: Env) -> dict:
    """Every ranked season with its dates and whether it has ended, is running or is still to come."""
    rows = env.query(
        "SELECT name, starts_on, ends_on, CASE WHEN ends_on < ? THEN 'ended' WHEN starts_on > ? THEN "
        "'upcoming' ELSE 'current' END AS status FROM seasons ORDER BY starts_on, season_id",
        [env.today, env.today],
    )
    return {"today": env.today, "seasons": rows}


@tool(reads=("seasons", "season_rewards", "rewards"))
def get_season_rewards(env: Env, season: str, tier: Tier | None = None) -> dict:
    """The rewards of a ranked season, each with the lowest tier that earns it.

    Args:
        season: The season's name or number, e.g. "S36" or "S36 Eternal Flame".
        tier: Only the rewards a player who reached this tier gets.
    """
    found = find_season(env, season)
    where = Where().add("sr.season_id = ?", found["season_id"])
    where.when(tier, f"{TIER_RANK.format('sr.min_tier')} <= {TIER_RANK.format('?')}")
    rewards = env.query(
        "SELECT r.name, r.kind, r.amount, sr.min_tier FROM season_rewards AS sr "
        f"JOIN rewards AS r ON r.reward_id = sr.reward_id WHERE {where.sql} "
        f"ORDER BY {TIER_RANK.format('sr.min_tier')}, r.name, r.reward_id",
        where.params,
    )
    return {
        "season": found["name"],
        "starts_on": found["starts_on"],
        "ends_on": found["ends_on"],
        "rewards": rewards,
    }
