"""Clans: search, members, create, join, leave, kick, promote and demote, hand over leadership, edit, disband.

Policy `clan_membership`: a player is in at most one clan and joins only a clan that recruits and has room;
banned players neither join nor create clans. Policy `clan_roles`: the leader promotes and demotes, hands
over leadership, renames, retags, resizes and disbands the clan; the leader and elders edit the description
and recruiting and remove members (elders only ordinary members); a leader leaves only after handing over
leadership, unless they are the last member (the clan is then disbanded). Rule clan_has_one_leader holds.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create, remove
from stateforge.tools.policies import refuse

from .common import (
    Descending,
    Limit,
    Offset,
    Player,
    Where,
    find_clan,
    find_player,
    find_players,
    membership,
    names,
    page_of,
    refuse_banned,
    require_one_of,
    sorted_by,
)

ClanRef = Annotated[str, Field(description="The clan's name or tag.")]
Leader = Annotated[str, Field(min_length=1, max_length=24, description="Your nickname (the leader).")]
ClanName = Annotated[
    str, Field(min_length=3, max_length=30, description="The clan's name, 3 to 30 characters.")
]
ClanTag = Annotated[
    str,
    Field(
        min_length=2,
        max_length=5,
        pattern=r"^[A-Za-z0-9]+$",
        description="The clan's tag, 2 to 5 letters or digits (shown in capitals).",
    ),
]
MaxMembers = Annotated[int, Field(ge=10, le=100, description="How many members the clan takes, 10 to 100.")]
MEMBERS = "(SELECT count(*) FROM clan_members AS n WHERE n.clan_id = c.clan_id)"


def my_clan(
    env: Env,
    nickname: str,
    *,
    roles: tuple[str, ...] = ("leader", "elder", "member"),
    action: str = "do that",
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The acting player and their membership; `ToolError` when they are in no clan or their role may not
    `action`."""
    player = find_player(env, nickname)
    member = membership(env, player["player_id"])
    if member is None:
        raise ToolError(f"{player['nickname']} is not in a clan.")
    if member["role"] not in roles:
        allowed = " or ".join(f"the {r}" for r in roles if r != "member")
        raise refuse(
            "clan_roles",
            f"only {allowed} of {member['clan']} can {action}; {player['nickname']} is "
            f"{'an' if member['role'] == 'elder' else 'a'} {member['role']}.",
        )
    return player, member


def _members_of(
    env: Env, clan_id: int, players: list[dict[str, Any]], clan: str
) -> dict[int, dict[str, Any]]:
    rows = env.query(
        "SELECT m.player_id, p.nickname, m.role FROM clan_members AS m JOIN players AS p "
        "ON p.player_id = m.player_id WHERE m.clan_id = ? AND list_contains(?, m.player_id)",
        [clan_id, [p["player_id"] for p in players]],
    )
    found = {r["player_id"]: r for r in rows}
    outside = [p for p in players if p["player_id"] not in found]
    if outside:
        raise ToolError(f"{names(outside, 'nickname')} {'is' if len(outside) == 1 else 'are'} not in {clan}.")
    return found


