"""What runs a streamable HTTP server in a thread: the listening socket, uvicorn with the SDK's session
manager on their own event loop, and the middleware that ends a session with its DELETE.

    sock = bind("127.0.0.1", 0)                      # ServeError for a port in use
    runner = HttpRunner(manager, EndOnDelete(app, sessions), sock)
    runner.start(); ...; runner.stop()
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
import threading
import time
from typing import Any

import anyio
import uvicorn
from mcp.server.streamable_http import MCP_SESSION_ID_HEADER
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

from stateforge.mcp.errors import ServeError
from stateforge.mcp.sessions import Sessions

log = logging.getLogger(__name__)

START_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


class EndOnDelete:
    """ASGI middleware around the SDK's app: how sessions end, and room for new ones.

    - A `DELETE` that ends a session is answered once the session's episode is closed. The SDK ends a
      session's connection (and so runs its teardown) only after answering the DELETE; a client that
      reconnects at once (with `persist`: to the same file) would otherwise race the episode's close. The
      answer is held back, not changed; the connection's own teardown then finds nothing to do.
    - A refused `initialize` leaves no session behind (`_open`).
    - When `max_sessions` are open, a request that opens a session first ends the session idle longest
      (no request in flight, none for `evict_idle` seconds at least), so that clients that never send
      DELETE (they are common: closing the TypeScript SDK's client only drops its connection) cannot fill
      the server until their idle timeouts. With none idle that long, the SDK answers 503 as before.
    """

    def __init__(
        self,
        app: Any,
        sessions: Sessions,
        *,
        max_sessions: int | None = None,
        evict_idle: float | None = None,
    ) -> None:
        self._app = app
        self._sessions = sessions
        self._max_sessions = max_sessions
        self._evict_idle = evict_idle
        self._in_flight: dict[str, int] = {}
        self._last_seen: dict[str, float] = {}
        """Per session id: requests being served now, and when the last one ended (`time.monotonic`)."""
        self.evicted = 0
        """Sessions ended to make room for a new one."""
        self.stopping = False
        """Set when the server begins to stop: every request from then on is answered 503 (the SDK's session
        manager is going away, and would answer 500 with a traceback)."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope.get("type") != "http":
            await self._app(scope, receive, send)
            return
        if self.stopping:
            await _stopping(send)
            return
        session_id = _session_header(scope.get("headers", ()))
        if scope.get("method") == "POST" and session_id is None:
            await self._make_room(scope)
            await self._open(scope, receive, send)
            return
        if scope.get("method") != "DELETE":
            if session_id is None:
                await self._app(scope, receive, send)
                return
            self._in_flight[session_id] = self._in_flight.get(session_id, 0) + 1
            try:
                await self._app(scope, receive, send)
            finally:
                left = self._in_flight.pop(session_id, 1) - 1
                if left > 0:
                    self._in_flight[session_id] = left
                self._last_seen[session_id] = time.monotonic()
            return
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


    async def _open(self, scope: Any, receive: Any, send: Any) -> None:
        """A request that opens a session: when its initialize was refused (no episode was opened for the
        session the SDK made), the session is ended at once and its id left out of the answer, so that a
        refused client holds no slot until the idle timeout."""
        held: list[Any] = []

        async def hold(message: Any) -> None:
            held.append(message)

        try:
            await self._app(scope, receive, hold)
        finally:
            start = next((m for m in held if m["type"] == "http.response.start"), None)
            session_id = _session_header(start.get("headers", ())) if start is not None else None
            if session_id is not None and self._sessions.get(session_id) is None:
                with anyio.CancelScope(shield=True):
                    await self._end_session(scope, session_id)
                log.info("session %s refused: ended at once", session_id[:12])
                start["headers"] = [(k, v) for k, v in start["headers"] if k != _SESSION_KEY]
            elif session_id is not None:
                self._last_seen[session_id] = time.monotonic()
            for message in held:
                await send(message)

    async def _make_room(self, scope: Any) -> None:
        """At `max_sessions` open: end the session idle longest, if one has been idle `evict_idle` s."""
        if self._max_sessions is None or self._evict_idle is None:
            return
        live = [r for r in self._sessions.records if r.live]
        for gone in set(self._last_seen) - {r.id for r in live}:  # ended by DELETE, idle timeout or refusal
            del self._last_seen[gone]
        if len(live) < self._max_sessions:
            return
        now = time.monotonic()
        idle = {
            r.id: now - self._last_seen.get(r.id, now)
            for r in live
            if r.id not in self._in_flight and r.id in self._last_seen
        }
        oldest = max(idle, key=idle.__getitem__, default=None)
        if oldest is None or idle[oldest] < self._evict_idle:
            return
        with anyio.CancelScope(shield=True):
            await self._end_session(scope, oldest)
            await anyio.to_thread.run_sync(self._sessions.close, oldest)
        self._last_seen.pop(oldest, None)
        self.evicted += 1
        log.info(
            "session %s ended after %.0f s idle: the server is full (%d sessions) and a new one connects",
            oldest[:12], idle[oldest], self._max_sessions,
        )

    async def _end_session(self, scope: Any, session_id: str) -> None:
        """End an SDK session through its own DELETE path (the SDK then forgets it and frees its slot)."""
        # only the host: the request at hand may be of another protocol era (its version header would
        # route the DELETE elsewhere) or carry a body
        headers = [(k, v) for k, v in scope.get("headers", ()) if k == b"host"]
        delete = {**scope, "method": "DELETE", "headers": [*headers, (_SESSION_KEY, session_id.encode())]}

        async def no_body() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def drop(message: Any) -> None:
            pass

        await self._app(delete, no_body, drop)


async def _stopping(send: Any) -> None:
    body = (
        b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,'
        b'"message":"the server is stopping; connect again later."}}'
    )
    headers = [(b"content-type", b"application/json"), (b"connection", b"close"), (b"retry-after", b"5")]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": body})


_SESSION_KEY = MCP_SESSION_ID_HEADER.lower().encode("latin-1")


def _session_header(headers: Any) -> str | None:
    return next((v.decode("latin-1") for k, v in headers if k.lower() == _SESSION_KEY), None)


class HttpRunner:
    """uvicorn and the SDK's session manager on an event loop of their own, in a daemon thread.

    The runner, not uvicorn's lifespan, holds the session manager: stopping ends the sessions first
    (their transports terminated, open GET streams answered, episodes closed), then uvicorn, which so
    finds no request left to cut off.
    """

    def __init__(self, manager: StreamableHTTPSessionManager, app: Any, sock: socket.socket) -> None:
        self._manager = manager
        self._app = app
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
            if hasattr(self._app, "stopping"):
                self._app.stopping = True  # from now on 503, while the sessions end
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

