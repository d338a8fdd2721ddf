"""The mailbox: search mail, mark it read, claim its rewards, delete it, write to friends and clanmates,
and claim season rewards (which arrive as a mail, claimed at once).

Mail past its expires_at has disappeared with its unclaimed attachments: no tool shows or changes it.
Policy `mail_rewards`: attachments are claimed once, before the mail expires; gold and diamond rewards go to
the balance (other kinds to the inventory); mail with unclaimed rewards is not deleted. Policy
`season_rewards`: once per season, after it ended, for the highest tier reached during it.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .common import (
    TIER_RANK,
    TIERS,
    Descending,
    Limit,
    MailCategory,
    Nickname,
    Offset,
    Player,
    Where,
    are_friends,
    find_player,
    find_season,
    membership,
    new_mail,
    page_of,
    quoted,
    refuse_banned,
    sorted_by,
)

MailIds = Annotated[list[int], Field(min_length=1, max_length=500, description="Mail numbers (mail_id).")]
Category = Annotated[MailCategory | None, Field(description="Only mail of this kind.")]
SentBefore = Annotated[dt.date | None, Field(description="Only mail sent before this date.")]
UNCLAIMED = (
    "EXISTS (SELECT 1 FROM mail_attachments AS u WHERE u.mail_id = m.mail_id AND u.claimed_at IS NULL)"
)
VISIBLE = "m.recipient_id = ? AND NOT m.is_deleted AND m.expires_at > ?"
SEASON_SUBJECT = "Season rewards: {}"


def _visible(env: Env, me: dict[str, Any], mail_ids: list[int]) -> list[dict[str, Any]]:
    """The player's mail with these ids, still in the mailbox; names the ids that are not."""
    rows = env.query(
        "SELECT m.mail_id, m.read_at, m.recipient_id, m.is_deleted, m.expires_at, "
        + UNCLAIMED
        + " AS unclaimed "
        "FROM mail AS m WHERE list_contains(?, m.mail_id) ORDER BY m.mail_id",
        [list(mail_ids)],
    )
    by_id = {r["mail_id"]: r for r in rows}
    gone = []
    for mail_id in dict.fromkeys(mail_ids):
        row = by_id.get(mail_id)
        if row is None or row["recipient_id"] != me["player_id"] or row["is_deleted"]:
            gone.append(f"{mail_id} (not in {me['nickname']}'s mailbox)")
        elif row["expires_at"] <= env.now:
            gone.append(f"{mail_id} (expired on {row['expires_at']:%Y-%m-%d})")
    if gone:
        raise ToolError(f"mail {', '.join(gone[:5])}; nothing was changed. search_mail lists the mailbox.")
    return rows


