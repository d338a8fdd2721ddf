"""MCP under clients of every kind: p50 / p95 per call over HTTP and stdio, and the server's RSS after 80
sessions, closed with DELETE and abandoned without one.

    .venv/bin/python bench/mcp_sessions.py [--scale 0.05] [--calls 200] [--sessions 80] [--no-write]

Builds the music pack at --scale, then, against `stateforge mcp DB --transport http` and `stateforge mcp DB`
(stdio) as child processes with the default settings (idle timeout 300 s, 64 sessions, eviction of a
session idle 60 s when full):

1. calls: a read (`get_profile`) and a write (`update_profile`) --calls times each over HTTP and stdio
   through the SDK's client, interleaved call by call with in-process `Episode.call` (the ratios' baseline);
2. sessions closed: --sessions clients one after another (the SDK's client: initialize, one call, DELETE);
3. sessions abandoned: --sessions raw clients that initialize, call once and go without DELETE (as the
   TypeScript SDK's `client.close()` and the Inspector CLIs do), in a burst: beyond 64 the server refuses
   (503) until a session has been idle 60 s; then, 61 s later, --sessions // 5 more, which evict.

The server's RSS (`/proc/PID/status` VmRSS) is read after each phase, with its live sessions and episode
copies on disk. Writes "## MCP sessions and latency (bench/mcp_sessions.py)" of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
import tempfile
import threading
import time
from contextlib import AsyncExitStack
from importlib.metadata import version
from pathlib import Path
from typing import Any

import anyio
import httpx2
from _doc import bench_parser, publish
from mcp import Client, StdioServerParameters
from tools import median_p95, start_http_child

from stateforge.build import build_domain
from stateforge.episode import Episode
from stateforge.mcp.http import EVICT_IDLE, IDLE_TIMEOUT, MAX_SESSIONS

HEADING = "MCP sessions and latency (bench/mcp_sessions.py)"
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
WARMUP = 10
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}


def rss_mb(pid: int) -> float:
    """Resident memory of process `pid` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class ServerLog:
    """The server's stderr, drained in a thread (a full pipe would stall it); counts sessions opened and
    ended from its log lines."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[str] = []
        self._thread = threading.Thread(target=self._drain, args=(stream,), daemon=True)
        self._thread.start()

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(line)

    @property
    def live(self) -> int:
        """Sessions open now, by the log."""
        opened = sum(" opened: " in line for line in self.lines)
        return opened - sum(re.search(r" ended after \d+ calls", line) is not None for line in self.lines)

    @property
    def evicted(self) -> int:
        """Sessions ended to make room for a new one, by the log."""
        return sum("s idle: the server is full" in line for line in self.lines)


def copies(tmp: Path) -> int:
    """Episode copies on disk (the server's TMPDIR)."""
    return len(list((tmp / "stateforge-episodes").glob("*.duckdb")))


async def latency(db: Path, tmp: Path, url: str, calls: int) -> dict[str, dict[str, list[float]]]:
    """Per way, per tool: the wall ms of each call."""
    with Episode.open(db, workdir=tmp) as ep:
        users = [
            r["username"]
            for r in ep.query("SELECT username FROM users WHERE status = 'active' ORDER BY user_id LIMIT 50")
        ]
    async with AsyncExitStack() as stack:
        episode = stack.enter_context(Episode.open(db, workdir=tmp))
        stdio = await stack.enter_async_context(
            Client(StdioServerParameters(command=STATEFORGE, args=["mcp", str(db)], env={"TMPDIR": str(tmp)}))
        )
        http = await stack.enter_async_context(Client(url))

        async def in_process(tool: str, arguments: dict[str, Any]) -> None:
            assert episode.call(tool, arguments).ok

        def over(client: Client) -> Any:
            async def call(tool: str, arguments: dict[str, Any]) -> None:
                assert not (await client.call_tool(tool, arguments)).is_error

            return call

        ways = {"in-process (`Episode.call`)": in_process, "MCP HTTP": over(http), "MCP stdio": over(stdio)}
        scripts = {
            "read get_profile": lambda i: ("get_profile", {"username": users[i % len(users)]}),
            "write update_profile": lambda i: (
                "update_profile",
                {"username": users[i % len(users)], "display_name": f"Listener {i}"},
            ),
        }
        times: dict[str, dict[str, list[float]]] = {w: {k: [] for k in scripts} for w in ways}
        for kind, script in scripts.items():
            for i in range(WARMUP + calls):
                for way, call in ways.items():
                    started = time.perf_counter()
                    await call(*script(i))
                    if i >= WARMUP:
                        times[way][kind].append((time.perf_counter() - started) * 1000)
        return times


async def closed_sessions(url: str, n: int) -> int:
    """`n` SDK clients one after another, each ending its session with DELETE; how many succeeded."""
    done = 0
    for _ in range(n):
        async with Client(url) as client:
            result = await client.call_tool("list_plans", {})
            done += not result.is_error
    return done


def abandoned_sessions(url: str, n: int) -> dict[str, int]:
    """`n` raw clients that initialize, call once and leave without DELETE: how each went."""
    outcome = {"opened": 0, "refused 503": 0, "other": 0}
    with httpx2.Client(timeout=30) as http:
        for _ in range(n):
            init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO}
            opened = http.post(url, json=init, headers=HEADERS)
            if opened.status_code == 503:
                outcome["refused 503"] += 1
                continue
            if opened.status_code != 200:
                outcome["other"] += 1
                continue
            session = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
            http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
            call = {"name": "list_plans", "arguments": {}}
            request = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}
            answer = http.post(url, json=request, headers=session)
            outcome["opened" if answer.status_code == 200 else "other"] += 1
    return outcome


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--sessions", type=int, default=80)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as name:
        tmp = Path(name)
        build_domain("music", scale=args.scale, out=tmp / "build")
        db = tmp / "build" / "music.duckdb"
        size_mb = db.stat().st_size / 1e6
        server_tmp = tmp / "server"
        server_tmp.mkdir()
        child, url = start_http_child(db, server_tmp)
        log = ServerLog(child.stderr)

        def note(what: str, outcome: str = "") -> None:
            time.sleep(0.5)  # the last session's log lines
            memory.append((what, rss_mb(child.pid), log.live, copies(server_tmp), outcome))

        memory: list[tuple[str, float, int, int, str]] = []
        try:
            note("started")
            times = anyio.run(latency, db, tmp, url, args.calls)
            note(f"the latency runs ({2 * (WARMUP + args.calls)} calls a way)")
            done = anyio.run(closed_sessions, url, args.sessions)
            note(f"{args.sessions} sessions closed with DELETE", f"{done} of {args.sessions} calls answered")
            burst = abandoned_sessions(url, args.sessions)
            note(
                f"{args.sessions} sessions abandoned without DELETE, in a burst",
                ", ".join(f"{v} {k}" for k, v in burst.items()),
            )
            time.sleep(EVICT_IDLE + 1)
            late = abandoned_sessions(url, args.sessions // 5)
            note(
                f"{EVICT_IDLE + 1:.0f} s later, {args.sessions // 5} more abandoned",
                ", ".join(f"{v} {k}" for k, v in late.items()) + f"; {log.evicted} idle sessions evicted",
            )
        finally:
            child.terminate()
            child.wait(timeout=60)
    base = times["in-process (`Episode.call`)"]
    kinds = list(base)
    lines = [
        f"Command: `.venv/bin/python bench/mcp_sessions.py --scale {args.scale} --calls {args.calls} "
        f"--sessions {args.sessions}` ({dt.date.today().isoformat()}; {os.cpu_count()} cores shared with "
        f"other work, load average {os.getloadavg()[0]:.1f} at the end; mcp {version('mcp')}). The music "
        f"pack at scale {args.scale} ({size_mb:.1f} MB), its own tools; the "
        f"servers are `stateforge mcp` child processes with the defaults (idle timeout {IDLE_TIMEOUT:.0f} s, "
        f"{MAX_SESSIONS} sessions, a session idle {EVICT_IDLE:.0f} s evicted when full).",
        "",
        "| way | " + " | ".join(f"{k} p50 ms | p95 ms | p50 vs in-process" for k in kinds) + " |",
        "|---|" + "---:|---:|---:|" * len(kinds),
    ]
    for way, per_kind in times.items():
        cells = []
        for kind in kinds:
            p50, p95 = median_p95(per_kind[kind])
            cells.append(f"{p50:.2f} | {p95:.2f} | {p50 / median_p95(base[kind])[0]:.1f}x")
        lines.append(f"| {way} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "The HTTP server's memory and disk after each phase (RSS of the server process; live sessions by "
        "its log; episode copies in its temp folder, pooled ones included):",
        "",
        "| after | server RSS MB | vs started | live sessions | episode copies | outcome |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for what, rss, live, files, outcome in memory:
        lines.append(f"| {what} | {rss:.0f} | {rss / memory[0][1]:.2f}x | {live} | {files} | {outcome} |")
    publish(HEADING, lines, write=not args.no_write)


if __name__ == "__main__":
    main()
