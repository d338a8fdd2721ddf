"""Storylines of the game pack: long tasks composed of steps on shared entities (docs/tasks.md).

- `friend_list_cleanup`: every match I played -> who was on my side -> my whole friend list, page by page
  -> remove the friends gone quiet since a day, but not my clanmates, my special relations nor anyone I
  teamed up with -> make the closest plain friend left a special relation -> answer the pending requests
  (accept teammates and clanmates, each sender looked up; decline the others).
- `hero_shopping_spree`: the whole shop, page by page -> buy every hero of two roles I lack up to a price
  (the hardest ones left out when I say so) -> copy each new hero's most-liked official build.
- `clan_reshuffle`: my clan's roster -> each member's latest match -> remove the idle members, demote the
  idle elders -> promote the top contributors left -> mail each new elder -> hand the leadership to the
  elder who contributed most (the policy detour: roles change while I still lead).
- `season_rewards_and_skins`: my rank history against the seasons -> claim every ended season's rewards
  (the tier reached in each, read first) -> the cheapest skin I lack for each hero of a role (ties by the
  newest) -> buy them with the diamonds -> wear them.
- `befriend_good_teammates`: every match I played -> the teammates rated at least a mark -> accept the
  ones who already asked me (the policy detour: a request cannot go to someone who asked you), ask the
  others, mail the ones already my friends.
- infeasible, all or nothing (the player says so): `hero_spree_over_budget` meets a total over the gold by
  a little; `clan_shrink_too_far` meets a size under the members left after the clean-up;
  `season_rewards_too_early` meets the current season, which ends tomorrow.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step
from stateforge.tasks.picks import day_of, in_list

from ..tools.common import TIERS
from .common import RELATION_WORDS, introduce, not_banned

SPECIAL = ("close_friend", "bestie", "mentor")
PRICE_POINTS = (5888, 8888, 13888, 18888)
GG_SUBJECTS = ("GG, thanks for the games", "Thanks for teaming up!", "GG WP, let's queue again")
ELDER_SUBJECTS = ("Welcome to the elders", "You're an elder now", "Congrats on elder!")
UNCLAIMED_MAIL = (
    "SELECT count(*) AS n FROM mail AS m WHERE m.recipient_id = ? AND NOT m.is_deleted AND m.expires_at > ? "
    "AND EXISTS (SELECT 1 FROM mail_attachments AS a WHERE a.mail_id = m.mail_id AND a.claimed_at IS NULL)"
)
"""A player's mail still in the mailbox with rewards to claim (bind the player id and 'now')."""
REQUEST_NOTES = ("GG, let's team up again!", "Add me for duo queue", "Nice games together")


def _player_ids(story: Story, nicknames: list[str]) -> list[int]:
    """The player ids of these nicknames (for goals; the tools show nicknames)."""
    rows = story.sql("SELECT player_id FROM players WHERE list_contains(?, nickname)", [nicknames])
    return sorted(r["player_id"] for r in rows)


# --- casts --------------------------------------------------------------------------------------------


def player_cast(sql: str, what: str, *, today: int = 0) -> Callable[[Story], None]:
    """A cast that picks a player with `sql` (`{not_banned}` in it stands for "not banned at 'now'", each `?`
    binds the build's day, `today` of them) and speaks as them; it provides `user` (the row picked)."""

    def cast(story: Story) -> None:
        ctx = story.ctx
        user = ctx.pick(sql.format(not_banned=not_banned(ctx)), [ctx.today] * today or None, what=what)
        story["user"] = user
        introduce(ctx, user["nickname"])

    return cast


cast_social_player = player_cast(
    "WITH f AS (SELECT player_a_id AS pid FROM friendships UNION ALL SELECT player_b_id FROM friendships), "
    "n AS (SELECT pid, count(*) AS friends FROM f GROUP BY pid), "
    "k AS (SELECT player_id, count(*) AS matches FROM match_participants GROUP BY player_id) "
    "SELECT p.player_id, p.nickname FROM players AS p JOIN n ON n.pid = p.player_id JOIN k ON "
    "k.player_id = p.player_id WHERE {not_banned} AND n.friends BETWEEN 20 AND 300 AND k.matches >= 15",
    "player with friends and matches",
)
"""A player (not banned) with 20-300 friends and 15 or more matches."""

cast_regular_player = player_cast(
    "SELECT p.player_id, p.nickname FROM players AS p WHERE {not_banned} AND (SELECT count(*) FROM "
    "match_participants AS mp WHERE mp.player_id = p.player_id) >= 15",
    "player with 15+ matches",
)
"""A player (not banned) with 15 or more matches."""

cast_rich_player = player_cast(
    "SELECT p.player_id, p.nickname, p.gold FROM players AS p WHERE {not_banned} AND p.gold >= 40000 AND "
    "(SELECT count(*) FROM player_heroes AS o WHERE o.player_id = p.player_id) <= 40 AND NOT EXISTS (SELECT "
    "1 FROM hero_builds AS b WHERE b.player_id = p.player_id AND b.hero_id NOT IN (SELECT hero_id FROM "
    "player_heroes WHERE player_id = p.player_id))",
    "player with gold to spend",
)
"""A player (not banned) with 40,000+ gold who owns at most 40 heroes and has no build of a hero they do not
own (so a copied build never meets a name of theirs)."""

