"""A player's account: profile and search, the heroes and skins they own, the shop and skin equipment.

Purchases follow the policy `purchases`: a hero costs its gold or its diamond price, a skin its diamond
price, paid from the buyer's balance (never below zero); nothing is owned twice; limited skins are not
sold; a skin is sold only for a hero its wearer owns; banned players cannot buy or gift.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .common import (
    Descending,
    Lane,
    Limit,
    Nickname,
    Offset,
    Player,
    Rarity,
    Region,
    Tier,
    Where,
    are_friends,
    find_clan,
    find_hero,
    find_player,
    find_role,
    find_skin,
    membership,
    names,
    new_mail,
    page_of,
    refuse_banned,
    sorted_by,
)

Buyer = Annotated[str, Field(min_length=1, max_length=24, description="The buyer's nickname (you).")]
SkinName = Annotated[str, Field(description="The skin's name.")]
SkinHero = Annotated[
    str | None, Field(description="The skin's hero, when several heroes have a skin of that name.")
]
CURRENT_RANK = (
    "SELECT player_id, arg_max(tier, seq_no) AS tier, arg_max(stars, seq_no) AS stars "
    "FROM rank_history GROUP BY player_id"
)


@tool(
    reads=(
        "players",
        "clans",
        "clan_members",
        "rank_history",
        "player_heroes",
        "player_skins",
        "friendships",
        "rune_pages",
    )
)
def get_player(env: Env, nickname: str) -> dict:
    """A player's profile: region, level, gold and diamonds, credit score, ban, clan, current rank and counts.

    Args:
        nickname: The player's nickname.
    """
    found = find_player(env, nickname)
    pid = found["player_id"]
    profile = env.one(
        "SELECT p.nickname, p.server_region, p.account_level, p.gold, p.diamonds, p.credit_score, "
        "p.banned_until, p.created_at, p.last_login_at, i.nickname AS invited_by FROM players AS p LEFT "
        "JOIN players AS i ON i.player_id = p.invited_by_player_id WHERE p.player_id = ?",
        [pid],
    )
    assert profile is not None
    banned = profile["banned_until"] is not None and profile["banned_until"] > env.now
    profile["banned"] = banned
    profile["can_play_ranked"] = not banned and profile["credit_score"] >= 90
    clan = membership(env, pid)
    profile["clan"] = None if clan is None else {k: clan[k] for k in ("clan", "tag", "role", "contribution")}
    profile["rank"] = env.one(
        "SELECT tier, stars, recorded_at FROM rank_history WHERE player_id = ? ORDER BY seq_no DESC LIMIT 1",
        [pid],
    )
    profile["heroes_owned"] = env.scalar("SELECT count(*) FROM player_heroes WHERE player_id = ?", [pid])
    profile["skins_owned"] = env.scalar("SELECT count(*) FROM player_skins WHERE player_id = ?", [pid])
    profile["friends"] = env.scalar(
        "SELECT count(*) FROM friendships WHERE player_a_id = ? OR player_b_id = ?", [pid, pid]
    )
    profile["rune_pages"] = env.scalar("SELECT count(*) FROM rune_pages WHERE player_id = ?", [pid])
    return profile


@tool(reads=("players", "clans", "clan_members", "rank_history"))
def search_players(
    env: Env,
    name_contains: str | None = None,
    region: Region | None = None,
    min_level: Annotated[int, Field(ge=1, le=30)] | None = None,
    max_level: Annotated[int, Field(ge=1, le=30)] | None = None,
    clan: str | None = None,
    in_a_clan: bool | None = None,
    tier: Tier | None = None,
    min_credit_score: Annotated[int, Field(ge=0, le=110)] | None = None,
    max_credit_score: Annotated[int, Field(ge=0, le=110)] | None = None,
    banned: bool | None = None,
    invited_by: str | None = None,
    joined_after: dt.date | None = None,
    joined_before: dt.date | None = None,
    last_login_before: dt.date | None = None,
    sort_by: Literal["nickname", "account_level", "created_at", "last_login_at", "credit_score"] = "nickname",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search players by nickname, region, level, clan, current ranked tier, credit score, ban and activity.

    Args:
        name_contains: Part of the nickname (case-insensitive).
        region: The server region.
        min_level: Lowest account level (1-30).
        max_level: Highest account level (1-30).
        clan: Only members of this clan (name or tag).
        in_a_clan: true for players in some clan, false for players in none.
        tier: Only players whose current ranked tier is this one.
        min_credit_score: Lowest credit score (below 90 a player cannot queue for ranked).
        max_credit_score: Highest credit score.
        banned: true for players serving a ban now, false for the others.
        invited_by: Only players brought in by this player's invite (nickname).
        joined_after: Only accounts created on or after this date.
        joined_before: Only accounts created on or before this date.
        last_login_before: Only players whose last login was before this date (or who never logged in).
        sort_by: The order of the results.
    """
    where = Where().text(name_contains, "p.nickname").when(region, "p.server_region = ?")
    where.between(min_level, max_level, "p.account_level")
    where.when(clan, "m.clan_id = ?", by=lambda name: find_clan(env, name)["clan_id"])
    where.when(in_a_clan, "(m.clan_id IS NOT NULL) = ?").when(tier, "rk.tier = ?")
    where.between(min_credit_score, max_credit_score, "p.credit_score")
    where.when(banned, "(p.banned_until IS NOT NULL AND p.banned_until > ?) = ?", env.now, banned)
    where.when(invited_by, "p.invited_by_player_id = ?", by=lambda name: find_player(env, name)["player_id"])
    where.between(joined_after, joined_before, "CAST(p.created_at AS DATE)")
    where.when(last_login_before, "(p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)")
    sql = (
        "SELECT p.player_id, p.nickname, p.server_region, p.account_level, p.credit_score, c.tag AS "
        "clan_tag, rk.tier, rk.stars, p.created_at, p.last_login_at, p.banned_until FROM players AS p LEFT "
        "JOIN clan_members AS m ON m.player_id = p.player_id "
        f"LEFT JOIN clans AS c ON c.clan_id = m.clan_id LEFT JOIN ({CURRENT_RANK}) AS rk "
        f"ON rk.player_id = p.player_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "player_id")
    return page_of(env, sql, where.params, order_by, limit, offset, "player_id")


@tool(reads=("players", "player_heroes", "heroes", "hero_roles", "player_skins", "skins"))
def list_player_heroes(
    env: Env,
    player: Nickname,
    role: str | None = None,
    lane: Lane | None = None,
    name_contains: str | None = None,
    min_proficiency: Annotated[int, Field(ge=0)] | None = None,
    min_matches: Annotated[int, Field(ge=0)] | None = None,
    sort_by: Literal[
        "name", "proficiency_points", "matches_played", "wins", "win_rate", "acquired_at"
    ] = "name",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The heroes a player owns, with proficiency, matches, wins, win rate and the skin each one wears.

    Args:
        role: Only heroes of this role (Tank, Fighter, Assassin, Mage, Marksman, Support).
        lane: Only heroes of this lane.
        name_contains: Part of the hero's name.
        min_proficiency: Only heroes with at least this many proficiency points.
        min_matches: Only heroes played at least this many times.
        sort_by: The order of the results (win_rate in percent).
    """
    pid = find_player(env, player)["player_id"]
    where = Where().add("ph.player_id = ?", pid).text(name_contains, "h.name").when(lane, "h.lane = ?")
    where.when(role, "h.role_id = ?", by=lambda name: find_role(env, name)["role_id"])
    where.when(min_proficiency, "ph.proficiency_points >= ?").when(min_matches, "ph.matches_played >= ?")
    sql = (
        "SELECT h.hero_id, h.name AS hero, r.name AS role, h.lane, ph.proficiency_points, ph.matches_played, "
        "ph.wins, round(100.0 * ph.wins / nullif(ph.matches_played, 0), 1) AS win_rate, ph.acquired_at, "
        "(SELECT s.name FROM player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id "
        " WHERE ps.player_id = ph.player_id AND s.hero_id = ph.hero_id AND ps.is_equipped) AS equipped_skin "
        "FROM player_heroes AS ph JOIN heroes AS h ON h.hero_id = ph.hero_id "
        f"JOIN hero_roles AS r ON r.role_id = h.role_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "hero_id", {"name": "hero"})
    return page_of(env, sql, where.params, order_by, limit, offset, "hero_id")


@tool(reads=("players", "player_skins", "skins", "heroes", "player_heroes"))
def list_player_skins(
    env: Env,
    player: Nickname,
    hero: str | None = None,
    rarity: Rarity | None = None,
    source: Literal["purchase", "event", "gift", "season_reward", "lottery"] | None = None,
    equipped: bool | None = None,
    acquired_after: dt.date | None = None,
    acquired_before: dt.date | None = None,
    sort_by: Literal["acquired_at", "name", "hero", "price_diamonds"] = "acquired_at",
    descending: Descending = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The skins a player owns: hero, rarity, how it was obtained, when, and whether it is equipped.

    Args:
        hero: Only skins of this hero.
        rarity: Only skins of this rarity.
        source: Only skins obtained this way.
        equipped: true for the skins worn now, false for the others.
        acquired_after: Only skins obtained on or after this date.
        acquired_before: Only skins obtained on or before this date.
        sort_by: The order of the results.
        descending: Sort from the largest / latest value down (the default: newest first).
    """
    pid = find_player(env, player)["player_id"]
    where = Where().add("ps.player_id = ?", pid).when(rarity, "s.rarity = ?").when(source, "ps.source = ?")
    where.when(hero, "s.hero_id = ?", by=lambda name: find_hero(env, name)["hero_id"])
    where.when(equipped, "ps.is_equipped = ?")
    where.between(acquired_after, acquired_before, "CAST(ps.acquired_at AS DATE)")
    sql = (
        "SELECT ps.skin_id, s.name AS skin, h.name AS hero, s.rarity, s.price_diamonds, ps.source, "
        "ps.acquired_at, ps.is_equipped AS equipped, EXISTS (SELECT 1 FROM player_heroes AS o WHERE "
        "o.player_id = ps.player_id AND o.hero_id = s.hero_id) AS hero_owned FROM player_skins AS ps JOIN "
        "skins AS s ON s.skin_id = ps.skin_id "
        f"JOIN heroes AS h ON h.hero_id = s.hero_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "skin_id", {"name": "skin"})
    return page_of(env, sql, where.params, order_by, limit, offset, "skin_id")


def _charge(env: Env, buyer: dict[str, Any], currency: str, amount: int, what: str) -> int:
    """Take `amount` of `currency` from the buyer's balance; `ToolError` naming the shortfall."""
    balance = buyer[currency]
    if amount > balance:
        raise refuse(
            "purchases",
            f"{what} costs {amount:,} {currency}; {buyer['nickname']} has {balance:,} ({amount - balance:,} "
            "short); a balance never goes below zero. Nothing was bought.",
        )
    if amount:
        env.update("players", buyer["player_id"], {currency: Expr(f"{currency} - ?", [amount])})
    return balance - amount


def _receipt(bought: list[Any], paid: int, currency: str, balance: int) -> dict[str, Any]:
    """What a purchase returns: what was bought, what it cost and the balance left."""
    return {"bought": bought, "paid": paid, "currency": currency, "balance": balance}


@create(reads=("players", "heroes", "player_heroes"), writes=("players", "player_heroes"))
def buy_heroes(
    env: Env,
    player: Buyer,
    heroes: Annotated[list[str], Field(min_length=1, max_length=100)],
    currency: Literal["gold", "diamonds"] = "gold",
) -> dict:
    """Buy one or several heroes from the shop, all paid in gold or all in diamonds (all or nothing).

    Args:
        heroes: The heroes to buy, by name.
        currency: Pay the gold prices or the diamond prices.
    """
    buyer = find_player(env, player)
    refuse_banned(env, buyer, "buy heroes", policy="purchases")
    wanted = {h["hero_id"]: h for h in (find_hero(env, name) for name in heroes)}
    owned = env.query(
        "SELECT h.name FROM player_heroes AS ph JOIN heroes AS h ON h.hero_id = ph.hero_id "
        "WHERE ph.player_id = ? AND list_contains(?, ph.hero_id) ORDER BY h.name",
        [buyer["player_id"], list(wanted)],
    )
    if owned:
        raise refuse(
            "purchases",
            f"{buyer['nickname']} already owns {names(owned, 'name')}; a hero is bought once. Leave "
            f"{'it' if len(owned) == 1 else 'them'} out and try again.",
        )
    price = "price_gold" if currency == "gold" else "price_diamonds"
    total = sum(h[price] for h in wanted.values())
    label = next(iter(wanted.values()))["name"] if len(wanted) == 1 else f"{len(wanted)} heroes"
    balance = _charge(env, buyer, currency, total, label)
    env.insert_many(
        "player_heroes",
        [{"player_id": buyer["player_id"], "hero_id": hero_id, "acquired_at": env.now} for hero_id in wanted],
    )
    return _receipt([h["name"] for h in wanted.values()], total, currency, balance)


def _grant(env: Env, player_id: int, skins: list[dict[str, Any]], source: str) -> None:
    """The player owns these skins from now on, got by `source` (purchase, gift)."""
    rows = [
        {"player_id": player_id, "skin_id": s["skin_id"], "acquired_at": env.now, "source": source}
        for s in skins
    ]
    env.insert_many("player_skins", rows)


class SkinChoice(BaseModel):
    """A skin, by name, and its hero when several heroes have a skin of that name."""

    model_config = ConfigDict(extra="forbid")

    skin: str = Field(min_length=1, description="The skin's name.")
    hero: str | None = Field(
        default=None, description="The hero the skin is for (needed when the name is shared)."
    )


def _sellable(env: Env, owner: dict[str, Any], skins: list[dict[str, Any]]) -> None:
    """Refuse limited skins, skins already owned and skins of heroes the owner does not have."""
    limited = [s for s in skins if s["is_limited"]]
    if limited:
        raise refuse(
            "purchases",
            f"{names(limited, 'name')} {'is a' if len(limited) == 1 else 'are'} limited-edition "
            "skin(s), never sold in the shop.",
        )
    ids = [s["skin_id"] for s in skins]
    owned = env.query(
        "SELECT s.name FROM player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id "
        "WHERE ps.player_id = ? AND list_contains(?, ps.skin_id) ORDER BY s.name",
        [owner["player_id"], ids],
    )
    if owned:
        raise refuse(
            "purchases", f"{owner['nickname']} already owns {names(owned, 'name')}; a skin is owned once."
        )
    heroes = {
        r["hero_id"]
        for r in env.query("SELECT hero_id FROM player_heroes WHERE player_id = ?", [owner["player_id"]])
    }
    missing = [{"label": f"{s['name']} ({s['hero']})"} for s in skins if s["hero_id"] not in heroes]
    if missing:
        raise refuse(
            "purchases",
            f"{owner['nickname']} does not own the hero of {names(missing, 'label')}; skins are sold only "
            "for heroes the wearer owns (buy the hero first).",
        )


@create(
    reads=("players", "skins", "heroes", "player_skins", "player_heroes"), writes=("players", "player_skins")
)
def buy_skins(
    env: Env,
    player: Buyer,
    skins: Annotated[list[SkinChoice], Field(min_length=1, max_length=100)],
) -> dict:
    """Buy one or several skins with diamonds (all or nothing); each must be for a hero you own.

    Args:
        skins: The skins to buy.
    """
    buyer = find_player(env, player)
    refuse_banned(env, buyer, "buy skins", policy="purchases")
    chosen = list({s["skin_id"]: s for s in (find_skin(env, c.skin, c.hero) for c in skins)}.values())
    _sellable(env, buyer, chosen)
    total = sum(s["price_diamonds"] for s in chosen)
    label = chosen[0]["name"] if len(chosen) == 1 else f"{len(chosen)} skins"
    balance = _charge(env, buyer, "diamonds", total, label)
    _grant(env, buyer["player_id"], chosen, "purchase")
    return _receipt([{"skin": s["name"], "hero": s["hero"]} for s in chosen], total, "diamonds", balance)


@create(
    reads=("players", "skins", "heroes", "player_skins", "player_heroes", "friendships"),
    writes=("players", "player_skins", "mail"),
)
def gift_skin(
    env: Env,
    player: Player,
    friend: str,
    skin: SkinName,
    hero: SkinHero = None,
    message: Annotated[str, Field(max_length=200)] | None = None,
) -> dict:
    """Buy a skin with your diamonds as a gift for a friend; they get it at once, with a mail saying so.

    Args:
        player: The giver's nickname (you).
        friend: The friend receiving the skin (nickname); gifts go to friends only.
        message: A few words for the mail that announces the gift.
    """
    giver = find_player(env, player)
    receiver = find_player(env, friend, what="friend")
    if giver["player_id"] == receiver["player_id"]:
        raise ToolError("a gift goes to a friend; to get a skin yourself, use buy_skins.")
    refuse_banned(env, giver, "send gifts", policy="purchases")
    if not are_friends(env, giver["player_id"], receiver["player_id"]):
        raise refuse(
            "purchases",
            f"{receiver['nickname']} is not {giver['nickname']}'s friend; gifts go to friends only.",
        )
    chosen = find_skin(env, skin, hero)
    _sellable(env, receiver, [chosen])
    balance = _charge(env, giver, "diamonds", chosen["price_diamonds"], chosen["name"])
    _grant(env, receiver["player_id"], [chosen], "gift")
    body = f"{giver['nickname']} sent you the skin {chosen['name']} for {chosen['hero']}."
    body += f" {message}" if message else ""
    mail = new_mail(env, receiver["player_id"], giver["player_id"], "friend", "A gift from a friend", body)
    return {
        "gift": chosen["name"],
        "hero": chosen["hero"],
        "to": receiver["nickname"],
        "paid": chosen["price_diamonds"],
        "balance": balance,
        "mail_id": mail["mail_id"],
    }


def _worn(env: Env, player_id: int, hero_id: int) -> dict[str, Any] | None:
    """The skin (skin_id, name) the player's hero wears, or None."""
    return env.one(
        "SELECT s.skin_id, s.name FROM player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id "
        "WHERE ps.player_id = ? AND s.hero_id = ? AND ps.is_equipped",
        [player_id, hero_id],
    )


@change(reads=("players", "skins", "heroes", "player_skins", "player_heroes"), writes=("player_skins",))
def equip_skin(env: Env, player: Player, skin: SkinName, hero: SkinHero = None) -> dict:
    """Wear a skin you own on its hero (which you must own); the skin the hero wore before comes off.

    Args:
    """
    owner = find_player(env, player)
    pid = owner["player_id"]
    chosen = find_skin(env, skin, hero)
    held = env.get("player_skins", {"player_id": pid, "skin_id": chosen["skin_id"]})
    if held is None:
        raise refuse(
            "equipped_skins",
            f"{owner['nickname']} does not own the skin {chosen['name']} ({chosen['hero']}); "
            "buy it first (buy_skins).",
        )
    if env.get("player_heroes", {"player_id": pid, "hero_id": chosen["hero_id"]}) is None:
        raise refuse(
            "equipped_skins",
            f"{owner['nickname']} does not own {chosen['hero']}; a skin is worn only by a hero you "
            "own (buy_heroes).",
        )
    before = _worn(env, pid, chosen["hero_id"])
    if before is not None and before["skin_id"] == chosen["skin_id"]:
        return {"hero": chosen["hero"], "equipped": chosen["name"], "replaced": None}
    if before is not None:
        env.update("player_skins", {"player_id": pid, "skin_id": before["skin_id"]}, {"is_equipped": False})
    env.update("player_skins", {"player_id": pid, "skin_id": chosen["skin_id"]}, {"is_equipped": True})
    return {"hero": chosen["hero"], "equipped": chosen["name"], "replaced": before and before["name"]}


@change(reads=("players", "heroes", "player_skins", "skins"), writes=("player_skins",))
def unequip_skin(env: Env, player: Player, hero: str) -> dict:
    """Take the skin off a hero, so it plays in its default look.

    Args:
        hero: The hero whose skin comes off.
    """
    owner = find_player(env, player)
    found = find_hero(env, hero)
    worn = _worn(env, owner["player_id"], found["hero_id"])
    if worn is None:
        raise ToolError(f"{found['name']} wears no skin for {owner['nickname']}; nothing to take off.")
    env.update(
        "player_skins", {"player_id": owner["player_id"], "skin_id": worn["skin_id"]}, {"is_equipped": False}
    )
    return {"hero": found["name"], "unequipped": worn["name"]}
