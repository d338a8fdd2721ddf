"""What the game pack's tools share: lookups by what a player knows, filters, pages, and product constants.

Lookups take what a player sees in the game (nicknames, hero and skin names, clan names or tags, season
names like "S36", rune page names or numbers) and raise a `ToolError` that lists the candidates when a name
is missing or matches several things, so an agent can ask the user which one was meant.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError
from stateforge.tools.lookup import find_named as find_named  # catalogue rows by their unique name
from stateforge.tools.policies import refuse
from stateforge.tools.where import Where as Where  # the filters every list tool builds
from stateforge.tools.wording import SHOWN, names
from stateforge.tools.wording import quoted as quoted
from stateforge.tools.wording import require_one_of as require_one_of
from stateforge.tools.wording import sorted_by as sorted_by

TIERS = ("bronze", "silver", "gold", "platinum", "diamond", "starshine", "master", "grandmaster", "king")
Tier = Literal[TIERS]
TIER_RANK = "list_position([" + ", ".join(f"'{t}'" for t in TIERS) + "], {})"
"""SQL ranking a tier column 1 (bronze) .. 9 (king); format with the column."""

Region = Literal["na", "eu", "sea", "latam", "mena", "cn_east", "cn_south"]
Lane = Literal["clash", "mid", "farm", "jungle", "roam"]
Rarity = Literal["common", "rare", "epic", "legendary", "mythic"]
RuneColor = Literal["red", "blue", "green"]
Relation = Literal["friend", "close_friend", "mentor", "bestie", "partner"]
MailCategory = Literal["system", "friend", "clan", "event", "compensation", "season_reward"]
Mode = Literal["ranked", "normal", "brawl", "peak", "custom"]

MAX_RUNES_PER_COLOUR = 10
MAX_RUNE_PAGES = 50
MAIL_LIFETIME = dt.timedelta(days=30)
"""How long a mail sent by a player (or a gift notice) stays in the mailbox."""

Player = Annotated[str, Field(min_length=1, max_length=24, description="Your nickname.")]
"""The acting player (you, the user); where the role matters, a type (`Author`) or the docstring says it."""
Nickname = Annotated[str, Field(description="The player's nickname.")]
"""Any player, as a read tool is asked about them."""
Limit = Annotated[int, Field(ge=1, le=50, description="Results per page, 1 to 50.")]
Offset = Annotated[int, Field(ge=0, description="Results to skip.")]
Descending = Annotated[bool, Field(description="Sort from the largest / latest value down.")]
"""`limit`, `offset` and `descending` parameters describe themselves: a tool's docstring names them only
where it says more."""


# --- building queries -----------------------------------------------------------------------------


def page_of(
    env: Env, sql: str, params: Sequence[Any], order_by: str, limit: int, offset: int, *hidden: str
) -> dict[str, Any]:
    """One page (`rows`, `total`) of `sql` in `order_by`, without the internal columns `hidden`."""
    return env.page(sql, list(params), order_by=order_by, limit=limit, offset=offset, hide=hidden)


# --- players ----------------------------------------------------------------------------------------

PLAYER_COLUMNS = (
    "player_id, nickname, server_region, account_level, gold, diamonds, credit_score, banned_until"
)


def find_player(env: Env, nickname: str, *, what: str = "player") -> dict[str, Any]:
    """The player with this nickname (exact, else the one case-insensitive match); else lists candidates."""
    row = env.one(f"SELECT {PLAYER_COLUMNS} FROM players WHERE nickname = ?", [nickname])
    if row is not None:
        return row
    same = env.query(
        f"SELECT {PLAYER_COLUMNS} FROM players WHERE lower(nickname) = lower(?) ORDER BY nickname", [nickname]
    )
    if len(same) == 1:
        return same[0]
    if len(same) > 1:
        raise ToolError(
            f"{len(same)} players are called {nickname!r} apart from upper/lower case: "
            f"{names(same, 'nickname')}. Which {what} do you mean? Give the nickname exactly."
        )
    near = env.query(
        "SELECT nickname FROM players WHERE contains(lower(nickname), lower(?)) ORDER BY nickname LIMIT 6",
        [nickname],
    )
    hint = f" Players whose nickname contains it: {names(near, 'nickname')}." if near else ""
    raise ToolError(f"no {what} with the nickname {nickname!r}.{hint} Check the spelling (search_players).")


def find_players(env: Env, nicknames: Sequence[str], *, what: str = "player") -> list[dict[str, Any]]:
    """The players with these nicknames, in the order given (each looked up as `find_player` does)."""
    rows = env.query(
        f"SELECT {PLAYER_COLUMNS} FROM players WHERE list_contains(?, nickname)", [list(nicknames)]
    )
    by_name = {r["nickname"]: r for r in rows}
    found, missing = [], []
    for name in dict.fromkeys(nicknames):
        if name in by_name:
            found.append(by_name[name])
            continue
        try:
            found.append(find_player(env, name, what=what))
        except ToolError as exc:
            missing.append(str(exc))
    if missing:
        more = f" (and {len(missing) - SHOWN} more)" if len(missing) > SHOWN else ""
        raise ToolError(" ".join(missing[:SHOWN]) + more)
    return found


def refuse_banned(env: Env, player: dict[str, Any], action: str, *, policy: str) -> None:
    """A refusal by `policy` when the player is banned: banned players cannot act socially or trade."""
    if player["banned_until"] is not None and player["banned_until"] > env.now:
        raise refuse(
            policy,
            f"{player['nickname']} is banned until {player['banned_until']:%Y-%m-%d %H:%M} and cannot "
            f"{action} "
            "until then.",
        )


def new_mail(
    env: Env,
    to: int,
    sender: int | None,
    category: str,
    subject: str,
    body: str | None,
    *,
    read: bool = False,
) -> dict[str, Any]:
    """Put a mail in player `to`'s mailbox, sent now by `sender` (None: the game) and kept for
    `MAIL_LIFETIME`; `read`: already read (a claim's receipt). Returns the stored row."""
    row = {"recipient_id": to, "sender_id": sender, "category": category, "subject": subject, "body": body}
    row.update(sent_at=env.now, **({"read_at": env.now} if read else {}), expires_at=env.now + MAIL_LIFETIME)
    return env.insert("mail", row)


def pair(a: int, b: int) -> dict[str, int]:
    """The key of the friendship of two players (stored once, the lower id first)."""
    return {"player_a_id": min(a, b), "player_b_id": max(a, b)}


def are_friends(env: Env, a: int, b: int) -> bool:
    """Whether two players are friends."""
    return env.get("friendships", pair(a, b)) is not None


# --- catalogue ----------------------------------------------------------------------------------------


def find_hero(env: Env, name: str) -> dict[str, Any]:
    """The hero with this name: hero_id, name, price_gold, price_diamonds."""
    return find_named(env, "heroes", "hero_id", name, "hero", extra=", price_gold, price_diamonds")


def find_role(env: Env, name: str) -> dict[str, Any]:
    """The hero role with this name (Tank, Fighter, Assassin, Mage, Marksman, Support)."""
    row = env.one("SELECT role_id, name FROM hero_roles WHERE lower(name) = lower(?)", [name])
    if row is None:
        roles = env.query("SELECT name FROM hero_roles ORDER BY role_id")
        raise ToolError(f"no hero role named {name!r}; the roles are {names(roles, 'name')}.")
    return row


def find_skin(env: Env, name: str, hero: str | None) -> dict[str, Any]:
    """The skin with this name (of `hero` when given): ids, name, hero, rarity, price, is_limited."""
    sql = (
        "SELECT s.skin_id, s.name, s.hero_id, h.name AS hero, s.rarity, s.price_diamonds, s.is_limited "
        "FROM skins AS s JOIN heroes AS h ON h.hero_id = s.hero_id WHERE lower(s.name) = lower(?)"
    )
    params: list[Any] = [name]
    if hero is not None:
        sql += " AND h.hero_id = ?"
        params.append(find_hero(env, hero)["hero_id"])
    rows = env.query(sql + " ORDER BY h.name, s.skin_id", params)
    rows = [r for r in rows if r["name"] == name] or rows  # the exact name wins over other letter cases
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        raise ToolError(
            f"{len(rows)} heroes have a skin named {name!r}: {names(rows, 'hero')}. Which hero's skin do you "
            "mean? Give the hero too."
        )
    near = env.query(
        "SELECT s.name || ' (' || h.name || ')' AS label FROM skins AS s JOIN heroes AS h ON h.hero_id = "
        "s.hero_id WHERE contains(lower(s.name), lower(?)) ORDER BY label LIMIT 6",
        [name],
    )
    of = f" for {hero}" if hero else ""
    hint = f" Skins whose name contains it: {names(near, 'label')}." if near else ""
    raise ToolError(f"no skin named {name!r}{of}.{hint}")


def find_season(env: Env, season: str) -> dict[str, Any]:
    """The season named `season` ("S36 Eternal Flame", or its number "S36"; case-insensitive)."""
    row = env.one(
        "SELECT season_id, name, starts_on, ends_on FROM seasons "
        "WHERE lower(name) = lower(?) OR lower(split_part(name, ' ', 1)) = lower(?)",
        [season.strip(), season.strip()],
    )
    if row is None:
        seasons = env.query("SELECT name FROM seasons ORDER BY season_id")
        raise ToolError(f"no season {season!r}; the seasons are {names(seasons, 'name')} (list_seasons).")
    return row


def find_clan(env: Env, clan: str) -> dict[str, Any]:
    """The clan with this name or tag (case-insensitive)."""
    columns = "clan_id, name, tag, level, max_members, is_recruiting"
    rows = env.query(
        f"SELECT {columns} FROM clans WHERE lower(name) = lower(?) OR lower(tag) = lower(?) ORDER BY clan_id",
        [clan, clan],
    )
    rows = [r for r in rows if clan in (r["name"], r["tag"])] or rows
    if len(rows) == 1:
        return rows[0]
    if len(rows) > 1:
        labels = [{"label": f"{r['name']} [{r['tag']}]"} for r in rows]
        raise ToolError(
            f"{clan!r} names {len(rows)} clans: {names(labels, 'label')}. Which one? Give its tag."
        )
    near = env.query(
        "SELECT name || ' [' || tag || ']' AS label FROM clans WHERE contains(lower(name), lower(?)) "
        "ORDER BY label LIMIT 6",
        [clan],
    )
    hint = f" Clans whose name contains it: {names(near, 'label')}." if near else ""
    raise ToolError(f"no clan named or tagged {clan!r}.{hint}")


def membership(env: Env, player_id: int) -> dict[str, Any] | None:
    """The player's clan membership (clan_id, clan name and tag, role, contribution), or None."""
    return env.one(
        "SELECT m.clan_id, c.name AS clan, c.tag, m.role, m.contribution, m.joined_at "
        "FROM clan_members AS m JOIN clans AS c ON c.clan_id = m.clan_id WHERE m.player_id = ?",
        [player_id],
    )
