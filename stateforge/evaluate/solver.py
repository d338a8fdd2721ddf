"""The solver interface: what a solver is told, what it may do, and what it hands back.

    class MySolver(BaseSolver):
        name = "my-agent"

        def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
            result = episode.call("search_users", {"filters": [...]})     # a ToolResult, never raises
            ...
            return SolverOutcome(messages=[...], turns=3, prompt_tokens=812, completion_tokens=90)

A solver sees the task's instruction (`Assignment`), never its reference calls, diff, verifiers, the schema
or SQL; it acts only through the episode's tools (`EpisodeHandle`: list them, call them). The harness
records every call from the episode's own log (the solver cannot misreport them), then grades the state.

Errors: whatever `solve` raises, and an outcome with `infra_error` set, make the episode an
infrastructure error (retried, counted apart, never an agent failure). A `TerminalError` is not retried
(it would fail the same way). The agent's own failures (a wrong answer, a turn limit, a reply that does
not parse) are not errors: return normally, say why in `stop_reason`, and the grade decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from stateforge.errors import StateforgeError

if TYPE_CHECKING:
    from stateforge.evaluate.handle import EpisodeHandle
    from stateforge.llm.accounting import LLMStats


class LimitReached(StateforgeError):  # noqa: N818 - the name says what happened, as the agent sees it
    """Raised by `EpisodeHandle.call` once the episode's tool-call budget or wall time is spent.

    The call was not made. Let it propagate (or stop calling): the harness grades the state as it is and
    records the limit in `stop_reason`. It is the agent's failure, not the infrastructure's.
    """

    def __init__(self, what: str, message: str) -> None:
        super().__init__(message)
        self.what = what
        """`max_tool_calls` or `wall_seconds`."""


class EpisodeAborted(StateforgeError):  # noqa: N818
    """Raised by `EpisodeHandle.call` after a tool failed with an infrastructure error (a bug in the tool
    or the system: `ToolResult.infra_error`). The episode cannot be graded fairly; the harness records an
    infrastructure error and runs it again. Let it propagate."""


class Limits(BaseModel):
    """What one episode may spend. The harness enforces tool calls and wall time in `EpisodeHandle.call`;
    an LLM solver enforces turns and tokens itself (it alone sees them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_turns: int = Field(30, ge=1, description="Model turns (LLM solvers).")
    max_tool_calls: int = Field(200, ge=1, description="Tool calls; the next one raises LimitReached.")
    max_tokens: int | None = Field(
        None, ge=1, description="Prompt + completion tokens over the episode (LLM solvers); None: no limit."
    )
    wall_seconds: float = Field(
        600.0, gt=0, description="Wall time of the episode; calls after it raise LimitReached. Solvers "
        "bound their own waits (LLM requests, child processes) by it."
    )


class SolverConfig(BaseModel):
    """How a solver was asked to run (`stateforge evaluate --solver S --model M --option k=v`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str | None = Field(None, description="The model, for solvers that call one.")
    base_url: str | None = Field(None, description="An OpenAI-compatible server, for solvers that call one.")
    options: dict[str, str] = Field(
        default_factory=dict, description="Solver-specific settings, from `--option KEY=VALUE`."
    )
    limits: Limits = Field(default_factory=Limits)
    seed: int = Field(0, description="The run's seed; a solver derives its own randomness from it.")


@dataclass(frozen=True)
class Assignment:
    """What a solver is told about one episode: the request, and nothing of its answer."""

    task_id: str
    trial: int
    """0-based: trial t of k for this task."""
    instruction: str
    """The user's request, in their words."""
    domain: str
    limits: Limits
    seed: int
    """Seed of this episode (the run's seed, the task and the trial), for any sampling the solver does."""
    plan: tuple[str, ...] = ()
    """The task's reference plan in words, one step each, in a run with `--with-plan` (EnterpriseOps-Gym's
    human-plan condition); empty otherwise. It is in `EpisodeHandle.instructions` too."""


@dataclass
class SolverOutcome:
    """What a solver hands back. The tool calls are not part of it: the harness reads them from the
    episode's log."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    """The conversation, as JSON (OpenAI chat messages are the convention): the trajectory people read."""
    turns: int = 0
    """Model turns taken (0 for a scripted solver)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    """False when a model had no price: its tokens count but its cost is not in `cost_usd`."""
    llm_calls: int = 0
    """HTTP requests to the model server (retries included)."""
    stop_reason: str = "done"
    """Why the solver stopped: `done`, `declined`, `max_turns`, `max_tool_calls`, `max_tokens`,
    `wall_seconds`, `no_tool_call`, ... (free text; reports count them)."""
    infra_error: str | None = None
    """Set when the infrastructure failed the solver (the model server unreachable after retries, a sandbox
    that would not start): the episode is an infrastructure error, retried, never an agent failure."""
    details: dict[str, Any] = field(default_factory=dict)
    """Anything else worth keeping in episodes.jsonl (JSON values)."""

    def add_llm_stats(self, stats: LLMStats) -> SolverOutcome:
        """Add the counters of an `LLMStats` (the openai client's accounting) to this outcome; returns it."""
        data = stats.to_dict()
        self.prompt_tokens += int(data["prompt_tokens"])
        self.completion_tokens += int(data["completion_tokens"])
        self.cost_usd += float(data["cost_usd"])
        self.cost_known = self.cost_known and bool(data["cost_known"])
        self.llm_calls += int(data["calls"])
        if data["total_retries"]:
            self.details["llm_retries"] = data["retries"]
        return self


@runtime_checkable
class Solver(Protocol):
    """Anything with a name and a `solve` method; `BaseSolver` gives the optional parts.

    One solver object serves every episode of a run, from several threads at once (`--concurrency`):
    `solve` must be thread-safe (keep per-episode state in locals).
    """

    name: str

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Work on one task through the episode's tools; return what happened."""
        ...


class BaseSolver:
    """A convenient base: a name, an optional model, and no-op hooks around a run."""

    name = "solver"
    model: str | None = None

    def preflight(self) -> None:
        """Called once before the first episode: check what the solver needs (a server that answers, a
        model it lists, a command that exists) and raise `TerminalError` saying what to fix."""

    def describe(self) -> dict[str, Any]:
        """Settings worth recording in run.json (never secrets)."""
        return {}

    def close(self) -> None:
        """Called once after the last episode: release clients, servers, processes."""

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Work on one task through the episode's tools; return what happened."""
        raise NotImplementedError


def preflight(solver: Solver) -> None:
    """Run the solver's preflight hook, if it has one."""
    hook = getattr(solver, "preflight", None)
    if callable(hook):
        hook()


def close_solver(solver: Solver) -> None:
    """Run the solver's close hook, if it has one."""
    hook = getattr(solver, "close", None)
    if callable(hook):
        hook()


def describe_solver(solver: Solver) -> dict[str, Any]:
    """The solver's `describe()`, or {}."""
    hook = getattr(solver, "describe", None)
    return dict(hook()) if callable(hook) else {}
