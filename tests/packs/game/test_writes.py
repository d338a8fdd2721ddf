"""The game pack's write tools change exactly what the product says: balances, ownership, equipment, pages,
builds, friendships, clans and mail; foreign-key actions run through the tools (a deleted page takes its
runes, a disbanded clan its members); bulk operations touch hundreds of rows; the same calls give the same
result in every episode."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from stateforge.episode import Episode
from tests.packs.game.calls import ok, player_id, refused, scalar
from tests.packs.game.conftest import Cast

pytestmark = pytest.mark.xdist_group("game_pack")
NOW = "2026-06-30T23:59:59"


def test_shopping_pays_from_the_balance_and_equipping_swaps_the_skin(ep: Episode, cast: Cast):
    pid = player_id(ep, cast.rich)
    diamonds = scalar(ep, "SELECT diamonds FROM players WHERE player_id = ?", [pid])
    heroes = ep.query(
        "SELECT name, price_diamonds FROM heroes WHERE hero_id NOT IN (SELECT hero_id FROM "
        "player_heroes WHERE player_id = ?) AND hero_id IN (SELECT hero_id FROM skins GROUP BY hero_id "
        "HAVING count(*) FILTER (WHERE NOT is_limited) >= 2) ORDER BY hero_id LIMIT 3",
        [pid],
    )
    bought = ok(ep, "buy_heroes", player=cast.rich, heroes=[h["name"] for h in heroes], currency="diamonds")
    paid = sum(h["price_diamonds"] for h in heroes)
    assert bought["paid"] == paid and bought["balance"] == diamonds - paid
    assert scalar(ep, "SELECT diamonds FROM players WHERE player_id = ?", [pid]) == diamonds - paid
    rows = ep.query(
        "SELECT acquired_at FROM player_heroes JOIN heroes USING (hero_id) WHERE player_id = ? AND "
        "list_contains(?, name)",
        [pid, [h["name"] for h in heroes]],
    )
    assert len(rows) == 3 and {str(r["acquired_at"]) for r in rows} == {"2026-06-30 23:59:59"}

    hero = heroes[0]["name"]
    skins = [
        r["name"]
        for r in ep.query(
            "SELECT s.name FROM skins AS s JOIN heroes AS h USING (hero_id) WHERE "
            "h.name = ? AND NOT s.is_limited ORDER BY s.skin_id LIMIT 2",
            [hero],
        )
    ]
    ok(ep, "buy_skins", player=cast.rich, skins=[{"skin": s, "hero": hero} for s in skins])
    assert ok(ep, "equip_skin", player=cast.rich, skin=skins[0], hero=hero)["replaced"] is None
    assert ok(ep, "equip_skin", player=cast.rich, skin=skins[1], hero=hero)["replaced"] == skins[0]
    again = ep.call("equip_skin", {"player": cast.rich, "skin": skins[1], "hero": hero})
    assert again.ok and again.changes == {}  # idempotent
    worn = ep.query(
        "SELECT s.name FROM player_skins AS ps JOIN skins AS s USING (skin_id) JOIN heroes AS h USING "
        "(hero_id) WHERE ps.player_id = ? AND h.name = ? AND ps.is_equipped",
        [pid, hero],
    )
    assert worn == [{"name": skins[1]}]
    ok(ep, "unequip_skin", player=cast.rich, hero=hero)
    assert (
        ok(ep, "list_player_heroes", player=cast.rich, name_contains=hero)["rows"][0]["equipped_skin"] is None
    )


def test_a_gift_costs_the_giver_and_reaches_the_friend_with_a_mail(ep: Episode, cast: Cast):
    from tests.packs.game.test_toolkit import _gift

    gift = _gift(ep, cast.rich)
    friend = player_id(ep, gift["friend"])
    before = scalar(ep, "SELECT diamonds FROM players WHERE nickname = ?", [cast.rich])
    value = ok(ep, "gift_skin", **gift)
    assert (
        scalar(ep, "SELECT diamonds FROM players WHERE nickname = ?", [cast.rich]) == before - value["paid"]
    )
    assert (
        scalar(
            ep,
            "SELECT source FROM player_skins JOIN skins USING (skin_id) WHERE player_id = ? AND name = ?",
            [friend, gift["skin"]],
        )
        == "gift"
    )
    note = ok(ep, "search_mail", player=gift["friend"], sender=cast.rich)["rows"][0]
    assert (
        note["mail_id"] == value["mail_id"] and gift["skin"] in note["body"] and note["body"].endswith("GG!")
    )
    refused(ep, "gift_skin", "already owns", **gift)


def test_rune_pages_keep_one_default_and_take_their_runes_along(ep: Episode, cast: Cast):
    me = cast.loner
    first = ok(ep, "create_rune_page", player=me, name="Jungle", runes=[{"rune": "Hunt", "quantity": 10}])
    assert first == {
        "page_no": 1,
        "name": "Jungle",
        "is_default": True,
        "runes": [{"rune": "Hunt", "quantity": 10}],
    }
    second = ok(
        ep,
        "create_rune_page",
        player=me,
        name="Mid",
        make_default=True,
        runes=[{"rune": "Calamity", "quantity": 3}, {"rune": "Valor", "quantity": 5}],
    )
    assert second["page_no"] == 2
    merged = ok(
        ep,
        "add_runes_to_page",
        player=me,
        page="mid",
        runes=[{"rune": "Calamity", "quantity": 2}, {"rune": "Sacred", "quantity": 4}],
    )
    assert {r["rune"]: r["quantity"] for r in merged["runes"]} == {"Calamity": 5, "Valor": 5, "Sacred": 4}
    pages = ok(ep, "list_rune_pages", player=me)["pages"]
    assert [(p["name"], p["is_default"]) for p in pages] == [("Jungle", False), ("Mid", True)]
    assert pages[1]["colours"] == {"red": 5, "blue": 5, "green": 4}
    assert ok(ep, "remove_runes_from_page", player=me, page="2", color="blue")["removed"] == ["Valor"]

    page_id = scalar(
        ep, "SELECT page_id FROM rune_pages WHERE player_id = ? AND page_no = 2", [player_id(ep, me)]
    )
    result = ep.call("delete_rune_pages", {"player": me, "pages": ["Mid"]})
    assert result.ok and result.changes["rune_page_runes"] == {"deleted": 2}  # ON DELETE CASCADE
    assert scalar(ep, "SELECT count(*) FROM rune_page_runes WHERE page_id = ?", [page_id]) == 0
    assert result.value["new_default"] == {"page_no": 1, "name": "Jungle"}
    assert ok(ep, "create_rune_page", player=me, name="Again")["page_no"] == 2  # the lowest free number


def test_builds_are_written_copied_swapped_and_deleted_with_their_items(ep: Episode, cast: Cast):
    me = cast.social
    made = ok(
        ep,
        "create_build",
        player=me,
        hero="Li Bai",
        name="Crit",
        items=["Swift Boots", "Storm Sword", "Doomsday"],
        is_public=False,
    )
    build = made["build_id"]
    found = ok(ep, "search_builds", build_id=build, player=me)["rows"]
    assert found[0]["items"] == ["Swift Boots", "Storm Sword", "Doomsday"] and not found[0]["is_public"]
    assert ok(ep, "search_builds", build_id=build)["total"] == 0  # private: only its author sees it
    ok(ep, "update_build", player=me, build_id=build, items=["Boots", "Doomsday"], name="Crit 2")
    assert ok(ep, "search_builds", build_id=build, player=me)["rows"][0]["items"] == ["Boots", "Doomsday"]

    official = scalar(
        ep, "SELECT build_id FROM hero_builds WHERE player_id IS NULL AND is_public ORDER BY build_id LIMIT 1"
    )
    copy = ok(ep, "copy_build", player=me, build_id=official, name="Pro")["build_id"]
    assert [
        r["item_id"]
        for r in ep.query("SELECT item_id FROM build_items WHERE build_id = ? ORDER BY slot", [copy])
    ] == [
        r["item_id"]
        for r in ep.query("SELECT item_id FROM build_items WHERE build_id = ? ORDER BY slot", [official])
    ]
    mine = player_id(ep, me)
    with_doomsday = scalar(
        ep,
        "SELECT count(*) FROM build_items JOIN hero_builds USING (build_id) JOIN items AS i "
        "USING (item_id) WHERE player_id = ? AND i.name = 'Doomsday'",
        [mine],
    )
    swapped = ok(ep, "replace_build_item", player=me, old_item="Doomsday", new_item="Eternal Blade")
    assert len(swapped["replaced_in"]) + len(swapped["skipped"]) == with_doomsday
    assert scalar(
        ep,
        "SELECT count(*) FROM build_items JOIN hero_builds USING (build_id) JOIN items AS i USING "
        "(item_id) WHERE player_id = ? AND i.name = 'Doomsday'",
        [mine],
    ) == len(swapped["skipped"])

    result = ep.call("delete_builds", {"player": me, "build_ids": [build, copy]})
    assert result.ok and result.changes["build_items"]["deleted"] == 2 + 6  # ON DELETE CASCADE
    assert (
        scalar(ep, "SELECT count(*) FROM build_items WHERE list_contains(?, build_id)", [[build, copy]]) == 0
    )


def test_friend_requests_become_friendships(ep: Episode, cast: Cast):
    ok(ep, "send_friend_requests", player=cast.loner, to=[cast.rich, cast.leader], message="Duo?")
    incoming = ok(ep, "list_friend_requests", player=cast.rich)["rows"]
    assert incoming[0] == {
        "sender": cast.loner,
        "message": "Duo?",
        "status": "pending",
        "sent_at": NOW,
        "responded_at": None,
    }
    assert ok(ep, "accept_friend_requests", player=cast.rich, senders=[cast.loner])["new_friends"] == [
        cast.loner
    ]
    a, b = sorted([player_id(ep, cast.loner), player_id(ep, cast.rich)])
    assert ep.query(
        "SELECT relation, intimacy, CAST(since AS VARCHAR) AS since FROM friendships WHERE "
        "player_a_id = ? AND player_b_id = ?",
        [a, b],
    ) == [{"relation": "friend", "intimacy": 0, "since": "2026-06-30 23:59:59"}]
    assert ok(ep, "cancel_friend_requests", player=cast.loner)["cancelled"] == [cast.leader]
    answered = ok(ep, "list_friend_requests", player=cast.loner, direction="outgoing", status="any")["rows"]
    assert {(r["recipient"], r["status"]) for r in answered} == {
        (cast.rich, "accepted"),
        (cast.leader, "cancelled"),
    }
    assert (
        ok(ep, "set_friend_relation", player=cast.loner, friend=cast.rich, relation="mentor")["was"]
        == "friend"
    )
    assert ok(ep, "remove_friends", player=cast.rich, friends=[cast.loner])["removed"] == [cast.loner]

    pending = scalar(
        ep,
        "SELECT count(*) FROM friend_requests WHERE recipient_id = ? AND status = 'pending'",
        [player_id(ep, cast.social)],
    )
    declined = ok(ep, "decline_friend_requests", player=cast.social)["declined"]
    assert len(declined) == pending > 0
    refused(ep, "decline_friend_requests", "has no pending friend requests", player=cast.social)


def test_bulk_friend_operations_touch_hundreds_of_rows(ep: Episode, cast: Cast):
    me = player_id(ep, cast.social)
    weak = scalar(
        ep,
        "SELECT count(*) FROM friendships WHERE (player_a_id = ? OR player_b_id = ?) AND intimacy <= 500",
        [me, me],
    )
    assert weak >= 50, "the most social player has a long tail of weak friendships"
    result = ep.call("remove_friends", {"player": cast.social, "max_intimacy": 500})
    assert (
        result.ok
        and result.changes == {"friendships": {"deleted": weak}}
        and len(result.value["removed"]) == weak
    )
    assert (
        scalar(
            ep,
            "SELECT count(*) FROM friendships WHERE (player_a_id = ? OR player_b_id = ?) AND intimacy <= 500",
            [me, me],
        )
        == 0
    )

    strangers = [
        r["nickname"]
        for r in ep.query(
            "SELECT nickname FROM players WHERE player_id <> ? AND player_id NOT IN (SELECT player_a_id "
            "FROM friendships WHERE player_b_id = ?) AND player_id NOT IN (SELECT player_b_id FROM "
            "friendships WHERE player_a_id = ?) AND player_id NOT IN (SELECT sender_id FROM friend_requests "
            "WHERE status = 'pending' AND recipient_id = ?) AND player_id NOT IN (SELECT recipient_id FROM "
            "friend_requests WHERE status = 'pending' AND sender_id = ?) ORDER BY player_id LIMIT 150",
            [me] * 5,
        )
    ]
    assert len(strangers) == 150
    sent = ep.call("send_friend_requests", {"player": cast.social, "to": strangers})
    assert sent.ok and sent.changes == {"friend_requests": {"inserted": 150}}


def test_a_clan_from_founding_to_disbanding(ep: Episode, cast: Cast):
    founder = cast.loner
    joiner = scalar(
        ep,
        "SELECT nickname FROM players WHERE player_id NOT IN (SELECT player_id FROM clan_members) "
        "AND (banned_until IS NULL OR banned_until < TIMESTAMP '2026-06-30') AND nickname <> ? "
        "ORDER BY player_id LIMIT 1",
        [founder],
    )
    assert ok(ep, "create_clan", player=founder, name="Night Owls", tag="owl", max_members=10) == {
        "clan": "Night Owls",
        "tag": "OWL",
        "leader": founder,
    }
    assert ok(ep, "join_clan", player=joiner, clan="night owls")["members"] == 2
    ok(ep, "set_clan_role", player=founder, members=[joiner], role="elder")
    ok(ep, "update_clan", player=joiner, description="Late games only", is_recruiting=False)
    clan = ok(ep, "get_clan", clan="OWL")
    assert (
        clan["elders"] == [joiner] and clan["description"] == "Late games only" and not clan["is_recruiting"]
    )
    ok(ep, "transfer_clan_leadership", player=founder, new_leader=joiner)
    assert ok(ep, "leave_clan", player=founder) == {"left": "Night Owls", "disbanded": False}
    assert ok(ep, "leave_clan", player=joiner) == {"left": "Night Owls", "disbanded": True}  # the last member
    assert scalar(ep, "SELECT count(*) FROM clans WHERE tag = 'OWL'") == 0

    clan_id = scalar(ep, "SELECT clan_id FROM clans WHERE name = ?", [cast.clan])
    members = scalar(ep, "SELECT count(*) FROM clan_members WHERE clan_id = ?", [clan_id])
    kicked = ok(ep, "kick_clan_members", player=cast.leader, max_contribution=10**9)["removed"]
    assert cast.elder not in kicked and cast.leader not in kicked and cast.member in kicked
    result = ep.call("disband_clan", {"player": cast.leader})
    assert result.ok and result.changes["clan_members"] == {
        "deleted": members - len(kicked)
    }  # ON DELETE CASCADE
    assert scalar(ep, "SELECT count(*) FROM clan_members WHERE clan_id = ?", [clan_id]) == 0


def test_mail_rewards_reach_the_balance_and_deletion_keeps_unclaimed_rewards(ep: Episode, cast: Cast):
    me = player_id(ep, cast.social)
    visible = "recipient_id = ? AND NOT is_deleted AND expires_at > TIMESTAMP '2026-06-30 23:59:59'"
    refused(
        ep,
        "delete_mail",
        "still has rewards",
        player=cast.social,
        mail_ids=[
            scalar(
                ep,
                f"SELECT mail_id FROM mail AS m WHERE {visible} AND EXISTS (SELECT 1 FROM mail_attachments "
                "AS a WHERE "
                "a.mail_id = m.mail_id AND a.claimed_at IS NULL) ORDER BY mail_id LIMIT 1",
                [me],
            )
        ],
    )
    kept = ok(ep, "delete_mail", player=cast.social, sent_before="2026-07-01")
    held = scalar(ep, f"SELECT count(*) FROM mail WHERE {visible}", [me])
    assert kept["deleted"] > 0 and kept["kept_with_unclaimed_rewards"] == held > 0
    unread = scalar(ep, f"SELECT count(*) FROM mail WHERE {visible} AND read_at IS NULL", [me])
    assert ok(ep, "mark_mail_read", player=cast.social)["marked_read"] == unread
    assert scalar(ep, f"SELECT count(*) FROM mail WHERE {visible} AND read_at IS NULL", [me]) == 0

    gold, diamonds = ep.query("SELECT gold, diamonds FROM players WHERE player_id = ?", [me])[0].values()
    expected = ep.query(
        "SELECT coalesce(sum(r.amount * a.quantity) FILTER (WHERE r.kind = 'gold'), 0) AS gold, "
        "coalesce(sum(r.amount * a.quantity) FILTER (WHERE r.kind = 'diamonds'), 0) AS diamonds "
        "FROM mail_attachments AS a JOIN rewards AS r USING (reward_id) JOIN mail AS m USING (mail_id) "
        f"WHERE {visible.replace('recipient_id', 'm.recipient_id')} AND a.claimed_at IS NULL",
        [me],
    )[0]
    claimed = ok(ep, "claim_mail_rewards", player=cast.social)
    assert (claimed["gold_added"], claimed["diamonds_added"]) == (expected["gold"], expected["diamonds"])
    assert ep.query("SELECT gold, diamonds FROM players WHERE player_id = ?", [me])[0] == {
        "gold": gold + expected["gold"],
        "diamonds": diamonds + expected["diamonds"],
    }
    assert ok(ep, "delete_mail", player=cast.social, read_only=True)["deleted"] == held
    refused(ep, "claim_mail_rewards", "has no mail with rewards to claim", player=cast.social)


def test_the_same_calls_give_the_same_ids_and_values(open_episode: Callable[[], Episode], cast: Cast):
    def run(ep: Episode) -> list[object]:
        return [
            ok(ep, "create_build", player=cast.social, hero="Li Bai", name="Same", items=["Boots"]),
            ok(ep, "send_mail", player=cast.leader, to=cast.member, subject="Same"),
            ok(ep, "claim_mail_rewards", player=cast.social),
        ]

    assert run(open_episode()) == run(open_episode())
