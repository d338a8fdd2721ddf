"""`Draft`: what a generator proposes, before the gate. Both generators make these.

The offline generator (a recipe acting through `RecipeContext`) and the LLM generator (an agent that
calls tools and then `submit_task`) produce the same object; `Gate.check(draft)` replays its calls on a
fresh episode, computes the expected diff and the verifiers, and keeps it as a `Task` or rejects it.

    Draft(
        instruction="I'm Maria Lopez (@mlopez). Please make my playlist 'Road Trip' private.",
        capabilities=("cross_step_dependency",), difficulty="easy",
        calls=[Call("update_playlist", {"username": "mlopez", "playlist": "Road Trip", "is_public": False})],
        goals=[Goal("playlist is private", "SELECT is_public FROM playlists WHERE playlist_id = ?", [812])],
        references=[Reference(entity="playlist 'Road Trip' of @mlopez", sql="SELECT count(*) ...",
                              params=["mlopez", "Road Trip"])],
        derived=[Derivation(value=False, how="'private' means is_public = false")],
        provenance={"generator": "recipe", "recipe": "make_playlist_private", "seed": 7, "attempt": 3},
    )
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from stateforge.diff import Diff
from stateforge.tasks.model import Derivation, Infeasibility, Reference
from stateforge.tools.actor import Actor

if TYPE_CHECKING:
    from stateforge.episode import Episode, ToolResult
    from stateforge.tools import Toolkit


@dataclass
class Call:
    """One tool call of the answer; `step` is its plan step in words (derived when None)."""

    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    step: str | None = None


@dataclass
class Goal:
    """A goal verifier before the gate: `expected` None means "what the query returns on the end state"
    (the gate then also checks that the base returns something else)."""

    name: str
    sql: str
    params: list[Any] = field(default_factory=list)
    expected: list[dict[str, Any]] | None = None


@dataclass
class Observed:
    """The generator's own run of a draft's calls, in order, on a fresh episode of the base through the
    solver's toolkit: the gate takes it as its first replay (the calls are not run a third time) and
    replays the writes once more on another fresh episode. The episode stays open until the gate takes
    it or the generator discards it."""

    episode: Episode
    toolkit: Toolkit
    results: list[ToolResult]
    taken: bool = False


@dataclass
class Draft:
    """A proposed task (see the module docstring); `feasible=False` with `infeasible` for one to decline."""

    instruction: str
    capabilities: tuple[str, ...]
    difficulty: str
    calls: list[Call]
    feasible: bool = True
    goals: list[Goal] = field(default_factory=list)
    references: list[Reference] = field(default_factory=list)
    policy: dict[str, Any] = field(default_factory=dict)
    """Column -> comparison rule (`stateforge.diff.ColumnRule` data), over the domain's `grading:`."""
    derived: list[Derivation] = field(default_factory=list)
    infeasible: Infeasibility | None = None
    provenance: dict[str, Any] = field(default_factory=dict)
    """generator, recipe or model, seed, attempt, prompt_hashes, details (see `Provenance`)."""
    actor: Actor | None = None
    """Who the calls are made as (`ctx.act_as`); the gate replays them as this actor."""
    observed_diff: Diff | None = None
    """The diff the generator saw on its own episode, if it computed one: the replay must give the same."""
    observed: Observed | None = field(default=None, repr=False, compare=False)
    """The generator's run of `calls` on a fresh episode, when it kept it open for the gate (recipes)."""

    @property
    def label(self) -> str:
        """`recipe rename_playlist #12` / `llm gpt-x #3`: for messages."""
        p = self.provenance
        who = p.get("recipe") or p.get("model") or p.get("generator", "draft")
        return f"{p.get('generator', 'draft')} {who} #{p.get('attempt', 0)}"