cast_clan_leader = player_cast(
    "SELECT p.player_id, p.nickname, m.clan_id FROM clan_members AS m JOIN players AS p ON p.player_id = "
    "m.player_id WHERE m.role = 'leader' AND {not_banned} AND (SELECT count(*) FROM clan_members AS o WHERE "
    "o.clan_id = m.clan_id) >= 15",
    "leader of a clan of 15+",
)
"""The leader (not banned) of a clan of 15 or more members."""

RANKED_SEASONS = (
    "SELECT h.player_id, count(DISTINCT s.season_id) AS seasons FROM rank_history AS h JOIN seasons AS s "
    "ON CAST(h.recorded_at AS DATE) BETWEEN s.starts_on AND s.ends_on WHERE s.ends_on < CAST(? AS DATE) "
    "GROUP BY h.player_id"
)
"""Per player, the ended seasons they have ranked records in (bind the build's day)."""

cast_ranked_veteran = player_cast(
    f"SELECT p.player_id, p.nickname, p.diamonds FROM players AS p JOIN ({RANKED_SEASONS}) AS r "
    "ON r.player_id = p.player_id WHERE {not_banned} AND r.seasons >= 2 AND p.diamonds >= 1000 "
    "AND (SELECT count(*) FROM player_heroes AS o WHERE o.player_id = p.player_id) >= 3 AND NOT EXISTS "
    "(SELECT 1 FROM mail AS m WHERE m.recipient_id = p.player_id AND m.category = 'season_reward' AND "
    "m.subject LIKE 'Season rewards: %')",
    "ranked player with seasons to claim",
    today=1,
)
"""A player (not banned) with ranked records in two or more ended seasons, none claimed yet, 1,000+ diamonds
and 3+ heroes."""

cast_current_ranked = player_cast(
    f"SELECT p.player_id, p.nickname FROM players AS p JOIN ({RANKED_SEASONS}) AS r ON "
    "r.player_id = p.player_id WHERE {not_banned} AND EXISTS (SELECT 1 FROM rank_history AS h JOIN "
    "seasons AS s ON CAST(h.recorded_at AS DATE) BETWEEN s.starts_on AND s.ends_on WHERE h.player_id = "
    "p.player_id AND s.ends_on >= CAST(? AS DATE))",
    "player ranked this season",
    today=2,
)
"""A player (not banned) with ranked records in the current season and in an ended one."""


# --- steps: matches and teammates -----------------------------------------------------------------------


@step(goal="everyone who played on my side in any of my matches", capabilities=("cross_step_dependency",))
def my_teammates(story: Story) -> None:
    nick = story["user"]["nickname"]
    history = story.read_all("search_matches", {"player": nick})
    mates: dict[str, list[dict[str, Any]]] = {}
    for match in history:
        detail = story.read("get_match", {"match_id": match["match_id"]})
        for player in detail[match["side"]]:
            if player["nickname"] != nick:
                mates.setdefault(player["nickname"], []).append({**player, "match_id": match["match_id"]})
    story["teammates"] = mates


# --- steps: the friend list ---------------------------------------------------------------------------


@step(capabilities=("multi_condition_filtering",))
def prune_quiet_friends(story: Story) -> None:
    """remove the friends gone quiet, but not clanmates, special relations or teammates"""
    user, mates = story["user"], story["teammates"]
    nick = user["nickname"]
    me = story.read("get_player", {"nickname": nick})
    tag = me["clan"]["tag"] if me.get("clan") else None
    rows = story.read_all("list_friends", {"player": nick})
    logins = sorted({day_of(r["last_login_at"]) for r in rows if r["last_login_at"] is not None})
    if len(logins) < 4:
        raise Skip("too few friends with logins")
    low, high = len(logins) // 5, (4 * len(logins)) // 5
    cuts = logins[low : high + 1]
    story.rng.shuffle(cuts)

    def doomed(cutoff: dt.date) -> tuple[list[dict[str, Any]], int]:
        quiet = [r for r in rows if r["last_login_at"] is None or day_of(r["last_login_at"]) < cutoff]
        gone = [
            r
            for r in quiet
            if r["relation"] == "friend"
            and (tag is None or r["clan_tag"] != tag)
            and r["nickname"] not in mates
        ]
        return gone, len(quiet) - len(gone)

    chosen = None
    for cutoff in cuts:
        gone, spared = doomed(cutoff)
        if len(gone) >= 4 and spared >= 1:
            chosen = cutoff, gone
            break
    if chosen is None:
        raise Skip("no cut-off where the exceptions bite")
    cutoff, gone = chosen
    names = sorted(r["nickname"] for r in gone)
    story.call("remove_friends", {"player": nick, "friends": names})
    story.knob("solver_filtering", "quiet since a day, minus clanmates, special relations and teammates")
    story.distractor(
        f"a friend of {nick} last seen on {cutoff} (stays)",
        "SELECT count(*) FROM players AS p WHERE CAST(p.last_login_at AS DATE) = ? AND p.player_id IN "
        "(SELECT player_b_id FROM friendships WHERE player_a_id = ? UNION SELECT player_a_id FROM "
        "friendships WHERE player_b_id = ?)",
        [cutoff, user["player_id"], user["player_id"]],
    )
    clan = " anyone in my clan," if tag else ""
    story.say(
        [
            "My friend list is a mess. Remove every friend who hasn't logged in since {cutoff}, but keep the "
            "ones I've given a special relation,{clan} and anyone who's been on my team in one of my "
            "matches.",
            "Please clean up my friends: drop everyone whose last login is before {cutoff}. Don't touch my "
            "special relations,{clan} or people I've played on the same side with in any match of mine.",
        ],
        cutoff=cutoff,
        clan=clan,
    )
    pid, ids = user["player_id"], in_list(_player_ids(story, names))
    story.ctx.goal(
        "the quiet friends are gone",
        f"SELECT count(*) AS n FROM friendships WHERE (player_a_id = {pid} AND player_b_id IN {ids}) OR "
        f"(player_b_id = {pid} AND player_a_id IN {ids})",
        expected=[{"n": 0}],
    )
    story["kept"] = [r for r in rows if r["nickname"] not in set(names)]
    story["clan_tag"] = tag


