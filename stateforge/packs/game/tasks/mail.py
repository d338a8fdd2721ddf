"""Recipes about the mailbox: deleting and marking mail in bulk, claiming mail rewards (all of them, one kind,
or before a clean-up), writing to the clan's leader, and claiming ranked season rewards."""

from __future__ import annotations

from typing import Any

from stateforge.tasks import RecipeContext, recipe
from stateforge.tasks.arguments import given
from stateforge.tasks.picks import cut_for, day_of, difficulty_when, in_list

from ..tools.common import TIER_RANK
from .common import MAIL_LABELS, band, banned, introduce, not_banned, pages, sized, unclaimed, visible_mail


def _sent_before(ctx: RecipeContext, kinds: float, condition: str, what: str) -> tuple[Any, ...]:
    """A player's mail matching `condition` (over `m`; of one category with the odds `kinds`, else of any)
    and a day whose "sent before" catches a band of it: (row, category, where, params, before, caught);
    `where` and `params` pick the player's mail out (for a goal)."""
    by_category = ctx.rng.random() < kinds
    low, high = band(ctx)
    group = "m.recipient_id, p.nickname" + (", m.category" if by_category else "")
    row = ctx.pick(
        f"SELECT {group}, count(*) AS n FROM mail AS m JOIN players AS p ON p.player_id = m.recipient_id "
        f"WHERE {condition} GROUP BY {group} HAVING count(DISTINCT CAST(m.sent_at AS DATE)) >= 2 "
        "AND count(*) > ?",
        [low],
        what=f"player with {what} mail on two days",
    )
    category = row.get("category")
    where = f"m.recipient_id = ? AND {condition}" + (" AND m.category = ?" if category else "")
    params = [row["recipient_id"], *([category] if category else [])]
    mail = ctx.sql(f"SELECT m.mail_id, m.sent_at FROM mail AS m WHERE {where} ORDER BY m.mail_id", params)
    days = sorted({day_of(m["sent_at"]) for m in mail})
    chosen = cut_for(ctx, days[1:], lambda d: sum(day_of(m["sent_at"]) < d for m in mail), low, high)
    if chosen is None:
        ctx.skip(f"no date that catches some {what} mail")
    before = chosen[0]
    return row, category, where, params, before, [m for m in mail if day_of(m["sent_at"]) < before]


@recipe(
    capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium", weight=1.5
)
def delete_old_read_mail(ctx: RecipeContext) -> None:
    """A player deletes every read mail (of one kind, or any) sent before a date."""
    deletable = f"{visible_mail(ctx)} AND m.read_at IS NOT NULL AND NOT {unclaimed()}"  # delete_mail's mail
    row, category, where, params, before, doomed = _sent_before(ctx, 0.5, deletable, "read")
    what = MAIL_LABELS[category] if category else "mail"
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Delete all my read {what} sent before {before}.",
            "Please clear out every {what} I've already read that was sent before {before}. Anything with "
            "rewards still to claim can stay.",
            "My mailbox is a mess: get rid of the read {what} from before {before} (leave anything from "
            "{before} on).",
        ],
        what=what,
        before=before,
    )
    arguments = {"player": row["nickname"], "read_only": True, "sent_before": before.isoformat()}
    ctx.call(
        "delete_mail",
        {**arguments, **given(category=category)},
        step=f"Delete the {len(doomed)} read {what} sent before {before}",
    )
    ctx.derived(True, "the deleted flag of each mail removed")
    ctx.goal(
        "no read mail of that kind from before the date is left",
        f"SELECT count(*) AS n FROM mail AS m WHERE {where} AND CAST(m.sent_at AS DATE) < ?",
        [*params, before],
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, len(doomed) >= 50, "hard")


@recipe(capabilities=("full_data_acquisition",), difficulty="easy", weight=1.2)
def claim_all_mail_rewards(ctx: RecipeContext) -> None:
    """A player claims every reward waiting in their mailbox."""
    row = sized(
        ctx,
        "SELECT m.recipient_id, p.nickname, count(*) AS n FROM mail AS m JOIN mail_attachments AS a "
        "ON a.mail_id = m.mail_id JOIN players AS p ON p.player_id = m.recipient_id "
        f"WHERE {visible_mail(ctx)} AND a.claimed_at IS NULL GROUP BY ALL",
        what="player with rewards to claim",
    )
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Claim all the rewards waiting in my mailbox.",
            "Please collect every unclaimed reward in my mail.",
            "I never got round to opening my mail: claim everything that has a reward attached.",
        ]
    )
    ctx.call("claim_mail_rewards", {"player": row["nickname"]}, step="Claim every reward in the mailbox")
    ctx.goal(
        "nothing is left to claim",
        f"SELECT count(*) AS n FROM mail AS m WHERE m.recipient_id = ? AND {visible_mail(ctx)} AND "
        f"{unclaimed()}",
        [row["recipient_id"]],
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, row["n"] >= 20, "medium")


