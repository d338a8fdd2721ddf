"""The task: one state-changing request, its ground truth and how to check it (a public format).

A task is one JSON object per line of `tasks.jsonl` (docs/tasks.md describes every key):

    {"id", "domain", "db_fingerprint", "instruction", "capabilities", "difficulty", "feasible",
     "reference_calls", "reference_plan", "expected_diff", "policy", "verifiers", "provenance",
     "references", "actor"}

`actor` (who the task is done as: a person of the pack's `actors:` table and their roles) is left out when
the task has none, so tasks without one keep their ids and lines.

`id` is a hash of the content (everything but `id` and `provenance`), so the same task made twice has the
same id. `expected_diff` is the canonical diff JSON of `stateforge diff --json`; `policy` the compact form
of `stateforge.diff.Policy`. The JSON Schema of this model is committed beside it (`task.schema.json`,
shipped as package data); after changing the model, refresh it with
`python -c "from stateforge.tasks.model import write_schema; write_schema()"` (a test keeps the two in step).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from stateforge.diff import Diff, DiffError, Policy
from stateforge.tools.actor import Actor
from stateforge.values import dumps, json_value

CAPABILITIES = (
    "multi_condition_filtering",
    "full_data_acquisition",
    "aggregation_computation",
    "cross_step_dependency",
    "precise_boundary_judgment",
)
"""The five capabilities E-Bench analyses, in their canonical order."""

DIFFICULTIES = ("easy", "medium", "hard")
VERIFIER_KINDS = ("goal", "integrity", "policy", "side_effect")
INFEASIBLE_KINDS = ("missing", "forbidden", "capacity", "hours")
"""Why an infeasible task cannot be done: the thing named does not exist; a rule or policy forbids it; a
capacity is exceeded; a time is outside opening hours."""

Capability = Literal[
    "multi_condition_filtering",
    "full_data_acquisition",
    "aggregation_computation",
    "cross_step_dependency",
    "precise_boundary_judgment",
]
Difficulty = Literal["easy", "medium", "hard"]
VerifierKind = Literal["goal", "integrity", "policy", "side_effect"]
InfeasibleKind = Literal["missing", "forbidden", "capacity", "hours"]

SCHEMA_FILE = Path(__file__).with_name("task.schema.json")

_DIFF_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "The canonical diff JSON of `stateforge diff --json` (no tables for an infeasible task).",
    "required": ["tables", "summary"],
    "additionalProperties": False,
    "properties": {
        "tables": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "inserted": {"type": "array", "items": {"type": "object"}},
                    "deleted": {"type": "array", "items": {"type": "object"}},
                    "updated": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["key", "changes"],
                            "additionalProperties": False,
                            "properties": {
                                "key": {"type": "object"},
                                "changes": {
                                    "type": "object",
                                    "additionalProperties": {"type": "array", "minItems": 2, "maxItems": 2},
                                },
                            },
                        },
                    },
                },
            },
        },
        "summary": {
            "type": "object",
            "required": ["inserted", "deleted", "updated"],
            "properties": {k: {"type": "integer", "minimum": 0} for k in ("inserted", "deleted", "updated")},
        },
    },
}
_RULE_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"enum": ["exact", "ignore", "normalized", "any_non_null"]},
        {
            "type": "object",
            "required": ["rule"],
            "additionalProperties": False,
            "properties": {
                "rule": {"enum": ["exact", "ignore", "normalized", "numeric", "time", "any_non_null"]},
                "abs": {"type": "number", "minimum": 0},
                "rel": {"type": "number", "minimum": 0},
                "seconds": {"type": "number", "minimum": 0},
            },
        },
    ]
}
_POLICY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": 'Comparison rules per column ("table.column" or "*.column"); other columns: exact.',
    "required": ["columns"],
    "additionalProperties": False,
    "properties": {"columns": {"type": "object", "additionalProperties": _RULE_SCHEMA}},
}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReferenceCall(_Model):
    """One tool call of the answer, as the solver would make it."""

    tool: str = Field(description="The tool's name in the domain's toolkit.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="Its arguments, as JSON values.")


class Verifier(_Model):
    """A SQL check with its expected rows (compared as a multiset of canonical JSON rows)."""

    kind: VerifierKind = Field(
        description="goal: the asked change is there; integrity: keys, foreign keys and the domain's rules "
        "hold; policy: the domain's policies hold; side_effect: nothing else changed."
    )
    name: str = Field(description="What it checks, in a few words.")
    sql: str = Field(description="One self-contained SELECT (values inlined), run on the end state.")
    expected: list[dict[str, Any]] = Field(
        description="The rows the SELECT must return (column -> canonical JSON value), in any order."
    )


class Reference(_Model):
    """An entity the instruction names, and the SQL that proves the naming picks out one row (or none)."""

    entity: str = Field(description="What is named, in words: `playlist 'Road Trip' of @mlopez`.")
    sql: str = Field(description="A SELECT returning one count, run on the base database.")
    params: list[Any] = Field(default_factory=list, description="Values of its `?` placeholders, in order.")
    expected: int = Field(
        default=1, ge=0, description="1: named uniquely; 0: proven absent (infeasible tasks)."
    )


class Derivation(_Model):
    """A value the solver works out from what the tools show (a count, a sum, a computed date)."""

    value: Any
    how: str


class Infeasibility(_Model):
    """Why an infeasible task cannot be done, and the feasible task it was made from."""

    kind: InfeasibleKind
    because: str = Field(description="The reason a solver should give when it declines.")
    error: str | None = Field(default=None, description="The tool error the replay met (the proof).")
    policy: str | None = Field(
        default=None,
        description="The domain.yaml policy whose refusal proves the task (required for `forbidden`; the "
        "replay's refusal must carry exactly this policy). Absent in tasks made before refusals were typed.",
    )
    proof: ReferenceCall | None = Field(
        default=None,
        description="For a task declined by a procedure (which no tool enforces): the write the request "
        "asks for, which succeeds and breaks the procedure; the gate makes it on its own episode to prove "
        "the task, and the reference calls leave it out.",
    )


class Provenance(_Model):
    """Where a task came from: enough to make it again."""

    generator: Literal["recipe", "llm"]
    recipe: str | None = Field(default=None, description="The recipe's name (offline generator).")
    model: str | None = Field(default=None, description="The LLM's name (LLM generator).")
    seed: int
    attempt: int = Field(default=0, ge=0, description="The attempt of the run that made it.")
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    stateforge_version: str
    derived: list[Derivation] = Field(default_factory=list)
    infeasible: Infeasibility | None = None
    details: dict[str, Any] = Field(default_factory=dict, description="Generator-specific facts.")
    horizon: int = Field(
        default=0, ge=0, description="The number of reference calls (reads, writes, the decline): the task's "
        "horizon."
    )
    storyline: str | None = Field(default=None, description="The storyline a composed task came from.")
    steps: list[str] = Field(default_factory=list, description="The storyline's steps, in order.")
    knobs: dict[str, Any] = Field(
        default_factory=dict,
        description="Difficulty knobs the generator set (full_data, solver_filtering, aggregation, "
        "boundary_distractor, policy_detour, found_by_working), each with what it was.",
    )
    distractors: list[Reference] = Field(
        default_factory=list, description="Near-boundary items that exist in the data (counts at least 1)."
    )


class Task(_Model):
    """One task (a line of tasks.jsonl)."""

    id: str = Field(description="A hash of the content (every key but id and provenance).")
    domain: str
    db_fingerprint: str = Field(description="A hash of the base database's table hashes.")
    instruction: str = Field(min_length=1, description="The request, in the user's voice.")
    capabilities: list[Capability] = Field(min_length=1)
    difficulty: Difficulty
    feasible: bool
    reference_calls: list[ReferenceCall] = Field(min_length=1)
    reference_plan: list[str] = Field(min_length=1, description="The steps in plain words.")
    expected_diff: Annotated[dict[str, Any], WithJsonSchema(_DIFF_SCHEMA)]
    policy: Annotated[dict[str, Any], WithJsonSchema(_POLICY_SCHEMA)]
    verifiers: list[Verifier] = Field(min_length=1)
    provenance: Provenance
    references: list[Reference] = Field(default_factory=list)
    actor: Actor | None = Field(
        default=None,
        description="Who the task is done as: the person (domain.yaml `actors.key`) and their roles; every "
        "episode of the task acts as them (`env.actor`). Absent: the tools act as no one.",
    )

    @field_validator("capabilities")
    @classmethod
    def _capabilities(cls, value: list[str]) -> list[str]:
        return [c for c in CAPABILITIES if c in value]

    @field_validator("expected_diff")
    @classmethod
    def _diff(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            return Diff.from_dict(value, source="expected_diff").to_dict()
        except DiffError as exc:
            raise ValueError(str(exc)) from None

    @field_validator("policy")
    @classmethod
    def _policy(cls, value: dict[str, Any]) -> dict[str, Any]:
        return Policy.model_validate(value).to_dict()

    @property
    def diff(self) -> Diff:
        """The expected diff as a `Diff`."""
        return Diff.from_dict(self.expected_diff)

    @property
    def grading_policy(self) -> Policy:
        """The comparison policy as a `Policy` (the domain's defaults are already merged in)."""
        return Policy.model_validate(self.policy)

    def content_id(self) -> str:
        """The id this content hashes to (`id` must equal it)."""
        return content_id(self.model_dump(mode="json"))

    def to_json(self) -> str:
        """The canonical one-line JSON (sorted keys, compact): a line of tasks.jsonl (no `actor` key when
        there is none)."""
        return dumps(_without_empty_actor(self.model_dump(mode="json")))


def _without_empty_actor(data: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if not (k == "actor" and v is None)}


def content_id(data: dict[str, Any]) -> str:
    """The id of a task's content: sha256 of its canonical JSON without `id` and `provenance` (and without
    an empty `actor`, so tasks made before actors keep their ids), 16 hex."""
    body = {k: v for k, v in _without_empty_actor(data).items() if k not in ("id", "provenance")}
    return hashlib.sha256(dumps(json_value(body)).encode()).hexdigest()[:16]


def task_json_schema() -> dict[str, Any]:
    """The JSON Schema of a task (what `task.schema.json` holds)."""
    schema = Task.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://stateforge.dev/schemas/task.schema.json"
    return schema


def write_schema(path: Path = SCHEMA_FILE) -> Path:
    """Write the JSON Schema to `path` (default: the committed `task.schema.json`)."""
    path.write_text(json.dumps(task_json_schema(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path
