"""Friends and friend requests: list, send, accept, decline, cancel, remove, and special relations.

Policy `friend_requests`: a request goes to a player who is not yet a friend and with whom no request is
pending (either way); only its recipient accepts or declines it, only its sender cancels it; accepting makes
the two friends; banned players send no requests. Policy `special_relations`: a player has at most one
partner. A friendship is stored once per pair (the lower player id first).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .common import (
    Descending,
    Limit,
    Nickname,
    Offset,
    Player,
    Relation,
    Where,
    are_friends,
    find_player,
    find_players,
    names,
    page_of,
    pair,
    refuse_banned,
    require_one_of,
    sorted_by,
)

Sender = Annotated[str, Field(min_length=1, max_length=24, description="Your nickname (the sender).")]
Recipient = Annotated[str, Field(min_length=1, max_length=24, description="Your nickname (the recipient).")]
Nicknames = Annotated[list[str], Field(min_length=1, max_length=300)]
FRIENDS = (  # binds the player's id twice
    "SELECT player_b_id AS friend_id, relation, intimacy, since FROM friendships WHERE player_a_id = ? "
    "UNION ALL SELECT player_a_id, relation, intimacy, since FROM friendships WHERE player_b_id = ?"
)


@tool(reads=("players", "friendships", "clan_members", "clans"))
def list_friends(
    env: Env,
    player: Nickname,
    relation: Relation | None = None,
    name_contains: str | None = None,
    min_intimacy: Annotated[int, Field(ge=0)] | None = None,
    max_intimacy: Annotated[int, Field(ge=0)] | None = None,
    since_after: dt.date | None = None,
    since_before: dt.date | None = None,
    inactive_since: dt.date | None = None,
    sort_by: Literal["nickname", "intimacy", "since", "last_login_at"] = "nickname",
    descending: Descending = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A player's friends with relation, intimacy points, friends since, last login and clan tag.

    Args:
        relation: Only friends with this relation.
        name_contains: Part of the friend's nickname.
        min_intimacy: Only friends with at least this many intimacy points.
        max_intimacy: Only friends with at most this many intimacy points.
        since_after: Only friendships made on or after this date.
        since_before: Only friendships made on or before this date.
        inactive_since: Only friends who have not logged in since this date (or never).
        sort_by: The order of the results.
    """
    me = find_player(env, player)["player_id"]
    where = Where().when(relation, "f.relation = ?").text(name_contains, "p.nickname")
    where.between(min_intimacy, max_intimacy, "f.intimacy")
    where.between(since_after, since_before, "CAST(f.since AS DATE)")
    where.when(inactive_since, "(p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)")
    sql = (
        "SELECT p.player_id, p.nickname, f.relation, f.intimacy, f.since, p.last_login_at, c.tag AS clan_tag "
        f"FROM ({FRIENDS}) AS f JOIN players AS p ON p.player_id = f.friend_id "
        "LEFT JOIN clan_members AS m ON m.player_id = p.player_id LEFT JOIN clans AS c ON c.clan_id = "
        "m.clan_id "
        f"WHERE {where.sql}"
    )
    order_by = sorted_by(sort_by, descending, "player_id")
    return page_of(env, sql, [me, me, *where.params], order_by, limit, offset, "player_id")