@recipe(
    capabilities=("full_data_acquisition", "cross_step_dependency", "precise_boundary_judgment"),
    difficulty="hard",
    weight=1.3,
)
def claim_then_clear_mailbox(ctx: RecipeContext) -> None:
    """A player claims every reward, then deletes all read mail sent before a date (which now includes the
    mail just claimed: the order matters)."""
    row = sized(
        ctx,
        "SELECT m.recipient_id, p.nickname, count(*) AS n FROM mail AS m JOIN players AS p "
        f"ON p.player_id = m.recipient_id WHERE {visible_mail(ctx)} GROUP BY ALL "
        f"HAVING count(*) FILTER (WHERE {unclaimed()}) >= 1 AND count(DISTINCT CAST(m.sent_at AS DATE)) >= 3",
        what="player with rewards and mail on three days",
    )
    mail = ctx.sql(
        f"SELECT m.mail_id, m.sent_at, m.read_at, {unclaimed()} AS held FROM mail AS m "
        f"WHERE m.recipient_id = ? AND {visible_mail(ctx)} ORDER BY m.mail_id",
        [row["recipient_id"]],
    )
    held_days = sorted({day_of(m["sent_at"]) for m in mail if m["held"]})
    later = [d for d in sorted({day_of(m["sent_at"]) for m in mail}) if d > held_days[0]]
    if not later:
        ctx.skip("no date after the first mail with rewards")
    before = ctx.choice(later)
    doomed = [m for m in mail if day_of(m["sent_at"]) < before and (m["read_at"] is not None or m["held"])]
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "First claim every reward in my mailbox, then delete all the read mail sent before {before}.",
            "Collect all my unclaimed mail rewards. After that, clean up: delete every read mail from before "
            "{before}.",
        ],
        before=before,
    )
    ctx.call("claim_mail_rewards", {"player": row["nickname"]}, step="Claim every reward in the mailbox")
    ctx.call(
        "delete_mail",
        {"player": row["nickname"], "read_only": True, "sent_before": before.isoformat()},
        step=f"Delete the {len(doomed)} read mail sent before {before}",
    )
    ctx.derived(True, "the deleted flag of each mail removed")
    ctx.goal(
        "nothing is left to claim and no mail from before the date is left",
        f"SELECT count(*) FILTER (WHERE {unclaimed()}) AS to_claim, "
        "count(*) FILTER (WHERE CAST(m.sent_at AS DATE) < ? AND m.read_at IS NOT NULL) AS old_read "
        f"FROM mail AS m WHERE m.recipient_id = ? AND {visible_mail(ctx)}",
        [before, row["recipient_id"]],
        expected=[{"to_claim": 0, "old_read": 0}],
    )


@recipe(capabilities=("multi_condition_filtering", "cross_step_dependency"), difficulty="medium")
def claim_one_kind_of_rewards(ctx: RecipeContext) -> None:
    """A player claims the rewards of one kind of mail only (optionally only mail sent since a date)."""
    row = ctx.pick(
        "SELECT m.recipient_id, p.nickname, m.category, count(*) AS n FROM mail AS m JOIN players AS p "
        f"ON p.player_id = m.recipient_id WHERE {visible_mail(ctx)} AND {unclaimed()} "
        "AND EXISTS (SELECT 1 FROM mail AS o WHERE o.recipient_id = m.recipient_id AND o.category <> "
        "m.category "
        f"AND {visible_mail(ctx, 'o')} AND {unclaimed('o')}) GROUP BY ALL",
        what="player with rewards in two kinds of mail",
    )
    mail = ctx.sql(
        f"SELECT m.mail_id, m.sent_at FROM mail AS m WHERE m.recipient_id = ? AND m.category = ? "
        f"AND {visible_mail(ctx)} AND {unclaimed()} ORDER BY m.mail_id",
        [row["recipient_id"], row["category"]],
    )
    days = sorted({day_of(m["sent_at"]) for m in mail})
    since = ctx.choice(days[1:]) if len(days) > 1 and ctx.rng.random() < 0.5 else None
    chosen = [m for m in mail if since is None or day_of(m["sent_at"]) >= since]
    what = MAIL_LABELS[row["category"]]
    introduce(ctx, row["nickname"])
    if since is None:
        ctx.say(
            [
                "Claim the rewards in my {what} only; leave the other rewards for later.",
                "Please collect the rewards attached to my {what}, and nothing else.",
            ],
            what=what,
        )
    else:
        ctx.say(
            [
                "Claim the rewards of my {what} sent on or after {since}, and only those.",
                "Collect the rewards attached to the {what} I got since {since} (that day included); leave "
                "everything else unclaimed.",
            ],
            what=what,
            since=since,
        )
        ctx.also("precise_boundary_judgment")
    search = {"player": row["nickname"], "category": row["category"], "with_unclaimed_rewards": True}
    search.update(given(sent_after=since and since.isoformat()))
    pages(ctx, "search_mail", search, step=f"Find the {what} with rewards to claim")
    ids = [m["mail_id"] for m in chosen]
    ctx.call(
        "claim_mail_rewards",
        {"player": row["nickname"], "mail_ids": ids},
        step=f"Claim the rewards of {len(ids)} mail",
    )
    ctx.goal(
        "those mail have nothing left to claim",
        f"SELECT count(*) AS n FROM mail_attachments WHERE mail_id IN {in_list(ids)} AND claimed_at IS NULL",
        expected=[{"n": 0}],
    )
    difficulty_when(ctx, len(ids) > 20, "hard", "full_data_acquisition")


