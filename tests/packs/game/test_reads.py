"""The game pack's read tools on the built data: filters that hold on every row, pages that add up to the
whole, lookups by name (missing, case, ambiguous), and arguments refused with what is allowed."""

from __future__ import annotations

import pytest

from stateforge.episode import Episode
from tests.packs.game.calls import ok, player_id, refused, scalar
from tests.packs.game.conftest import Cast

pytestmark = pytest.mark.xdist_group("game_pack")


def test_hero_search_applies_every_filter_and_pages_cover_the_roster(reader: Episode):
    found = ok(
        reader, "search_heroes", role="mage", lane="mid", sort_by="price_gold", descending=True, limit=50
    )
    expected = scalar(
        reader,
        "SELECT count(*) FROM heroes AS h JOIN hero_roles AS r USING (role_id) WHERE r.name = 'Mage' "
        "AND lane = 'mid'",
    )
    assert found["total"] == expected == len(found["rows"]) > 0
    assert all(r["role"] == "Mage" and r["lane"] == "mid" for r in found["rows"])
    prices = [r["price_gold"] for r in found["rows"]]
    assert prices == sorted(prices, reverse=True)

    first = ok(reader, "search_heroes", limit=50)
    second = ok(reader, "search_heroes", limit=50, offset=50)
    names = [r["name"] for r in first["rows"] + second["rows"]]
    assert first["total"] == 100 and len(names) == len(set(names)) == 100
    assert names == sorted(names)


def test_catalogue_lookups(reader: Episode, cast: Cast):
    hero = ok(reader, "get_hero", name="li bai")  # case-insensitive
    assert hero["name"] == "Li Bai" and "hero_id" not in hero
    assert len(hero["skins"]) == scalar(
        reader, "SELECT count(*) FROM skins JOIN heroes USING (hero_id) WHERE heroes.name = 'Li Bai'"
    )
    skins = ok(
        reader, "search_skins", rarity=["legendary", "mythic"], limited=False, sort_by="price_diamonds"
    )
    assert skins["total"] > 0 and {r["rarity"] for r in skins["rows"]} <= {"legendary", "mythic"}
    owned = ok(reader, "search_skins", owned_by=cast.social, limit=50)
    assert owned["total"] == scalar(
        reader, "SELECT count(*) FROM player_skins WHERE player_id = ?", [player_id(reader, cast.social)]
    )
    items = ok(reader, "search_items", category="attack", tier=3)
    assert items["rows"] and all(
        r["category"] == "attack" and r["tier"] == 3 and r["active"] for r in items["rows"]
    )
    runes = ok(reader, "list_runes", color="green")
    assert runes["total"] == 10 and {r["color"] for r in runes["runes"]} == {"green"}
    seasons = ok(reader, "list_seasons")["seasons"]
    assert [s["status"] for s in seasons].count("current") == 1 and seasons[-1]["status"] == "current"
    everything = ok(reader, "get_season_rewards", season="s36")["rewards"]
    at_gold = ok(reader, "get_season_rewards", season="S36 Azure Sky", tier="gold")["rewards"]
    assert at_gold and len(at_gold) < len(everything)
    assert {r["min_tier"] for r in at_gold} <= {"bronze", "silver", "gold"}


def test_profile_and_collection(reader: Episode, cast: Cast):
    me = ok(reader, "get_player", nickname=cast.leader)
    assert me["clan"]["clan"] == cast.clan and me["clan"]["role"] == "leader"
    assert me["can_play_ranked"] == (me["credit_score"] >= 90)
    banned = ok(reader, "get_player", nickname=cast.banned)
    assert banned["banned"] and not banned["can_play_ranked"]
    heroes = ok(
        reader, "list_player_heroes", player=cast.social, sort_by="win_rate", descending=True, limit=50
    )
    rates = [r["win_rate"] for r in heroes["rows"] if r["win_rate"] is not None]
    assert rates == sorted(rates, reverse=True) and heroes["total"] > 0
    skins = ok(reader, "list_player_skins", player=cast.social, equipped=True, limit=50)
    assert all(r["equipped"] and r["hero_owned"] for r in skins["rows"])
    tier = me["rank"]["tier"] if me["rank"] else "gold"
    players = ok(reader, "search_players", tier=tier, clan=cast.clan, limit=50)
    assert all(r["tier"] == tier for r in players["rows"])
    assert (cast.leader in [r["nickname"] for r in players["rows"]]) == (me["rank"] is not None)
    assert ok(reader, "search_players", banned=True, limit=50)["total"] == scalar(
        reader, "SELECT count(*) FROM players WHERE banned_until > TIMESTAMP '2026-06-30 23:59:59'"
    )


