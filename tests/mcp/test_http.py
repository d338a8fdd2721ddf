"""The MCP server over streamable HTTP: a real server on a loopback port, the SDK's own client.

Listing (names, schemas, annotations, instructions), calls (a read, a write, every kind of failure as a
tool result with isError), sessions (each on its own episode, isolated, closed when the session ends, or
after the idle timeout), --persist (the file written, a second session refused), a shared episode, the
stateless protocol refused, and a port in use.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import duckdb
import httpx2
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from stateforge.episode import Episode
from stateforge.episode.pool import POOL
from stateforge.mcp import ServeError, load_target, serve_mcp
from stateforge.mcp.server import NO_SESSION
from stateforge.values import dumps
from tests.episode.fixture import sha256
from tests.mcp.conftest import STATEFORGE


@pytest.fixture
def server(shop_db: Path, tmp_path: Path) -> Iterator[Any]:
    with serve_mcp(shop_db, port=0, workdir=tmp_path) as handle:
        yield handle


def cause(exc: BaseException) -> BaseException:
    """The error inside the client's task-group wrapping."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


def wait_until(condition: Any, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def test_lists_the_toolkits_tools_with_their_schemas_annotations_and_instructions(server: Any):
    kit = server.target.toolkit

    async def session() -> tuple[str, Any, str | None, list[Any]]:
        async with Client(server.url) as client:
            tools = (await client.list_tools()).tools
            return client.protocol_version, client.server_info, client.instructions, tools

    version, info, instructions, tools = anyio.run(session)
    assert version == "2025-11-25"  # the handshake: sessions exist
    assert [t.name for t in tools] == kit.names
    for listed in tools:
        assert listed.input_schema == kit[listed.name].parameters
        assert listed.description == kit[listed.name].description
    hints = {
        t.name: (
            t.annotations.read_only_hint,
            t.annotations.destructive_hint,
            t.annotations.idempotent_hint,
            t.annotations.open_world_hint,
        )
        for t in tools
    }
    assert hints["get_carrier"] == (True, False, True, False)
    assert hints["cannot_complete"] == (True, False, True, False)
    assert hints["create_carrier"] == (False, False, False, False)
    assert hints["update_carrier"] == (False, True, True, False)
    assert hints["delete_carrier"] == (False, True, True, False)
    assert info.name == "stateforge-shop"
    assert instructions.startswith("A small shop for the episode and tool tests.")
    assert server.target.now.date().isoformat() == "2025-12-31"  # the shop's time_window ends then
    assert server.target.now.isoformat() in instructions
    for schema_word in ("carrier_id", "order_lines", "CREATE", "REFERENCES"):
        assert schema_word not in instructions


def test_calls_a_read_and_a_write_tool_and_returns_failures_as_error_results(server: Any, shop_db: Path):
    before = sha256(shop_db)

    async def session() -> dict[str, Any]:
        async with Client(server.url) as client:
            calls = {
                "read": ("get_carrier", {"carrier_id": 1}),
                "write": ("create_carrier", {"name": "Zed"}),
                "reread": ("search_carriers", {"filters": [{"column": "name", "value": "Zed"}]}),
                "unknown": ("get_carier", {"carrier_id": 1}),
                "bad_type": ("get_carrier", {"carrier_id": "one"}),
                "missing": ("get_carrier", {}),
                "not_found": ("delete_carrier", {"carrier_id": 99}),
                "duplicate": ("create_carrier", {"name": "Zed"}),
            }
            return {label: await client.call_tool(*call) for label, call in calls.items()}

    got = anyio.run(session)
    read = got["read"]
    assert read.is_error is False
    assert read.structured_content == {"carrier_id": 1, "name": "DHL"}
    assert read.content[0].text == dumps({"carrier_id": 1, "name": "DHL"})
    write = got["write"]
    assert write.is_error is False and write.structured_content == {"carrier_id": 5, "name": "Zed"}
    assert write.meta["stateforge/changes"] == {"carriers": {"inserted": 1}}
    assert got["reread"].structured_content["total"] == 1
    expected = {
        "unknown": ("unknown_tool", 'no tool named "get_carier". Did you mean "get_carrier"?'),
        "bad_type": ("arguments", "argument 'carrier_id' must be an integer, got 'one'"),
        "missing": ("arguments", "missing required argument 'carrier_id'"),
        "not_found": ("tool", "no carriers row with carrier_id 99"),
        "duplicate": ("constraint", "a row with name 'Zed' already exists"),
    }
    for label, (kind, message) in expected.items():
        result = got[label]
        assert result.is_error is True, label
        assert result.content[0].text.startswith("error: ") and message in result.content[0].text, label
        assert result.meta["stateforge/error_kind"] == kind, label
    [record] = server.sessions
    assert not record.live, "the session's DELETE was answered before its episode closed"
    assert [c.tool for c in record.log] == [
        "get_carrier", "create_carrier", "search_carriers", "get_carier", "get_carrier", "get_carrier",
        "delete_carrier", "create_carrier",
    ]
    assert not record.path.exists() or POOL.holds(record.path), "the session's copy outlives it"
    assert sha256(shop_db) == before


def test_concurrent_sessions_are_isolated(server: Any, shop_db: Path):
    before = sha256(shop_db)

    async def two_sessions() -> dict[str, Any]:
        async with Client(server.url) as a, Client(server.url) as b:
            made_a = await a.call_tool("create_carrier", {"name": "OnlyA"})
            only_a = {"filters": [{"column": "name", "value": "OnlyA"}]}
            seen_by_b = await b.call_tool("search_carriers", only_a)
            made_b = await b.call_tool("create_carrier", {"name": "OnlyB"})
            names: dict[str, list[str]] = {"a": [], "b": []}

            async def burst(client: Client, label: str) -> None:
                for i in range(5):
                    row = {"code": f"{label}{i}", "name": f"{label} {i}"}
                    done = await client.call_tool("create_category", row)
                    assert done.is_error is False, done.content[0].text
                listing = await client.call_tool("search_categories", {"limit": 100})
                names[label] = sorted(r["code"] for r in listing.structured_content["rows"])

            async with anyio.create_task_group() as tg:
                tg.start_soon(burst, a, "a")
                tg.start_soon(burst, b, "b")
            live = [r.path for r in server.sessions if r.live]
            return {"a": made_a, "b_saw": seen_by_b, "b": made_b, "names": names, "live": live}

    got = anyio.run(two_sessions)
    assert got["a"].structured_content["carrier_id"] == 5
    assert got["b_saw"].structured_content["total"] == 0
    assert got["b"].structured_content == {"carrier_id": 5, "name": "OnlyB"}  # ids are per episode
    assert not any(code.startswith("b") for code in got["names"]["a"])
    assert not any(code.startswith("a") for code in got["names"]["b"])
    assert len(set(got["live"])) == 2
    assert not any(r.live for r in server.sessions), "a session outlived its DELETE"
    assert sha256(shop_db) == before


def test_persist_writes_the_file_one_session_at_a_time(shop_db: Path, tmp_path: Path):
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)

    async def sessions(url: str) -> tuple[BaseException | None, Any]:
        refused = None
        async with Client(url) as first:
            await first.call_tool("create_carrier", {"name": "Kept"})
            try:
                async with Client(url):
                    pass
            except BaseException as exc:  # noqa: BLE001 - the client wraps it in a group
                refused = cause(exc)
        async with Client(url) as later:  # the first ended: the file is free again
            kept = {"filters": [{"column": "name", "value": "Kept"}]}
            seen = await later.call_tool("search_carriers", kept)
        return refused, seen

    with serve_mcp(target, port=0, persist=True) as handle:
        refused, seen = anyio.run(sessions, handle.url)
    assert isinstance(refused, MCPError)
    assert "one session at a time" in str(refused) and str(target) in str(refused)
    assert seen.structured_content["total"] == 1
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("SELECT carrier_id FROM carriers WHERE name = 'Kept'").fetchall() == [(5,)]


