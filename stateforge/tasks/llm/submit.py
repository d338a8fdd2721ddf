"""`submit_task`: how the model hands in its task, and how that becomes a `Draft` for the gate.

The model states what only it knows (the instruction, capabilities, difficulty, feasibility, the
references that prove the instruction names things uniquely, goal queries, derived values, comparison
rules, why an infeasible task cannot be done); the session adds what it saw (the write calls). The
arguments cross a process boundary, so they are a pydantic model with `extra="forbid"`: a submission
that does not fit comes back to the model as `error (arguments): ...` naming every field at fault.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stateforge.tasks.draft import Call, Draft, Goal
from stateforge.tasks.model import (
    Capability,
    Derivation,
    Difficulty,
    Infeasibility,
    InfeasibleKind,
    Reference,
)

SUBMIT_TASK = "submit_task"

Rule = Literal["exact", "ignore", "normalized", "any_non_null"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class SubmittedReference(_Model):
    """An entity the instruction names, and the count query that proves it is named uniquely."""

    entity: str = Field(min_length=1)
    """What is named, in words: "playlist 'Road Trip' of @mlopez"."""
    sql: str = Field(min_length=1)
    """SELECT count(*) ... with ? placeholders, run on the initial database."""
    params: list[Any] = Field(default_factory=list)
    """The values of the ? placeholders, in order."""
    expected: int = Field(default=1, ge=0, le=1)
    """1: exactly one row matches; 0: nothing matches (what an infeasible task names is missing)."""


class SubmittedGoal(_Model):
    """A query that shows the asked change on the end state (and gives another result before it)."""

    name: str = Field(min_length=1)
    """What it checks, in a few words."""
    sql: str = Field(min_length=1)
    """One SELECT with ? placeholders."""
    params: list[Any] = Field(default_factory=list)
    """The values of the ? placeholders, in order."""
    expected: list[dict[str, Any]] | None = None
    """The rows it must return; null: whatever it returns on the end state your calls produced."""


class SubmittedDerivation(_Model):
    """A value your calls write that the solver works out from what the tools show."""

    value: Any
    """The value as written."""
    how: str = Field(min_length=1)
    """How it follows ("the number of tracks on the playlist", "the due date plus 14 days")."""


class SubmittedInfeasibility(_Model):
    """Why an infeasible task cannot be done."""

    kind: InfeasibleKind
    """missing: what it names does not exist; forbidden: a rule or policy forbids it; capacity: a
    capacity would be exceeded; hours: a time is outside opening hours."""
    because: str = Field(min_length=1)
    """The reason a solver should give when it declines."""


class Submission(_Model):
    """The arguments of `submit_task`."""

    instruction: str = Field(min_length=1)
    """The request, in the user's voice: everything a solver needs, nothing it must guess."""
    capabilities: list[Capability] = Field(min_length=1)
    """Which of the five capabilities the task exercises (one or more)."""
    difficulty: Difficulty
    """easy, medium or hard."""
    feasible: bool
    """False for a task that cannot be done as asked (your write was refused and changed nothing)."""
    references: list[SubmittedReference] = Field(default_factory=list)
    """One per entity the instruction names."""
    goals: list[SubmittedGoal] = Field(default_factory=list)
    """At least one for a feasible task."""
    derived: list[SubmittedDerivation] = Field(default_factory=list)
    """Values written that are neither stated nor shown by the tools, but follow from them."""
    policy: dict[str, Rule] = Field(default_factory=dict)
    """Comparison rules, "table.column" -> exact | ignore | normalized | any_non_null (default exact)."""
    infeasible: SubmittedInfeasibility | None = None
    """Required when feasible is false."""


def submit_tool() -> dict[str, Any]:
    """`submit_task` as the model sees it (OpenAI function format), its schema derived from `Submission`."""
    schema = _inline(Submission.model_json_schema())
    return {
        "type": "function",
        "function": {
            "name": SUBMIT_TASK,
            "description": (
                "Hand in the task once your write calls have made the change (or been refused, for an "
                "infeasible task). The gate replays your successful write calls since the last reset on a "
                "fresh copy and checks the task; you get its verdict as the result."
            ),
            "parameters": schema,
        },
    }


def parse_submission(arguments: dict[str, Any]) -> Submission | str:
    """The submission, or the text of an `error (arguments)` naming every field at fault."""
    try:
        return Submission.model_validate(arguments)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
        )
        return f"error (arguments): submit_task: {problems}. Fix these fields and call submit_task again."


def to_draft(submission: Submission, calls: list[Call], provenance: dict[str, Any]) -> Draft:
    """The draft the gate judges: the submission's claims and the session's write calls."""
    infeasible = None
    if submission.infeasible is not None and not submission.feasible:
        infeasible = Infeasibility(kind=submission.infeasible.kind, because=submission.infeasible.because)
    return Draft(
        instruction=submission.instruction,
        capabilities=tuple(dict.fromkeys(submission.capabilities)),
        difficulty=submission.difficulty,
        calls=list(calls),
        feasible=submission.feasible,
        goals=[Goal(g.name, g.sql, list(g.params), g.expected) for g in submission.goals],
        references=[
            Reference(entity=r.entity, sql=r.sql, params=list(r.params), expected=r.expected)
            for r in submission.references
        ],
        policy=dict(submission.policy),
        derived=[Derivation(value=d.value, how=d.how) for d in submission.derived],
        infeasible=infeasible,
        provenance=provenance,
    )


def _inline(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with `$defs` references inlined and titles dropped (what function tools expect)."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            return {k: walk(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    return walk(schema)
