"""The MCP server of a target: its tools listed from the toolkit, and each call run on its session's episode.

    service = McpService(target, sessions, transport="http")
    server = service.server()          # an `mcp.server.lowlevel.Server`, for stdio or streamable HTTP

Built on the SDK's low-level server: the tools and their JSON schemas are the toolkit's own
(`toolkit.mcp_tools()`, annotations from each tool's kind), never declared again here. A call runs in a
worker thread (`Episode.call` is blocking DuckDB work), so sessions do not wait for one another. Whatever
goes wrong with the call itself (bad arguments, an unknown tool, a `ToolError`, a constraint, a rule) comes
back as a tool result with `isError: true` and the message; protocol errors are kept for protocol
problems.

Cancellation (`notifications/cancelled`, or the request's connection ending): a call that has not
committed is rolled back whole (`tools/env.py`, `cancellable`: checked at each of its reads and writes and
once more before the commit), and, as the protocol says, gets no answer; one that had committed stays
committed. Either way it is in the session's log (a cancelled one as a failed call saying so).

Sessions (`sessions.py`): on HTTP each session gets its episode when it initialises and loses it when the
session ends (DELETE, idle timeout, eviction when full, server stop), through the SDK's per-connection
`exit_stack`. The 2026-07-28 protocol has no sessions, so the HTTP server does not offer it (no
`server/discover`: the SDK's client then falls back to the initialize handshake) and refuses a call made
without a session. Over stdio the process is the session: one episode, opened at start.
"""

from __future__ import annotations

import functools
import logging
import threading
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

import stateforge
from stateforge.episode import Episode, ToolResult
from stateforge.errors import StateforgeError
from stateforge.mcp.sessions import SessionRecord, Sessions
from stateforge.mcp.target import Target
from stateforge.tools.env import cancellable

log = logging.getLogger(__name__)

Transport = Literal["stdio", "http"]
STDIO_SESSION = "stdio"
"""The one session of a stdio server: the process."""

NO_SESSION = (
    "this server gives every MCP session its own episode of the database, and a request without a "
    "session (the stateless 2026-07-28 protocol) has none to run in. Connect with the initialize "
    "handshake (protocol 2025-11-25; mcp.Client's default mode 'auto' falls back to it here)."
)


