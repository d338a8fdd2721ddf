"""What a run writes (public formats: docs/evaluate.md): `run.json` and the lines of `episodes.jsonl`.

    artifacts/<domain>/runs/<run_id>/run.json          what was asked (`RunSpec`)
    artifacts/<domain>/runs/<run_id>/episodes.jsonl    one `EpisodeRecord` per finished episode
    artifacts/<domain>/runs/<run_id>/summary.json      the metrics (`stateforge.evaluate.summary`)

Both models forbid unknown keys; values are canonical JSON (`stateforge.values`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.evaluate.solver import SolverConfig
from stateforge.tasks import Task

Outcome = Literal["pass", "fail", "infra_error"]
OUTCOMES: tuple[str, ...] = ("pass", "fail", "infra_error")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskFacts(_Model):
    """What the metrics group an episode by, copied from its task (so that episodes.jsonl stands alone)."""

    domain: str
    feasible: bool
    capabilities: list[str]
    difficulty: str
    plan_steps: int = Field(description="Steps of the reference plan.")
    reference_calls: int

    @classmethod
    def of(cls, task: Task) -> TaskFacts:
        """The facts of `task`."""
        return cls(
            domain=task.domain,
            feasible=task.feasible,
            capabilities=list(task.capabilities),
            difficulty=task.difficulty,
            plan_steps=len(task.reference_plan),
            reference_calls=len(task.reference_calls),
        )


class EpisodeRecord(_Model):
    """One finished episode: a line of episodes.jsonl."""

    task_id: str
    trial: int = Field(ge=0, description="0-based trial of the task (k trials: 0 .. k-1).")
    outcome: Outcome
    reasons: list[str] = Field(
        default_factory=list,
        description="fail: the verdict's mismatches and failed checks, in words; infra_error: what broke.",
    )
    failures: list[str] = Field(
        default_factory=list,
        description="Kinds of failure, for counting: `missing_insert playlists`, `goal check`, ...",
    )
    task: TaskFacts
    attempts: int = Field(1, ge=1, description="Episodes run for this (task, trial): 1 + infra retries.")
    infra_errors: list[str] = Field(
        default_factory=list, description="The infrastructure error of each attempt that had one."
    )
    stop_reason: str = ""
    declined: str | None = Field(None, description="The reason given to cannot_complete, if it was called.")
    messages: list[Any] = Field(default_factory=list, description="The solver's conversation.")
    tool_calls: list[dict[str, Any]] = Field(
        default_factory=list,
        description="Every call from the episode's log: tool, arguments, ok, value or error, changes, ms.",
    )
    n_tool_calls: int = 0
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cost_known: bool = True
    llm_calls: int = 0
    verifiers: list[dict[str, Any]] = Field(
        default_factory=list, description="kind, name, passed (and the rows returned, when it failed)."
    )
    diff: dict[str, Any] = Field(
        default_factory=dict, description="The actual diff's totals and per-table counts."
    )
    mismatches: int = 0
    exact: bool = Field(
        False, description="Passed with the end state exactly the expected one (no column's tolerance used)."
    )
    wall_seconds: float = 0.0
    timings: dict[str, float] = Field(
        default_factory=dict,
        description="Wall milliseconds: open, solve, verifiers, export, diff, close, compare.",
    )
    cpu_ms: dict[str, float] = Field(
        default_factory=dict, description="CPU milliseconds of the same parts (the episode's thread)."
    )
    solver_details: dict[str, Any] = Field(default_factory=dict)
    started_at: str = Field("", description="When the (last) attempt started, ISO 8601 with the zone.")

    @property
    def key(self) -> tuple[str, int]:
        """(task id, trial)."""
        return (self.task_id, self.trial)


class RunSpec(_Model):
    """What a run was asked to do: run.json. A resumed run must ask for the same."""

    run_id: str
    domain: str
    solver: str
    model: str | None = None
    k: int = Field(ge=1)
    seed: int = 0
    db: str
    db_fingerprint: str
    tasks_file: str
    tasks_sha256: str = Field(description="sha256 of the tasks file's bytes.")
    task_ids: list[str] = Field(description="The selected tasks, in run order.")
    task_filter: str | None = None
    limit: int | None = None
    solver_config: SolverConfig
    solver_settings: dict[str, Any] = Field(default_factory=dict)
    toolkit: dict[str, Any] = Field(default_factory=dict, description="Name and tool names.")
    distractors: int = Field(
        0, ge=0, description="Tools of other packs added to each episode's toolkit (`--distractors N`)."
    )
    with_plan: bool = Field(
        False, description="Whether the solver was given the task's reference plan (`--with-plan`)."
    )
    retries: int = Field(2, ge=0)
    max_infra_share: float = Field(0.1, ge=0, le=1)
    stateforge_version: str
    created_at: str

    def same_request(self, other: RunSpec) -> list[str]:
        """The settings in which `other` asks for something else than this run (empty: the same)."""
        keys = ("domain", "solver", "model", "k", "seed", "db_fingerprint", "tasks_sha256", "task_ids",
                "solver_config", "distractors", "with_plan")
        mine, theirs = self.model_dump(mode="json"), other.model_dump(mode="json")
        return [key for key in keys if mine[key] != theirs[key]]
