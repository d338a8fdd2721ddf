"""Recipes about clans: removing inactive members, promoting and demoting, handing over leadership, joining a
clan (a friend's, or the best one that still has room), and fitting the clan's size to its members."""

from __future__ import annotations

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.picks import cut_points, day_of, in_list

from .common import friends, introduce, not_banned

MEMBERS = "(SELECT count(*) FROM clan_members AS n WHERE n.clan_id = c.clan_id)"


def _staff(role: str, extra: str = "") -> str:
    """SQL: clan members with `role`, with their clan's name and tag (one row each)."""
    return (
        "SELECT m.clan_id, c.name AS clan, c.tag, p.player_id, p.nickname FROM clan_members AS m "
        "JOIN clans AS c ON c.clan_id = m.clan_id JOIN players AS p ON p.player_id = m.player_id "
        f"WHERE m.role = '{role}' {extra}"
    )


def _members(ctx: RecipeContext, clan_id: int, role: str, order: str = "p.nickname") -> list[dict]:
    """The clan's members with `role` (player_id, nickname, contribution, joined_at, last_login_at)."""
    return ctx.sql(
        "SELECT p.player_id, p.nickname, m.contribution, m.joined_at, p.last_login_at FROM clan_members AS m "
        f"JOIN players AS p ON p.player_id = m.player_id WHERE m.clan_id = ? AND m.role = ? ORDER BY {order}",
        [clan_id, role],
    )


TOP = "m.contribution DESC, p.player_id"
"""The order of `_members` by contribution, highest first."""


def _other(ctx: RecipeContext, clan_id: int, role: str) -> str | None:
    """The nickname of a member with `role` of the clan (for a variant acting without the right), or None."""
    rows = _members(ctx, clan_id, role)
    return ctx.choice(rows)["nickname"] if rows else None


def _with(role: str, at_least: int) -> str:
    """SQL over the member `m`: their clan has `at_least` members with `role`."""
    return (
        f"AND (SELECT count(*) FROM clan_members AS o WHERE o.clan_id = m.clan_id AND o.role = '{role}') >= "
        f"{at_least}"
    )


def _refused_for(ctx: RecipeContext, boss: dict, other: str | None, because: str) -> None:
    """The forbidden variant: the same request made by `other` (a member without the right; None: no variant),
    refused by `clan_roles`; `because` may name `{other}` and `{clan}`."""
    if other is not None:
        ctx.infeasible(
            "forbidden",
            policy="clan_roles",
            swap={boss["nickname"]: other},
            because=because.format(other=other, clan=boss["clan"]),
        )


