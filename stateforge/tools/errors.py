"""Errors of the tool layer.

Two families, told apart by who must act:

- `ToolError` and its kinds are **data for the agent**: a bad argument, a row that does not exist, a write
  that would break a key, a rule or a policy. `Episode.call` returns them as a failed `ToolResult` (the call
  is rolled back) and the agent may try again differently. Tool code raises `ToolError("no playlist named
  'x'; search_playlists finds playlists by title", argument="playlist")`.
- `ToolDefinitionError` is **a bug in a tool or a toolkit** (an undocumented parameter, an unknown table, a
  write outside `env.insert/update/delete`, a refusal naming a policy domain.yaml does not have): it names
  the tool and what to fix. Raised while a toolkit is built, or returned as an `internal` failure when it
  only shows while a call runs.

Every `ToolError` carries its facts as fields, not only inside its text (`attrs()`): the argument at fault,
the policy (`PolicyRefusal`) or rule (`RuleError`) broken. A failed `ToolResult` and an MCP error result
hand them to the caller as fields (docs/tools.md, "Errors").
"""

from __future__ import annotations

from typing import Any

from stateforge.errors import StateforgeError, TerminalError


class ToolError(TerminalError):
    """A call cannot do what it was asked; the message is shown to the agent as is.

    `argument`: the parameter at fault, when one is (`"playlist"`), so a client can point at it.
    """

    kind = "tool"
    policy: str | None = None
    rule: str | None = None

    def __init__(self, message: str, *, argument: str | None = None) -> None:
        super().__init__(message)
        self.argument = argument

    def attrs(self) -> dict[str, Any]:
        """The error's facts as fields: `kind`, and `policy`, `rule`, `argument` where set."""
        facts = {"kind": self.kind, "policy": self.policy, "rule": self.rule, "argument": self.argument}
        return {k: v for k, v in facts.items() if v is not None}


class CallCancelled(ToolError):
    """The client cancelled the call before it committed: it is rolled back, and this is its result."""


class PolicyRefusal(ToolError):
    """The request breaks a product policy of domain.yaml `policies:`; `policy` is the policy's name.

    Raised by a pack's tools (`stateforge.tools.policies.refuse`); the name is checked against domain.yaml
    when the toolkit loads, and an infeasible task of kind `forbidden` names the policy its refusal comes
    from (the gate requires exactly that one).
    """

    def __init__(self, policy: str, message: str, *, argument: str | None = None) -> None:
        super().__init__(f"{message.rstrip('.')} (policy: {policy}).", argument=argument)
        self.policy = policy
        self.text = message


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
    """A write would break one of the domain's rules (domain.yaml `rules`): the call was rolled back.

    `rule`: the rule's name."""

    kind = "rule"

    def __init__(self, message: str, *, rule: str | None = None, argument: str | None = None) -> None:
        super().__init__(message, argument=argument)
        self.rule = rule


class ToolDefinitionError(StateforgeError):
    """A tool or a toolkit is written wrong; the message names the tool and the fix."""

    kind = "definition"
