"""Recipes about friends and friend requests: pruning the friend list, answering and withdrawing requests,
special relations, and befriending the players of a match."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.arguments import given
from stateforge.tasks.picks import cut_for, cut_points, day_of, difficulty_when, in_list

from .common import FRIENDS_OF, RELATION_WORDS, band, friends, introduce, not_banned, pages

FRIEND_COUNTS = """
    SELECT p.player_id, p.nickname, count(*) AS friends
    FROM players AS p
    JOIN (SELECT player_a_id AS pid FROM friendships UNION ALL SELECT player_b_id FROM friendships) AS f
      ON f.pid = p.player_id
    GROUP BY p.player_id, p.nickname
"""


@recipe(
    capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium", weight=1.5
)
def prune_inactive_friends(ctx: RecipeContext) -> None:
    """A player unfriends everyone at or below an intimacy level who has not logged in since a date."""
    low, high = band(ctx)
    row = ctx.pick(
        f"SELECT * FROM ({FRIEND_COUNTS}) WHERE friends BETWEEN ? AND ?",
        [max(6, 2 * low), max(40, 12 * high)],
        what="player with friends",
    )
    mates = friends(ctx, row["player_id"])

    def removed(cap: int, since: dt.date) -> list[dict]:
        return [
            f
            for f in mates
            if f["intimacy"] <= cap and (f["last_login_at"] is None or day_of(f["last_login_at"]) < since)
        ]

    def on_edge(cap: int, since: dt.date) -> bool:
        """A friend sits on a boundary: exactly `cap` intimacy and removed, or last seen on `since`."""
        return any(f["intimacy"] == cap for f in removed(cap, since)) or any(
            f["intimacy"] <= cap and day_of(f["last_login_at"]) == since for f in mates
        )

    caps = cut_points(ctx, [f["intimacy"] for f in mates if f["intimacy"] > 0], high=0.97)[:12]
    sinces = cut_points(ctx, [day_of(f["last_login_at"]) for f in mates], high=0.97)[:12]
    combos = [(c, d) for c in caps for d in sinces if on_edge(c, d) and len(removed(c, d)) < len(mates)]
    chosen = cut_for(ctx, combos, lambda c: len(removed(*c)), low, high)
    if chosen is None:
        ctx.skip("no thresholds that remove some friends")
    (cap, since), _ = chosen
    gone = removed(cap, since)
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Remove every friend who has {cap} intimacy points or fewer and hasn't logged in since {since}.",
            "Clean up my friend list: unfriend everyone with at most {cap} intimacy who hasn't been online "
            "since {since}.",
            "Please drop all my friends whose intimacy is no more than {cap} and who haven't logged in since "
            "{since}.",
            "I want to unfriend the people I barely know: intimacy of {cap} or less and no login since "
            "{since}. Remove all of them.",
        ],
        cap=cap,
        since=since,
    )
    ctx.call(
        "remove_friends",
        {"player": row["nickname"], "max_intimacy": cap, "inactive_since": since.isoformat()},
        step=f"Remove the {len(gone)} friends with at most {cap} intimacy and no login since {since}",
    )
    ctx.goal(
        "no such friend is left",
        f"SELECT count(*) AS n FROM ({FRIENDS_OF.replace('$pid', str(int(row['player_id'])))}) AS f "
        "JOIN main.players AS p ON p.player_id = f.friend_id "
        "WHERE f.intimacy <= ? AND (p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)",
        [cap, since],
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, len(gone) >= 50, "hard", "full_data_acquisition")


def _with_pending(ctx: RecipeContext, side: str, having: str, what: str) -> dict:
    """A player (`side`: recipient or sender) whose pending friend requests meet `having`: player_id,
    nickname and the count `n`."""
    return ctx.pick(
        f"SELECT r.{side}_id AS player_id, p.nickname, count(*) AS n FROM friend_requests AS r JOIN players "
        f"AS p ON p.player_id = r.{side}_id WHERE r.status = 'pending' GROUP BY ALL HAVING {having}",
        what=what,
    )


ON_TWO_DAYS = "count(DISTINCT CAST(r.sent_at AS DATE)) >= 2"

PENDING_IN = """
    SELECT r.request_id, r.sender_id, s.nickname AS sender, r.message, r.sent_at
    FROM friend_requests AS r JOIN players AS s ON s.player_id = r.sender_id
    WHERE r.recipient_id = ? AND r.status = 'pending'
    ORDER BY r.sent_at, r.request_id