def test_sessions_beyond_max_sessions_are_refused(shop_db: Path, tmp_path: Path):
    async def sessions(url: str) -> BaseException | None:
        async with Client(url):
            try:
                async with Client(url):
                    return None
            except BaseException as exc:  # noqa: BLE001 - the client wraps it in a group
                return cause(exc)

    with serve_mcp(shop_db, port=0, workdir=tmp_path, max_sessions=1) as handle:
        refused = anyio.run(sessions, handle.url)
        assert isinstance(refused, MCPError) and "Too many open sessions" in str(refused)
        assert len(handle.sessions) == 1


def test_a_shared_episode_receives_every_sessions_calls(shop_db: Path, tmp_path: Path):
    async def session(url: str) -> None:
        async with Client(url) as client:
            await client.call_tool("create_carrier", {"name": "Graded"})

    with Episode.open(shop_db, workdir=tmp_path) as ep:
        with serve_mcp(ep, port=0) as handle:
            anyio.run(session, handle.url)
            assert handle.episode is ep
        assert not ep.closed
        assert [c.tool for c in ep.log] == ["create_carrier"]
        assert ep.query("SELECT name FROM carriers WHERE carrier_id = 5") == [{"name": "Graded"}]


def test_stateless_requests_are_listed_but_not_run(server: Any):
    async def modern() -> tuple[list[str], BaseException | None]:
        async with Client(server.url, mode="2026-07-28") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            try:
                await client.call_tool("get_carrier", {"carrier_id": 1})
            except MCPError as exc:
                return names, exc
            return names, None

    names, refused = anyio.run(modern)
    assert names == server.target.toolkit.names
    assert isinstance(refused, MCPError) and NO_SESSION in str(refused)
    assert server.sessions == []