@recipe(capabilities=("precise_boundary_judgment",), difficulty="easy", weight=1.2)
def mark_kind_read_before(ctx: RecipeContext) -> None:
    """A player marks every unread mail (of one kind, or any) sent before a date as read."""
    unread = f"{visible_mail(ctx)} AND m.read_at IS NULL"
    row, category, _, _, before, marked = _sent_before(ctx, 0.6, unread, "unread")
    introduce(ctx, row["nickname"])
    if category:
        ctx.say(
            [
                "Mark all my unread {what} sent before {before} as read.",
                "Every {what} from before {before} that I haven't opened: mark it read, please.",
                "I've seen enough {what}. Mark everything of that kind sent before {before} as read; keep "
                "the newer ones unread.",
            ],
            what=MAIL_LABELS[category],
            before=before,
        )
        ctx.also("multi_condition_filtering")
    else:
        ctx.say(
            [
                "Mark all my unread mail sent before {before} as read.",
                "Everything in my mailbox from before {before} that I haven't opened yet: mark it as read.",
                "Please mark my old mail as read, meaning every unread one sent before {before}; newer mail "
                "stays unread.",
            ],
            before=before,
        )
    arguments = {"player": row["nickname"], "sent_before": before.isoformat(), **given(category=category)}
    ctx.call(
        "mark_mail_read", arguments, step=f"Mark the {len(marked)} unread mail sent before {before} as read"
    )
    ctx.goal(
        "exactly those mail are read now",
        "SELECT count(*) FILTER (WHERE read_at IS NULL) AS unread FROM mail "
        f"WHERE mail_id IN {in_list([m['mail_id'] for m in marked])}",
        expected=[{"unread": 0}],
    )
    difficulty_when(ctx, len(marked) >= 30, "medium")


SUBJECTS = (
    ("Clan war this weekend", "Can we field a full team on Saturday evening? I'm in."),
    ("Leaving for a week", "I'll be offline next week, so please don't kick me for inactivity."),
    ("Promotion?", "I've been active every day this season. Could you consider me for elder?"),
    ("Training session", "Want to run some ranked drills with the clan on Friday?"),
    ("Thanks for the carry", "Thanks for the help in ranked yesterday, that was a great game."),
)


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def mail_clan_leader(ctx: RecipeContext) -> None:
    """A clan member writes to their clan's leader, whom they look up first."""
    row = ctx.pick(
        "SELECT p.player_id, p.nickname, c.name AS clan, l.nickname AS leader, l.player_id AS leader_id "
        "FROM clan_members AS m JOIN players AS p ON p.player_id = m.player_id JOIN clans AS c "
        "ON c.clan_id = m.clan_id JOIN clan_members AS lm ON lm.clan_id = m.clan_id AND lm.role = 'leader' "
        f"JOIN players AS l ON l.player_id = lm.player_id WHERE m.role <> 'leader' AND {not_banned(ctx)}",
        what="clan member",
    )
    subject, body = ctx.choice(SUBJECTS)
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Send a mail to the leader of my clan saying {body:q}, with the subject {subject:q}.",
            "Write to my clan leader. Subject: {subject:q}. Message: {body:q}",
            "Please mail whoever leads my clan, subject {subject:q}, with this text: {body:q}",
        ],
        subject=subject,
        body=body,
    )
    ctx.read("get_player", {"nickname": row["nickname"]}, step="Look up my clan")
    ctx.read("get_clan", {"clan": row["clan"]}, step="Find the clan's leader")
    ctx.call(
        "send_mail",
        {"player": row["nickname"], "to": row["leader"], "subject": subject, "body": body},
        step=f"Send the mail to {row['leader']}",
    )
    ctx.goal(
        "the leader has the mail",
        "SELECT count(*) AS n FROM mail WHERE recipient_id = ? AND sender_id = ? AND subject = ? AND "
        "body = ?",
        [row["leader_id"], row["player_id"], subject, body],
        expected=[{"n": 1}],
    )
    other = ctx.sql(
        "SELECT p.nickname FROM clan_members AS m JOIN players AS p ON p.player_id = m.player_id "
        f"WHERE m.role <> 'leader' AND {banned(ctx)} ORDER BY p.nickname LIMIT 50"
    )
    if other:
        who = ctx.choice(other)["nickname"]
        ctx.infeasible(
            "forbidden",
            policy="mail",
            swap={row["nickname"]: who},
            because=f"{who} is banned at the moment, and banned players cannot send mail",
        )


