"""Errors of the tool layer.

Two families, told apart by who must act:

- `ToolError` and its kinds are **data for the agent**: a bad argument, a row that does not exist, a write
  that would break a key or a rule. `Episode.call` returns them as a failed `ToolResult` (the call is rolled
  back) and the agent may try again differently. Tool code raises `ToolError("no playlist named 'x'")`.
- `ToolDefinitionError` is **a bug in a tool or a toolkit** (an undocumented parameter, an unknown table, a
  write outside `env.insert/update/delete`): it names the tool and what to fix. Raised while a toolkit is
  built, or returned as an `internal` failure when it only shows while a call runs.
"""

from __future__ import annotations

from stateforge.errors import StateforgeError, TerminalError


class ToolError(TerminalError):
    """A call cannot do what it was asked; the message is shown to the agent as is."""

    kind = "tool"


class ArgumentError(ToolError):
    """The arguments do not fit the parameters; the message names each bad one and what is allowed."""

    kind = "arguments"


class UnknownToolError(ToolError):
    """No tool of that name in the toolkit (the message suggests the closest names)."""

    kind = "unknown_tool"


class ConstraintError(ToolError):
    """A write would break a key, a foreign key, NOT NULL, CHECK or a length: nothing was written."""

    kind = "constraint"


class RuleError(ToolError):
    """A write would break one of the domain's rules (domain.yaml `rules`): the call was rolled back."""

    kind = "rule"


class ToolDefinitionError(StateforgeError):
    """A tool or a toolkit is written wrong; the message names the tool and the fix."""

    kind = "definition"
