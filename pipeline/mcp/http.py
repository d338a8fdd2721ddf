"""Serving MCP over streamable HTTP at `http://HOST:PORT/mcp`, in a background thread of this process.

    with serve_mcp("artifacts/music/music.duckdb", port=0) as handle:    # any free port
        handle.url                    # http://127.0.0.1:41234/mcp
        handle.sessions               # every session: its id, episode, call log, when it opened and ended
    # closed: the server stopped, every session's episode closed

    with Episode.open(db) as ep, serve_mcp(ep) as handle:    # an evaluation harness: the agent's session(s)
        ...                                                   # act on `ep`, which the harness then grades

The port is bound before the server starts, so a port in use is a `ServeError` at once (the CLI exits 2).
The server is uvicorn on its own event loop; its sessions are the SDK's streamable HTTP sessions, each with
its own episode (`server.py`), ended by the client's DELETE, by `idle_timeout` without a request, or when
the server stops.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import uvicorn
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from pipeline.episode import Episode
from pipeline.mcp.errors import ServeError
from pipeline.mcp.server import McpService
from pipeline.mcp.sessions import SessionRecord, Sessions
from pipeline.mcp.target import Target, episode_target, load_target
from pipeline.tools import Toolkit

log = logging.getLogger(__name__)

PATH = "/mcp"
JSON_RESPONSE = True
"""Answer each POST with a JSON body, not an SSE stream: a tool call sends nothing before its result (no
progress, no logging, no requests to the client), and a plain response saves ~1 ms a call (20% of an
embedded read; bench/tools.py)."""
IDLE_TIMEOUT = 30 * 60.0
MAX_SESSIONS = 64
"""Open sessions at once, by default: each holds a database copy and a DuckDB instance (the SDK allows
10,000, which would fill a disk with copies of a large database)."""
LOOPBACK = ("127.0.0.1", "localhost", "::1")
"""Seconds without a request after which a session ends (its episode closed), as the SDK's default."""
START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


class McpHandle:
    """A running streamable HTTP server: where it listens, its sessions, and `close()`."""

    def __init__(self, runner: _Runner, sessions: Sessions, host: str, port: int) -> None:
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
) -> McpHandle:
    """Serve a built database (or an open `Episode`) over streamable HTTP in a background thread.

    `source`: a database file, each session getting its own copy (`workdir`, `keep` as `Episode.open`),
    or the file itself with `persist` (one session at a time); or an `Episode` the caller opened and
    closes, which every session then shares. `port=0` takes any free port (`handle.url` says which).
    `max_sessions`: open sessions at once (each holds a copy and a DuckDB instance); one more is refused
    with HTTP 503 until one ends.
    `pack`/`toolkit`: the tools, as `load_target`. Over stdio the process's own stdin/stdout are the
    transport: run `stateforge mcp DB` as a child process (the SDK's `StdioServerParameters`) instead.
    """
    if transport != "http":
        raise ServeError(
            f"serve_mcp runs streamable HTTP in a background thread; transport {transport!r} is not that. "
            "For stdio, start `stateforge mcp DB` as a child process (it is the session) and connect with "
            "mcp.StdioServerParameters; to inspect its writes, give it a copy of the database and --persist."
        )
    if isinstance(source, Episode):
        if persist or toolkit is not None or pack is not None:
            raise ServeError(
                "serving an open Episode uses its own file and tools: drop persist, pack and toolkit."
            )
        sessions = Sessions(episode_target(source), shared=source)
    else:
        target = load_target(source, pack=pack, toolkit=toolkit)
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
    runner = _Runner(server.session_manager, EndOnDelete(app, sessions), sock)
    try:
        runner.start()
    except BaseException:
        sessions.close_all()
        raise
    return McpHandle(runner, sessions, host, bound)


class EndOnDelete:
    """ASGI middleware: a `DELETE` that ends a session is answered once the session's episode is closed.

    The SDK ends a session's connection (and so runs its teardown) only after answering the DELETE; a
    client that reconnects at once (with `persist`: to the same file) would otherwise race the episode's
    close. The answer is held back, not changed; the connection's own teardown then finds nothing to do.
    """

    def __init__(self, app: Any, sessions: Sessions) -> None:
        self._app = app
        self._sessions = sessions

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http" or scope.get("method") != "DELETE":
            await self._app(scope, receive, send)
            return
        session_id = next(
            (v.decode("latin-1") for k, v in scope.get("headers", ()) if k == MCP_SESSION_ID_HEADER.encode()),
            None,
        )
        held: list[Any] = []

        async def hold(message: Any) -> None:
            held.append(message)

        try:
            await self._app(scope, receive, hold)
            ended = any(m["type"] == "http.response.start" and m["status"] < 300 for m in held)
            if session_id is not None and ended and self._sessions.get(session_id) is not None:
                await anyio.to_thread.run_sync(self._sessions.close, session_id)
        finally:
            for message in held:
                await send(message)


class _Runner:
    """uvicorn and the SDK's session manager on an event loop of their own, in a daemon thread.

    The runner, not uvicorn's lifespan, holds the session manager: stopping ends the sessions first
    (their transports terminated, open GET streams answered, episodes closed), then uvicorn, which so
    finds no request left to cut off.
    """

    def __init__(self, manager: StreamableHTTPSessionManager, app: Any, sock: socket.socket) -> None:
        self._manager = manager
        self._sock = sock
        self._server = uvicorn.Server(
            uvicorn.Config(
                app,
                lifespan="off",  # the session manager runs in `_main`
                log_config=None,  # the process's logging (stderr) decides; uvicorn's logs access to stdout
                access_log=False,
                loop="asyncio",
                timeout_graceful_shutdown=STOP_TIMEOUT,
            )
        )
        self._thread = threading.Thread(
            target=self._run, name=f"stateforge-mcp-{sock.getsockname()[1]}", daemon=True
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None

    @property
    def running(self) -> bool:
        return self._thread.is_alive() and not self._server.should_exit

    def start(self) -> None:
        """Start serving; `ServeError` if the server does not come up."""
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._server.started:
            if not self._thread.is_alive():
                raise ServeError("the MCP HTTP server failed to start; the log above says why.")
            if time.monotonic() > deadline:
                self.stop()
                raise ServeError(f"the MCP HTTP server did not start within {START_TIMEOUT:.0f} s.")
            time.sleep(0.005)

    def stop(self) -> None:
        """End the sessions, stop the server and wait for the thread (idempotent)."""
        loop, stop = self._loop, self._stop
        if loop is not None and stop is not None and self._thread.is_alive():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass  # the loop already closed
        self._thread.join(2 * STOP_TIMEOUT)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException:  # noqa: BLE001 - logged; the handle sees the thread end
            log.exception("the MCP HTTP server stopped with an error")
        finally:
            self._sock.close()

    async def _main(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        async with self._manager.run():
            serving = asyncio.create_task(self._server.serve(sockets=[self._sock]))
            stopped = asyncio.create_task(self._stop.wait())
            await asyncio.wait({serving, stopped}, return_when=asyncio.FIRST_COMPLETED)
        self._server.should_exit = True  # the sessions are over: nothing is left for uvicorn to wait for
        stopped.cancel()
        await serving


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on `host:port` (0: any free port); `ServeError` naming the port if taken."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as exc:
        raise ServeError(
            f"cannot listen on {host!r}: {exc.strerror}; give an address like 127.0.0.1."
        ) from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # not for a port in use, only TIME_WAIT
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ServeError(
                f"port {port} on {host} is already in use (another `stateforge mcp`?); choose another "
                "with --port, or --port 0 for any free port."
            ) from None
        raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror}.") from None
    return sock