@recipe(capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium")
def kick_inactive_members(ctx: RecipeContext) -> None:
    """The leader (or an elder) removes every ordinary member who contributed at most an amount and has not
    logged in since a date."""
    role = ctx.choice(["leader", "leader", "elder"])
    boss = ctx.pick(_staff(role, _with("member", 4)), what=f"clan {role} with members")
    members = _members(ctx, boss["clan_id"], "member")
    found = None
    for cap in cut_points(ctx, [m["contribution"] for m in members], low=0.3, high=0.95)[:8]:
        for since in cut_points(ctx, [day_of(m["last_login_at"]) for m in members], low=0.3, high=0.95)[:8]:
            gone = [
                m
                for m in members
                if m["contribution"] <= cap
                and (m["last_login_at"] is None or day_of(m["last_login_at"]) < since)
            ]
            if gone and len(gone) < len(members) and any(m["contribution"] == cap for m in gone):
                found = (cap, since, gone)
                break
        if found:
            break
    if found is None:
        ctx.skip("no thresholds that split the members")
    cap, since, gone = found
    introduce(ctx, boss["nickname"])
    ctx.say(
        [
            "Kick every ordinary member of my clan who has contributed {cap} or less and hasn't logged in "
            "since {since}. Elders stay.",
            "Remove the inactive members from my clan: regular members (not elders) with a contribution of "
            "at most {cap} and no login since {since}.",
            "Clean up my clan: everyone with the plain member role whose contribution is {cap} or lower and "
            "who hasn't been online since {since} has to go.",
        ],
        cap=cap,
        since=since,
    )
    ctx.call(
        "kick_clan_members",
        {"player": boss["nickname"], "max_contribution": cap, "inactive_since": since.isoformat()},
        step=f"Remove the {len(gone)} members who match",
    )
    ctx.goal(
        "no such member is left",
        "SELECT count(*) AS n FROM clan_members AS m JOIN players AS p ON p.player_id = m.player_id "
        "WHERE m.clan_id = ? AND m.role = 'member' AND m.contribution <= ? "
        "AND (p.last_login_at IS NULL OR CAST(p.last_login_at AS DATE) < ?)",
        [boss["clan_id"], cap, since],
        expected=[{"n": 0}],
    )
    other = _other(ctx, boss["clan_id"], "member")
    because = "{other} is an ordinary member of {clan}; only the leader and elders remove members"
    _refused_for(ctx, boss, other, because)


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def promote_top_contributors(ctx: RecipeContext) -> None:
    """The leader promotes the k ordinary members with the highest contribution to elder."""
    boss = ctx.pick(_staff("leader", _with("member", 3)), what="clan leader with members")
    members = _members(ctx, boss["clan_id"], "member", TOP)
    k = ctx.choice([n for n in (1, 2, 3) if n < len(members)])
    if members[k - 1]["contribution"] == members[k]["contribution"]:
        ctx.skip("a tie at the cut")
    top = members[:k]
    introduce(ctx, boss["nickname"])
    ctx.say(
        [
            "Promote the {k} ordinary members of my clan with the highest contribution to elder.",
            "Give the elder role to the top {k} contributors among my clan's regular members.",
            "Look at my clan's members (not the elders) and promote the {k} who contributed most to elder.",
        ]
        if k > 1
        else [
            "Promote the ordinary member of my clan with the highest contribution to elder.",
            "Whoever contributed most among my clan's regular members: make them an elder.",
        ],
        k=k,
    )
    ctx.read(
        "list_clan_members",
        {
            "clan": boss["tag"],
            "role": "member",
            "sort_by": "contribution",
            "descending": True,
            "limit": k + 1,
        },
        step="List the members by contribution",
    )
    ctx.call(
        "set_clan_role",
        {"player": boss["nickname"], "members": [m["nickname"] for m in top], "role": "elder"},
        step=f"Promote {', '.join(m['nickname'] for m in top)} to elder",
    )
    ctx.goal(
        "they are elders",
        f"SELECT count(*) AS n FROM clan_members WHERE clan_id = ? AND role = 'elder' AND player_id IN "
        f"{in_list([m['player_id'] for m in top])}",
        [boss["clan_id"]],
        expected=[{"n": k}],
    )
    other = _other(ctx, boss["clan_id"], "elder")
    _refused_for(ctx, boss, other, "{other} is an elder of {clan}; only the leader promotes members")


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def hand_over_to_top_elder(ctx: RecipeContext) -> None:
    """The leader hands the clan to the elder with the highest contribution."""
    boss = ctx.pick(_staff("leader", _with("elder", 2)), what="clan leader with two elders")
    elders = _members(ctx, boss["clan_id"], "elder", TOP)
    if elders[0]["contribution"] == elders[1]["contribution"]:
        ctx.skip("two elders share the top contribution")
    heir = elders[0]
    introduce(ctx, boss["nickname"])
    ctx.say(
        [
            "I'm stepping down: hand the leadership of my clan to the elder who has contributed the most.",
            "Make the elder with the highest contribution the new leader of my clan.",
            "Pass my clan's leadership on to whichever elder has the biggest contribution.",
        ]
    )
    ctx.read(
        "list_clan_members",
        {"clan": boss["tag"], "role": "elder", "sort_by": "contribution", "descending": True, "limit": 2},
        step="Find the elder with the highest contribution",
    )
    ctx.call(
        "transfer_clan_leadership",
        {"player": boss["nickname"], "new_leader": heir["nickname"]},
        step=f"Hand the leadership to {heir['nickname']}",
    )
    ctx.goal(
        "the top elder leads, the old leader is an elder",
        "SELECT player_id, role FROM clan_members WHERE clan_id = ? AND player_id IN (?, ?) ORDER BY "
        "player_id",
        [boss["clan_id"], boss["player_id"], heir["player_id"]],
    )
    other = next((e["nickname"] for e in elders[1:]), None)
    because = "{other} is an elder of {clan}, not its leader; only the leader hands over leadership"
    _refused_for(ctx, boss, other, because)


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def join_friends_clan(ctx: RecipeContext) -> None:
    """A player with no clan joins the clan a friend of theirs is in."""
    row = ctx.pick(
        f"""
        SELECT p.player_id, p.nickname, q.player_id AS friend_id, q.nickname AS friend, c.clan_id,
               c.name AS clan
        FROM players AS p
        JOIN friendships AS f ON p.player_id IN (f.player_a_id, f.player_b_id)
        JOIN players AS q ON q.player_id = CASE WHEN f.player_a_id = p.player_id THEN f.player_b_id
                                                ELSE f.player_a_id END
        JOIN clan_members AS qm ON qm.player_id = q.player_id JOIN clans AS c ON c.clan_id = qm.clan_id
        WHERE {not_banned(ctx)} AND p.player_id NOT IN (SELECT player_id FROM clan_members)
          AND c.is_recruiting AND {MEMBERS} < c.max_members
        """,
        what="clanless player with a friend in an open clan",
    )
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "I want to join the clan my friend {friend} is in.",
            "Put me in the same clan as my friend {friend}.",
            "Sign me up for {friend}'s clan, please.",
        ],
        friend=row["friend"],
    )
    ctx.unique(f"player {row['friend']}", "players", nickname=row["friend"])
    ctx.read("get_player", {"nickname": row["friend"]}, step=f"See which clan {row['friend']} is in")
    ctx.call("join_clan", {"player": row["nickname"], "clan": row["clan"]}, step=f"Join {row['clan']}")
    ctx.goal(
        "the player is in the friend's clan",
        "SELECT clan_id FROM clan_members WHERE player_id = ?",
        [row["player_id"]],
        expected=[{"clan_id": row["clan_id"]}],
    )
    blocked = [f for f in friends(ctx, row["player_id"]) if f["friend_id"] != row["friend_id"]]
    closed = ctx.sql(
        f"SELECT q.nickname, c.name, c.is_recruiting, {MEMBERS} AS members, c.max_members FROM "
        "clan_members AS qm "
        "JOIN clans AS c ON c.clan_id = qm.clan_id JOIN players AS q ON q.player_id = qm.player_id "
        f"WHERE list_contains(?, q.player_id) AND c.clan_id <> ? AND (NOT c.is_recruiting OR {MEMBERS} >= "
        "c.max_members) ORDER BY q.nickname",
        [[f["friend_id"] for f in blocked], row["clan_id"]],
    )
    if closed:
        pick = ctx.choice(closed)
        ctx.infeasible(
            "forbidden" if not pick["is_recruiting"] else "capacity",
            policy="clan_membership",
            swap={row["friend"]: pick["nickname"], row["clan"]: pick["name"]},
            because=(
                f"{pick['name']} is not recruiting"
                if not pick["is_recruiting"]
                else f"{pick['name']} is full ({pick['members']} of {pick['max_members']} members)"
            ),
        )


