"""The game toolkit as a whole: loaded for the pack, documented, covering every table a task may change, and
a tour that calls every tool successfully in one episode (which proves each tool's declared reads and
writes: the episode checks them at every call). The policies' checks hold before and after the tour."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stateforge.domain import DomainPack
from stateforge.episode import Episode
from stateforge.tools import CANNOT_COMPLETE, Toolkit, load_toolkit
from tests.packs.game.calls import ok, scalar
from tests.packs.game.conftest import Cast

pytestmark = pytest.mark.xdist_group("game_pack")

READ_ONLY = {
    "hero_roles",
    "heroes",
    "skins",
    "items",
    "runes",
    "seasons",
    "season_rewards",
    "rewards",
    "rank_history",
    "matches",
    "match_participants",
    "match_events",
}
"""Filled by the build (the catalogue) or by the game servers (matches, ranks): no player action writes them.
"""


def test_the_pack_loads_its_own_toolkit(kit: Toolkit):
    again = load_toolkit("game")
    assert again.names == kit.names and kit.name == "game"
    assert 40 <= len(kit) - 1 <= 60 and kit.names[-1] == CANNOT_COMPLETE
    kinds = {t.kind for t in kit}
    assert kinds == {"read", "write"}
    for tool in kit:
        assert tool.description and tool.parameters["additionalProperties"] is False
        for name, prop in tool.parameters["properties"].items():
            assert prop.get("description"), f"{tool.name}.{name} is undocumented"
        if tool.kind == "write" and tool.name != CANNOT_COMPLETE:
            assert tool.annotations["readOnlyHint"] is False and tool.idempotent is not None


def test_every_table_a_task_may_change_is_writable(pack: DomainPack, kit: Toolkit):
    coverage = kit.coverage(pack.schema)
    assert set(coverage.unwritable) == READ_ONLY
    assert not coverage.unread


Step = tuple[str, "dict[str, Any] | Callable[[dict[str, Any]], dict[str, Any]]"]


def _tour(cast: Cast, ep: Episode) -> list[Step]:
    """One successful call of every tool, in an order where each finds the state it needs. An argument
    list may be a function of `state`: what earlier calls returned (the new build, the new friend)."""
    me, rich = cast.social, cast.rich
    pid = scalar(ep, "SELECT player_id FROM players WHERE nickname = ?", [rich])
    hero = ep.query(
        "SELECT h.name, (SELECT s.name FROM skins AS s WHERE s.hero_id = h.hero_id AND NOT s.is_limited "
        "ORDER BY s.skin_id LIMIT 1) AS skin FROM heroes AS h WHERE h.hero_id NOT IN (SELECT hero_id FROM "
        "player_heroes WHERE player_id = ?) AND EXISTS (SELECT 1 FROM skins AS s WHERE s.hero_id = h.hero_id "
        "AND NOT s.is_limited) ORDER BY h.price_diamonds, h.hero_id LIMIT 1",
        [pid],
    )[0]
    sender = ep.query(
        "SELECT p.nickname FROM friend_requests AS r JOIN players AS p ON p.player_id = r.sender_id JOIN "
        "players AS q ON q.player_id = r.recipient_id WHERE q.nickname = ? AND r.status = 'pending' ORDER "
        "BY r.request_id LIMIT 1",
        [me],
    )[0]["nickname"]
    match = scalar(
        ep,
        "SELECT match_id FROM match_participants JOIN players USING (player_id) WHERE nickname = ? "
        "ORDER BY match_id LIMIT 1",
        [me],
    )
    official = scalar(
        ep, "SELECT build_id FROM hero_builds WHERE player_id IS NULL AND is_public ORDER BY build_id LIMIT 1"
    )
    season = scalar(
        ep,
        "SELECT s.name FROM seasons AS s JOIN rank_history AS r ON CAST(r.recorded_at AS DATE) BETWEEN "
        "s.starts_on AND s.ends_on JOIN players AS p USING (player_id) WHERE p.nickname = ? AND s.ends_on < "
        "DATE '2026-06-30' AND EXISTS (SELECT 1 FROM season_rewards AS sr WHERE sr.season_id = s.season_id "
        "AND sr.min_tier = 'bronze') ORDER BY s.season_id LIMIT 1",
        [me],
    )
    return [
        ("search_heroes", {"role": "Tank", "not_owned_by": me, "owned_by": rich}),
        ("get_hero", {"name": hero["name"]}),
        ("search_skins", {"hero": hero["name"], "owned_by": me}),
        ("search_items", {"name_contains": "boots"}),
        ("list_runes", {}),
        ("list_seasons", {}),
        ("get_season_rewards", {"season": season}),
        ("get_player", {"nickname": me}),
        ("search_players", {"clan": cast.clan, "invited_by": me, "last_login_before": "2026-01-01"}),
        ("list_player_heroes", {"player": me, "role": "Mage"}),
        ("list_player_skins", {"player": me, "hero": hero["name"]}),
        ("buy_heroes", {"player": rich, "heroes": [hero["name"]], "currency": "diamonds"}),
        ("buy_skins", {"player": rich, "skins": [{"skin": hero["skin"], "hero": hero["name"]}]}),
        ("equip_skin", {"player": rich, "skin": hero["skin"], "hero": hero["name"]}),
        ("unequip_skin", {"player": rich, "hero": hero["name"]}),
        ("list_rune_pages", {"player": me}),
        ("create_rune_page", {"player": me, "name": "Tour", "runes": [{"rune": "Calamity", "quantity": 4}]}),
        ("rename_rune_page", {"player": me, "page": "Tour", "new_name": "Tour Page"}),
        ("set_default_rune_page", {"player": me, "page": "Tour Page"}),
        (
            "add_runes_to_page",
            {"player": me, "page": "Tour Page", "runes": [{"rune": "Valor", "quantity": 2}]},
        ),
        ("remove_runes_from_page", {"player": me, "page": "Tour Page", "runes": ["Valor"]}),
        ("delete_rune_pages", {"player": me, "pages": ["Tour Page"]}),
        ("search_builds", {"hero": hero["name"], "author": me, "player": me, "with_item": "Boots"}),
        (
            "create_build",
            {"player": me, "hero": hero["name"], "name": "Tour", "items": ["Boots", "Doomsday"]},
        ),
        ("copy_build", {"player": me, "build_id": official}),
        (
            "update_build",
            lambda s: {
                "player": me,
                "build_id": s["build_id"],
                "is_public": False,
                "items": ["Swift Boots", "Doomsday"],
            },
        ),
        (
            "replace_build_item",
            {"player": me, "old_item": "Doomsday", "new_item": "Master Sword", "hero": hero["name"]},
        ),
        ("delete_builds", {"player": me, "hero": hero["name"]}),
        ("list_friends", {"player": me, "relation": "friend"}),
        ("list_friend_requests", {"player": me, "direction": "outgoing", "status": "any"}),
        ("send_friend_requests", {"player": me, "to": [cast.loner], "message": "GG"}),
        ("cancel_friend_requests", {"player": me, "recipients": [cast.loner]}),
        ("accept_friend_requests", {"player": me, "senders": [sender]}),
        ("set_friend_relation", {"player": me, "friend": sender, "relation": "close_friend"}),
        ("gift_skin", lambda s: _gift(ep, rich)),
        ("send_mail", {"player": me, "to": sender, "subject": "Welcome aboard"}),
        ("decline_friend_requests", {"player": me}),
        ("remove_friends", {"player": me, "friends": [sender]}),
        ("search_clans", {"name_contains": cast.clan[:3], "min_members": 1}),
        ("get_clan", {"clan": cast.clan}),
        ("list_clan_members", {"clan": cast.clan, "role": "member", "sort_by": "contribution"}),
        ("kick_clan_members", {"player": cast.elder, "members": [cast.member]}),
        ("set_clan_role", {"player": cast.leader, "members": [cast.elder], "role": "member"}),
        ("update_clan", {"player": cast.leader, "description": "Tour", "is_recruiting": True}),
        ("transfer_clan_leadership", {"player": cast.leader, "new_leader": cast.elder}),
        ("leave_clan", {"player": cast.leader}),
        ("join_clan", {"player": cast.leader, "clan": cast.open_clan}),
        ("disband_clan", {"player": cast.elder}),
        ("create_clan", {"player": cast.elder, "name": "Tour Clan", "tag": "TOUR"}),
        ("search_mail", {"player": me, "unread": True}),
        ("mark_mail_read", {"player": me, "category": "system"}),
        ("claim_mail_rewards", {"player": me}),
        ("delete_mail", {"player": me, "read_only": True, "sent_before": "2026-06-01"}),
        ("claim_season_rewards", {"player": me, "season": season}),
        ("search_matches", {"player": me, "mode": "ranked", "season": "S39", "result": "win"}),
        ("get_match", {"match_id": match}),
        ("get_player_stats", {"player": me, "season": "S39", "mode": "ranked"}),
        ("get_rank_history", {"player": me, "season": season}),
        (CANNOT_COMPLETE, {"reason": "the tour is over"}),
    ]


def test_a_tour_calls_every_tool_successfully(ep: Episode, cast: Cast, kit: Toolkit, pack: DomainPack):
    checks = {p.name: p.check for p in pack.config.policies if p.check}
    assert len(checks) >= 4

    def broken() -> dict[str, int]:
        return {name: len(ep.query(sql)) for name, sql in checks.items() if ep.query(sql)}

    assert broken() == {}
    state: dict[str, Any] = {}
    called = []
    for tool, arguments in _tour(cast, ep):
        value = ok(ep, tool, **(arguments(state) if callable(arguments) else arguments))
        called.append(tool)
        if isinstance(value, dict):
            state.update({k: v for k, v in value.items() if k == "build_id" and "build_id" not in state})
    assert sorted(called) == sorted(kit.names)
    assert broken() == {}


def _gift(ep: Episode, giver: str) -> dict[str, Any]:
    """A gift `giver` can afford for one of their friends: a skin (not limited) the friend does not own yet,
    for a hero the friend owns."""
    skin = ep.query(
        "WITH me AS (SELECT player_id, diamonds FROM players WHERE nickname = ?), friends AS (SELECT "
        "player_b_id AS id FROM friendships WHERE player_a_id = (SELECT player_id FROM me) UNION ALL SELECT "
        "player_a_id FROM friendships WHERE player_b_id = (SELECT player_id FROM me)) SELECT p.nickname, "
        "s.name, h.name AS hero FROM friends AS f JOIN players AS p ON p.player_id = f.id JOIN "
        "player_heroes AS ph ON ph.player_id = f.id JOIN skins AS s ON s.hero_id = ph.hero_id JOIN heroes "
        "AS h ON h.hero_id = s.hero_id WHERE NOT s.is_limited AND s.price_diamonds <= (SELECT diamonds FROM "
        "me) AND s.skin_id NOT IN (SELECT skin_id FROM player_skins WHERE player_id = f.id) ORDER BY "
        "s.price_diamonds, p.nickname, s.skin_id LIMIT 1",
        [giver],
    )
    assert skin, f"{giver} can afford no skin for any friend"
    return {
        "player": giver,
        "friend": skin[0]["nickname"],
        "skin": skin[0]["name"],
        "hero": skin[0]["hero"],
        "message": "GG!",
    }


def test_the_pack_page_lists_every_tool_and_policy(kit: Toolkit, pack: DomainPack):
    page = (Path(__file__).resolve().parents[3] / "docs" / "packs" / "game.md").read_text()
    for tool in kit:
        if tool.name != CANNOT_COMPLETE:
            assert f"| `{tool.name}` | {tool.kind} |" in page, f"docs/packs/game.md does not list {tool.name}"
    for policy in pack.config.policies:
        assert f"| `{policy.name}`" in page
    reads = sum(t.kind == "read" for t in kit) - 1
    assert f"{len(kit) - 1} tools ({reads} read, {len(kit) - 1 - reads} write)" in page