@step(capabilities=("aggregation_computation",))
def closest_becomes_special(story: Story) -> None:
    """the closest plain friend left becomes a special relation"""
    user = story["user"]
    plain = sorted(
        (r for r in story["kept"] if r["relation"] == "friend"),
        key=lambda r: (-r["intimacy"], r["since"]),
    )
    if story.rng.random() < 0.3:
        return  # not every clean-up ends with a new special relation
    if len(plain) < 2:
        raise Skip("too few plain friends left")
    if (plain[0]["intimacy"], plain[0]["since"]) == (plain[1]["intimacy"], plain[1]["since"]):
        raise Skip("closest friends tied")
    relation = story.rng.choice(SPECIAL)
    story.call(
        "set_friend_relation",
        {"player": user["nickname"], "friend": plain[0]["nickname"], "relation": relation},
    )
    story.knob("aggregation", "the most intimacy among the plain friends left")
    story.say(
        [
            "Of the plain friends who are left, make the one with the most intimacy my {word} (if two are "
            "tied, the one I've been friends with longer).",
            "Then take whoever has the highest intimacy among my remaining plain friends and set them as my "
            "{word}; a tie goes to the older friendship.",
        ],
        word=RELATION_WORDS[relation],
    )
    a, b = sorted([user["player_id"], _player_ids(story, [plain[0]["nickname"]])[0]])
    story.ctx.goal(
        "the closest friend's relation",
        f"SELECT relation FROM friendships WHERE player_a_id = {a} AND player_b_id = {b}",
        expected=[{"relation": relation}],
    )


@step(capabilities=("multi_condition_filtering",))
def answer_requests(story: Story) -> None:
    """accept teammates' and clanmates' requests, decline the rest"""
    user, mates, tag = story["user"], story["teammates"], story["clan_tag"]
    nick = user["nickname"]
    pending = story.read_all("list_friend_requests", {"player": nick, "direction": "incoming"})
    if not pending:
        return
    accept, decline = [], []
    for request in pending:
        sender = request["sender"]
        if sender in mates:
            accept.append(sender)
            continue
        if tag is not None:
            profile = story.read("get_player", {"nickname": sender})
            if profile.get("clan") and profile["clan"]["tag"] == tag:
                accept.append(sender)
                continue
        decline.append(sender)
    story.say(
        [
            "As for the friend requests waiting for me: accept the ones from people I've played on a team "
            "with{or_clan}, and decline all the others.",
            "And answer my pending friend requests: yes to teammates from my matches{or_clan}, no to "
            "everyone else.",
        ],
        or_clan=" or who are in my clan" if tag else "",
    )
    if accept:
        story.call("accept_friend_requests", {"player": nick, "senders": sorted(accept)})
    if decline:
        story.call("decline_friend_requests", {"player": nick, "senders": sorted(decline)})
    story.ctx.goal(
        "no request is pending for the player",
        "SELECT count(*) AS n FROM friend_requests WHERE recipient_id = ? AND status = 'pending'",
        [user["player_id"]],
        expected=[{"n": 0}],
    )


# --- steps: the good teammates ------------------------------------------------------------------------


