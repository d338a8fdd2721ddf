"""`ToolResult`: what one call returned, as the agent, the log and the evaluation see it.

A boundary object (it goes to MCP clients, LLM transcripts and run logs), so a pydantic model with
`extra="forbid"`; `value` and `arguments` hold canonical JSON values (`stateforge.values`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.values import dumps

ErrorKind = Literal["unknown_tool", "arguments", "tool", "constraint", "rule", "definition", "internal"]


class ToolResult(BaseModel):
    """One call: the tool, its arguments, and either its value or why it failed (nothing was changed)."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: Any = Field(default_factory=dict)
    """As the caller sent them (JSON values)."""
    ok: bool
    value: Any = None
    """The tool's result as JSON values (None when the call failed)."""
    error: str | None = None
    """Why the call failed, for the agent to read; None when it succeeded."""
    error_kind: ErrorKind | None = None
    """`arguments`, `unknown_tool`, `tool` (the tool refused), `constraint`, `rule`: the agent's to fix;
    `definition` and `internal`: a bug in the tool or the system (an infrastructure error)."""
    policy: str | None = None
    """The product policy (domain.yaml `policies:`) that refused the call, when one did."""
    rule: str | None = None
    """The domain rule (domain.yaml `rules:`) the call would have broken, when one did."""
    argument: str | None = None
    """The argument at fault, when the tool names one."""
    changes: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Rows changed per table: `{"playlists": {"inserted": 1}}` (empty for a failed call)."""
    rules_checked: list[str] = Field(default_factory=list)
    """The domain rules run after the call (those reading a table it changed)."""
    ms: float = 0.0
    """Wall-clock milliseconds of the call, validation and checks included."""

    @property
    def infra_error(self) -> bool:
        """True when the failure is the system's (a tool bug), not the agent's."""
        return self.error_kind in ("definition", "internal")

    def error_fields(self) -> dict[str, Any]:
        """A failed call as one JSON object, the same for every pack (docs/tools.md, "Errors"): `error` (the
        message), `kind`, and `policy`, `rule`, `argument` where known; `{}` for a successful call."""
        if self.ok:
            return {}
        facts = {"policy": self.policy, "rule": self.rule, "argument": self.argument}
        return {"error": self.error, "kind": self.error_kind, **{k: v for k, v in facts.items() if v}}

    def content(self) -> str:
        """The text an agent is shown: the value as canonical JSON, or `error: <why>`."""
        return dumps(self.value) if self.ok else f"error: {self.error}"
