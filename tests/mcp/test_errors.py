"""One error shape on every pack over MCP (issue 20 item 9), with the SDK's client.

Per pack, three failed calls: an argument of the wrong type, a lookup of something that does not exist, and
a refusal by a product policy. Each is an `isError` result whose `structuredContent` carries `error`, `kind`
and the argument at fault (and `policy` for the refusal); the text says what to send instead, and no
message names an internal type (an argument model's class).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest
from mcp import Client

from stateforge.mcp import serve_mcp
from tests.mcp.conftest import built
from tests.packs.errors import internal_names

GAME_NOW = "TIMESTAMP '2026-06-30 23:59:59'"
CASES: dict[str, dict[str, Any]] = {
    "music": {
        "find": {
            "active": "SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 1",
            "closed": "SELECT username FROM users WHERE status <> 'active' ORDER BY user_id LIMIT 1",
        },
        "wrong_type": ("like_songs", {"username": "{active}", "songs": ["x"]}, "songs", "must be an integer"),
        "not_found": ("create_playlist", {"username": "nobody_zz", "title": "Road"}, "username"),
        "refusal": ("create_playlist", {"username": "{closed}", "title": "Road"}, "active_accounts_only"),
    },
    "game": {
        "find": {
            "rich": "SELECT nickname FROM players WHERE banned_until IS NULL ORDER BY diamonds DESC LIMIT 1",
            "banned": f"SELECT nickname FROM players WHERE banned_until > {GAME_NOW} ORDER BY player_id",
            "clan": "SELECT tag FROM clans WHERE is_recruiting ORDER BY clan_id LIMIT 1",
        },
        "wrong_type": ("buy_skins", {"player": "{rich}", "skins": ["abc"]}, "skins", "must be an object"),
        "not_found": ("get_player", {"nickname": "Nobody_zz"}, "nickname"),
        "refusal": ("join_clan", {"player": "{banned}", "clan": "{clan}"}, "clan_membership"),
    },
    "meeting": {
        "find": {"me": "SELECT email FROM employees WHERE is_active ORDER BY employee_id LIMIT 1"},
        "wrong_type": (
            "schedule_meeting",
            {"organizer": "{me}", "title": "T", "start_at": "next Monday", "duration_minutes": 30},
            "start_at",
            "YYYY-MM-DDTHH:MM:SS",
        ),
        "not_found": ("book_desk", {"person": "nobody@nowhere.example", "date": "2026-04-02"}, "person"),
        "refusal": ("book_desk", {"person": "{me}", "date": "2026-05-30"}, "desk_booking"),
    },
    "library": {
        "find": {
            "card": "SELECT card_number FROM members ORDER BY member_id LIMIT 1",
            "lent": "SELECT barcode FROM copies WHERE status <> 'on_shelf' ORDER BY copy_id LIMIT 1",
        },
        "actor": "card",  # the library's tools act for the signed-in member (--as), named by card
        "wrong_type": ("borrow_copy", {"barcode": 5}, "barcode", "a string"),
        "not_found": ("borrow_copy", {"barcode": "NO-SUCH-COPY"}, "barcode"),
        "refusal": ("borrow_copy", {"barcode": "{lent}"}, "shelf_copies_only"),
    },
}


def _fill(arguments: dict[str, Any], found: dict[str, str]) -> dict[str, Any]:
    return {k: v.format(**found) if isinstance(v, str) else v for k, v in arguments.items()}


@pytest.mark.parametrize("pack", sorted(CASES))
def test_every_pack_fails_in_one_shape_over_mcp(pack: str, tmp_path: Path, tmp_path_factory: Any):
    db = built(tmp_path_factory, pack)
    case = CASES[pack]
    with duckdb.connect(str(db), read_only=True) as con:
        found = {name: con.execute(sql).fetchone()[0] for name, sql in case["find"].items()}

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            return {
                what: await client.call_tool(case[what][0], _fill(case[what][1], found))
                for what in ("wrong_type", "not_found", "refusal")
            }

    actor = found[case["actor"]] if "actor" in case else None
    with serve_mcp(db, port=0, workdir=tmp_path, actor=actor) as handle:
        got = anyio.run(session, handle.url)
        hidden = internal_names(handle.target.toolkit)
    for what, result in got.items():
        fields = result.structured_content
        assert result.is_error is True, (what, result.content[0].text)
        assert fields["error"] == result.content[0].text.removeprefix("error: "), what
        assert set(fields) <= {"error", "kind", "policy", "rule", "argument"}, fields
        assert not [name for name in hidden if name in fields["error"]], (what, fields["error"])
    wrong = got["wrong_type"].structured_content
    assert wrong["kind"] == "arguments" and wrong["argument"] == case["wrong_type"][2], wrong
    assert case["wrong_type"][3] in wrong["error"]
    missing = got["not_found"].structured_content
    assert missing["kind"] == "tool" and missing["argument"] == case["not_found"][2], missing
    refused = got["refusal"].structured_content
    assert refused["kind"] == "tool" and refused["policy"] == case["refusal"][2], refused
    assert f"(policy: {case['refusal'][2]})" in refused["error"]