def _claimable(ctx: RecipeContext, extra: str = "") -> str:
    """SQL: (player, season) pairs whose rewards claim_season_rewards would grant now."""
    return f"""
        SELECT p.player_id, p.nickname, s.season_id, s.name AS season,
               max({TIER_RANK.format("r.tier")}) AS best
        FROM rank_history AS r JOIN players AS p ON p.player_id = r.player_id
        JOIN seasons AS s ON CAST(r.recorded_at AS DATE) BETWEEN s.starts_on AND s.ends_on
        WHERE s.ends_on < DATE '{ctx.today}' {extra}
          AND NOT EXISTS (SELECT 1 FROM mail AS x WHERE x.recipient_id = p.player_id
                          AND x.category = 'season_reward' AND x.subject = 'Season rewards: ' || s.name)
        GROUP BY p.player_id, p.nickname, s.season_id, s.name
        HAVING EXISTS (SELECT 1 FROM season_rewards AS sr WHERE sr.season_id = s.season_id
                       AND {TIER_RANK.format("sr.min_tier")} <= max({TIER_RANK.format("r.tier")}))
    """


@recipe(capabilities=("precise_boundary_judgment",), difficulty="easy")
def claim_season_rewards(ctx: RecipeContext) -> None:
    """A player claims the rewards of a season that has ended (the running one cannot be claimed yet)."""
    row = ctx.pick(_claimable(ctx), what="season rewards to claim")
    short = row["season"].split(" ", 1)[0]
    shown = ctx.choice([short, row["season"]])
    introduce(ctx, row["nickname"])
    ctx.say(
        [
            "Claim my ranked rewards for season {season}.",
            "{season} is over, so please collect my season rewards for it.",
            "Can you claim the end-of-season rewards I earned in {season}?",
        ],
        season=shown,
    )
    if shown == row["season"]:
        ctx.unique(f"season {shown}", "seasons", name=shown)
    else:
        ctx.refer(
            f"season {shown}", "SELECT count(*) FROM seasons WHERE split_part(name, ' ', 1) = ?", [shown]
        )
    ctx.call(
        "claim_season_rewards",
        {"player": row["nickname"], "season": shown},
        step=f"Claim the rewards of {shown}",
    )
    ctx.goal(
        "the season's rewards are claimed once",
        "SELECT count(*) AS n FROM mail WHERE recipient_id = ? AND category = 'season_reward' AND "
        "subject = ?",
        [row["player_id"], f"Season rewards: {row['season']}"],
        expected=[{"n": 1}],
    )
    running = ctx.one(
        f"SELECT name FROM seasons WHERE starts_on <= DATE '{ctx.today}' AND ends_on >= DATE '{ctx.today}'"
    )
    if running is not None and ctx.rng.random() < 0.6:
        other = running["name"] if shown == row["season"] else running["name"].split(" ", 1)[0]
        ctx.infeasible(
            "forbidden",
            policy="season_rewards",
            swap={shown: other},
            because=f"{running['name']} has not ended yet; season rewards are claimed after the season ends",
        )
    else:
        number = int(short[1:]) + 20
        ctx.infeasible(
            "missing",
            swap={shown: f"S{number}"},
            because=f"there is no season S{number}",
        )
