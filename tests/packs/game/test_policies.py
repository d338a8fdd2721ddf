"""Every policy of stateforge/packs/game/domain.yaml is refused by the tools that could break it, with a
message an
agent can act on, and nothing changes. At least one case per policy; early refusals of rules are here too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from stateforge.domain import DomainPack
from stateforge.episode import Episode
from tests.packs.game.calls import ok, player_id, refused, scalar
from tests.packs.game.conftest import Cast

pytestmark = pytest.mark.xdist_group("game_pack")


def clan_membership(ep: Episode, cast: Cast) -> None:
    refused(
        ep,
        "join_clan",
        cast.member,
        "is in",
        "a player belongs to one clan",
        player=cast.member,
        clan=cast.open_clan,
    )
    refused(ep, "join_clan", "is not recruiting", player=cast.loner, clan=cast.closed_clan)
    refused(ep, "join_clan", "banned until", "cannot join a clan", player=cast.banned, clan=cast.open_clan)
    members = scalar(
        ep, "SELECT count(*) FROM clan_members JOIN clans USING (clan_id) WHERE tag = ?", [cast.open_clan]
    )
    ep.connection.execute(
        "UPDATE clans SET max_members = greatest(?, 10) WHERE tag = ?", [members, cast.open_clan]
    )
    if members >= 10:
        refused(
            ep,
            "join_clan",
            "is full",
            f"{members} of {members} members",
            player=cast.loner,
            clan=cast.open_clan,
        )
    refused(ep, "create_clan", "already exists", player=cast.loner, name=cast.clan.upper(), tag="ZZZZ")
    refused(ep, "create_clan", "is taken", player=cast.loner, name="Brand New", tag=cast.open_clan.lower())


def clan_roles(ep: Episode, cast: Cast) -> None:
    refused(
        ep,
        "set_clan_role",
        "only the leader of",
        "change roles",
        player=cast.elder,
        members=[cast.member],
        role="elder",
    )
    refused(ep, "kick_clan_members", "cannot remove", cast.leader, player=cast.elder, members=[cast.leader])
    refused(
        ep,
        "kick_clan_members",
        "only the leader removes elders",
        player=cast.elder,
        max_contribution=10**6,
        include_elders=True,
    )
    refused(
        ep, "kick_clan_members", "only the leader or the elder of", player=cast.member, members=[cast.elder]
    )
    refused(ep, "update_clan", "only the leader renames", player=cast.elder, name="Renamed Clan")
    refused(ep, "transfer_clan_leadership", "only the leader of", player=cast.elder, new_leader=cast.member)
    refused(ep, "disband_clan", "only the leader of", player=cast.member)
    refused(ep, "leave_clan", "hand over leadership first", player=cast.leader)
    refused(ep, "transfer_clan_leadership", "is not in", player=cast.leader, new_leader=cast.loner)


def purchases(ep: Episode, cast: Cast) -> None:
    poor = ep.query(
        "SELECT nickname, gold FROM players WHERE gold < 5888 AND (banned_until IS NULL OR "
        "banned_until < TIMESTAMP '2026-06-30') ORDER BY player_id LIMIT 1"
    )[0]
    hero = scalar(
        ep,
        "SELECT name FROM heroes WHERE hero_id NOT IN (SELECT hero_id FROM player_heroes JOIN "
        "players USING (player_id) WHERE nickname = ?) ORDER BY hero_id LIMIT 1",
        [poor["nickname"]],
    )
    price = scalar(ep, "SELECT price_gold FROM heroes WHERE name = ?", [hero])
    refused(
        ep,
        "buy_heroes",
        f"costs {price:,} gold",
        f"has {poor['gold']:,}",
        "short",
        player=poor["nickname"],
        heroes=[hero],
    )
    owned = scalar(
        ep,
        "SELECT h.name FROM player_heroes JOIN heroes AS h USING (hero_id) JOIN players USING "
        "(player_id) WHERE nickname = ? ORDER BY h.name LIMIT 1",
        [cast.rich],
    )
    refused(
        ep, "buy_heroes", "already owns", owned, "a hero is bought once", player=cast.rich, heroes=[owned]
    )
    limited = ep.query(
        "SELECT s.name AS skin, h.name AS hero FROM skins AS s JOIN heroes AS h USING (hero_id) "
        "WHERE s.is_limited ORDER BY s.skin_id LIMIT 1"
    )[0]
    refused(ep, "buy_skins", "limited-edition", "never sold", player=cast.rich, skins=[limited])
    unowned = ep.query(
        "SELECT s.name AS skin, h.name AS hero FROM skins AS s JOIN heroes AS h USING (hero_id) WHERE NOT "
        "s.is_limited AND s.hero_id NOT IN (SELECT hero_id FROM player_heroes WHERE player_id = ?) ORDER BY "
        "s.skin_id LIMIT 1",
        [player_id(ep, cast.rich)],
    )[0]
    refused(
        ep, "buy_skins", "does not own the hero of", "buy the hero first", player=cast.rich, skins=[unowned]
    )
    refused(ep, "buy_heroes", "banned until", "cannot buy heroes", player=cast.banned, heroes=[hero])
    stranger = scalar(
        ep,
        "SELECT nickname FROM players WHERE player_id NOT IN (SELECT player_b_id FROM friendships "
        "WHERE player_a_id = ?) AND player_id NOT IN (SELECT player_a_id FROM friendships WHERE "
        "player_b_id = ?) AND player_id <> ? ORDER BY player_id LIMIT 1",
        [player_id(ep, cast.rich)] * 3,
    )
    refused(
        ep,
        "gift_skin",
        "is not",
        "gifts go to friends only",
        player=cast.rich,
        friend=stranger,
        skin=unowned["skin"],
        hero=unowned["hero"],
    )


def equipped_skins(ep: Episode, cast: Cast) -> None:
    pid = player_id(ep, cast.social)
    not_mine = ep.query(
        "SELECT s.name, h.name AS hero FROM skins AS s JOIN heroes AS h USING (hero_id) WHERE "
        "s.skin_id NOT IN (SELECT skin_id FROM player_skins WHERE player_id = ?) ORDER BY s.skin_id "
        "LIMIT 1",
        [pid],
    )[0]
    refused(
        ep,
        "equip_skin",
        "does not own the skin",
        "buy it first",
        player=cast.social,
        skin=not_mine["name"],
        hero=not_mine["hero"],
    )
    hero_missing = ep.query(
        "SELECT s.name, h.name AS hero FROM player_skins AS ps JOIN skins AS s USING (skin_id) JOIN heroes "
        "AS h USING (hero_id) WHERE ps.player_id = ? AND s.hero_id NOT IN (SELECT hero_id FROM "
        "player_heroes WHERE player_id = ?) ORDER BY s.skin_id LIMIT 1",
        [pid, pid],
    )
    assert hero_missing, "the built data has players owning skins of heroes they do not own"
    refused(
        ep,
        "equip_skin",
        f"does not own {hero_missing[0]['hero']}",
        "a skin is worn only by a hero you own",
        player=cast.social,
        skin=hero_missing[0]["name"],
        hero=hero_missing[0]["hero"],
    )
    bare = scalar(
        ep,
        "SELECT h.name FROM player_heroes JOIN heroes AS h USING (hero_id) WHERE player_id = ? AND "
        "hero_id NOT IN (SELECT s.hero_id FROM player_skins AS ps JOIN skins AS s USING (skin_id) "
        "WHERE ps.player_id = ? AND ps.is_equipped) ORDER BY h.name LIMIT 1",
        [pid, pid],
    )
    refused(ep, "unequip_skin", "wears no skin", player=cast.social, hero=bare)


def rune_pages(ep: Episode, cast: Cast) -> None:
    ok(ep, "create_rune_page", player=cast.loner, name="Mid", runes=[{"rune": "Calamity", "quantity": 7}])
    refused(
        ep,
        "add_runes_to_page",
        "would hold 11 red runes",
        "at most 10 runes of each colour",
        player=cast.loner,
        page="Mid",
        runes=[{"rune": "Hunt", "quantity": 4}],
    )
    refused(
        ep,
        "create_rune_page",
        "would hold 12 copies of Calamity",
        "at most 10 copies",
        player=cast.loner,
        name="Other",
        runes=[{"rune": "Calamity", "quantity": 6}, {"rune": "Calamity", "quantity": 6}],
    )
    refused(
        ep,
        "create_rune_page",
        "already has the name 'MID'",
        "distinct per player",
        player=cast.loner,
        name="MID",
    )
    ep.connection.execute(
        "INSERT INTO rune_pages (page_id, player_id, page_no, name, is_default, created_at) SELECT 900000 + "
        "n, ?, n, 'Page ' || n, FALSE, TIMESTAMP '2026-01-01 00:00:00' FROM range(2, 51) AS t(n)",
        [player_id(ep, cast.loner)],
    )
    refused(
        ep,
        "create_rune_page",
        "already has 50 rune pages",
        "delete one first",
        player=cast.loner,
        name="Fifty-one",
    )


def builds(ep: Episode, cast: Cast) -> None:
    official = scalar(
        ep, "SELECT build_id FROM hero_builds WHERE player_id IS NULL AND is_public ORDER BY build_id LIMIT 1"
    )
    refused(
        ep,
        "update_build",
        "is an official build",
        "copy it",
        player=cast.social,
        build_id=official,
        name="Mine now",
    )
    other = scalar(
        ep,
        "SELECT build_id FROM hero_builds WHERE player_id <> ? AND is_public ORDER BY build_id LIMIT 1",
        [player_id(ep, cast.social)],
    )
    refused(ep, "delete_builds", "belongs to another player", player=cast.social, build_ids=[other])
    inactive = scalar(ep, "SELECT name FROM items WHERE NOT is_active ORDER BY item_id LIMIT 1")
    if inactive is not None:
        refused(
            ep,
            "create_build",
            "no longer sold",
            player=cast.social,
            hero="Li Bai",
            name="Old",
            items=[inactive],
        )
    refused(
        ep,
        "create_build",
        "Boots is listed twice",
        player=cast.social,
        hero="Li Bai",
        name="Twice",
        items=["Boots", "Doomsday", "Boots"],
    )
    refused(
        ep,
        "create_build",
        "argument 'items' may hold at most 6 items",
        kind="arguments",
        player=cast.social,
        hero="Li Bai",
        name="Seven",
        items=["Boots", "Doomsday", "Master Sword", "Storm Sword", "Void Staff", "Frost Wand", "Echo Staff"],
    )
    ok(ep, "create_build", player=cast.social, hero="Li Bai", name="Crit", items=["Boots"])
    refused(
        ep,
        "create_build",
        "already named 'crit'",
        player=cast.social,
        hero="Li Bai",
        name="crit",
        items=["Boots"],
    )


def friend_requests(ep: Episode, cast: Cast) -> None:
    me = player_id(ep, cast.social)
    friend = scalar(
        ep,
        "SELECT p.nickname FROM friendships AS f JOIN players AS p ON p.player_id = f.player_b_id "
        "WHERE f.player_a_id = ? ORDER BY p.nickname LIMIT 1",
        [me],
    )
    refused(ep, "send_friend_requests", f"{friend} is already your friend", player=cast.social, to=[friend])
    refused(ep, "send_friend_requests", "to yourself", player=cast.social, to=[cast.social])
    asker = scalar(
        ep,
        "SELECT p.nickname FROM friend_requests AS r JOIN players AS p ON p.player_id = r.sender_id "
        "WHERE r.recipient_id = ? AND r.status = 'pending' ORDER BY r.request_id LIMIT 1",
        [me],
    )
    refused(
        ep,
        "send_friend_requests",
        f"{asker} already sent you a request",
        "accept_friend_requests",
        player=cast.social,
        to=[asker],
    )
    ok(ep, "send_friend_requests", player=cast.loner, to=[cast.rich])
    refused(ep, "send_friend_requests", "still pending", player=cast.loner, to=[cast.rich])
    refused(
        ep,
        "accept_friend_requests",
        "has no pending friend request from",
        cast.rich,
        player=cast.loner,
        senders=[cast.rich],
    )  # only the recipient accepts
    refused(
        ep, "cancel_friend_requests", "has no pending request to", player=cast.rich, recipients=[cast.loner]
    )
    refused(ep, "send_friend_requests", "banned until", player=cast.banned, to=[cast.loner])
    partner = scalar(
        ep,
        "SELECT p.nickname FROM friendships AS f JOIN players AS p ON p.player_id = "
        "CASE WHEN f.player_a_id = ? THEN f.player_b_id ELSE f.player_a_id END WHERE "
        "(f.player_a_id = ? OR f.player_b_id = ?) AND f.relation = 'partner' LIMIT 1",
        [me] * 3,
    )
    other = scalar(
        ep,
        "SELECT p.nickname FROM friendships AS f JOIN players AS p ON p.player_id = "
        "CASE WHEN f.player_a_id = ? THEN f.player_b_id ELSE f.player_a_id END WHERE "
        "(f.player_a_id = ? OR f.player_b_id = ?) AND f.relation <> 'partner' ORDER BY p.nickname "
        "LIMIT 1",
        [me] * 3,
    )
    if partner is None:
        ok(ep, "set_friend_relation", player=cast.social, friend=friend, relation="partner")
        partner = friend
    refused(
        ep,
        "set_friend_relation",
        "already has a partner",
        partner,
        "at most one partner",
        player=cast.social,
        friend=other,
        relation="partner",
    )


def mail(ep: Episode, cast: Cast) -> None:
    me = player_id(ep, cast.social)
    held = scalar(
        ep,
        "SELECT m.mail_id FROM mail AS m WHERE m.recipient_id = ? AND NOT m.is_deleted AND "
        "m.expires_at > TIMESTAMP '2026-06-30 23:59:59' AND EXISTS (SELECT 1 FROM mail_attachments AS "
        "a WHERE a.mail_id = m.mail_id AND a.claimed_at IS NULL) ORDER BY m.mail_id LIMIT 1",
        [me],
    )
    refused(
        ep,
        "delete_mail",
        f"mail {held} still has rewards to claim",
        "claim_mail_rewards",
        player=cast.social,
        mail_ids=[held],
    )
    expired = scalar(
        ep,
        "SELECT mail_id FROM mail WHERE recipient_id = ? AND expires_at <= TIMESTAMP "
        "'2026-06-30 23:59:59' ORDER BY mail_id LIMIT 1",
        [me],
    )
    refused(ep, "claim_mail_rewards", f"{expired} (expired on", player=cast.social, mail_ids=[expired])
    someone_elses = scalar(
        ep, "SELECT mail_id FROM mail WHERE recipient_id <> ? ORDER BY mail_id LIMIT 1", [me]
    )
    refused(
        ep,
        "mark_mail_read",
        f"{someone_elses} (not in {cast.social}'s mailbox)",
        player=cast.social,
        mail_ids=[someone_elses],
    )
    ok(ep, "claim_mail_rewards", player=cast.social, mail_ids=[held])
    refused(ep, "claim_mail_rewards", "has no rewards left to claim", player=cast.social, mail_ids=[held])
    refused(
        ep,
        "send_mail",
        "neither",
        "only friends and clanmates",
        player=cast.loner,
        to=cast.rich,
        subject="Hi",
    )
    refused(ep, "delete_mail", "say which mail", player=cast.social)


def season_rewards(ep: Episode, cast: Cast) -> None:
    refused(
        ep, "claim_season_rewards", "runs until 2026-07-01", "after it ends", player=cast.social, season="S39"
    )
    season = scalar(
        ep,
        "SELECT s.name FROM seasons AS s JOIN rank_history AS r ON CAST(r.recorded_at AS DATE) "
        "BETWEEN s.starts_on AND s.ends_on WHERE r.player_id = ? AND s.ends_on < DATE '2026-06-30' "
        "AND EXISTS (SELECT 1 FROM season_rewards AS w WHERE w.season_id = s.season_id AND "
        "w.min_tier = 'bronze') ORDER BY s.season_id LIMIT 1",
        [player_id(ep, cast.social)],
    )
    ok(ep, "claim_season_rewards", player=cast.social, season=season)
    refused(ep, "claim_season_rewards", "already claimed", "claimed once", player=cast.social, season=season)
    refused(ep, "claim_season_rewards", "no ranked record in S28", player=cast.social, season="S28")


CASES: dict[str, Callable[[Episode, Cast], None]] = {
    "clan_membership": clan_membership,
    "clan_roles": clan_roles,
    "purchases": purchases,
    "equipped_skins": equipped_skins,
    "rune_pages": rune_pages,
    "builds": builds,
    "friend_requests": friend_requests,
    "mail": mail,
    "season_rewards": season_rewards,
}


def test_every_policy_has_refusal_cases(pack: DomainPack):
    policies = pack.config.policies
    assert 5 <= len(policies) <= 10
    assert {p.name for p in policies} == set(CASES)


TYPED = {
    "short)": "purchases",
    "a hero is bought once": "purchases",
    "buy the hero first": "purchases",
    "gifts go to friends only": "purchases",
    "does not own the skin": "equipped_skins",
    "a skin is worn only by a hero you own": "equipped_skins",
    "is listed twice": "builds",
    "already named": "builds",
    "already exists": "clan_membership",
    "is taken": "clan_membership",
    "is already your friend": "friend_requests",
    "still has rewards to claim": "mail",
    "no rewards left to claim": "mail",
    "no ranked record": "season_rewards",
    "red runes": "rune_pages",
    "copies of Calamity": "rune_pages",
    "already has the name": "rune_pages",
    "already has 50 rune pages": "rune_pages",
}
"""Fragments of refusals that once were untyped text (issue 23), and the policy each must now carry."""


@pytest.mark.parametrize("policy", sorted(CASES))
def test_policy_is_refused_with_its_message(policy: str, ep: Episode, cast: Cast, pack: DomainPack):
    CASES[policy](ep, cast)
    refusals = [r for r in ep.log if not r.ok and r.error_kind == "tool"]
    assert any(r.policy == policy for r in refusals), f"no refusal of {policy} carries the policy"
    for result in refusals:
        assert result.policy in (None, policy), (result.tool, result.policy, result.error)
        for fragment, named in TYPED.items():
            if fragment in (result.error or ""):
                assert result.policy == named, (fragment, result.policy, result.error)
    check = next(p.check for p in pack.config.policies if p.name == policy)
    if check:
        assert ep.query(check) == []
