"""The tool-calling conversation both LLM solvers hold with their model, turn by turn, within the limits.

    outcome = converse(client, messages, tools, executor, episode, budget)

Each turn: one `LLMClient.complete_tools` request (cached, retried, counted by the client); the assistant
turn goes into the transcript; each tool call it asks for is answered by `executor.execute(call)` (the
text of its result, an `error: ...` included) as a `tool` message. The conversation ends when the model
answers without a tool call (`done`, or `no_tool_call` if it never called one; `declined` if it declined),
or at a limit: `max_turns`, `max_tokens` (prompt + completion over the episode), `max_tool_calls` and
`wall_seconds` (the handle's, raised as `LimitReached` by a tool call; the model's wait is bounded by the
wall time left too). Hitting a limit is the agent's failure, graded as the episode stands.

Infrastructure: a `TransientError` from the client (the server still failing after its retries) ends the
episode as an infrastructure error (`SolverOutcome.infra_error`); a `TerminalError` (the server refuses
the request: a bad key, an unknown model) propagates, and the harness does not retry it. A tool call with
arguments that are not a JSON object is answered with the parse error, for the model to fix; a model
that never fixes it fails the task on its own.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Protocol

from stateforge.errors import TransientError
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import LimitReached, SolverOutcome
from stateforge.llm.client import LLMClient
from stateforge.llm.settings import Price
from stateforge.llm.tooluse import EncodedTools, ToolCall, ToolReply, encode_tools, tool_message


class Executor(Protocol):
    """Runs the model's tool calls on the episode."""

    declined: bool
    """True once the task was declined (`cannot_complete` succeeded)."""

    def execute(self, call: ToolCall) -> str:
        """The text of the call's result for the model (`error: ...` when it failed); may raise
        `LimitReached` or `EpisodeAborted` from the episode handle."""
        ...


@dataclass(frozen=True)
class Budget:
    """What the conversation may spend besides the handle's tool calls and wall time."""

    max_turns: int
    max_tokens: int | None = None
    price: Price | None = None
    name: str = "solver"
    """The conversation's label in the response cache key."""
    cache_key: dict[str, Any] = field(default_factory=dict)
    """Tells otherwise identical conversations apart in the cache (the prompt's hash, the episode's seed)."""


@dataclass
class _Tally:
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    llm_calls: int = 0
    cached_turns: int = 0
    retries: int = 0
    malformed: int = 0
    truncated: int = 0
    model_seconds: float = 0.0

    def add(self, reply: ToolReply, price: Price | None) -> None:
        self.turns += 1
        usage = reply.usage
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.llm_calls += reply.attempts
        self.retries += max(0, reply.attempts - 1)
        self.model_seconds += reply.seconds
        self.malformed += len(reply.malformed)
        self.truncated += reply.truncated
        if reply.cached:
            self.cached_turns += 1
        elif price is not None:
            self.cost_usd += price.cost(usage.prompt_tokens, usage.completion_tokens)
        elif usage.prompt_tokens or usage.completion_tokens:
            self.cost_known = False

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def converse(
    client: LLMClient,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | EncodedTools,
    executor: Executor,
    episode: EpisodeHandle,
    budget: Budget,
) -> SolverOutcome:
    """Hold the conversation that starts with `messages` until the model stops or a limit is reached."""
    tools = encode_tools(tools)  # once for the conversation, not every turn
    tally = _Tally()
    stop, infra, called = "done", None, 0
    while True:
        if tally.turns >= budget.max_turns:
            stop = "max_turns"
            break
        if budget.max_tokens is not None and tally.tokens >= budget.max_tokens:
            stop = "max_tokens"
            break
        left = episode.seconds_left
        if left <= 0:
            stop = "wall_seconds"
            break
        request = client.complete_tools(messages, tools, name=budget.name, cache_key=budget.cache_key)
        try:
            reply = client.run(asyncio.wait_for(request, timeout=left))
        except TimeoutError:
            stop = "wall_seconds"
            break
        except TransientError as exc:
            infra = f"the model server failed: {exc}"
            tally.llm_calls += client.settings.max_retries + 1
            break
        tally.add(reply, budget.price)
        messages.append(reply.message())
        if not reply.tool_calls:
            stop = "declined" if executor.declined else ("done" if called else "no_tool_call")
            break
        try:
            for call in reply.tool_calls:
                called += 1
                messages.append(tool_message(call.id, executor.execute(call)))
        except LimitReached as exc:
            stop = exc.what
            break
    details: dict[str, Any] = {
        "model_seconds": round(tally.model_seconds, 4),
        "cached_turns": tally.cached_turns,
        "retried_requests": tally.retries,
        "malformed_calls": tally.malformed,
        "truncated_replies": tally.truncated,
        "tool_calls_asked": called,
    }
    return SolverOutcome(
        messages=messages,
        turns=tally.turns,
        prompt_tokens=tally.prompt_tokens,
        completion_tokens=tally.completion_tokens,
        cost_usd=tally.cost_usd,
        cost_known=tally.cost_known,
        llm_calls=tally.llm_calls,
        stop_reason=stop,
        infra_error=infra,
        details=details,
    )


def malformed_answer(call: ToolCall) -> str:
    """What the model is told about a call whose arguments do not parse."""
    return (
        f"error: the call was not made: {call.error}. Call {call.name} again with its arguments as one JSON "
        "object."
    )