@tool(reads=("players", "mail", "mail_attachments", "rewards"))
def search_mail(
    env: Env,
    player: Nickname,
    category: Category = None,
    unread: bool | None = None,
    with_unclaimed_rewards: bool | None = None,
    sender: str | None = None,
    subject_contains: str | None = None,
    sent_after: dt.date | None = None,
    sent_before: SentBefore = None,
    sort_by: Literal["sent_at", "expires_at"] = "sent_at",
    descending: Descending = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """A player's mailbox (mail neither deleted nor expired): sender, subject, text, read or not, rewards.

    Args:
        unread: true for unread mail only, false for read mail only.
        with_unclaimed_rewards: true for mail with rewards still to claim, false for the others.
        sender: Only mail from this player (nickname).
        subject_contains: Part of the subject (case-insensitive).
        sent_after: Only mail sent on or after this date.
        sort_by: Order by when it was sent or when it expires.
        descending: Latest first (the default).
    """
    me = find_player(env, player)
    where = Where().add(VISIBLE, me["player_id"], env.now).when(category, "m.category = ?")
    where.when(unread, "(m.read_at IS NULL) = ?").when(with_unclaimed_rewards, f"{UNCLAIMED} = ?")
    where.when(sender, "m.sender_id = ?", by=lambda name: find_player(env, name)["player_id"])
    where.text(subject_contains, "m.subject").when(sent_after, "CAST(m.sent_at AS DATE) >= ?")
    where.when(sent_before, "CAST(m.sent_at AS DATE) < ?")
    sql = (
        "SELECT m.mail_id, m.category, coalesce(s.nickname, 'system') AS sender, m.subject, m.body, "
        "m.sent_at, m.read_at IS NOT NULL AS read, m.expires_at FROM mail AS m LEFT JOIN players AS s "
        f"ON s.player_id = m.sender_id WHERE {where.sql}"
    )
    page = page_of(env, sql, where.params, sorted_by(sort_by, descending, "mail_id"), limit, offset)
    ids = [r["mail_id"] for r in page["rows"]]
    attached = (
        env.query(
            "SELECT a.mail_id, r.name AS reward, r.kind, r.amount, a.quantity, a.claimed_at IS NOT NULL AS "
            "claimed FROM mail_attachments AS a JOIN rewards AS r ON r.reward_id = a.reward_id WHERE "
            "list_contains(?, a.mail_id) ORDER BY a.mail_id, r.name, a.reward_id",
            [ids],
        )
        if ids
        else []
    )
    for row in page["rows"]:
        row["rewards"] = [
            {k: a[k] for k in ("reward", "kind", "amount", "quantity", "claimed")}
            for a in attached
            if a["mail_id"] == row["mail_id"]
        ]
    return page


@tool(kind="write", reads=("players", "mail", "mail_attachments"), writes=("mail",), idempotent=True)
def mark_mail_read(
    env: Env,
    player: Player,
    mail_ids: MailIds | None = None,
    category: Category = None,
    sent_before: SentBefore = None,
) -> dict:
    """Mark mail as read: the mail listed, or every unread mail matching the filters (none given: all unread).

    Args:
        mail_ids: The mail to mark, by number.
    """
    me = find_player(env, player)
    where = Where().add(VISIBLE, me["player_id"], env.now).add("m.read_at IS NULL")
    if mail_ids is not None:
        _visible(env, me, mail_ids)
        where.add("list_contains(?, m.mail_id)", list(mail_ids))
    where.when(category, "m.category = ?").when(sent_before, "CAST(m.sent_at AS DATE) < ?")
    ids = [
        r["mail_id"] for r in env.query(f"SELECT m.mail_id FROM mail AS m WHERE {where.sql}", where.params)
    ]
    if ids:
        env.update_where("mail", "list_contains(?, mail_id)", [ids], {"read_at": env.now})
    return {"marked_read": len(ids)}


@tool(
    kind="write",
    reads=("players", "mail", "mail_attachments", "rewards"),
    writes=("mail", "mail_attachments", "players"),
    idempotent=True,
)
def claim_mail_rewards(env: Env, player: Player, mail_ids: MailIds | None = None) -> dict:
    """Claim the rewards attached to mail: the mail listed, or every mail with rewards to claim. Gold and
    diamonds go to your balance at once; the mail is marked read.

    Args:
        mail_ids: The mail whose rewards to claim; leave out to claim everything claimable.
    """
    me = find_player(env, player)
    where = Where().add(VISIBLE, me["player_id"], env.now).add(UNCLAIMED)
    if mail_ids is not None:
        rows = _visible(env, me, mail_ids)
        nothing = [r["mail_id"] for r in rows if not r["unclaimed"]]
        if nothing:
            raise refuse(
                "mail",
                f"mail {quoted(nothing)} has no rewards left to claim (claimed once); nothing was claimed.",
            )
        where.add("list_contains(?, m.mail_id)", list(mail_ids))
    ids = [
        r["mail_id"] for r in env.query(f"SELECT m.mail_id FROM mail AS m WHERE {where.sql}", where.params)
    ]
    if not ids:
        raise ToolError(f"{me['nickname']} has no mail with rewards to claim.")
    return {"mail": len(ids), **_claim(env, me, ids)}


def _claim(env: Env, me: dict[str, Any], ids: list[int]) -> dict[str, Any]:
    """Claim the unclaimed attachments of these mail, credit gold and diamonds, mark the mail read."""
    rewards = env.query(
        "SELECT r.name, r.kind, r.amount * a.quantity AS total FROM mail_attachments AS a JOIN rewards AS r "
        "ON r.reward_id = a.reward_id WHERE list_contains(?, a.mail_id) AND a.claimed_at IS NULL "
        "ORDER BY a.mail_id, a.reward_id",
        [ids],
    )
    env.update_where(
        "mail_attachments", "list_contains(?, mail_id) AND claimed_at IS NULL", [ids], {"claimed_at": env.now}
    )
    env.update_where("mail", "list_contains(?, mail_id) AND read_at IS NULL", [ids], {"read_at": env.now})
    gold = sum(r["total"] for r in rewards if r["kind"] == "gold")
    diamonds = sum(r["total"] for r in rewards if r["kind"] == "diamonds")
    if gold or diamonds:
        env.update(
            "players",
            me["player_id"],
            {"gold": Expr("gold + ?", [gold]), "diamonds": Expr("diamonds + ?", [diamonds])},
        )
    return {
        "claimed": [{"reward": r["name"], "kind": r["kind"], "amount": r["total"]} for r in rewards],
        "gold_added": gold,
        "diamonds_added": diamonds,
    }


@change(reads=("players", "mail", "mail_attachments"), writes=("mail",))
def delete_mail(
    env: Env,
    player: Player,
    mail_ids: MailIds | None = None,
    read_only: bool = False,
    category: Category = None,
    sent_before: SentBefore = None,
) -> dict:
    """Delete mail: the mail listed, or every mail matching all the filters given. Mail with rewards still to
    claim is never deleted (listed mail: refused; filtered mail: kept and counted).

    Args:
        mail_ids: The mail to delete, by number.
        read_only: Only mail already read.
    """
    if mail_ids is None and not read_only and category is None and sent_before is None:
        raise ToolError("say which mail to delete: give mail_ids, read_only, category or sent_before.")
    me = find_player(env, player)
    where = Where().add(VISIBLE, me["player_id"], env.now)
    if mail_ids is not None:
        rows = _visible(env, me, mail_ids)
        held = [r["mail_id"] for r in rows if r["unclaimed"]]
        if held:
            raise refuse(
                "mail",
                f"mail {quoted(held)} still has rewards to claim; claim them (claim_mail_rewards) "
                "before deleting. Nothing was deleted.",
            )
        where.add("list_contains(?, m.mail_id)", list(mail_ids))
    if read_only:
        where.add("m.read_at IS NOT NULL")
    where.when(category, "m.category = ?").when(sent_before, "CAST(m.sent_at AS DATE) < ?")
    rows = env.query(
        f"SELECT m.mail_id, {UNCLAIMED} AS unclaimed FROM mail AS m WHERE {where.sql}", where.params
    )
    ids = [r["mail_id"] for r in rows if not r["unclaimed"]]
    if ids:
        env.update_where("mail", "list_contains(?, mail_id)", [ids], {"is_deleted": True})
    return {"deleted": len(ids), "kept_with_unclaimed_rewards": len(rows) - len(ids)}


@create(reads=("players", "friendships", "clan_members", "clans"), writes=("mail",))
def send_mail(
    env: Env,
    player: Player,
    to: str,
    subject: Annotated[str, Field(min_length=1, max_length=80)],
    body: Annotated[str, Field(max_length=2000)] | None = None,
) -> dict:
    """Send a mail to a friend or a clanmate; it stays in their mailbox for 30 days.

    Args:
        player: Your nickname (the sender).
        to: The recipient's nickname (a friend or a member of your clan).
        subject: The subject line, up to 80 characters.
        body: The text, up to 2000 characters.
    """
    me = find_player(env, player)
    other = find_player(env, to, what="recipient")
    if other["player_id"] == me["player_id"]:
        raise ToolError("you cannot send mail to yourself.")
    refuse_banned(env, me, "send mail", policy="mail")
    mine, theirs = membership(env, me["player_id"]), membership(env, other["player_id"])
    clanmates = mine is not None and theirs is not None and mine["clan_id"] == theirs["clan_id"]
    friends = are_friends(env, me["player_id"], other["player_id"])
    if not (friends or clanmates):
        raise refuse(
            "mail",
            f"{other['nickname']} is neither {me['nickname']}'s friend nor in their clan; players mail "
            "only friends and clanmates.",
        )
    category = "friend" if friends else "clan"
    mail = new_mail(env, other["player_id"], me["player_id"], category, subject, body)
    return {
        "mail_id": mail["mail_id"],
        "to": other["nickname"],
        "category": mail["category"],
        "expires_at": mail["expires_at"],
    }


@create(
    reads=("players", "seasons", "season_rewards", "rewards", "rank_history", "mail"),
    writes=("mail", "mail_attachments", "players"),
)
def claim_season_rewards(env: Env, player: Player, season: str) -> dict:
    """Claim your rewards for a ranked season that has ended, for the highest tier you reached in it. They
    arrive as a season-reward mail, claimed at once (gold and diamonds go to your balance).

    Args:
        season: The season's name or number, e.g. "S36".
    """
    me = find_player(env, player)
    found = find_season(env, season)
    if found["ends_on"] >= env.today:
        raise refuse(
            "season_rewards",
            f"{found['name']} runs until {found['ends_on']}; its rewards are claimed after it ends.",
        )
    subject = SEASON_SUBJECT.format(found["name"])
    if env.one(
        "SELECT 1 AS yes FROM mail WHERE recipient_id = ? AND category = 'season_reward' AND subject = ? "
        "LIMIT 1",
        [me["player_id"], subject],
    ):
        raise refuse(
            "season_rewards",
            f"{me['nickname']} already claimed the rewards of {found['name']}; they are claimed once.",
        )
    best = env.scalar(
        f"SELECT max({TIER_RANK.format('tier')}) FROM rank_history WHERE player_id = ? "
        "AND CAST(recorded_at AS DATE) BETWEEN ? AND ?",
        [me["player_id"], found["starts_on"], found["ends_on"]],
    )
    if best is None:
        raise refuse(
            "season_rewards",
            f"{me['nickname']} has no ranked record in {found['name']}, so no season rewards.",
        )
    tier = TIERS[best - 1]
    rewards = env.query(
        "SELECT sr.reward_id FROM season_rewards AS sr WHERE sr.season_id = ? "
        f"AND {TIER_RANK.format('sr.min_tier')} <= ? ORDER BY sr.reward_id",
        [found["season_id"], best],
    )
    if not rewards:
        raise refuse(
            "season_rewards",
            f"{found['name']} has no rewards for the {tier} tier, the highest {me['nickname']} reached.",
        )
    body = f"Your highest tier in {found['name']}: {tier}."
    mail = new_mail(env, me["player_id"], None, "season_reward", subject, body, read=True)
    env.insert_many(
        "mail_attachments",
        [{"mail_id": mail["mail_id"], "reward_id": r["reward_id"], "quantity": 1} for r in rewards],
    )
    return {
        "season": found["name"],
        "tier": tier,
        "mail_id": mail["mail_id"],
        **_claim(env, me, [mail["mail_id"]]),
    }