@recipe(capabilities=("multi_condition_filtering", "aggregation_computation"), difficulty="medium")
def join_strongest_open_clan(ctx: RecipeContext) -> None:
    """A player with no clan joins the recruiting clan with a free place, at or above a level, whose members
    have contributed the most in total."""
    row = ctx.pick(
        f"SELECT p.player_id, p.nickname FROM players AS p WHERE {not_banned(ctx)} "
        "AND p.player_id NOT IN (SELECT player_id FROM clan_members) AND p.account_level >= 10",
        what="clanless player",
    )
    level = ctx.choice([2, 3, 4, 5])
    clans = ctx.sql(
        f"SELECT c.clan_id, c.name, c.tag, (SELECT coalesce(sum(contribution), 0) FROM clan_members AS s "
        f"WHERE s.clan_id = c.clan_id) AS total FROM clans AS c WHERE c.is_recruiting AND {MEMBERS} < "
        "c.max_members AND c.level >= ? ORDER BY total DESC, c.clan_id LIMIT 2",
        [level],
    )
    if len(clans) < 2 or clans[0]["total"] == clans[1]["total"]:
        ctx.skip("no single strongest open clan")
    best = clans[0]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Find me a clan: among the clans of level {level} or higher that are recruiting and still have a "
            "free place, join the one whose members have the highest total contribution.",
            "Join the strongest open clan for me: level {level} at least, recruiting, not full, and the "
            "largest total contribution of those.",
        ],
        level=level,
    )
    ctx.read(
        "search_clans",
        {
            "recruiting": True,
            "has_room": True,
            "min_level": level,
            "sort_by": "contribution",
            "descending": True,
            "limit": 2,
        },
        step=f"Find the open clans of level {level}+ by total contribution",
    )
    ctx.call("join_clan", {"player": row["nickname"], "clan": best["tag"]}, step=f"Join {best['name']}")
    ctx.goal(
        "the player is in that clan",
        "SELECT clan_id FROM clan_members WHERE player_id = ?",
        [row["player_id"]],
        expected=[{"clan_id": best["clan_id"]}],
    )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def fit_clan_to_members(ctx: RecipeContext) -> None:
    """The leader lowers the clan's member limit to exactly its current number of members (and may stop
    recruiting); a variant asks for less than the members it has."""
    boss = ctx.pick(
        _staff("leader", f"AND {MEMBERS} BETWEEN 11 AND c.max_members - 1"),
        what="leader of a clan with free places",
    )
    clan = ctx.one(
        f"SELECT {MEMBERS} AS members, c.max_members, c.is_recruiting FROM clans AS c WHERE c.clan_id = ?",
        [boss["clan_id"]],
    )
    stop = bool(clan["is_recruiting"]) and ctx.rng.random() < 0.5
    opening = introduce(ctx, boss["nickname"])
    ctx.say(
        [
            "Lower my clan's member limit to exactly the number of members it has right now"
            + (", and stop recruiting." if stop else "."),
            "Shrink my clan so it has no free places: set the maximum to the current member count"
            + (" and close recruitment." if stop else "."),
        ]
    )
    ctx.read("get_clan", {"clan": boss["tag"]}, step="Count the clan's members")
    arguments = {"player": boss["nickname"], "max_members": clan["members"]}
    if stop:
        arguments["is_recruiting"] = False
        ctx.derived(False, "whether the clan still recruits ('stop recruiting': no)")
    ctx.derived(clan["members"], "the clan's member count, as get_clan shows it")
    ctx.call("update_clan", arguments, step=f"Set the limit to {clan['members']}")
    ctx.goal(
        "the limit equals the members",
        f"SELECT max_members = {MEMBERS} AS full FROM clans AS c WHERE c.clan_id = ?",
        [boss["clan_id"]],
        expected=[{"full": True}],
    )
    less = clan["members"] - 1
    ctx.infeasible(
        "capacity",
        policy="clan_membership",
        instruction=f"{opening} Set my clan's member limit to {less}.",
        calls=[("update_clan", {"player": boss["nickname"], "max_members": less})],
        because=f"{boss['clan']} has {clan['members']} members; its limit cannot be set below that",
    )


