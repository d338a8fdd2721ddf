"""`stateforge mcp` over stdio: the real console script as a child process, driven by the SDK's client.

The process is the session: one episode, a copy deleted at exit (base file unchanged), or with --persist
the file itself (one writer: a second server on it fails at start, exit 2). SIGTERM stops it cleanly. The
pack test serves the game pack's own tools.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest
from mcp import Client, StdioServerParameters

from stateforge.mcp import load_target
from tests.episode.fixture import sha256
from tests.mcp.conftest import STATEFORGE

pytestmark = pytest.mark.slow


def params(*args: str | Path, tmp: Path) -> StdioServerParameters:
    """`stateforge mcp ARGS...` with its episode copies under `tmp` (TMPDIR)."""
    return StdioServerParameters(command=STATEFORGE, args=["mcp", *map(str, args)], env={"TMPDIR": str(tmp)})


def test_a_stdio_session_lists_calls_and_leaves_the_base_unchanged(shop_db: Path, tmp_path: Path):
    before = sha256(shop_db)

    async def session() -> dict[str, Any]:
        async with Client(params(shop_db, tmp=tmp_path)) as client:
            return {
                "instructions": client.instructions,
                "tools": (await client.list_tools()).tools,
                "read": await client.call_tool("get_carrier", {"carrier_id": 2}),
                "write": await client.call_tool("update_carrier", {"carrier_id": 2, "name": "Parcel"}),
                "reread": await client.call_tool("get_carrier", {"carrier_id": 2}),
                "refused": await client.call_tool("delete_category", {"code": "NOPE"}),
            }

    got = anyio.run(session)
    kit = load_target(shop_db).toolkit
    assert [t.name for t in got["tools"]] == kit.names
    assert all(t.input_schema == kit[t.name].parameters for t in got["tools"])
    assert got["instructions"].startswith("A small shop for the episode and tool tests.")
    assert got["read"].is_error is False and got["read"].structured_content["carrier_id"] == 2
    assert got["write"].is_error is False
    assert got["write"].meta["stateforge/changes"] == {"carriers": {"updated": 1}}
    assert got["reread"].structured_content["name"] == "Parcel"
    assert got["refused"].is_error is True
    assert "no categories row with code 'NOPE'" in got["refused"].content[0].text
    assert sha256(shop_db) == before
    copies = list((tmp_path / "stateforge-episodes").glob("*.duckdb"))
    assert not copies, "the episode copy outlived the process"


def test_persist_one_writer_at_a_time_and_sigterm_stops_cleanly(shop_db: Path, tmp_path: Path):
    """A raw JSON-RPC client on the pipes: a write, a second server on the file refused, then SIGTERM."""
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)
    proc = subprocess.Popen(
        [STATEFORGE, "mcp", str(target), "--persist"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()

    try:
        hello = {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert json.loads(proc.stdout.readline())["result"]["serverInfo"]["name"] == "stateforge-shop"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        call = {"name": "create_carrier", "arguments": {"name": "Before SIGTERM"}}
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call})
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and answer["result"]["isError"] is False
        second = subprocess.run(
            [STATEFORGE, "mcp", str(target), "--persist"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
        )
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert second.returncode == 2, second.stderr
    assert "Another process has" in second.stderr
    assert "one process at a time writes a database" in second.stderr
    assert "Traceback" not in second.stderr and second.stdout == ""
    assert proc.returncode == 0, err
    assert "SIGTERM: stopping" in err and "Traceback" not in err
    assert out == ""  # nothing but protocol messages ever reaches stdout
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM carriers WHERE name = 'Before SIGTERM'").fetchall() == [(1,)]


def test_a_pack_is_served_with_its_own_tools_and_policies(game_db: Path, tmp_path: Path):
    with duckdb.connect(str(game_db), read_only=True) as con:
        [(loner,)] = con.execute(
            "SELECT nickname FROM players WHERE banned_until IS NULL AND player_id NOT IN "
            "(SELECT player_id FROM clan_members) ORDER BY player_id LIMIT 1"
        ).fetchall()
        [(open_clan,)] = con.execute(
            "SELECT tag FROM clans AS c WHERE is_recruiting AND (SELECT count(*) FROM clan_members AS m "
            "WHERE m.clan_id = c.clan_id) < max_members ORDER BY clan_id LIMIT 1"
        ).fetchall()
        [(closed_clan,)] = con.execute(
            "SELECT tag FROM clans WHERE NOT is_recruiting ORDER BY clan_id LIMIT 1"
        ).fetchall()

    async def session() -> dict[str, Any]:
        async with Client(params("game", "--db", game_db, tmp=tmp_path)) as client:
            return {
                "instructions": client.instructions,
                "tools": [t.name for t in (await client.list_tools()).tools],
                "profile": await client.call_tool("get_player", {"nickname": loner}),
                "closed": await client.call_tool("join_clan", {"player": loner, "clan": closed_clan}),
                "joined": await client.call_tool("join_clan", {"player": loner, "clan": open_clan}),
            }

    got = anyio.run(session)
    target = load_target(game_db)
    assert got["tools"] == target.toolkit.names and "join_clan" in got["tools"]
    assert got["instructions"].startswith(" ".join(target.config.description.split()))
    for policy in target.config.policies:
        assert " ".join(policy.description.split()) in got["instructions"]
    assert got["profile"].is_error is False and got["profile"].structured_content["nickname"] == loner
    assert got["closed"].is_error is True and "is not recruiting" in got["closed"].content[0].text
    assert got["closed"].meta["stateforge/error_kind"] == "tool"
    assert got["joined"].is_error is False, got["joined"].content[0].text
    assert got["joined"].meta["stateforge/changes"] == {"clan_members": {"inserted": 1}}


BAD_LINES = {
    "a lone surrogate": '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_carrier",'
    '"arguments":{"q":"\\ud800x"}}}',
    "200-deep nesting": '{"jsonrpc":"2.0","id":6,"method":"ping","params":{"a":'
    + "[" * 200
    + "]" * 200
    + "}}",
    "a 5,000-digit integer": '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_carrier",'
    '"arguments":{"carrier_id":' + "9" * 5000 + "}}}",
    "truncated JSON": '{"jsonrpc":"2.0","id":8,"method":"tools/ca',
}


def test_every_line_stdio_cannot_parse_is_answered_with_a_json_rpc_error(shop_db: Path, tmp_path: Path):
    """Each bad line gets -32700 (id null), JSON that is no message -32600 with its id, each logged; the
    session goes on (a call after them is answered)."""
    proc = subprocess.Popen(
        [STATEFORGE, "mcp", str(shop_db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"TMPDIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert proc.stdin is not None and proc.stdout is not None

    def ask(line: str) -> dict[str, Any]:
        proc.stdin.write(line + "\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())

    try:
        hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw"}}
        hello["clientInfo"]["version"] = "0"
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
        assert "result" in ask(json.dumps(init))
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n\n")
        answers = {what: ask(line) for what, line in BAD_LINES.items()}
        not_rpc = ask('{"id": 9, "jsonrpc": "1.0"}')
        call = {"name": "get_carrier", "arguments": {"carrier_id": 2}}
        after = ask(json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": call}))
        out, err = proc.communicate(timeout=60)  # closes stdin: the session ends
    finally:
        if proc.poll() is None:
            proc.kill()
    for what, answer in answers.items():
        assert answer["id"] is None and answer["error"]["code"] == -32700, (what, answer)
        assert answer["error"]["message"].startswith("Parse error: "), (what, answer)
    assert "recursion limit" in answers["200-deep nesting"]["error"]["message"]
    assert not_rpc["id"] == 9 and not_rpc["error"]["code"] == -32600
    assert after["id"] == 10 and after["result"]["structuredContent"]["carrier_id"] == 2
    assert err.count("answered -32700") == 4 and err.count("answered -32600") == 1, err
    assert proc.returncode == 0 and "Traceback" not in err and out == ""