@tool(reads=("clans", "clan_members", "players"))
def search_clans(
    env: Env,
    name_contains: str | None = None,
    recruiting: bool | None = None,
    has_room: bool | None = None,
    min_level: Annotated[int, Field(ge=1, le=10)] | None = None,
    max_level: Annotated[int, Field(ge=1, le=10)] | None = None,
    min_members: Annotated[int, Field(ge=0)] | None = None,
    sort_by: Literal["name", "level", "members", "created_at", "contribution"] = "name",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search clans by name or tag, recruiting, free places, level and size; each with its leader.

    Args:
        name_contains: Part of the clan's name or tag (case-insensitive).
        recruiting: true for clans that take new members, false for closed ones.
        has_room: true for clans with a free place, false for full ones.
        min_level: Lowest clan level (1-10).
        max_level: Highest clan level (1-10).
        min_members: Only clans with at least this many members.
        sort_by: The order of the results (contribution: the members' total).
    """
    where = Where()
    if name_contains:
        where.add(
            "(contains(lower(c.name), lower(?)) OR contains(lower(c.tag), lower(?)))",
            name_contains,
            name_contains,
        )
    where.when(recruiting, "c.is_recruiting = ?").when(has_room, f"({MEMBERS} < c.max_members) = ?")
    where.between(min_level, max_level, "c.level").when(min_members, f"{MEMBERS} >= ?")
    sql = (
        f"SELECT c.clan_id, c.name, c.tag, c.level, {MEMBERS} AS members, c.max_members, c.is_recruiting, "
        "(SELECT p.nickname FROM clan_members AS l JOIN players AS p ON p.player_id = l.player_id  WHERE "
        "l.clan_id = c.clan_id AND l.role = 'leader') AS leader, (SELECT coalesce(sum(s.contribution), 0) "
        "FROM clan_members AS s WHERE s.clan_id = c.clan_id) AS contribution, "
        f"c.created_at FROM clans AS c WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "clan_id")
    return page_of(env, sql, where.params, order_by, limit, offset, "clan_id")


@tool(reads=("clans", "clan_members", "players"))
def get_clan(env: Env, clan: ClanRef) -> dict:
    """A clan's details: tag, description, level, size and free places, recruiting, leader and elders."""
    found = find_clan(env, clan)
    out = env.one(
        "SELECT name, tag, description, level, max_members, is_recruiting, created_at FROM clans "
        "WHERE clan_id = ?",
        [found["clan_id"]],
    )
    assert out is not None
    staff = env.query(
        "SELECT p.nickname, m.role FROM clan_members AS m JOIN players AS p ON p.player_id = m.player_id "
        "WHERE m.clan_id = ? AND m.role <> 'member' ORDER BY m.role DESC, p.nickname",
        [found["clan_id"]],
    )
    totals = env.one(
        "SELECT count(*) AS members, coalesce(sum(contribution), 0) AS contribution FROM clan_members "
        "WHERE clan_id = ?",
        [found["clan_id"]],
    )
    assert totals is not None
    out.update(totals)
    out["free_places"] = max(out["max_members"] - totals["members"], 0)
    out["leader"] = next((s["nickname"] for s in staff if s["role"] == "leader"), None)
    out["elders"] = [s["nickname"] for s in staff if s["role"] == "elder"]
    return out


@tool(reads=("clans", "clan_members", "players"))
def list_clan_members(
    env: Env,
    clan: ClanRef,
    role: Literal["leader", "elder", "member"] | None = None,
    name_contains: str | None = None,
    min_contribution: Annotated[int, Field(ge=0)] | None = None,
    max_contribution: Annotated[int, Field(ge=0)] | None = None,
    joined_after: dt.date | None = None,
    joined_before: dt.date | None = None,
    inactive_since: dt.date | None = None,
    sort_by: Literal["contribution", "joined_at", "nickname", "role", "last_login_at"] = "role",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A clan's members with role, contribution, join date, level and last login.

    Args:
        role: Only members with this role.
        name_contains: Part of the member's nickname.
        min_contribution: Only members who contributed at least this much.
        max_contribution: Only members who contributed at most this much.
        joined_after: Only members who joined on or after this date.
        joined_before: Only members who joined on or before this date.
        inactive_since: Only members who have not logged in since this date (or never).
        sort_by: The order of the results (role: leader, elders, members).
    """
    found = find_clan(env, clan)
    where = (
        Where()
        .add("m.clan_id = ?", found["clan_id"])
        .when(role, "m.role = ?")
        .text(name_contains, "p.nickname")
    )
    where.between(min_contribution, max_contribution, "m.contribution")
    where.between(joined_after, joined_before, "CAST(m.joined_at AS DATE)")
    where.when(inactive_since, "(p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)")
    sql = (
        "SELECT p.player_id, p.nickname, m.role, list_position(['leader', 'elder', 'member'], m.role) AS "
        "role_rank, m.contribution, m.joined_at, p.account_level, p.last_login_at FROM clan_members AS m "
        f"JOIN players AS p ON p.player_id = m.player_id WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "player_id", {"role": "role_rank"})
    page = page_of(env, sql, where.params, order_by, limit, offset, "player_id", "role_rank")
    page["clan"] = found["name"]
    return page


def _enroll(env: Env, clan_id: int, player_id: int, role: str) -> None:
    """Make the player a member of the clan with `role`, joined now, with no contribution yet."""
    row = {"clan_id": clan_id, "player_id": player_id, "role": role, "joined_at": env.now, "contribution": 0}
    env.insert("clan_members", row)


def _refuse_taken(env: Env, name: str | None, tag: str | None, except_clan: int = -1) -> None:
    if name is not None and env.one(
        "SELECT 1 AS yes FROM clans WHERE lower(name) = lower(?) AND clan_id <> ?", [name, except_clan]
    ):
        raise refuse("clan_membership", f"a clan named {name!r} already exists; choose another name.")
    if tag is not None and env.one(
        "SELECT 1 AS yes FROM clans WHERE upper(tag) = upper(?) AND clan_id <> ?", [tag, except_clan]
    ):
        raise refuse("clan_membership", f"the tag {tag.upper()!r} is taken; choose another tag.")


@create(reads=("players", "clans", "clan_members"), writes=("clans", "clan_members"))
def create_clan(
    env: Env,
    player: Player,
    name: ClanName,
    tag: ClanTag,
    description: Annotated[str, Field(max_length=300)] | None = None,
    max_members: MaxMembers = 50,
    is_recruiting: bool = True,
) -> dict:
    """Found a clan and become its leader (you must not be in a clan).

    Args:
        player: Your nickname (the founder and leader).
        name: The clan's name, unique.
        tag: The clan's tag, unique, 2 to 5 letters or digits.
        description: What the clan is about (up to 300 characters).
        max_members: How many members it takes, 10 to 100.
        is_recruiting: Whether players may join.
    """
    me = find_player(env, player)
    refuse_banned(env, me, "create a clan", policy="clan_membership")
    current = membership(env, me["player_id"])
    if current is not None:
        raise refuse(
            "clan_membership",
            f"{me['nickname']} is already in {current['clan']} [{current['tag']}]; leave it first.",
        )
    _refuse_taken(env, name, tag)
    clan = env.insert(
        "clans",
        {
            "name": name,
            "tag": tag.upper(),
            "description": description,
            "level": 1,
            "max_members": max_members,
            "is_recruiting": is_recruiting,
            "created_at": env.now,
        },
    )
    _enroll(env, clan["clan_id"], me["player_id"], "leader")
    return {"clan": name, "tag": tag.upper(), "leader": me["nickname"]}


@create(reads=("players", "clans", "clan_members"), writes=("clan_members",))
def join_clan(env: Env, player: Player, clan: ClanRef) -> dict:
    """Join a clan that is recruiting and has a free place (you must not be in another clan)."""
    me = find_player(env, player)
    refuse_banned(env, me, "join a clan", policy="clan_membership")
    found = find_clan(env, clan)
    current = membership(env, me["player_id"])
    if current is not None:
        where = "already in this clan" if current["clan_id"] == found["clan_id"] else f"in {current['clan']}"
        raise refuse(
            "clan_membership",
            f"{me['nickname']} is {where}; a player belongs to one clan (leave_clan first).",
        )
    if not found["is_recruiting"]:
        raise refuse("clan_membership", f"{found['name']} is not recruiting; it takes no new members.")
    members = env.scalar("SELECT count(*) FROM clan_members WHERE clan_id = ?", [found["clan_id"]])
    if members >= found["max_members"]:
        raise refuse(
            "clan_membership", f"{found['name']} is full ({members} of {found['max_members']} members)."
        )
    _enroll(env, found["clan_id"], me["player_id"], "member")
    return {"clan": found["name"], "tag": found["tag"], "members": members + 1}


@remove(reads=("players", "clans", "clan_members"), writes=("clan_members", "clans"))
def leave_clan(env: Env, player: Player) -> dict:
    """Leave your clan. A leader must hand over leadership first, unless they are the last member: then the
    clan is disbanded."""
    me, member = my_clan(env, player)
    others = env.scalar(
        "SELECT count(*) FROM clan_members WHERE clan_id = ? AND player_id <> ?",
        [member["clan_id"], me["player_id"]],
    )
    if member["role"] == "leader" and others:
        raise refuse(
            "clan_roles",
            f"{me['nickname']} leads {member['clan']}, which has {others} other member"
            f"{'s' if others != 1 else ''}; hand over leadership first (transfer_clan_leadership), "
            "or disband the clan (disband_clan).",
        )
    if member["role"] == "leader":
        env.delete("clans", member["clan_id"])
        return {"left": member["clan"], "disbanded": True}
    env.delete("clan_members", {"clan_id": member["clan_id"], "player_id": me["player_id"]})
    return {"left": member["clan"], "disbanded": False}


@change(reads=("players", "clans", "clan_members"), writes=("clan_members",))
def kick_clan_members(
    env: Env,
    player: Player,
    members: Annotated[list[str], Field(min_length=1, max_length=100)] | None = None,
    max_contribution: Annotated[int, Field(ge=0)] | None = None,
    inactive_since: dt.date | None = None,
    include_elders: bool = False,
) -> dict:
    """Remove members from your clan: the ones named, or every ordinary member matching all conditions given.

    Leader and elders may remove members; only the leader removes elders. Nobody removes the leader.

    Args:
        player: Your nickname (the leader or an elder).
        members: The members to remove, by nickname.
        max_contribution: Remove members who contributed at most this much.
        inactive_since: Remove members who have not logged in since this date (or never).
        include_elders: With the conditions: remove matching elders too (leader only).
    """
    require_one_of(members=members, max_contribution=max_contribution, inactive_since=inactive_since)
    me, mine = my_clan(env, player, roles=("leader", "elder"), action="remove members")
    may = ("elder", "member") if mine["role"] == "leader" else ("member",)
    if include_elders and mine["role"] != "leader":
        raise refuse("clan_roles", "only the leader removes elders.")
    where = Where().add("m.clan_id = ?", mine["clan_id"]).add("m.player_id <> ?", me["player_id"])
    if members is not None:
        named = _members_of(env, mine["clan_id"], find_players(env, members, what="member"), mine["clan"])
        above = [r for r in named.values() if r["role"] not in may]
        if any(r["player_id"] == me["player_id"] for r in named.values()):
            raise ToolError("to leave the clan yourself, use leave_clan.")
        if above:
            raise refuse(
                "clan_roles",
                f"{me['nickname']} ({mine['role']}) cannot remove {names(above, 'nickname')} "
                f"({above[0]['role']}).",
            )
        where.add("list_contains(?, m.player_id)", list(named))
    else:
        where.add("list_contains(?, m.role)", ["member", "elder"] if include_elders else ["member"])
    where.when(max_contribution, "m.contribution <= ?")
    where.when(inactive_since, "(p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)")
    rows = env.query(
        "SELECT m.player_id, p.nickname FROM clan_members AS m JOIN players AS p ON p.player_id = "
        f"m.player_id WHERE {where.sql} ORDER BY p.nickname",
        where.params,
    )
    if not rows:
        raise ToolError(f"no member of {mine['clan']} matches; nobody was removed.")
    env.delete_where(
        "clan_members",
        "clan_id = ? AND list_contains(?, player_id)",
        [mine["clan_id"], [r["player_id"] for r in rows]],
    )
    return {"clan": mine["clan"], "removed": [r["nickname"] for r in rows]}


@change(reads=("players", "clans", "clan_members"), writes=("clan_members",))
def set_clan_role(
    env: Env,
    player: Leader,
    members: Annotated[list[str], Field(min_length=1, max_length=100)],
    role: Literal["elder", "member"],
) -> dict:
    """Promote members of your clan to elder, or demote elders to member (leader only).

    Args:
        members: The members whose role changes, by nickname.
        role: elder (promote) or member (demote). To hand over leadership use transfer_clan_leadership.
    """
    me, mine = my_clan(env, player, roles=("leader",), action="change roles")
    named = _members_of(env, mine["clan_id"], find_players(env, members, what="member"), mine["clan"])
    if me["player_id"] in named:
        raise refuse(
            "clan_roles",
            "the leader's own role changes only by handing over leadership (transfer_clan_leadership).",
        )
    changing = [pid for pid, r in named.items() if r["role"] != role]
    if changing:
        env.update_where(
            "clan_members",
            "clan_id = ? AND list_contains(?, player_id)",
            [mine["clan_id"], changing],
            {"role": role},
        )
    return {
        "clan": mine["clan"],
        "role": role,
        "changed": sorted(named[p]["nickname"] for p in changing),
        "unchanged": sorted(r["nickname"] for p, r in named.items() if p not in changing),
    }


@change(reads=("players", "clans", "clan_members"), writes=("clan_members",))
def transfer_clan_leadership(env: Env, player: Leader, new_leader: str) -> dict:
    """Hand the leadership of your clan to another member; you become an elder.

    Args:
        new_leader: The member who becomes leader (nickname).
    """
    me, mine = my_clan(env, player, roles=("leader",), action="hand over leadership")
    heir = find_player(env, new_leader, what="member")
    if heir["player_id"] == me["player_id"]:
        raise ToolError(f"{me['nickname']} already leads {mine['clan']}.")
    _members_of(env, mine["clan_id"], [heir], mine["clan"])
    env.update("clan_members", {"clan_id": mine["clan_id"], "player_id": me["player_id"]}, {"role": "elder"})
    env.update(
        "clan_members", {"clan_id": mine["clan_id"], "player_id": heir["player_id"]}, {"role": "leader"}
    )
    return {"clan": mine["clan"], "leader": heir["nickname"], "previous_leader_now": "elder"}


@change(reads=("players", "clans", "clan_members"), writes=("clans",))
def update_clan(
    env: Env,
    player: Player,
    name: ClanName | None = None,
    tag: ClanTag | None = None,
    description: Annotated[str, Field(max_length=300)] | None = None,
    is_recruiting: bool | None = None,
    max_members: MaxMembers | None = None,
) -> dict:
    """Edit your clan: the leader changes anything; elders only the description and recruiting.

    Args:
        player: Your nickname (the leader or an elder).
        name: A new unique name (leader only).
        tag: A new unique tag (leader only).
        description: A new description ("" clears it).
        is_recruiting: Whether players may join.
        max_members: A new size, 10 to 100, not below the current member count (leader only).
    """
    require_one_of(
        name=name, tag=tag, description=description, is_recruiting=is_recruiting, max_members=max_members
    )
    me, mine = my_clan(env, player, roles=("leader", "elder"), action="edit the clan")
    if mine["role"] != "leader" and (name, tag, max_members) != (None, None, None):
        raise refuse(
            "clan_roles",
            "only the leader renames, retags or resizes the clan; elders edit the description and "
            "recruiting.",
        )
    _refuse_taken(env, name, tag, mine["clan_id"])
    if max_members is not None:
        members = env.scalar("SELECT count(*) FROM clan_members WHERE clan_id = ?", [mine["clan_id"]])
        if max_members < members:
            raise refuse(
                "clan_membership", f"{mine['clan']} has {members} members; max_members cannot be lower."
            )
    changes: dict[str, Any] = {
        k: v
        for k, v in (
            ("name", name),
            ("tag", tag and tag.upper()),
            ("is_recruiting", is_recruiting),
            ("max_members", max_members),
        )
        if v is not None
    }
    if description is not None:
        changes["description"] = description or None
    env.update("clans", mine["clan_id"], changes)
    return {"clan": name or mine["clan"], "changed": sorted(changes)}


@change(reads=("players", "clans", "clan_members"), writes=("clans",))
def disband_clan(env: Env, player: Leader) -> dict:
    """Disband your clan: every member leaves it and it is deleted (leader only)."""
    me, mine = my_clan(env, player, roles=("leader",), action="disband the clan")
    members = env.scalar("SELECT count(*) FROM clan_members WHERE clan_id = ?", [mine["clan_id"]])
    env.delete("clans", mine["clan_id"])
    return {"disbanded": mine["clan"], "members_released": members}