class McpService:
    """The request handlers of one server over `target`; `server()` assembles the SDK server."""

    def __init__(self, target: Target, sessions: Sessions, *, transport: Transport) -> None:
        self.target = target
        self.sessions = sessions
        self.transport = transport
        self.tools = [types.Tool.model_validate(entry) for entry in target.toolkit.mcp_tools()]

    def server(self) -> Server[Any]:
        """The SDK server: tools/list, tools/call, instructions; on HTTP, sessions opened at initialize."""
        server: Server[Any] = Server(
            f"stateforge-{self.target.name}",
            version=stateforge.__version__,
            title=f"Stateforge: {self.target.name}",
            instructions=self.target.instructions,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
        )
        if self.transport == "http":
            server.add_request_handler("server/discover", types.RequestParams, _no_discover)
            server.middleware.append(self.open_on_initialize)
        return server

    async def list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        """Every tool of the toolkit, in its order, with its schema and annotations."""
        return types.ListToolsResult(tools=self.tools)

    async def call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        """Run the call on the session's episode; a failed call is a result with `isError`."""
        episode = await self._episode(ctx)
        cancelled = threading.Event()

        def call() -> ToolResult:
            with cancellable(cancelled):
                return episode.call(params.name, params.arguments)

        try:
            # abandoned on cancellation: the thread then finds `cancelled` set and rolls the call back
            result = await anyio.to_thread.run_sync(call, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            log.info(
                "tools/call %s (request %s) cancelled: rolled back unless it had already committed",
                params.name,
                ctx.request_id,
            )
            raise
        except StateforgeError as exc:  # the episode is gone (the session is ending): not the call's fault
            raise MCPError(code=types.INTERNAL_ERROR, message=str(exc)) from None
        if result.infra_error:
            log.warning("tool %s failed inside Stateforge: %s", params.name, result.error)
        return call_result(result)

    async def open_on_initialize(self, ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        """Middleware: give an HTTP session its episode when it initialises (or refuse the session)."""
        if ctx.method != "initialize":
            return await call_next(ctx)
        connection = connection_of(ctx)
        session_id = connection.session_id
        if session_id is None:  # stateless HTTP: nothing lives past the request
            return await call_next(ctx)
        await self._open(connection, session_id)
        try:
            return await call_next(ctx)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(self.sessions.close, session_id)
            raise

    async def _episode(self, ctx: ServerRequestContext[Any]) -> Episode:
        if self.transport == "stdio":
            record = self.sessions.get(STDIO_SESSION)
            if record is None:
                raise MCPError(code=types.INTERNAL_ERROR, message="the server is stopping: no episode.")
            return record.episode
        connection = connection_of(ctx)
        if connection.session_id is None:
            raise MCPError(code=types.INVALID_REQUEST, message=NO_SESSION)
        record = self.sessions.get(connection.session_id)
        if record is None:  # opened at initialize, so closed since: never a fresh state in mid-session
            raise MCPError(
                code=types.INVALID_REQUEST,
                message="this session's episode is closed (the server is stopping); connect again.",
            )
        return record.episode

    async def _open(self, connection: Connection, session_id: str) -> SessionRecord:
        try:
            record = await anyio.to_thread.run_sync(self.sessions.open, session_id)
        except StateforgeError as exc:
            log.warning("session %s refused: %s", session_id[:12], exc)
            raise MCPError(code=types.INVALID_REQUEST, message=f"session refused: {exc}") from None
        connection.exit_stack.push_async_callback(
            functools.partial(anyio.to_thread.run_sync, self.sessions.close, session_id)
        )
        return record


def call_result(result: ToolResult) -> types.CallToolResult:
    """A `ToolResult` as an MCP tool result: the text an agent is shown, and its facts as structured content.

    The text is `result.content()`, exactly what an in-process solver is shown (canonical JSON, or
    `error: <why>`). `structuredContent` is the tool's value (always a JSON object: the episode refuses any
    other) or, for a failed call, `result.error_fields()`: `error`, `kind`, and `policy`, `rule`,
    `argument` where known, the same for every pack (docs/tools.md, "Errors"). `_meta` carries the rows
    changed per table (or the error's kind), for harnesses that watch the calls.
    """
    text = [types.TextContent(type="text", text=result.content())]
    if not result.ok:
        return types.CallToolResult(
            content=text,
            is_error=True,
            structured_content=result.error_fields(),
            meta={"stateforge/error_kind": result.error_kind},
        )
    return types.CallToolResult(
        content=text,
        structured_content=result.value,
        meta={"stateforge/changes": result.changes},
    )


def connection_of(ctx: ServerRequestContext[Any]) -> Connection:
    """The per-client `Connection` of a request: its session id and its teardown `exit_stack`.

    SDK 2.3 hands low-level handlers a `ServerRequestContext` whose session wraps the connection but does
    not expose it publicly yet (its own `Context.connection` is not built for low-level handlers); `mcp`
    is pinned exactly, and this is the one place that reaches for it.
    """
    connection = getattr(ctx.session, "_connection", None)
    if not isinstance(connection, Connection):
        raise RuntimeError(
            "the mcp SDK no longer keeps the connection on ServerSession._connection; update "
            "stateforge/mcp/server.py:connection_of for the installed mcp version."
        )
    return connection


async def _no_discover(ctx: ServerRequestContext[Any], params: types.RequestParams) -> types.DiscoverResult:
    """`server/discover` is the 2026-07-28 probe: answering it would make clients drop sessions."""
    raise MCPError(
        code=types.METHOD_NOT_FOUND,
        message="server/discover is not served: this server keeps a session per client; use initialize.",
    )
