"""The MCP server: a built database's business tools for any MCP client, each session on its own episode.

    stateforge mcp music                              # stdio: the process is the session
    stateforge mcp music --transport http --port 8765 # streamable HTTP at http://127.0.0.1:8765/mcp

    from stateforge.mcp import serve_mcp
    with serve_mcp("artifacts/music/music.duckdb", port=0) as handle:   # a background thread
        handle.url, handle.sessions

`target.py` (the database, its toolkit and the instructions), `sessions.py` (an episode per session, or
the file itself with persist), `server.py` (the SDK server: tools/list, tools/call, results), `http.py`
(streamable HTTP in a thread, `McpHandle`; `runner.py` runs it), `stdio.py` (stdin/stdout until EOF or
a signal). The guide is docs/tools.md, "MCP server".
"""

from __future__ import annotations

from stateforge.mcp.errors import ServeError, SessionRefused
from stateforge.mcp.http import McpHandle, serve_mcp
from stateforge.mcp.server import McpService, call_result
from stateforge.mcp.sessions import SessionRecord, Sessions
from stateforge.mcp.stdio import run_stdio
from stateforge.mcp.target import Target, instructions, load_target, resolve_database

__all__ = [
    "McpHandle",
    "McpService",
    "ServeError",
    "SessionRecord",
    "SessionRefused",
    "Sessions",
    "Target",
    "call_result",
    "instructions",
    "load_target",
    "resolve_database",
    "run_stdio",
    "serve_mcp",
]
