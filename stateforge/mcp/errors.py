"""The MCP server's errors: a server that cannot start, a session that cannot be opened."""

from __future__ import annotations

from stateforge.errors import TerminalError


class ServeError(TerminalError):
    """The server cannot start as asked: no such database, a port in use, a transport it cannot serve."""


class SessionRefused(ServeError):
    """A session cannot be opened: with `--persist`, another session is already writing the database."""