@step(capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def rated_teammates(story: Story) -> None:
    """the teammates rated at least a mark in a match with me"""
    user, mates = story["user"], story["teammates"]
    ratings = sorted({float(p["rating"]) for rows in mates.values() for p in rows if p["rating"] is not None})
    if len(ratings) < 6:
        raise Skip("too few rated teammates")
    cuts = ratings[len(ratings) // 3 : (5 * len(ratings)) // 6]
    story.rng.shuffle(cuts)
    for below in cuts:
        mark = round(below + 0.1, 1)
        good = sorted(
            n
            for n, rows in mates.items()
            if any(p["rating"] is not None and float(p["rating"]) >= mark for p in rows)
        )
        if 3 <= len(good) <= 60 and mark not in ratings:
            break
    else:
        raise Skip("no mark with a teammate just under it")
    story["good"] = good
    story.knob("solver_filtering", f"teammates rated {mark} or more in any shared match")
    story.distractor(
        f"a teammate of {user['nickname']} rated {below} (just under {mark})",
        "SELECT count(*) FROM match_participants AS me JOIN match_participants AS t ON t.match_id = "
        "me.match_id "
        "AND t.side = me.side AND t.player_id <> me.player_id WHERE me.player_id = ? AND t.rating = ?",
        [user["player_id"], below],
    )
    story.say(
        [
            "Go through all my matches and find everyone who played on my side and got a rating of {mark} or "
            "higher in a game with me.",
            "I want to stay in touch with my good teammates: anyone who was on my team in one of my matches "
            "and was rated at least {mark} in it.",
        ],
        mark=mark,
    )


@step(capabilities=("cross_step_dependency",))
def befriend_good(story: Story) -> None:
    """accept the good teammates who asked, ask the others, mail the friends among them"""
    user, good = story["user"], story["good"]
    nick = user["nickname"]
    friends = {r["nickname"] for r in story.read_all("list_friends", {"player": nick})}
    incoming, outgoing = (
        {r[who] for r in story.read_all("list_friend_requests", {"player": nick, "direction": direction})}
        for direction, who in (("incoming", "sender"), ("outgoing", "recipient"))
    )
    accept = [n for n in good if n in incoming and n not in friends]
    ask = [n for n in good if n not in friends and n not in incoming and n not in outgoing]
    already = [n for n in good if n in friends]
    if len(ask) < 2:
        raise Skip("too few teammates to ask")
    note = story.rng.choice(REQUEST_NOTES)
    subject = story.rng.choice(GG_SUBJECTS)
    story.say(
        [
            "Send each of them who isn't my friend yet a friend request with the note {note:q} (if someone "
            "already sent me one, just accept theirs; skip anyone I've already asked), and mail any who are "
            "already my friends with the subject {subject:q}.",
            "The ones not on my friend list should get a friend request saying {note:q}, unless they've "
            "asked me first (then accept it) or my request to them is still open; any who are already my "
            "friends get a mail from me titled {subject:q}.",
        ],
        note=note,
        subject=subject,
    )
    if accept:
        story.call("accept_friend_requests", {"player": nick, "senders": accept})
        story.knob("policy_detour", "a request to a player who asked you first is refused: accept theirs")
    story.call("send_friend_requests", {"player": nick, "to": ask, "message": note})
    for friend in already:
        story.call("send_mail", {"player": nick, "to": friend, "subject": subject})
    ids = _player_ids(story, ask)
    story.ctx.goal(
        "a request is pending to each new teammate",
        "SELECT count(*) AS n FROM friend_requests WHERE sender_id = ? AND status = 'pending' AND "
        "recipient_id "
        f"IN {in_list(ids)}",
        [user["player_id"]],
        expected=[{"n": len(ids)}],
    )
    if already:
        story.ctx.goal(
            "each friend among them got the mail",
            "SELECT count(DISTINCT recipient_id) AS n FROM mail WHERE sender_id = ? AND subject = ?",
            [user["player_id"], subject],
            expected=[{"n": len(already)}],
        )


# --- steps: the hero shop -----------------------------------------------------------------------------


def _shop_choice(story: Story, rows: list[dict[str, Any]], gold: int, *, affordable: bool) -> dict[str, Any]:
    """Two roles, a price cap and maybe "not the hardest": the heroes it picks, the total, the wording."""
    roles = sorted({r["role"] for r in rows})
    options = []
    for i, a in enumerate(roles):
        for b in roles[i + 1 :]:
            for cap in PRICE_POINTS[1:]:
                for no_hard in (False, True):
                    picked = [
                        r
                        for r in rows
                        if r["role"] in (a, b)
                        and r["price_gold"] <= cap
                        and not (no_hard and r["difficulty"] == 3)
                    ]
                    total = sum(r["price_gold"] for r in picked)
                    over = [r for r in rows if r["role"] in (a, b) and r["price_gold"] > cap]
                    fits = total <= gold if affordable else gold < total <= gold * 1.15
                    if 6 <= len(picked) <= 40 and fits and over:
                        options.append(
                            {
                                "roles": (a, b),
                                "cap": cap,
                                "no_hard": no_hard,
                                "heroes": picked,
                                "total": total,
                            }
                        )
    if not options:
        raise Skip(
            "no roles and cap that fit the gold" if affordable else "no shopping list just over the gold"
        )
    # longer lists a little more often: the shop's real work is in the many heroes
    return story.rng.choices(options, weights=[len(o["heroes"]) ** 2 for o in options])[0]


@step(capabilities=("multi_condition_filtering", "aggregation_computation"))
def shop_list(story: Story) -> None:
    """the heroes of two roles I lack, up to a price"""
    user = story["user"]
    rows = story.read_all("search_heroes", {"not_owned_by": user["nickname"], "sort_by": "price_gold"})
    profile = story.read("get_player", {"nickname": user["nickname"]})
    choice = _shop_choice(story, rows, profile["gold"], affordable=story.storyline.feasible)
    a, b = choice["roles"]
    story["shopping"] = choice
    story.knob(
        "solver_filtering", "two roles, a gold cap" + (", not difficulty 3" if choice["no_hard"] else "")
    )
    story.knob(
        "aggregation", f"{len(choice['heroes'])} heroes for {choice['total']} gold against the balance"
    )
    story.distractor(
        f"a {a} or {b} hero {user['nickname']} lacks, priced over {choice['cap']}",
        "SELECT count(*) FROM heroes AS h JOIN hero_roles AS r ON r.role_id = h.role_id WHERE "
        "list_contains(?, r.name) AND h.price_gold > ? AND h.hero_id NOT IN (SELECT hero_id FROM "
        "player_heroes WHERE player_id = ?)",
        [[a, b], choice["cap"], user["player_id"]],
    )
    hard = " Leave out the ones with difficulty 3, they're too hard for me." if choice["no_hard"] else ""
    story.say(
        [
            "I've been saving gold to fill out my {a} and {b} heroes: buy every {a} and every {b} I don't "
            "own yet whose gold price is at most {cap}, all paid with gold.{hard}",
            "Time to spend my gold. I want each {a} and {b} hero I'm missing that costs {cap} gold or less, "
            "bought with gold.{hard}",
        ],
        a=a,
        b=b,
        cap=choice["cap"],
        hard=hard,
    )


@step(goal="buy them in one go")
def buy_list(story: Story) -> None:
    user, choice = story["user"], story["shopping"]
    names = [h["name"] for h in choice["heroes"]]
    story.call("buy_heroes", {"player": user["nickname"], "heroes": names, "currency": "gold"})
    story["bought"] = names
    story.ctx.goal(
        "the player owns every hero bought",
        "SELECT count(*) AS n FROM player_heroes AS ph JOIN heroes AS h ON h.hero_id = ph.hero_id WHERE "
        "ph.player_id = ? AND list_contains(?, h.name)",
        [user["player_id"], names],
        expected=[{"n": len(names)}],
    )


@step(goal="over the gold by a little: refused, nothing bought")
def buy_list_over_budget(story: Story) -> None:
    user, choice = story["user"], story["shopping"]
    story.say(
        [
            "Buy them all in one go, and if my gold doesn't cover every one of them, don't buy any and tell "
            "me how much I'm short.",
            "It's all of them or none: if I can't afford the whole lot, leave my gold alone.",
        ]
    )
    story.blocked(
        "buy_heroes",
        {"player": user["nickname"], "heroes": [h["name"] for h in choice["heroes"]], "currency": "gold"},
        kind="capacity",
        policy="purchases",
        because=f"the {len(choice['heroes'])} heroes cost {choice['total']} gold, more than the player "
        "has, so nothing is bought",
    )


@step(capabilities=("aggregation_computation", "cross_step_dependency"))
def copy_top_builds(story: Story) -> None:
    """copy each new hero's most-liked official build"""
    user = story["user"]
    copies = []
    for hero in story["bought"]:
        rows = story.read("search_builds", {"hero": hero, "official": True, "limit": 5})["rows"]
        if not rows:
            continue
        top = [r for r in rows if r["likes"] == rows[0]["likes"]]
        newest = max(top, key=lambda r: r["created_at"])
        if sum(r["created_at"] == newest["created_at"] for r in top) > 1:
            raise Skip("official builds tied on likes and date")
        if len(top) == len(rows) and len(rows) == 5:
            raise Skip("more tied builds than a page of five shows")
        story.call("copy_build", {"player": user["nickname"], "build_id": newest["build_id"]})
        copies.append(newest["build_id"])
    if len(copies) < 2:
        raise Skip("too few official builds to copy")
    story.say(
        [
            "Then, for each hero I just bought, copy its most-liked official build into my builds (they can "
            "stay private; if two are tied on likes take the newer one, and skip heroes with no official "
            "build).",
            "After that, give me the top official build of every new hero: copy the one with the most likes "
            "(the newer one on a tie) as a private build of mine. Heroes without an official build I'll "
            "skip.",
        ]
    )
    story.ctx.goal(
        "one copied build per new hero with an official build",
        "SELECT count(*) AS n FROM hero_builds AS b JOIN heroes AS h ON h.hero_id = b.hero_id WHERE "
        "b.player_id = ? AND list_contains(?, h.name) AND NOT b.is_public",
        [user["player_id"], story["bought"]],
        expected=[{"n": len(copies)}],
    )


# --- steps: the clan ----------------------------------------------------------------------------------


@step(goal="my clan and its roster")
def clan_roster(story: Story) -> None:
    nick = story["user"]["nickname"]
    me = story.read("get_player", {"nickname": nick})
    clan = me["clan"]["clan"]
    story["clan"] = clan
    story["members"] = story.read_all("list_clan_members", {"clan": clan})


def _last_match_days(story: Story, nicknames: list[str]) -> dict[str, dt.date | None]:
    rows = story.sql(
        "SELECT p.nickname, max(CAST(m.started_at AS DATE)) AS last FROM players AS p LEFT JOIN "
        "match_participants AS mp ON mp.player_id = p.player_id LEFT JOIN matches AS m ON m.match_id = "
        "mp.match_id WHERE list_contains(?, p.nickname) GROUP BY p.nickname",
        [nicknames],
    )
    return {r["nickname"]: r["last"] for r in rows}


@step(capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def find_idle_members(story: Story) -> None:
    """each ordinary member's matches since a day"""
    user, members = story["user"], story["members"]
    ordinary = [m for m in members if m["role"] == "member"]
    if len(ordinary) < 6:
        raise Skip("too few ordinary members")
    last = _last_match_days(story, [m["nickname"] for m in ordinary])
    days = sorted({d for d in last.values() if d is not None})
    options = []
    for cutoff in days:
        idle = [m for m in ordinary if last[m["nickname"]] is None or last[m["nickname"]] < cutoff]
        if 2 <= len(idle) <= len(ordinary) - 3:
            options.append((cutoff, idle))
    if not options:
        raise Skip("no cut-off day that splits the members")
    cutoff, idle = story.rng.choice(options)
    elders = [m for m in members if m["role"] == "elder"]
    elder_last = _last_match_days(story, [m["nickname"] for m in elders]) if elders else {}
    for member in ordinary + elders:  # each one's latest match (the history is newest first)
        story.read("search_matches", {"player": member["nickname"], "limit": 1})
    story["idle_elders"] = sorted(
        m["nickname"] for m in elders if (elder_last[m["nickname"]] or dt.date.min) < cutoff
    )
    story["idle"] = [m["nickname"] for m in idle]
    story["active"] = [m for m in ordinary if m["nickname"] not in set(story["idle"])]
    story.knob("solver_filtering", "ordinary members with no match since a day, member by member")
    story.distractor(
        f"a member of {story['clan']} whose last match was on {cutoff} (stays)",
        "SELECT count(*) FROM clan_members AS cm WHERE cm.clan_id = (SELECT clan_id FROM clan_members WHERE "
        "player_id = ?) AND cm.role = 'member' AND (SELECT max(CAST(m.started_at AS DATE)) FROM "
        "match_participants AS mp JOIN matches AS m ON m.match_id = mp.match_id WHERE mp.player_id = "
        "cm.player_id) = ?",
        [user["player_id"], cutoff],
    )
    story.say(
        [
            "I'm reorganising my clan. First, every ordinary member who hasn't played a single match since "
            "{cutoff} has to go, and any elder who hasn't played since then either goes back to ordinary "
            "member.",
            "Time to tidy up the clan: remove each plain member who has no match on or after {cutoff}; "
            "elders with no match since then stay, but as ordinary members.",
        ],
        cutoff=cutoff,
    )


@step(goal="remove the idle members, demote the idle elders")
def kick_idle(story: Story) -> None:
    story.call("kick_clan_members", {"player": story["user"]["nickname"], "members": sorted(story["idle"])})
    if story["idle_elders"]:
        story.call(
            "set_clan_role",
            {"player": story["user"]["nickname"], "members": story["idle_elders"], "role": "member"},
        )
    ids = _player_ids(story, story["idle"])
    story.ctx.goal(
        "the idle members are out",
        f"SELECT count(*) AS n FROM clan_members WHERE player_id IN {in_list(ids)}",
        expected=[{"n": 0}],
    )


@step(goal="promote the top contributors left, and mail each", capabilities=("aggregation_computation",))
def promote_top(story: Story) -> None:
    user, active = story["user"], story["active"]
    ranked = sorted(active, key=lambda m: -m["contribution"])
    demoted = [m["contribution"] for m in story["members"] if m["nickname"] in set(story["idle_elders"])]
    # a demoted elder is an ordinary member too: the top k must be the same whether one counts them or not
    ks = [
        k
        for k in (2, 3)
        if len(ranked) > k and ranked[k - 1]["contribution"] > max([ranked[k]["contribution"], *demoted])
    ]
    if not ks:
        raise Skip("top contributors tied")
    k = story.rng.choice(ks)
    promoted = sorted(m["nickname"] for m in ranked[:k])
    subject = story.rng.choice(ELDER_SUBJECTS)
    story.call("set_clan_role", {"player": user["nickname"], "members": promoted, "role": "elder"})
    story.knob("aggregation", f"the top {k} contributors among the members left")
    if story.rng.random() < 0.6:
        for name in promoted:
            story.call("send_mail", {"player": user["nickname"], "to": name, "subject": subject})
        story.say(
            [
                "Then promote the {k} ordinary members left with the highest contribution to elder and send "
                "each of them a mail titled {subject:q}.",
                "Of the ordinary members who stay, make the {k} biggest contributors elders, and mail each "
                "one with the subject {subject:q}.",
            ],
            k=k,
            subject=subject,
        )
    else:
        story.say(
            [
                "Then promote the {k} ordinary members left with the highest contribution to elder.",
                "Of the ordinary members who stay, make the {k} biggest contributors elders.",
            ],
            k=k,
        )
    story["promoted"] = promoted
    ids = _player_ids(story, promoted)
    story.ctx.goal(
        "the promoted members are elders (or the new leader)",
        "SELECT count(*) AS n FROM clan_members WHERE role IN ('elder', 'leader') AND player_id IN "
        f"{in_list(ids)}",
        expected=[{"n": k}],
    )


@step(capabilities=("aggregation_computation", "cross_step_dependency"))
def hand_over(story: Story) -> None:
    """hand the leadership to the elder who contributed most, last"""
    user = story["user"]
    promoted, demoted = set(story["promoted"]), set(story["idle_elders"])
    elders = [
        m
        for m in story["members"]
        if (m["role"] == "elder" and m["nickname"] not in demoted) or m["nickname"] in promoted
    ]
    ranked = sorted(elders, key=lambda m: -m["contribution"])
    if len(ranked) < 2 or ranked[0]["contribution"] == ranked[1]["contribution"]:
        raise Skip("no single top elder")
    heir = ranked[0]["nickname"]
    story.call("transfer_clan_leadership", {"player": user["nickname"], "new_leader": heir})
    story.knob("policy_detour", "roles change while the player still leads (clan_roles), the hand-over last")
    story.say(
        [
            "Once that's done I'm stepping down: hand the leadership to whichever elder, new or old, has "
            "contributed the most.",
            "And I'd like to step back, so make the elder with the highest contribution (counting the new "
            "elders) our leader.",
        ]
    )
    heir_id = _player_ids(story, [heir])[0]
    story.ctx.goal(
        "the new leader",
        "SELECT player_id FROM clan_members WHERE role = 'leader' AND clan_id = (SELECT clan_id FROM "
        "clan_members WHERE player_id = ?)",
        [heir_id],
        expected=[{"player_id": heir_id}],
    )


@step(capabilities=("aggregation_computation",))
def shrink_too_far(story: Story) -> None:
    """shrink the clan under the members left: refused, nothing changed"""
    user = story["user"]
    left = len(story["members"]) - len(story["idle"])
    size = left - story.rng.choice((1, 2))
    if size < 10:
        raise Skip("the clan left would be under ten places")
    story.say(
        [
            "After that, cut the clan down to {size} places. It's all or nothing: if the members who are "
            "left wouldn't fit in {size}, don't remove anyone or change anything, just tell me.",
            "Then I want the clan's size set to {size}; if the ones staying don't fit in that, leave the "
            "clan exactly as it is.",
        ],
        size=size,
    )
    story.blocked(
        "update_clan",
        {"player": user["nickname"], "max_members": size},
        kind="capacity",
        policy="clan_membership",
        because=f"{left} members would stay after the clean-up, more than {size} places, so nothing is "
        "changed",
    )


# --- steps: seasons and skins -------------------------------------------------------------------------


def _seasons_played(story: Story) -> list[dict[str, Any]]:
    """list_seasons and the player's whole rank history: each season with records and its highest tier."""
    seasons = story.read("list_seasons", {})["seasons"]
    history = story.read_all("get_rank_history", {"player": story["user"]["nickname"]})
    played = []
    for season in seasons:
        start, end = (dt.date.fromisoformat(str(season[k])[:10]) for k in ("starts_on", "ends_on"))
        inside = [h for h in history if start <= day_of(h["recorded_at"]) <= end]
        if inside:
            best = max(inside, key=lambda h: TIERS.index(h["tier"]))["tier"]
            played.append({**season, "ends": end, "best": best})
    return played


@step(capabilities=("aggregation_computation", "precise_boundary_judgment"))
def claim_ended_seasons(story: Story) -> None:
    """claim every ended season's rewards, the tier reached in each read first"""
    user = story["user"]
    played = _seasons_played(story)
    ended = [s for s in played if s["ends"] < story.ctx.today]
    story.read("search_mail", {"player": user["nickname"], "category": "season_reward", "limit": 50})
    claimed = []
    for season in ended:
        tiers = story.read("get_season_rewards", {"season": season["name"], "tier": season["best"]})
        if not tiers.get("rewards"):
            continue
        story.call("claim_season_rewards", {"player": user["nickname"], "season": season["name"]})
        claimed.append(season["name"])
    if len(claimed) < 2:
        raise Skip("fewer than two seasons with rewards to claim")
    story["claimed"] = claimed
    story.knob("aggregation", "the highest tier of each season from the rank history")
    story.say(
        [
            "Claim my ranked rewards for every season that has already ended and that I played ranked in.",
            "I never collected my season rewards: claim them for each finished season I have a ranked record "
            "in.",
        ]
    )
    story.ctx.goal(
        "one season-reward mail per season claimed",
        "SELECT count(*) AS n FROM mail WHERE recipient_id = ? AND category = 'season_reward' AND subject "
        "LIKE 'Season rewards: %'",
        [user["player_id"]],
        expected=[{"n": len(claimed)}],
    )


@step(inputs=("user", "claimed"), goal="claim the rewards still waiting in the mailbox")
def claim_waiting_mail(story: Story) -> None:
    user = story["user"]
    waiting = story.sql(UNCLAIMED_MAIL, [user["player_id"], story.ctx.now])[0]["n"]
    if not waiting or story.rng.random() < 0.4:
        return
    rows = story.read_all("search_mail", {"player": user["nickname"], "with_unclaimed_rewards": True})
    story.call("claim_mail_rewards", {"player": user["nickname"], "mail_ids": [r["mail_id"] for r in rows]})
    story.say(
        [
            "While you're at it, claim whatever rewards are still waiting in my mailbox.",
            "Also collect the rewards attached to any mail I haven't claimed yet.",
        ]
    )
    story.ctx.goal(
        "nothing left to claim in the mailbox",
        UNCLAIMED_MAIL,
        [user["player_id"], story.ctx.now],
        expected=[{"n": 0}],
    )


@step(inputs=("user", "claimed"), capabilities=("aggregation_computation", "cross_step_dependency"))
def skins_for_role(story: Story) -> None:
    """the cheapest skin I lack for each hero of a role, bought and worn"""
    user = story["user"]
    nick = user["nickname"]
    owned = story.sql(
        "SELECT r.name AS role, count(*) AS n FROM player_heroes AS ph JOIN heroes AS h ON h.hero_id = "
        "ph.hero_id JOIN hero_roles AS r ON r.role_id = h.role_id WHERE ph.player_id = ? GROUP BY r.name "
        "HAVING count(*) >= 2 ORDER BY r.name",
        [user["player_id"]],
    )
    if not owned:
        raise Skip("no role with two heroes")
    role = story.rng.choices([r["role"] for r in owned], weights=[r["n"] ** 2 for r in owned])[0]
    heroes = story.read_all("list_player_heroes", {"player": nick, "role": role})
    picks = []
    for hero in heroes:
        rows = story.read_all(
            "search_skins",
            {"hero": hero["hero"], "not_owned_by": nick, "limited": False, "sort_by": "price_diamonds"},
        )
        if not rows:
            continue
        cheapest = [r for r in rows if r["price_diamonds"] == rows[0]["price_diamonds"]]
        newest = max(cheapest, key=lambda r: str(r["released_on"]))
        if sum(str(r["released_on"]) == str(newest["released_on"]) for r in cheapest) > 1:
            raise Skip("cheapest skins tied on release")
        picks.append({"skin": newest["name"], "hero": hero["hero"], "price": newest["price_diamonds"]})
    if len(picks) < 2:
        raise Skip("too few heroes with a skin to buy")
    profile = story.read("get_player", {"nickname": nick})
    total = sum(p["price"] for p in picks)
    if total > profile["diamonds"]:
        raise Skip("the skins cost more than the diamonds")
    story.call(
        "buy_skins", {"player": nick, "skins": [{"skin": p["skin"], "hero": p["hero"]} for p in picks]}
    )
    for pick in picks:
        story.call("equip_skin", {"player": nick, "skin": pick["skin"], "hero": pick["hero"]})
    story.knob("aggregation", f"the cheapest skin per {role} hero, {total} diamonds against the balance")
    story.say(
        [
            "Then, with the diamonds, buy for each of my {role} heroes the cheapest skin I don't have yet "
            "(limited ones aren't sold; if several cost the same, take the most recently released) and put "
            "each new skin on its hero.",
            "After that I'd like a new look for every {role} I own: the cheapest skin of each that I don't "
            "own, the newest one when prices tie, leaving out limited editions. Buy them with diamonds and "
            "equip them.",
        ],
        role=role,
    )
    story.ctx.goal(
        "the new skins are owned and worn",
        "SELECT count(*) AS n FROM player_skins AS ps JOIN skins AS s ON s.skin_id = ps.skin_id JOIN heroes "
        "AS h ON h.hero_id = s.hero_id WHERE ps.player_id = ? AND ps.is_equipped AND list_contains(?, h.name "
        "|| '/' || s.name)",
        [user["player_id"], [f"{p['hero']}/{p['skin']}" for p in picks]],
        expected=[{"n": len(picks)}],
    )


@step(capabilities=("precise_boundary_judgment",))
def claim_too_early(story: Story) -> None:
    """claim every season's rewards, the current one included: refused, nothing claimed"""
    user = story["user"]
    played = _seasons_played(story)
    current = [s for s in played if s["ends"] >= story.ctx.today]
    if not current or len(played) < 2:
        raise Skip("no current season played")
    short = current[0]["name"].split(" ")[0]
    story.say(
        [
            "Claim my ranked rewards for every season I've played ranked in, {short} included. All at once: "
            "if any of them can't be claimed yet, don't claim any and tell me why.",
            "I want the rewards of all my ranked seasons, the current {short} as well, and only all "
            "together: if one of them isn't claimable, claim none.",
        ],
        short=short,
    )
    story.blocked(
        "claim_season_rewards",
        {"player": user["nickname"], "season": short},
        kind="forbidden",
        policy="season_rewards",
        because=f"{current[0]['name']} ends on {current[0]['ends']}, so its rewards cannot be claimed yet "
        "and none are claimed",
    )


STORYLINES = (
    Storyline(
        "friend_list_cleanup",
        cast_social_player,
        (my_teammates, prune_quiet_friends, closest_becomes_special, answer_requests),
        weight=2.0,
    ),
    Storyline(
        "hero_shopping_spree",
        cast_rich_player,
        (shop_list, buy_list, copy_top_builds),
        weight=2.0,
    ),
    Storyline(
        "clan_reshuffle",
        cast_clan_leader,
        (clan_roster, find_idle_members, kick_idle, promote_top, hand_over),
        weight=1.5,
    ),
    Storyline(
        "season_rewards_and_skins",
        cast_ranked_veteran,
        (claim_ended_seasons, claim_waiting_mail, skins_for_role),
        weight=1.2,
    ),
    Storyline(
        "befriend_good_teammates",
        cast_regular_player,
        (my_teammates, rated_teammates, befriend_good),
        weight=1.2,
    ),
    # infeasible: all or nothing, refused after the reads
    Storyline(
        "hero_spree_over_budget",
        cast_rich_player,
        (shop_list, buy_list_over_budget),
        capabilities=("aggregation_computation",),
        feasible=False,
        weight=0.5,
    ),
    Storyline(
        "clan_shrink_too_far",
        cast_clan_leader,
        (clan_roster, find_idle_members, shrink_too_far),
        capabilities=("aggregation_computation",),
        feasible=False,
        weight=0.5,
    ),
    Storyline(
        "season_rewards_too_early",
        cast_current_ranked,
        (claim_too_early,),
        capabilities=("precise_boundary_judgment",),
        feasible=False,
        weight=0.3,
    ),
)

WARMUP_STORYLINES = (
    Storyline(
        "claim_every_season_reward",
        cast_ranked_veteran,
        (claim_ended_seasons,),
        capabilities=("full_data_acquisition", "cross_step_dependency"),
        description="A player claims the rewards of every ended season they ranked in: the solver reads the "
        "seasons, the rank history and each season's rewards to find which ones.",
    ),
    Storyline(
        "buy_heroes_under_price",
        cast_rich_player,
        (shop_list, buy_list),
        capabilities=("multi_condition_filtering", "precise_boundary_judgment"),
        difficulty="medium",
        description="A player buys every hero of two roles they lack that costs at most a price in gold.",
    ),
)
"""Short tasks of the warm-up tier made of the long tier's own steps, run on their own (a step and its cast
are the recipe: no hand-written twin)."""
