"""`EpisodeHandle`: the solver's view of its episode, restricted to the domain's tools.

    episode.tool_names                      # ["search_users", ..., "cannot_complete"]
    episode.openai_tools()                  # OpenAI function-calling listing (or mcp_tools(), listing())
    episode.instructions                    # the service's description, its policies and today's date
    result = episode.call("get_user", {"username": "mlopez"})     # a ToolResult
    with episode.mcp_server() as url:       # the same episode over MCP, for an external agent
        ...

No connection, no SQL, no schema: a solver reads and changes the data only through tools, as a user of
the product would. `call` enforces the episode's limits (`LimitReached`: the call is not made) and stops
the episode at a tool's infrastructure error (`EpisodeAborted`: the tool or the system is broken). Calls
are serialised by the episode, so a solver may call from several threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from stateforge.episode import Episode, ToolResult
from stateforge.evaluate.solver import EpisodeAborted, LimitReached, Limits
from stateforge.tools import CANNOT_COMPLETE


class EpisodeHandle:
    """One episode as a solver may use it (see the module docstring)."""

    def __init__(
        self,
        episode: Episode,
        limits: Limits,
        *,
        instructions: Callable[..., str] | None = None,
        plan: tuple[str, ...] = (),
    ) -> None:
        self._episode = episode
        self._plan = tuple(plan)
        self._limits = limits
        self._deadline = time.monotonic() + limits.wall_seconds
        self._instructions = instructions
        self._lock = threading.Lock()
        self._calls = 0
        self.limit_hit: str | None = None
        """`max_tool_calls` or `wall_seconds` once a call was refused for it, else None."""
        self.aborted: ToolResult | None = None
        """The call that failed with an infrastructure error, if one did."""

    # --- what the solver may know -----------------------------------------------------------------

    @property
    def domain(self) -> str:
        """The domain's name."""
        return self._episode.domain

    @property
    def now(self) -> Any:
        """The episode's frozen clock: what the tools take as "now"."""
        return self._episode.now

    @property
    def limits(self) -> Limits:
        """What the episode may spend."""
        return self._limits

    @property
    def instructions(self) -> str:
        """What the service tells every agent: its description, its policies and procedures, who the
        episode acts as and today's date, and the task's plan in a run with `--with-plan` (the same text as
        the MCP server's `instructions`); never the schema. `instructions` given at construction is called
        with the episode's actor and the plan."""
        if self._instructions is not None:
            return self._instructions(self._episode.actor, plan=self._plan)
        from stateforge.mcp.target import instructions  # the MCP server's wording, imported when asked for

        return instructions(self._episode.config, self._episode.now, self._episode.domain,
                            actor=self._episode.actor, plan=self._plan)

    @property
    def plan(self) -> tuple[str, ...]:
        """The task's reference plan in words, in a run with `--with-plan`; empty otherwise."""
        return self._plan

    @property
    def actor(self) -> Any:
        """Who the episode acts as (`stateforge.tools.actor.Actor`), or None."""
        return self._episode.actor

    @property
    def tool_names(self) -> list[str]:
        """The tools, in the toolkit's order (`cannot_complete`, the way to decline, is last)."""
        return self._episode.toolkit.names

    def listing(self) -> list[dict[str, Any]]:
        """Every tool's name, kind, parameters and description."""
        return [
            {k: v for k, v in entry.items() if k not in ("reads", "writes")}
            for entry in self._episode.toolkit.listing()
        ]

    def openai_tools(self) -> list[dict[str, Any]]:
        """Every tool in OpenAI function-calling form."""
        return self._episode.toolkit.openai_tools()

    def mcp_tools(self) -> list[dict[str, Any]]:
        """Every tool as an MCP `tools/list` entry."""
        return self._episode.toolkit.mcp_tools()

    @property
    def calls(self) -> int:
        """Tool calls made through this handle so far."""
        return self._calls

    @property
    def seconds_left(self) -> float:
        """Wall time left before calls are refused (never below 0)."""
        return max(0.0, self._deadline - time.monotonic())

    # --- acting -----------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> ToolResult:
        """Call one tool in one transaction; the result says what it returned or why it failed (a failed
        call changes nothing). Raises `LimitReached` when the budget is spent (the call is not made) and
        `EpisodeAborted` when the tool failed with an infrastructure error."""
        with self._lock:
            if time.monotonic() > self._deadline:
                self.limit_hit = "wall_seconds"
                raise LimitReached(
                    "wall_seconds",
                    f"the episode's wall time ({self._limits.wall_seconds:g} s) is spent; no more calls.",
                )
            if self._calls >= self._limits.max_tool_calls:
                self.limit_hit = "max_tool_calls"
                raise LimitReached(
                    "max_tool_calls",
                    f"the episode's {self._limits.max_tool_calls} tool calls are spent; no more tool calls.",
                )
            self._calls += 1
        result = self._episode.call(tool, arguments)
        if result.infra_error:
            self.aborted = self.aborted or result
            raise EpisodeAborted(
                f"tool {tool} failed with an infrastructure error ({result.error_kind}): {result.error}"
            )
        return result

    def decline(self, reason: str) -> ToolResult:
        """Call `cannot_complete(reason)`: the way to decline a task that cannot be done as asked."""
        return self.call(CANNOT_COMPLETE, {"reason": reason})

    @contextmanager
    def mcp_server(self, *, host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
        """Serve this episode's tools over MCP (streamable HTTP) while the block runs; yields its URL.

        For solvers that run an external agent: every session of that server shares this episode, and
        its calls land in the same log. The handle's limits do not apply to those calls (bound the
        agent's process by `limits.wall_seconds` instead). Its `instructions` are this handle's (the plan
        included, in a run with `--with-plan`).
        """
        from stateforge.mcp import serve_mcp

        with serve_mcp(self._episode, host=host, port=port, plan=self._plan) as server:
            yield server.url
