"""Serving MCP over stdin/stdout: the process is the session, with one episode opened at start.

    run_stdio(target)                 # until stdin closes, or SIGINT / SIGTERM

Logs go to stderr only: stdout carries the protocol. SIGINT and SIGTERM stop the server cleanly (the
episode is closed, its copy deleted, persisted writes checkpointed) and the process exits 0. For that, a
pipe on stdin (how every MCP client starts a server) is read by the event loop itself (`StdinLines`), not
by a worker thread blocked in `readline`, which no signal could interrupt.

Every line gets an answer, as JSON-RPC requires: a line that is not JSON (truncated, nested deeper than the
parser's limit of 200 levels, a number too long to read, an invalid escape such as a lone surrogate) is
answered `-32700 Parse error` with id null, and JSON that is no JSON-RPC message `-32600 Invalid Request`
(with the line's id when it has one), each logged to stderr (`AnsweredLines`). The SDK's own stdio reader
hands such lines to the server, which drops them unanswered: the client would wait out its timeout.
"""

from __future__ import annotations

import io
import logging
import os
import signal
import stat
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pydantic
import pydantic_core
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage

from stateforge.mcp.server import STDIO_SESSION, McpService
from stateforge.mcp.sessions import Sessions
from stateforge.mcp.target import Target

log = logging.getLogger(__name__)


def run_stdio(
    target: Target, *, persist: bool = False, workdir: str | Path | None = None, keep: bool = False
) -> Sessions:
    """Serve `target` over stdio until stdin closes or a signal arrives; the sessions, ended, afterwards.

    The episode opens before the first message is read, so a database that cannot be opened (with
    `persist`: one another server is writing) fails at start, with the reason, not at the first call.
    """
    sessions = Sessions(target, persist=persist, workdir=workdir, keep=keep)
    sessions.open(STDIO_SESSION)
    try:
        anyio.run(_serve, McpService(target, sessions, transport="stdio"))
    finally:
        sessions.close_all()
    return sessions


async def _serve(service: McpService) -> None:
    server = service.server()
    stdin = StdinLines.for_stdin()
    lines = AnsweredLines(stdin if stdin is not None else _blocking_lines())
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_on_signal, tg.cancel_scope)
            async with stdio_server(stdin=lines) as (read_stream, write_stream):  # type: ignore[arg-type]
                lines.answer_on(write_stream)
                await server.run(read_stream, write_stream, server.create_initialization_options())
            tg.cancel_scope.cancel()
    finally:
        if stdin is not None:
            stdin.restore()


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            log.info("%s: stopping", signal.Signals(signum).name)
            scope.cancel()
            return


class StdinLines:
    """The lines of a pipe, read by the event loop when it is readable: cancellable, unlike a blocked read.

    What `stdio_server(stdin=...)` iterates (`async for line in stdin`); the pipe is set non-blocking while
    served and restored afterwards.
    """

    CHUNK = 1 << 16

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._blocking = os.get_blocking(fd)
        os.set_blocking(fd, False)

    @classmethod
    def for_stdin(cls) -> StdinLines | None:
        """A reader of stdin when it is a pipe or a socket; None otherwise (the SDK's own reader then)."""
        try:
            fd = sys.stdin.fileno()
            mode = os.fstat(fd).st_mode
        except (AttributeError, OSError, ValueError):
            return None
        return cls(fd) if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) else None

    def __aiter__(self) -> StdinLines:
        return self

    async def __anext__(self) -> str:
        while b"\n" not in self._buffer:
            await anyio.wait_readable(self._fd)
            try:
                chunk = os.read(self._fd, self.CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                if not self._buffer:
                    raise StopAsyncIteration
                line, self._buffer = self._buffer, b""
                return line.decode("utf-8", errors="replace")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace") + "\n"

    def restore(self) -> None:
        """Give the pipe back its blocking mode."""
        try:
            os.set_blocking(self._fd, self._blocking)
        except OSError:
            pass  # already closed


class AnsweredLines:
    """The lines of stdin that are JSON-RPC messages; every other line is answered with an error and logged.

    What `stdio_server(stdin=...)` iterates. A line is checked with the SDK's own message adapter (the one
    its reader then parses the line with), so a line let through is one the server reads; blank lines are
    skipped. The answers go out on the transport's write stream (`answer_on`), between the server's own.
    """

    EXCERPT = 60

    def __init__(self, lines: Any) -> None:
        self._lines = lines.__aiter__()
        self._write: Any = None
        self._ready = anyio.Event()
        self.answered = 0
        """Lines answered with an error so far."""
        self._number = 0

    def answer_on(self, write_stream: Any) -> None:
        """Send the error answers on `write_stream` (the transport's, once it exists)."""
        self._write = write_stream
        self._ready.set()

    def __aiter__(self) -> AnsweredLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._lines.__anext__()
            self._number += 1
            if not line.strip():
                continue
            error = rejection(line)
            if error is None:
                return line
            self.answered += 1
            excerpt = line.strip()[: self.EXCERPT]
            log.warning(
                "stdin line %d (%d characters, %r%s): %s; answered %d",
                self._number,
                len(line.rstrip("\n")),
                excerpt,
                "..." if len(line.strip()) > self.EXCERPT else "",
                error.error.message,
                error.error.code,
            )
            await self._ready.wait()
            try:
                await self._write.send(SessionMessage(error))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass  # the server is stopping: nobody is left to answer


ONE_PER_LINE = "send one JSON-RPC message per line, as UTF-8 JSON."


def rejection(line: str) -> types.JSONRPCError | None:
    """The JSON-RPC error that answers `line`, or None when the line is a JSON-RPC message.

    Not JSON: `-32700 Parse error`, id null (the parser's reason and position in the message). JSON but not
    a JSON-RPC message: `-32600 Invalid Request`, with the line's id when it has a usable one.
    """
    try:
        types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        return None
    except pydantic.ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        if first["type"] == "json_invalid":
            reason = first["msg"].removeprefix("Invalid JSON: ")
            return _error(None, types.PARSE_ERROR, f"Parse error: {reason}; {ONE_PER_LINE}")
    except ValueError as exc:  # what the parser raises outside validation (a value it cannot hold)
        return _error(None, types.PARSE_ERROR, f"Parse error: {exc}; {ONE_PER_LINE}")
    try:
        value = pydantic_core.from_json(line)
    except ValueError:
        value = None
    found = value.get("id") if isinstance(value, dict) else None
    usable = isinstance(found, str) or (isinstance(found, int) and not isinstance(found, bool))
    request_id = found if usable else None
    return _error(
        request_id,
        types.INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 message (an object with \"jsonrpc\": \"2.0\" and a method, or "
        "a result or error with its id).",
    )


def _error(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))


async def _blocking_lines() -> AsyncIterator[str]:
    """Lines of a stdin that is not a pipe (a file, a terminal), read in a worker thread."""
    stream = anyio.wrap_file(io.TextIOWrapper(os.fdopen(os.dup(0), "rb"), encoding="utf-8", errors="replace"))
    async with stream:
        async for line in stream:
            yield line