@tool(reads=("players", "friend_requests"))
def list_friend_requests(
    env: Env,
    player: Nickname,
    direction: Literal["incoming", "outgoing"] = "incoming",
    status: Literal["pending", "accepted", "declined", "cancelled", "any"] = "pending",
    sent_after: dt.date | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Friend requests a player received (incoming) or sent (outgoing), newest first.

    Args:
        direction: incoming: sent to the player; outgoing: sent by the player.
        status: Only requests in this state ("any" for all).
        sent_after: Only requests sent on or after this date.
    """
    me = find_player(env, player)["player_id"]
    mine, other = ("recipient_id", "sender_id") if direction == "incoming" else ("sender_id", "recipient_id")
    where = Where().add(f"r.{mine} = ?", me)
    if status != "any":
        where.add("r.status = ?", status)
    where.when(sent_after, "CAST(r.sent_at AS DATE) >= ?")
    label = "sender" if direction == "incoming" else "recipient"
    sql = (
        f"SELECT r.request_id, p.nickname AS {label}, r.message, r.status, r.sent_at, r.responded_at "
        f"FROM friend_requests AS r JOIN players AS p ON p.player_id = r.{other} WHERE {where.sql}"
    )
    return page_of(env, sql, where.params, "sent_at DESC, request_id DESC", limit, offset, "request_id")


@create(reads=("players", "friendships", "friend_requests"), writes=("friend_requests",))
def send_friend_requests(
    env: Env,
    player: Sender,
    to: Nicknames,
    message: Annotated[str, Field(max_length=100)] | None = None,
) -> dict:
    """Send friend requests to one or several players (all or nothing).

    Args:
        to: The players to ask, by nickname: not yourself, not a friend, none with a request pending with you.
        message: A short note shown with the request (up to 100 characters).
    """
    me = find_player(env, player)
    refuse_banned(env, me, "send friend requests", policy="friend_requests")
    targets = find_players(env, to)
    problems = []
    for target in targets:
        tid = target["player_id"]
        if tid == me["player_id"]:
            problems.append("you cannot send a friend request to yourself")
        elif are_friends(env, me["player_id"], tid):
            problems.append(f"{target['nickname']} is already your friend")
        else:
            pending = env.one(
                "SELECT request_id, sender_id FROM friend_requests WHERE status = 'pending' "
                "AND ((sender_id = ? AND recipient_id = ?) OR (sender_id = ? AND recipient_id = ?))",
                [me["player_id"], tid, tid, me["player_id"]],
            )
            if pending is not None and pending["sender_id"] == tid:
                problems.append(
                    f"{target['nickname']} already sent you a request: accept it (accept_friend_requests)"
                )
            elif pending is not None:
                problems.append(f"your request to {target['nickname']} is still pending")
    if problems:
        raise refuse(
            "friend_requests",
            "no request was sent: "
            + "; ".join(problems[:5])
            + (f"; and {len(problems) - 5} more" if len(problems) > 5 else "")
            + ".",
        )
    sent = {"message": message, "status": "pending", "sent_at": env.now}
    rows = [{"sender_id": me["player_id"], "recipient_id": t["player_id"], **sent} for t in targets]
    env.insert_many("friend_requests", rows)
    return {"sent_to": [t["nickname"] for t in targets]}


def _answer(env: Env, rows: list[dict[str, Any]], status: str) -> None:
    """Close the requests `rows` with `status` (accepted, declined, cancelled), answered now."""
    env.update_where(
        "friend_requests",
        "list_contains(?, request_id)",
        [[r["request_id"] for r in rows]],
        {"status": status, "responded_at": env.now},
    )


def _incoming(
    env: Env, me: dict[str, Any], senders: list[str] | None, sent_before: dt.date | None
) -> list[dict[str, Any]]:
    """The pending requests to `me` from `senders` (all when None); names a sender with nothing pending."""
    rows = env.query(
        "SELECT r.request_id, r.sender_id, p.nickname FROM friend_requests AS r JOIN players AS p "
        "ON p.player_id = r.sender_id WHERE r.recipient_id = ? AND r.status = 'pending' "
        "AND (CAST(? AS DATE) IS NULL OR CAST(r.sent_at AS DATE) < ?) ORDER BY r.request_id",
        [me["player_id"], sent_before, sent_before],
    )
    if senders is not None:
        wanted = {p["player_id"]: p for p in find_players(env, senders)}
        have = {r["sender_id"] for r in rows}
        missing = [p for pid, p in wanted.items() if pid not in have]
        if missing:
            raise ToolError(
                f"{me['nickname']} has no pending friend request from {names(missing, 'nickname')}; "
                "list_friend_requests shows the pending ones."
            )
        rows = [r for r in rows if r["sender_id"] in wanted]
    if not rows:
        raise ToolError(
            f"{me['nickname']} has no pending friend requests"
            + (f" sent before {sent_before}" if sent_before else "")
            + "."
        )
    return rows


# not destructive: it adds friendships; the requests' status follows (kept, answered)
@create(reads=("players", "friend_requests"), writes=("friend_requests", "friendships"))
def accept_friend_requests(env: Env, player: Recipient, senders: Nicknames | None = None) -> dict:
    """Accept friend requests sent to you: from the players named, or every pending one. Each makes friends.

    Args:
        senders: Accept the requests of these players (nicknames); leave out to accept every pending request.
    """
    me = find_player(env, player)
    rows = _incoming(env, me, senders, None)
    _answer(env, rows, "accepted")
    env.insert_many(
        "friendships",
        [
            {**pair(me["player_id"], r["sender_id"]), "relation": "friend", "intimacy": 0, "since": env.now}
            for r in rows
        ],
    )
    return {"new_friends": [r["nickname"] for r in rows]}


@change(reads=("players", "friend_requests"), writes=("friend_requests",))
def decline_friend_requests(
    env: Env, player: Recipient, senders: Nicknames | None = None, sent_before: dt.date | None = None
) -> dict:
    """Decline friend requests sent to you: from the players named, or every pending one (sent before a date).

    Args:
        senders: Decline the requests of these players; leave out for every pending request.
        sent_before: Only requests sent before this date.
    """
    me = find_player(env, player)
    rows = _incoming(env, me, senders, sent_before)
    _answer(env, rows, "declined")
    return {"declined": [r["nickname"] for r in rows]}


@change(reads=("players", "friend_requests"), writes=("friend_requests",))
def cancel_friend_requests(env: Env, player: Sender, recipients: Nicknames | None = None) -> dict:
    """Withdraw friend requests you sent that are still pending: to the players named, or all of them.

    Args:
        recipients: Withdraw the requests to these players; leave out to withdraw every pending one.
    """
    me = find_player(env, player)
    rows = env.query(
        "SELECT r.request_id, r.recipient_id, p.nickname FROM friend_requests AS r JOIN players AS p ON "
        "p.player_id = r.recipient_id WHERE r.sender_id = ? AND r.status = 'pending' ORDER BY r.request_id",
        [me["player_id"]],
    )
    if recipients is not None:
        wanted = {p["player_id"]: p for p in find_players(env, recipients)}
        missing = [p for pid, p in wanted.items() if pid not in {r["recipient_id"] for r in rows}]
        if missing:
            raise ToolError(f"{me['nickname']} has no pending request to {names(missing, 'nickname')}.")
        rows = [r for r in rows if r["recipient_id"] in wanted]
    if not rows:
        raise ToolError(f"{me['nickname']} has no pending friend requests to withdraw.")
    _answer(env, rows, "cancelled")
    return {"cancelled": [r["nickname"] for r in rows]}


@change(reads=("players", "friendships"), writes=("friendships",))
def remove_friends(
    env: Env,
    player: Player,
    friends: Nicknames | None = None,
    max_intimacy: Annotated[int, Field(ge=0)] | None = None,
    inactive_since: dt.date | None = None,
) -> dict:
    """Remove friends: the ones named, or every friend matching the conditions given (all conditions apply).

    Args:
        friends: The friends to remove, by nickname.
        max_intimacy: Remove friends with at most this many intimacy points.
        inactive_since: Remove friends who have not logged in since this date (or never).
    """
    require_one_of(friends=friends, max_intimacy=max_intimacy, inactive_since=inactive_since)
    me = find_player(env, player)
    where = Where().when(max_intimacy, "f.intimacy <= ?")
    where.when(inactive_since, "(p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)")
    if friends is not None:
        named = find_players(env, friends, what="friend")
        strangers = [p for p in named if not are_friends(env, me["player_id"], p["player_id"])]
        if strangers:
            raise ToolError(
                f"{names(strangers, 'nickname')} {'is' if len(strangers) == 1 else 'are'} not "
                f"{me['nickname']}'s friend(s); nothing was removed."
            )
        where.add("list_contains(?, p.player_id)", [p["player_id"] for p in named])
    rows = env.query(
        "SELECT p.player_id, p.nickname FROM friendships AS f JOIN players AS p ON p.player_id = "
        "CASE WHEN f.player_a_id = ? THEN f.player_b_id ELSE f.player_a_id END "
        f"WHERE (f.player_a_id = ? OR f.player_b_id = ?) AND {where.sql} ORDER BY p.nickname",
        [me["player_id"], me["player_id"], me["player_id"], *where.params],
    )
    if not rows:
        raise ToolError(f"none of {me['nickname']}'s friends matches; nothing was removed.")
    ids = [r["player_id"] for r in rows]
    env.delete_where(
        "friendships",
        "(player_a_id = ? AND list_contains(?, player_b_id)) OR (player_b_id = ? AND list_contains(?, "
        "player_a_id))",
        [me["player_id"], ids, me["player_id"], ids],
    )
    return {"removed": [r["nickname"] for r in rows]}


@change(reads=("players", "friendships"), writes=("friendships",))
def set_friend_relation(env: Env, player: Player, friend: str, relation: Relation) -> dict:
    """Declare a special relation with a friend (close_friend, mentor, bestie, partner) or go back to friend.

    Args:
        friend: The friend's nickname.
        relation: The relation; each player has at most one partner.
    """
    me = find_player(env, player)
    other = find_player(env, friend, what="friend")
    key = pair(me["player_id"], other["player_id"])
    current = env.get("friendships", key)
    if current is None:
        raise ToolError(f"{other['nickname']} is not {me['nickname']}'s friend; send a friend request first.")
    if relation == "partner" and current["relation"] != "partner":
        for who in (me, other):
            partner = env.one(
                "SELECT p.nickname FROM friendships AS f JOIN players AS p ON p.player_id = "
                "CASE WHEN f.player_a_id = ? THEN f.player_b_id ELSE f.player_a_id END "
                "WHERE (f.player_a_id = ? OR f.player_b_id = ?) AND f.relation = 'partner' LIMIT 1",
                [who["player_id"]] * 3,
            )
            if partner is not None:
                raise refuse(
                    "friend_requests",
                    f"{who['nickname']} already has a partner ({partner['nickname']}); a player has at "
                    "most one partner.",
                )
    env.update("friendships", key, {"relation": relation})
    return {"friend": other["nickname"], "relation": relation, "was": current["relation"]}
