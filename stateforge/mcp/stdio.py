"""Serving MCP over stdin/stdout: the process is the session, with one episode opened at start.

    run_stdio(target)                 # until stdin closes, or SIGINT / SIGTERM

Logs go to stderr only: stdout carries the protocol. SIGINT and SIGTERM stop the server cleanly (the
episode is closed, its copy deleted, persisted writes checkpointed) and the process exits 0. For that, a
pipe on stdin (how every MCP client starts a server) is read by the event loop itself (`StdinLines`), not
by a worker thread blocked in `readline`, which no signal could interrupt.
"""

from __future__ import annotations

import logging
import os
import signal
import stat
import sys
from pathlib import Path

import anyio
from mcp.server.stdio import stdio_server

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
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(_stop_on_signal, tg.cancel_scope)
            async with stdio_server(stdin=stdin) as (read_stream, write_stream):  # type: ignore[arg-type]
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