def test_social_clan_and_build_reads(reader: Episode, cast: Cast):
    me = player_id(reader, cast.social)
    friends = scalar(
        reader, "SELECT count(*) FROM friendships WHERE player_a_id = ? OR player_b_id = ?", [me, me]
    )
    pages, seen = [], set()
    offset = 0
    while True:  # "every friend" takes several pages of at most 50
        page = ok(
            reader,
            "list_friends",
            player=cast.social,
            sort_by="intimacy",
            descending=True,
            limit=50,
            offset=offset,
        )
        pages.append(page)
        seen |= {r["nickname"] for r in page["rows"]}
        offset += 50
        if offset >= page["total"]:
            break
    assert len(pages) >= 2 and len(seen) == friends == pages[0]["total"]
    assert ok(reader, "list_friends", player=cast.social, min_intimacy=1000)["total"] == scalar(
        reader,
        "SELECT count(*) FROM friendships WHERE (player_a_id = ? OR player_b_id = ?) AND intimacy >= 1000",
        [me, me],
    )
    requests = ok(reader, "list_friend_requests", player=cast.social)
    assert all(r["status"] == "pending" for r in requests["rows"])

    clan = ok(reader, "get_clan", clan=cast.clan)
    assert clan["leader"] == cast.leader and cast.elder in clan["elders"]
    members = ok(reader, "list_clan_members", clan=clan["tag"].lower(), limit=50)
    assert members["total"] == clan["members"] and members["rows"][0]["role"] == "leader"
    open_clans = ok(reader, "search_clans", recruiting=True, has_room=True, sort_by="members", limit=50)
    assert all(c["is_recruiting"] and c["members"] < c["max_members"] for c in open_clans["rows"])

    builds = ok(reader, "search_builds", with_item="Boots", official=True, limit=50)
    assert all(b["author"] == "official" and "Boots" in b["items"] and b["is_public"] for b in builds["rows"])


def test_mail_and_match_history(reader: Episode, cast: Cast):
    mail = ok(reader, "search_mail", player=cast.social, with_unclaimed_rewards=True, limit=50)
    assert mail["total"] > 0
    assert all(any(not r["claimed"] for r in m["rewards"]) for m in mail["rows"])
    assert all(m["expires_at"] > "2026-06-30T23:59:59" for m in mail["rows"])

    wins = ok(reader, "search_matches", player=cast.social, result="win", limit=50)
    assert wins["total"] > 0 and {m["result"] for m in wins["rows"]} == {"win"}
    stats = ok(reader, "get_player_stats", player=cast.social)
    assert stats["wins"] == wins["total"]
    assert stats["matches"] == ok(reader, "search_matches", player=cast.social)["total"]
    match = ok(reader, "get_match", match_id=wins["rows"][0]["match_id"])
    assert len(match["blue"]) == len(match["red"]) == 5
    assert cast.social in [p["nickname"] for p in match["blue"] + match["red"]]
    history = ok(reader, "get_rank_history", player=cast.social, descending=False, limit=50)
    assert [r["seq_no"] for r in history["rows"]] == list(range(1, history["total"] + 1))
    assert history["current"]["tier"] == history["rows"][-1]["tier"]