"""


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="easy")
def decline_requests_before(ctx: RecipeContext) -> None:
    """A player turns down every pending friend request received before a date, keeping the newer ones."""
    row = _with_pending(ctx, "recipient", ON_TWO_DAYS, "player with requests on two days")
    waiting = ctx.sql(PENDING_IN, [row["player_id"]])
    days = sorted({day_of(r["sent_at"]) for r in waiting})
    before = ctx.choice(days[1:])
    declined = [r for r in waiting if day_of(r["sent_at"]) < before]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Decline every friend request still waiting for me that was sent before {before}; keep the newer "
            "ones.",
            "Please turn down all the pending friend requests I got before {before}.",
            "Any friend request sent to me before {before} that I haven't answered yet: decline it. Leave "
            "requests from {before} on alone.",
        ],
        before=before,
    )
    ctx.call(
        "decline_friend_requests",
        {"player": row["nickname"], "sent_before": before.isoformat()},
        step=f"Decline the {len(declined)} pending requests sent before {before}",
    )
    ids = [r["request_id"] for r in declined]
    ctx.goal(
        "the older requests are declined, the newer ones still pending",
        "SELECT status, count(*) AS n FROM main.friend_requests WHERE recipient_id = ? AND request_id IN "
        f"{in_list([r['request_id'] for r in waiting])} GROUP BY status ORDER BY status",
        [row["player_id"]],
    )
    ctx.goal(
        "declined requests have an answer time",
        f"SELECT count(*) AS n FROM main.friend_requests WHERE request_id IN {in_list(ids)} "
        "AND status = 'declined' AND responded_at IS NOT NULL",
        expected=[{"n": len(ids)}],
    )
    difficulty_when(ctx, len(waiting) > 20, "medium")


@recipe(capabilities=("multi_condition_filtering", "cross_step_dependency"), difficulty="medium")
def answer_requests_by_note(ctx: RecipeContext) -> None:
    """A player accepts the pending requests that came with a note (and, sometimes, were sent since a date)
    and declines the rest."""
    noted = "count(*) >= 3 AND count(r.message) >= 1 AND count(r.message) < count(*)"
    row = _with_pending(ctx, "recipient", noted, "player with requests with and without a note")
    waiting = ctx.sql(PENDING_IN, [row["player_id"]])
    noted_days = sorted({day_of(r["sent_at"]) for r in waiting if r["message"] is not None})
    since = ctx.choice(noted_days) if len(noted_days) > 1 and ctx.rng.random() < 0.6 else None
    accept = [
        r for r in waiting if r["message"] is not None and (since is None or day_of(r["sent_at"]) >= since)
    ]
    decline = [r for r in waiting if r not in accept]
    if not accept or not decline:
        ctx.skip("the conditions split nothing")
    introduce(ctx, row["nickname"])
    if since is None:
        ctx.say(
            [
                "Accept the pending friend requests that came with a message, and decline the ones without "
                "any message.",
                "Go through my pending friend requests: accept everyone who wrote a note, decline the rest.",
            ]
        )
    else:
        ctx.say(
            [
                "Accept the pending friend requests that came with a message and were sent on or after "
                "{since}; decline all the other pending ones.",
                "Of my pending friend requests, accept those sent since {since} (that day included) that "
                "have a note, and decline every other one.",
            ],
            since=since,
        )
        ctx.also("precise_boundary_judgment")
    pages(
        ctx,
        "list_friend_requests",
        {"player": row["nickname"], "direction": "incoming", "status": "pending"},
        step="List the pending friend requests with their messages and dates",
    )
    ctx.call(
        "accept_friend_requests",
        {"player": row["nickname"], "senders": [r["sender"] for r in accept]},
        step=f"Accept the {len(accept)} requests that match",
    )
    ctx.call(
        "decline_friend_requests",
        {"player": row["nickname"], "senders": [r["sender"] for r in decline]},
        step=f"Decline the other {len(decline)}",
    )
    ctx.goal(
        "the matching requests are accepted and the others declined",
        "SELECT request_id, status FROM main.friend_requests WHERE request_id IN "
        f"{in_list([r['request_id'] for r in waiting])} ORDER BY request_id",
        expected=[
            {"request_id": r["request_id"], "status": "accepted" if r in accept else "declined"}
            for r in sorted(waiting, key=lambda r: r["request_id"])
        ],
    )
    difficulty_when(ctx, len(waiting) > 12, "hard")


@recipe(capabilities=("full_data_acquisition", "precise_boundary_judgment"), difficulty="medium")
def withdraw_old_requests(ctx: RecipeContext) -> None:
    """A player withdraws the friend requests they sent before a date that are still unanswered."""
    row = _with_pending(ctx, "sender", ON_TWO_DAYS, "player with outgoing requests on two days")
    sent = ctx.sql(
        "SELECT r.request_id, p.nickname AS recipient, r.sent_at FROM friend_requests AS r JOIN players AS p "
        "ON p.player_id = r.recipient_id WHERE r.sender_id = ? AND r.status = 'pending' ORDER BY "
        "r.request_id",
        [row["player_id"]],
    )
    days = sorted({day_of(r["sent_at"]) for r in sent})
    before = ctx.choice(days[1:])
    withdrawn = [r for r in sent if day_of(r["sent_at"]) < before]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Withdraw every friend request I sent before {before} that nobody has answered yet.",
            "Cancel my outgoing friend requests from before {before} that are still pending; the ones from "
            "{before} or later can stay.",
            "Some of my friend requests have been waiting forever. Take back all the pending ones I sent "
            "before {before}.",
        ],
        before=before,
    )
    pages(
        ctx,
        "list_friend_requests",
        {"player": row["nickname"], "direction": "outgoing", "status": "pending"},
        step="List my pending outgoing friend requests",
    )
    ctx.call(
        "cancel_friend_requests",
        {"player": row["nickname"], "recipients": [r["recipient"] for r in withdrawn]},
        step=f"Withdraw the {len(withdrawn)} sent before {before}",
    )
    ctx.goal(
        "the old requests are cancelled, the newer ones still pending",
        "SELECT status, count(*) AS n FROM main.friend_requests WHERE request_id IN "
        f"{in_list([r['request_id'] for r in sent])} GROUP BY status ORDER BY status",
    )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def closest_friend_relation(ctx: RecipeContext) -> None:
    """A player gives a special relation to the friend they have the most intimacy with."""
    row = ctx.pick(
        f"SELECT * FROM ({FRIEND_COUNTS}) AS c WHERE friends BETWEEN 3 AND 400",
        what="player with friends",
    )
    mates = friends(ctx, row["player_id"], order="intimacy DESC, nickname")
    top, second = mates[0], mates[1]
    if top["intimacy"] == second["intimacy"]:
        ctx.skip("two friends share the top intimacy")
    partner = next((f for f in mates if f["relation"] == "partner"), None)
    options = [r for r in ("close_friend", "mentor", "bestie") if r != top["relation"]]
    relation = ctx.choice(options)
    word = RELATION_WORDS[relation]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Make the friend I have the most intimacy with my {word}.",
            "Whoever has the highest intimacy on my friend list, set them as my {word}.",
            "Find my closest friend by intimacy points and declare them my {word}.",
        ],
        word=word,
    )
    ctx.read(
        "list_friends",
        {"player": row["nickname"], "sort_by": "intimacy", "descending": True, "limit": 1},
        step="Find the friend with the most intimacy",
    )
    ctx.call(
        "set_friend_relation",
        {"player": row["nickname"], "friend": top["nickname"], "relation": relation},
        step=f"Make {top['nickname']} my {word}",
    )
    a, b = sorted([row["player_id"], top["friend_id"]])
    ctx.goal(
        "the relation is set",
        "SELECT relation FROM main.friendships WHERE player_a_id = ? AND player_b_id = ?",
        [a, b],
        expected=[{"relation": relation}],
    )
    if partner is not None and partner["friend_id"] != top["friend_id"]:
        ctx.infeasible(
            "forbidden",
            policy="friend_requests",
            swap={word: "partner", relation: "partner"},
            because=f"{row['nickname']} already has a partner ({partner['nickname']}); a player has at most "
            "one partner",
        )


@recipe(capabilities=("cross_step_dependency", "multi_condition_filtering"), difficulty="hard")
def befriend_match_teammates(ctx: RecipeContext) -> None:
    """A player sends friend requests to the teammates of their latest match of a mode who are not friends yet
    and with whom no request is pending."""
    row = ctx.pick(
        f"""
        SELECT p.player_id, p.nickname, m.mode, arg_max(m.match_id, m.started_at) AS match_id,
               count(*) AS played
        FROM match_participants AS mp JOIN matches AS m ON m.match_id = mp.match_id
        JOIN players AS p ON p.player_id = mp.player_id
        WHERE {not_banned(ctx)}
        GROUP BY p.player_id, p.nickname, m.mode
        HAVING count(DISTINCT m.started_at) = count(*)
        """,
        what="player with a latest match",
    )
    mates = ctx.sql(
        "SELECT q.player_id, pl.nickname FROM match_participants AS me JOIN match_participants AS q ON "
        "q.match_id = me.match_id AND q.side = me.side AND q.player_id <> me.player_id JOIN players AS pl ON "
        "pl.player_id = q.player_id WHERE me.match_id = ? AND me.player_id = ? ORDER BY pl.nickname",
        [row["match_id"], row["player_id"]],
    )
    known = {
        r["other"]
        for r in ctx.sql(
            "SELECT CASE WHEN player_a_id = $pid THEN player_b_id ELSE player_a_id END AS other FROM "
            "friendships WHERE player_a_id = $pid OR player_b_id = $pid UNION SELECT CASE WHEN sender_id = "
            "$pid THEN recipient_id ELSE sender_id END FROM friend_requests WHERE status = 'pending' AND "
            "(sender_id = $pid OR recipient_id = $pid)",
            {"pid": row["player_id"]},
        )
    }
    new = [m for m in mates if m["player_id"] not in known]
    if not new:
        ctx.skip("every teammate is already a friend or asked")
    note = ctx.choice([None, "GG, let's team up again!", "Nice game, add me for duo queue", "GG WP"])
    mode = row["mode"]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Send a friend request to everyone who was on my team in my most recent {mode} match, except "
            "people who are already my friends or who already have a request pending with me.",
            "In my last {mode} game, add my teammates as friends: send each of them a request, skipping "
            "anyone I'm already friends with or have a request open with.",
        ],
        mode=mode,
    )
    if note is not None:
        ctx.say(["Put the note {note:q} on the requests.", "Add the message {note:q}."], note=note)
    ctx.read(
        "search_matches",
        {"player": row["nickname"], "mode": mode, "limit": 1},
        step=f"Find my most recent {mode} match",
    )
    ctx.read("get_match", {"match_id": row["match_id"]}, step="See who played on my side")
    for mate in mates:
        ctx.read(
            "list_friends",
            {"player": row["nickname"], "name_contains": mate["nickname"]},
            step=f"Check whether {mate['nickname']} is already a friend",
        )
    for direction in ("incoming", "outgoing"):
        ctx.read(
            "list_friend_requests",
            {"player": row["nickname"], "direction": direction, "status": "pending", "limit": 50},
            step=f"Check my pending {direction} requests",
        )
    arguments = {"player": row["nickname"], "to": [m["nickname"] for m in new], **given(message=note)}
    ctx.call("send_friend_requests", arguments, step=f"Send requests to {len(new)} teammates")
    ctx.refer(
        f"the most recent {mode} match of {row['nickname']}",
        "SELECT count(*) FROM main.match_participants AS mp JOIN main.matches AS m ON m.match_id = "
        "mp.match_id JOIN main.players AS p ON p.player_id = mp.player_id WHERE p.nickname = ? AND m.mode = "
        "? AND m.started_at = (SELECT max(m2.started_at) FROM main.match_participants AS mp2 JOIN "
        "main.matches AS m2 ON m2.match_id = mp2.match_id WHERE mp2.player_id = p.player_id AND m2.mode = ?)",
        [row["nickname"], mode, mode],
    )
    ctx.goal(
        "a request is pending to each new teammate",
        "SELECT count(*) AS n FROM main.friend_requests WHERE sender_id = ? AND status = 'pending' "
        f"AND recipient_id IN {in_list([m['player_id'] for m in new])}",
        [row["player_id"]],
        expected=[{"n": len(new)}],
    )