@recipe(capabilities=("precise_boundary_judgment", "cross_step_dependency"), difficulty="medium")
def demote_recent_elders(ctx: RecipeContext) -> None:
    """The leader demotes the elders who joined the clan on or after a date."""
    boss = ctx.pick(
        _staff(
            "leader",
            "AND (SELECT count(DISTINCT CAST(o.joined_at AS DATE)) FROM clan_members AS o "
            "WHERE o.clan_id = m.clan_id AND o.role = 'elder') >= 2",
        ),
        what="clan leader with elders who joined on two days",
    )
    elders = _members(ctx, boss["clan_id"], "elder")
    days = sorted({day_of(e["joined_at"]) for e in elders})
    since = ctx.choice(days[1:])
    demoted = [e for e in elders if day_of(e["joined_at"]) >= since]
    introduce(ctx, boss["nickname"])
    ctx.say(
        [
            "Demote every elder of my clan who joined on or after {since} back to ordinary member.",
            "The elders who joined my clan since {since} (that day included) should be regular members "
            "again; please demote them.",
        ],
        since=since,
    )
    ctx.read(
        "list_clan_members",
        {"clan": boss["tag"], "role": "elder", "joined_after": since.isoformat(), "limit": 50},
        step=f"List the elders who joined on or after {since}",
    )
    ctx.call(
        "set_clan_role",
        {"player": boss["nickname"], "members": [e["nickname"] for e in demoted], "role": "member"},
        step=f"Demote the {len(demoted)} of them",
    )
    ctx.derived("member", "the role of a demoted elder")
    ctx.goal(
        "they are members again",
        "SELECT count(*) FILTER (WHERE role = 'elder') AS elders FROM clan_members WHERE clan_id = ? AND "
        f"player_id IN {in_list([e['player_id'] for e in demoted])}",
        [boss["clan_id"]],
        expected=[{"elders": 0}],
    )
    other = next((e["nickname"] for e in elders if e not in demoted), None)
    _refused_for(ctx, boss, other, "{other} is an elder of {clan}; only the leader demotes elders")