def test_missing_names_list_candidates(reader: Episode, cast: Cast):
    error = refused(reader, "get_player", cast.social, nickname=cast.social[:5])
    assert "Players whose nickname contains it" in error
    assert ok(reader, "get_player", nickname=cast.social.upper())["nickname"] == cast.social
    refused(reader, "get_hero", "no hero named 'Li Ba'", "Did you mean Li Bai", name="Li Ba")
    refused(reader, "get_clan", "no clan named or tagged", clan="No Such Clan")
    refused(reader, "get_season_rewards", "no season 'S99'", "S28 Dawn of Heroes", season="S99")
    refused(reader, "get_match", "no match 999999", match_id=999999)
    refused(reader, "list_rune_pages", "no player with the nickname", player="nobody-at-all")


def test_ambiguous_names_ask_which_one(ep: Episode, cast: Cast):
    twin = cast.social.upper()
    ep.connection.execute(  # a second account whose nickname differs only by case (set up behind the tools)
        "INSERT INTO players (player_id, nickname, server_region, created_at) VALUES (999001, ?, 'eu', "
        "TIMESTAMP '2025-01-01 00:00:00')",
        [twin],
    )
    assert ok(ep, "get_player", nickname=twin)["nickname"] == twin  # exact spelling still wins
    refused(
        ep,
        "get_player",
        "2 players are called",
        cast.social,
        twin,
        "Which player do you mean?",
        nickname=cast.social.title(),
    )
    first = ep.query("SELECT skin_id, name, hero_id FROM skins ORDER BY skin_id LIMIT 1")[0]
    ep.connection.execute(  # names are nearly all distinct: give a skin of another hero the same name
        "UPDATE skins SET name = ? WHERE skin_id = (SELECT min(skin_id) FROM skins WHERE hero_id <> ?)",
        [first["name"], first["hero_id"]],
    )
    shared = ep.query(
        "SELECT name FROM skins GROUP BY name HAVING count(DISTINCT hero_id) > 1 ORDER BY name LIMIT 1"
    )
    assert shared, "two heroes have a skin of one name"
    refused(
        ep,
        "equip_skin",
        "heroes have a skin named",
        "Give the hero too",
        player=cast.social,
        skin=shared[0]["name"],
    )
    ok(ep, "create_rune_page", player=cast.loner, name="Jungle")
    ep.connection.execute(
        "INSERT INTO rune_pages (page_id, player_id, page_no, name, is_default, created_at) SELECT 999001, "
        "player_id, 7, 'jungle', FALSE, TIMESTAMP '2026-01-01 00:00:00' FROM players WHERE nickname = ?",
        [cast.loner],
    )
    refused(
        ep,
        "rename_rune_page",
        "2 rune pages named 'Jungle'",
        "page 1 and page 7",
        "Give its number",
        player=cast.loner,
        page="Jungle",
        new_name="Jungle Rush",
    )
    assert (
        ok(ep, "rename_rune_page", player=cast.loner, page="7", new_name="Jungle Rush")["old_name"]
        == "jungle"
    )


def test_bad_arguments_name_the_parameter_and_what_is_allowed(reader: Episode, cast: Cast):
    refused(
        reader, "search_heroes", "unknown argument 'rol'", 'Did you mean "role"', kind="arguments", rol="Mage"
    )
    refused(reader, "search_heroes", "argument 'lane'", "'farm'", kind="arguments", lane="top")
    refused(
        reader,
        "list_friends",
        "argument 'limit' must be at most 50",
        kind="arguments",
        player=cast.social,
        limit=51,
    )
    refused(reader, "get_match", "argument 'match_id' must be an integer", kind="arguments", match_id="12")
    refused(
        reader,
        "search_matches",
        "argument 'started_after' must be a date",
        kind="arguments",
        player=cast.social,
        started_after="last week",
    )
    refused(reader, "search_mail", "missing required argument 'player'", kind="arguments")
    refused(reader, "get_rank_history", "'tier'", kind="arguments", player=cast.social, tier="gold")
