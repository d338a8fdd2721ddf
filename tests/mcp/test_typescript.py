"""The server under the official TypeScript SDK's client (issue 20): what the Python SDK's tests check,
seen from a client nobody on the team wrote. Installed once into a cache (tests/mcp/typescript.py);
skipped, with the reason, where npm cannot reach its registry.

- stdio: every line the server cannot parse is answered (a JSON-RPC parse error), and the session goes on;
- HTTP: clients that close without DELETE (the SDK's `client.close()`) cannot fill the server;
- HTTP: a refused --persist session holds no slot, and each refused client is told why;
- tools/list: the annotations (destructiveHint derived from what each tool does) as the SDK reads them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from stateforge.mcp import serve_mcp
from tests.mcp.conftest import STATEFORGE
from tests.mcp.test_stdio import BAD_LINES
from tests.mcp.typescript import TypescriptSdk, typescript_sdk

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def sdk() -> TypescriptSdk:
    return typescript_sdk()


def test_stdio_answers_every_bad_line_to_the_typescript_client(
    sdk: TypescriptSdk, shop_db: Path, tmp_path: Path
):
    got = sdk.run(
        "stdio-lines",
        STATEFORGE,
        "mcp",
        str(shop_db),
        env={
            "BAD_LINES": json.dumps([*BAD_LINES.values(), '{"id": 900, "jsonrpc": "1.0"}']),
            "TOOL": "get_carrier",
            "ARGS": '{"carrier_id": 2}',
            "TMPDIR": str(tmp_path),
        },
    )
    codes = [a["error"]["code"] for a in got["answers"]]
    assert codes == [-32700] * len(BAD_LINES) + [-32600], got["answers"]
    assert all(a["id"] is None for a in got["answers"][:-1]) and got["answers"][-1]["id"] == 900
    assert got["call"]["structuredContent"]["carrier_id"] == 2  # the session survived them


def test_typescript_clients_that_never_send_delete_cannot_fill_the_server(
    sdk: TypescriptSdk, shop_db: Path, tmp_path: Path
):
    with serve_mcp(shop_db, port=0, workdir=tmp_path, max_sessions=2, evict_idle=0.0) as handle:
        got = sdk.run("http-sessions", handle.url, "5", "get_carrier", '{"carrier_id": 2}')
        live = [r for r in handle.sessions if r.live]
        evicted = handle._runner._app.evicted
    assert [r["ok"] for r in got["runs"]] == [True] * 5, got["runs"]
    assert all(r["structured"]["carrier_id"] == 2 for r in got["runs"])
    assert len(live) <= 2 and evicted >= 3


def test_a_refused_persist_session_tells_the_typescript_client_why(
    sdk: TypescriptSdk, shop_db: Path, tmp_path: Path
):
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)
    with serve_mcp(target, port=0, persist=True, max_sessions=2) as handle:
        got = sdk.run("http-refused", handle.url, "4", "create_carrier", '{"name": "Held"}')
        opened = len(handle.sessions)
    assert got["held"]["isError"] is False
    for attempt in got["attempts"]:
        assert attempt["ok"] is False and "one session at a time" in attempt["message"], attempt
        assert "Too many open sessions" not in attempt["message"]
    assert opened == 1


def test_the_typescript_client_reads_destructive_hints_derived_from_each_tool(
    sdk: TypescriptSdk, game_db: Path, tmp_path: Path
):
    serve = (STATEFORGE, "mcp", "game", "--db", str(game_db))
    got = sdk.run("tools-stdio", *serve, env={"TMPDIR": str(tmp_path)})
    hints = {t["name"]: t["annotations"] for t in got["tools"]}
    for additive in ("buy_heroes", "buy_skins", "join_clan", "create_clan", "send_mail"):
        assert hints[additive]["destructiveHint"] is False and hints[additive]["readOnlyHint"] is False
    for destructive in ("leave_clan", "delete_builds", "equip_skin", "disband_clan"):
        assert hints[destructive]["destructiveHint"] is True
    assert hints["get_player"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
