"""Serving MCP over streamable HTTP at `http://HOST:PORT/mcp`, in a background thread of this process.

    with serve_mcp("artifacts/music/music.duckdb", port=0) as handle:    # any free port
        handle.url                    # http://127.0.0.1:41234/mcp
        handle.sessions               # every session: its id, episode, call log, when it opened and ended
    # closed: the server stopped, every session's episode closed

    with Episode.open(db) as ep, serve_mcp(ep) as handle:    # an evaluation harness: the agent's session(s)
        ...                                                   # act on `ep`, which the harness then grades

The port is bound before the server starts, so a port in use is a `ServeError` at once (the CLI exits 2).
The server is uvicorn on its own event loop; its sessions are the SDK's streamable HTTP sessions, each with
its own episode (`server.py`), ended by the client's DELETE, by `idle_timeout` without a request, by
eviction when `max_sessions` are open and a new client comes (the session idle longest, once idle
`evict_idle` seconds: `runner.EndOnDelete`), or when the server stops.
"""

from __future__ import annotations

import logging
from pathlib import Path

from stateforge.episode import Episode
from stateforge.mcp.errors import ServeError
from stateforge.mcp.runner import EndOnDelete, HttpRunner, bind
from stateforge.mcp.server import McpService
from stateforge.mcp.sessions import SessionRecord, Sessions
from stateforge.mcp.target import Target, episode_target, load_target
from stateforge.tools import Toolkit
from stateforge.tools.actor import Actor

log = logging.getLogger(__name__)

PATH = "/mcp"
JSON_RESPONSE = True
"""Answer each POST with a JSON body, not an SSE stream: a tool call sends nothing before its result (no
progress, no logging, no requests to the client), and a plain response saved ~1 ms a call (an embedded
read, the two kinds of server side by side: 4.5 ms against 5.6 ms)."""
IDLE_TIMEOUT = 5 * 60.0
"""Seconds without a request after which a session ends (its episode closed). Shorter than the SDK's 30
minutes: many clients never send DELETE (the TypeScript SDK's `client.close()`, both Inspector CLIs), and
each such run would hold a database copy for the whole timeout."""
MAX_SESSIONS = 64
"""Open sessions at once, by default: each holds a database copy and a DuckDB instance (the SDK allows
10,000, which would fill a disk with copies of a large database)."""
EVICT_IDLE = 60.0
"""With `max_sessions` open, a new session ends the session idle longest, once it has been idle this many
seconds (a client between two calls, or thinking, keeps its session); None never ends one early."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class McpHandle:
    """A running streamable HTTP server: where it listens, its sessions, and `close()`."""

    def __init__(self, runner: HttpRunner, sessions: Sessions, host: str, port: int) -> None:
        self._runner = runner
        self._sessions = sessions
        self.host = host
        self.port = port

    @property
    def url(self) -> str:
        """The MCP endpoint, as a client on this machine reaches it."""
        host = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(self.host, self.host)
        return f"http://{f'[{host}]' if ':' in host else host}:{self.port}{PATH}"

    @property
    def target(self) -> Target:
        """What is served: the database, its domain and toolkit."""
        return self._sessions.target

    @property
    def sessions(self) -> list[SessionRecord]:
        """Every session so far (live and ended), in the order they opened."""
        return self._sessions.records

    @property
    def episode(self) -> Episode | None:
        """The episode of the latest session (the shared one, when serving an episode), or None."""
        if self._sessions.shared is not None:
            return self._sessions.shared
        records = self.sessions
        return records[-1].episode if records else None

    @property
    def running(self) -> bool:
        """Whether the server is still serving."""
        return self._runner.running

    def close(self) -> None:
        """End every session (their episodes closed), then stop serving. Idempotent."""
        self._runner.stop()
        self._sessions.close_all()

    def __enter__(self) -> McpHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"McpHandle({self.url}, {len(self.sessions)} sessions)"


def serve_mcp(
    source: str | Path | Episode,
    *,
    transport: str = "http",
    host: str = "127.0.0.1",
    port: int = 0,
    persist: bool = False,
    pack: str | Path | None = None,
    toolkit: Toolkit | None = None,
    workdir: str | Path | None = None,
    keep: bool = False,
    idle_timeout: float | None = IDLE_TIMEOUT,
    max_sessions: int = MAX_SESSIONS,
    evict_idle: float | None = EVICT_IDLE,
    actor: Actor | str | None = None,
    plan: tuple[str, ...] = (),
) -> McpHandle:
    """Serve a built database (or an open `Episode`) over streamable HTTP in a background thread.

    `source`: a database file, each session getting its own copy (`workdir`, `keep` as `Episode.open`),
    or the file itself with `persist` (one session at a time); or an `Episode` the caller opened and
    closes, which every session then shares. `port=0` takes any free port (`handle.url` says which).
    `max_sessions`: open sessions at once (each holds a copy and a DuckDB instance); when full, a new
    session ends the one idle longest if it has been idle `evict_idle` seconds, else it is refused with
    HTTP 503 until one ends. `idle_timeout`: seconds without a request before a session ends.
    `pack`/`toolkit`: the tools, as `load_target`; `actor`: who every session acts as (`--as`; an open
    `Episode` acts as its own). `plan`: a task's plan in words, added to the instructions (an open
    `Episode` served to an evaluated agent, `--with-plan`). Over stdio the process's own stdin/stdout are the
    transport: run `stateforge mcp DB` as a child process (the SDK's `StdioServerParameters`) instead.
    """
    if transport != "http":
        raise ServeError(
            f"serve_mcp runs streamable HTTP in a background thread; transport {transport!r} is not that. "
            "For stdio, start `stateforge mcp DB` as a child process (it is the session) and connect with "
            "mcp.StdioServerParameters; to inspect its writes, give it a copy of the database and --persist."
        )
    if isinstance(source, Episode):
        if persist or toolkit is not None or pack is not None or actor is not None:
            raise ServeError(
                "serving an open Episode uses its own file, tools and actor: drop persist, pack, toolkit "
                "and actor."
            )
        sessions = Sessions(episode_target(source, plan=plan), shared=source)
    else:
        if plan:
            raise ServeError("a plan is told about one task's episode: serve an open Episode with it.")
        target = load_target(source, pack=pack, toolkit=toolkit, actor=actor)
        sessions = Sessions(target, persist=persist, workdir=workdir, keep=keep)
    sock = bind(host, port)
    if host not in LOOPBACK:
        log.warning(
            "listening on %s: anyone who reaches this port can call the tools (there is no authentication).",
            host,
        )
    bound = sock.getsockname()[1]
    server = McpService(sessions.target, sessions, transport="http").server()
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        host=host,
        session_idle_timeout=idle_timeout,
        max_sessions=max_sessions,
        json_response=JSON_RESPONSE,
    )
    gate = EndOnDelete(app, sessions, max_sessions=max_sessions, evict_idle=evict_idle)
    runner = HttpRunner(server.session_manager, gate, sock)
    try:
        runner.start()
    except BaseException:
        sessions.close_all()
        raise
    return McpHandle(runner, sessions, host, bound)