def test_an_abandoned_session_ends_after_the_idle_timeout(shop_db: Path, tmp_path: Path):
    with serve_mcp(shop_db, port=0, workdir=tmp_path, idle_timeout=0.3) as handle:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
        with httpx2.Client(timeout=10) as http:
            opened = http.post(handle.url, json=init, headers=headers)
            assert opened.status_code == 200
            session_id = opened.headers["mcp-session-id"]
        [record] = handle.sessions
        assert record.id == session_id and record.path.exists()
        wait_until(lambda: not record.live, "the idle session to end")  # no DELETE was sent
        assert not record.path.exists() or POOL.holds(record.path)  # deleted, or clean for the next one


def test_a_port_in_use_is_a_clear_error(shop_db: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        with pytest.raises(ServeError, match=f"port {port} on 127.0.0.1 is already in use"):
            serve_mcp(shop_db, port=port)
    with pytest.raises(ServeError, match="StdioServerParameters"):
        serve_mcp(shop_db, transport="stdio")


@pytest.mark.slow
def test_the_cli_serves_http_and_stops_cleanly_on_sigterm(shop_db: Path, tmp_path: Path):
    """With a client still connected: its session ends, its copy goes, exit 0 without a traceback."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [STATEFORGE, "mcp", str(shop_db), "--transport", "http", "--port", "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    try:
        line = ""
        while "serving" not in line:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the server exited before serving"
        url = re.search(r"http://127\.0\.0\.1:\d+/mcp", line)
        assert url is not None, line

        made: list[Any] = []

        async def connected_when_stopped() -> None:
            async with Client(url.group(0)) as client:
                made.append(await client.call_tool("create_carrier", {"name": "Live"}))
                proc.send_signal(signal.SIGTERM)
                await anyio.to_thread.run_sync(lambda: proc.wait(timeout=60))

        try:
            anyio.run(connected_when_stopped)
        except BaseException:  # noqa: BLE001 - the client may notice its server going away
            pass
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "Traceback" not in err and out == ""
    assert "ended after 1 calls" in err and "stopped after 1 session" in err
    assert made[0].is_error is False
    copies = list((tmp_path / "stateforge-episodes").glob("*.duckdb"))
    assert not copies, "an episode copy outlived the server"


def test_integers_beyond_64_bits_are_refused_with_the_bound_not_sql(server: Any):
    async def session() -> tuple[Any, Any]:
        async with Client(server.url) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            huge = await client.call_tool("search_carriers", {"offset": 9223372036854775808})
            return listed["search_carriers"].input_schema["properties"]["offset"], huge

    schema, huge = anyio.run(session)
    assert schema["maximum"] == 2**63 - 1 and schema["minimum"] == 0
    assert huge.is_error is True and huge.meta["stateforge/error_kind"] == "arguments"
    text = huge.content[0].text
    assert "'offset' must be at most 9223372036854775807" in text and "LIMIT" not in text


def test_a_refused_persist_session_holds_no_slot(shop_db: Path, tmp_path: Path):
    """max_sessions 2: one holder, then four refused attempts, each told the reason (never a 503)."""
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)

    async def attempt(url: str) -> BaseException | None:
        try:
            async with Client(url):
                return None
        except BaseException as exc:  # noqa: BLE001 - the client wraps it in a group
            return cause(exc)

    async def sessions(url: str) -> list[BaseException | None]:
        async with Client(url) as holder:
            await holder.call_tool("create_carrier", {"name": "Held"})
            return [await attempt(url) for _ in range(4)]

    with serve_mcp(target, port=0, persist=True, max_sessions=2) as handle:
        refusals = anyio.run(sessions, handle.url)
        assert [r.id for r in handle.sessions] and len(handle.sessions) == 1
    for refused in refusals:
        assert isinstance(refused, MCPError), refused
        assert "one session at a time" in str(refused) and "Too many open sessions" not in str(refused)


def test_a_request_while_the_server_stops_gets_503(shop_db: Path, tmp_path: Path, caplog: Any):
    """A call still running holds the stop (its episode closes after it); a request meanwhile gets 503."""
    import threading

    from stateforge.tools import Env, Toolkit, tool

    entered, release = threading.Event(), threading.Event()

    @tool
    def wait_here(env: Env) -> dict:
        """Wait until the test lets go."""
        entered.set()
        release.wait(30)
        return {"waited": True}

    handle = serve_mcp(shop_db, port=0, workdir=tmp_path, toolkit=Toolkit([wait_here], name="shop"))

    async def calling() -> None:
        async with Client(handle.url) as client:
            await client.call_tool("wait_here", {})

    caller = threading.Thread(target=lambda: _quietly(calling), daemon=True)
    caller.start()
    assert entered.wait(30)
    closer = threading.Thread(target=handle.close, daemon=True)
    closer.start()
    wait_until(lambda: handle._runner._app.stopping, "the server to begin stopping")
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
    with httpx2.Client(timeout=10) as http:
        late = http.post(handle.url, json=init, headers=headers)
    release.set()
    closer.join(30)
    caller.join(30)
    assert late.status_code == 503 and "stopping" in late.json()["error"]["message"]
    assert not handle.running
    assert "Traceback" not in caplog.text and "Task group is not initialized" not in caplog.text


def _quietly(fn: Any) -> None:
    try:
        anyio.run(fn)
    except BaseException:  # noqa: BLE001 - the client sees its server go away
        pass


def _abandon(url: str) -> str:
    """Open a session as a client that never sends DELETE (the TypeScript SDK, Inspector): its id."""
    with httpx2.Client(timeout=10) as http:
        opened = http.post(url, json=INIT, headers=HEADERS)
        assert opened.status_code == 200, opened.text
        return opened.headers["mcp-session-id"]


HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


def test_clients_that_never_send_delete_cannot_fill_the_server(shop_db: Path, tmp_path: Path):
    """max_sessions 2, five abandoned sessions in a row: each new one ends the session idle longest (its
    episode closed, its id then unknown), and the SDK's client still connects and calls."""

    async def session(url: str) -> Any:
        async with Client(url) as client:
            return await client.call_tool("get_carrier", {"carrier_id": 2})

    with serve_mcp(shop_db, port=0, workdir=tmp_path, max_sessions=2, evict_idle=0.0) as handle:
        abandoned = [_abandon(handle.url) for _ in range(5)]
        read = anyio.run(session, handle.url)
        records = {r.id: r for r in handle.sessions}
        with httpx2.Client(timeout=10) as http:
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            first = http.post(handle.url, json=ping, headers={**HEADERS, "mcp-session-id": abandoned[0]})
        assert handle._runner._app.evicted == 4
    assert read.is_error is False and read.structured_content["carrier_id"] == 2
    assert [records[i].live for i in abandoned[:-1]] == [False] * 4
    assert first.status_code == 404  # an ended session is unknown: the client initialises again
    assert defaults_survive_abandoned_clients()


def defaults_survive_abandoned_clients() -> bool:
    """The defaults: a shorter idle timeout than the SDK's 30 minutes, and eviction when full."""
    from stateforge.mcp.http import EVICT_IDLE, IDLE_TIMEOUT, MAX_SESSIONS

    return IDLE_TIMEOUT <= 300 and EVICT_IDLE is not None and EVICT_IDLE < IDLE_TIMEOUT and MAX_SESSIONS >= 8


def test_a_packs_destructive_hints_follow_what_each_tool_does(game_db: Path, tmp_path: Path):
    """Purchases and joins only add (not destructive); leaving, deleting and overwriting are."""

    async def listing(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            return {t.name: t.annotations for t in (await client.list_tools()).tools}

    with serve_mcp(game_db, port=0, workdir=tmp_path) as handle:
        listed = anyio.run(listing, handle.url)
        kit = handle.target.toolkit
    assert all(listed[t.name].destructive_hint is t.destroys for t in kit)
    for additive in ("buy_heroes", "buy_skins", "gift_skin", "join_clan"):
        assert listed[additive].destructive_hint is False, additive
    for destructive in ("leave_clan", "delete_builds", "rename_rune_page"):
        assert listed[destructive].destructive_hint is True, destructive


def test_a_cancelled_call_that_has_not_committed_is_rolled_back(shop_db: Path, tmp_path: Path, caplog: Any):
    """The SDK's client cancels a write while it runs (it sends notifications/cancelled): the row it had
    inserted is gone, the call is logged as cancelled, and the same call left alone commits."""
    import logging
    import threading

    from stateforge.tools import Env, Toolkit, tool

    caplog.set_level(logging.INFO, logger="stateforge.mcp")
    entered, release = threading.Event(), threading.Event()

    @tool(kind="write", writes=("carriers",))
    def slow_create(env: Env, name: str, wait: bool = True) -> dict:
        """Create a carrier, then wait until the test lets go.

        Args:
            name: The carrier's name.
            wait: Whether to wait.
        """
        row = env.insert("carriers", {"name": name})
        if wait:
            entered.set()
            release.wait(30)
        return row

    generic = [t for t in load_target(shop_db).toolkit if t.name != "cannot_complete"]
    kit = Toolkit([slow_create, *generic], name="shop")

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "slow_create", {"name": "Cancelled"})
                await anyio.to_thread.run_sync(entered.wait, 30)
                tg.cancel_scope.cancel()  # the client abandons the call: notifications/cancelled
            while "cancelled: rolled back" not in caplog.text:
                await anyio.sleep(0.02)
            release.set()
            kept = await client.call_tool("slow_create", {"name": "Kept", "wait": False})
            names = {"column": "name", "op": "in", "value": ["Cancelled", "Kept"]}
            found = await client.call_tool("search_carriers", {"filters": [names]})
            return {"kept": kept, "found": found}

    with serve_mcp(shop_db, port=0, workdir=tmp_path, toolkit=kit) as handle:
        got = anyio.run(session, handle.url)
        [record] = handle.sessions
        log = record.log
    assert got["kept"].is_error is False
    assert [r["name"] for r in got["found"].structured_content["rows"]] == ["Kept"]
    cancelled = next(c for c in log if c.arguments.get("name") == "Cancelled")
    assert cancelled.ok is False and "cancelled this call before it committed" in cancelled.error
    assert cancelled.changes == {}
