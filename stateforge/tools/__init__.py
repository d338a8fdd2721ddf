"""The tool framework: typed, documented functions a solver may call, and the toolkits that hold them.

    from stateforge.tools import Env, Expr, ToolError, tool

    @tool(kind="write", reads=("users",), writes=("playlists",))
    def create_playlist(env: Env, owner: str, name: str, is_public: bool = True) -> dict:
        '''Create a playlist for a user.

        Args:
            owner: The owner's username.
            name: The playlist's name, 1 to 100 characters.
            is_public: Whether other users can find it.
        '''
        user = env.one("SELECT user_id FROM users WHERE username = ?", [owner])
        if user is None:
            raise ToolError(f"no user named {owner!r}")
        return env.insert("playlists", {"owner_id": user["user_id"], "name": name, "is_public": is_public,
                                        "created_at": env.now})

`Tool` (the argument model, JSON schema, declared kind and tables), `Env` (reads with parameters, the frozen
clock, and the only write path, which enforces the model's foreign keys), `Toolkit` (tools by name, the
OpenAI and MCP listings, coverage), `load_toolkit` (a pack's tools.py, else `generic_toolkit`). Episodes
(`stateforge.episode`) run the calls. The guide for writing a pack's tools is docs/tools.md.
"""

from __future__ import annotations

from stateforge.tools.base import Tool, tool
from stateforge.tools.context import Changes, Expr
from stateforge.tools.env import Env
from stateforge.tools.errors import (
    ArgumentError,
    CallCancelled,
    ConstraintError,
    RuleError,
    ToolDefinitionError,
    ToolError,
    UnknownToolError,
)
from stateforge.tools.generic import generic_toolkit, generic_tools
from stateforge.tools.loader import load_toolkit, toolkit_for
from stateforge.tools.toolkit import CANNOT_COMPLETE, Coverage, Toolkit, cannot_complete

__all__ = [
    "CANNOT_COMPLETE",
    "ArgumentError",
    "CallCancelled",
    "Changes",
    "ConstraintError",
    "Coverage",
    "Env",
    "Expr",
    "RuleError",
    "Tool",
    "ToolDefinitionError",
    "ToolError",
    "Toolkit",
    "UnknownToolError",
    "cannot_complete",
    "generic_toolkit",
    "generic_tools",
    "load_toolkit",
    "tool",
    "toolkit_for",
]
