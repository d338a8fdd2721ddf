"""The `openai` solver: a tool-calling agent over any OpenAI-compatible server.

    stateforge evaluate music --solver openai --model gpt-4.1-mini -k 3
    stateforge evaluate music --solver openai --model fake --base-url http://127.0.0.1:8000/v1

The model is given the system prompt `stateforge/prompts/solve_tools.md` (the service's description, its
policies and
the frozen date, and how to decline with `cannot_complete`: never the schema, never SQL), the user's
request, and the toolkit's tools in function-calling form (`EpisodeHandle.openai_tools()`). Each tool call
runs on the episode (one transaction) and its result goes back as the tool message's content
(`ToolResult.content()`: canonical JSON, or `error: ...`). The conversation (`loop.converse`) ends when the
model stops calling tools or at a limit (turns, tokens, tool calls, wall time: the agent's failure); the
server failing after the client's retries is an infrastructure error.

Requests go through `LLMClient` (`stateforge.llm`): the same settings (`llm_options`), retries, timeouts,
response cache and accounting as the fill and the task generator. The cache key holds the prompt's hash and
the episode's seed, so the k trials of a task are separate conversations, and a rerun (or a resumed run)
replays its own replies at no cost.
"""

from __future__ import annotations

from typing import Any

from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome
from stateforge.evaluate.solvers.llm_options import (
    LLM_OPTIONS,
    check_options,
    episode_token_limit,
    llm_settings,
)
from stateforge.evaluate.solvers.loop import Budget, converse, malformed_answer
from stateforge.llm.backends import check_backend
from stateforge.llm.client import LLMClient
from stateforge.llm.prompts import load
from stateforge.llm.settings import LLMSettings
from stateforge.llm.tooluse import ToolCall
from stateforge.tools import CANNOT_COMPLETE

PROMPT = "solve_tools"
"""The system prompt's template in `stateforge/prompts/`."""


class ToolExecutor:
    """Runs the model's calls as tool calls on the episode."""

    def __init__(self, episode: EpisodeHandle) -> None:
        self.episode = episode
        self.declined = False

    def execute(self, call: ToolCall) -> str:
        """The call's result text (`error: ...` for arguments that do not parse: the call is not made)."""
        if call.arguments is None:
            return malformed_answer(call)
        result = self.episode.call(call.name, call.arguments)
        if result.ok and call.name == CANNOT_COMPLETE:
            self.declined = True
        return result.content()


class LLMSolver(BaseSolver):
    """What the LLM solvers share: the settings, one client for every episode, preflight, describe, close."""

    name = "llm"
    prompt = PROMPT

    def __init__(self, config: SolverConfig, *, extra_options: tuple[str, ...] = ()) -> None:
        check_options(self.name, config.options, (*LLM_OPTIONS, *extra_options))
        self.config = config
        self.settings: LLMSettings = llm_settings(self.name, config)
        self.model = self.settings.model
        self.max_tokens = episode_token_limit(self.name, config)
        self.template = load(self.prompt)
        self.client = LLMClient(self.settings)

    def preflight(self) -> None:
        """The server answers, knows the API key, and lists the model (TerminalError saying what to fix)."""
        check_backend(self.settings)

    def budget(self, task: Assignment) -> Budget:
        """The episode's turn and token limits, its price, and its cache key."""
        return Budget(
            max_turns=task.limits.max_turns,
            max_tokens=self.max_tokens,
            price=self.settings.price_for(self.model),
            name=f"solver-{self.name}",
            cache_key={"prompt": self.template.sha256, "episode_seed": task.seed},
        )

    def describe(self) -> dict[str, Any]:
        """The model, the server, the prompt's hash and the sampling settings (never the key)."""
        s = self.settings
        return {
            "model": self.model,
            "base_url": s.resolved_base_url,
            "prompt": self.template.name,
            "prompt_sha256": self.template.sha256,
            "temperature": s.temperature,
            "seed": s.seed,
            "timeout": s.timeout,
            "max_retries": s.max_retries,
            "reply_tokens": s.max_tokens,
            "max_tokens": self.max_tokens,
            "cache": s.use_cache,
        }

    def close(self) -> None:
        """Close the client's HTTP connections and its event-loop thread."""
        self.client.close()


class OpenAISolver(LLMSolver):
    """The toolkit's tools, called by the model (see the module docstring)."""

    name = "openai"

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Converse with the model until it stops or a limit is reached."""
        messages = self.template.render(
            instructions=episode.instructions, decline=CANNOT_COMPLETE, instruction=task.instruction
        )
        return converse(
            self.client, list(messages), episode.openai_tools(), ToolExecutor(episode), episode,
            self.budget(task),
        )


def make(config: SolverConfig) -> OpenAISolver:
    """The registry's factory (`--model`, `--base-url`, `--option KEY=VALUE`: see `llm_options`)."""
    return OpenAISolver(config)
