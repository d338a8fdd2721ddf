"""Generators: what proposes drafts for the gate. The offline one runs recipes; others register by name.

    generator = make_generator("offline", workspace, toolkit, recipes=recipes, seed=7)
    proposal = generator.propose(Want(attempt=12, capability="aggregation_computation", infeasible=False))
    proposal.drafts                # [feasible draft, infeasible variant?] or [] when skipped / failed
    generator.feedback(proposal, kept=True)

A generator gets a `Want` per attempt (the capability the kept set lacks most, whether an infeasible task
is wanted) and returns a `Proposal`: drafts in order of preference, or why there are none. The runner
picks the draft, the gate judges it, and the generator hears back. The LLM generator registers itself with
`register_generator("openai", factory)` and produces the same `Draft`s.

The offline generator schedules recipes by smooth weighted round-robin (the recipe order shuffled with the
seed), preferring recipes that exercise the wanted capability, and retires a recipe after `MAX_MISSES`
rejected drafts in a row, `MAX_SKIPS` skips in a row, or `SAME_SKIPS` skips in a row for one reason while it
has never made a draft (the database lacks what it needs).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from stateforge.errors import TerminalError
from stateforge.registry import Registry
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.draft import Draft
from stateforge.tasks.recipes import Recipe, RecipeDefinitionError, Skip, error_site
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit

if TYPE_CHECKING:
    from stateforge.tasks.gate import GateResult

MAX_MISSES = 12
"""Drafts in a row the gate rejected (or recipe errors) after which a recipe is retired."""
MAX_SKIPS = 30
"""Attempts in a row that made no draft (the recipe skipped) after which a recipe is retired."""
SAME_SKIPS = 5
"""Skips in a row for one reason, by a recipe that never made a draft, after which it is retired: the
database lacks what it needs (no such table or column), whatever the rng picks."""


@dataclass(frozen=True)
class Want:
    """What the runner would like next."""

    attempt: int
    capability: str | None = None
    """The capability furthest below its share of the kept tasks (None: no preference)."""
    infeasible: bool = False
    """Whether an infeasible task is wanted (the kept set is below its infeasible share)."""
    only_infeasible: bool = False
    """Whether only an infeasible task can be kept (the set's last places are held for them)."""


@dataclass
class Proposal:
    """What one attempt produced: drafts (preferred first), or why there are none."""

    source: str
    """The recipe (or model) that made it."""
    capabilities: tuple[str, ...] = ()
    drafts: list[Draft] = field(default_factory=list)
    skipped: str | None = None
    """The recipe's reason for making nothing (counted in the report)."""
    error: str | None = None
    """A recipe bug: the exception and where it was raised."""
    detail: str | None = None
    seconds: float = 0.0
    verdict: GateResult | None = None
    """The run's gate's verdict on `drafts[0]`, when the generator judged it with that gate already."""


class Generator(Protocol):
    """Proposes drafts; see the module docstring."""

    name: str

    def propose(self, want: Want) -> Proposal:
        """One attempt's drafts for `want`."""
        ...

    def feedback(self, proposal: Proposal, kept: bool) -> None:
        """Whether the gate kept a draft of `proposal`."""
        ...

    @property
    def exhausted(self) -> bool:
        """True when it has nothing left to try."""
        ...

    def describe(self) -> dict[str, Any]:
        """What it is, for the report (recipes and their state, or the model)."""
        ...


@dataclass
class _Slot:
    recipe: Recipe
    current: float = 0.0
    attempts: int = 0
    kept: int = 0
    misses: int = 0
    skips: int = 0
    variants: int = 0
    """Attempts that offered an infeasible variant."""
    drafts: int = 0
    last_skip: str | None = None
    same_skips: int = 0
    retired: str | None = None


class OfflineGenerator:
    """Runs recipes (see the module docstring)."""

    name = "offline"

    def __init__(self, workspace: Workspace, toolkit: Toolkit, recipes: list[Recipe], *, seed: int) -> None:
        if not recipes:
            raise TerminalError("no recipes to run: give a pack's recipes.py or use the generic set.")
        self.workspace, self.toolkit, self.seed = workspace, toolkit, seed
        order = list(recipes)
        random.Random(f"{seed}:schedule").shuffle(order)
        self._slots = [_Slot(r) for r in order]
        self._by_name = {s.recipe.name: s for s in self._slots}
        self._open: RecipeContext | None = None
        """The last proposal's context while its episode waits for the gate (`Draft.observed`)."""

    @property
    def exhausted(self) -> bool:
        return all(s.retired for s in self._slots)

    def _choose(self, want: Want) -> _Slot:
        active = [s for s in self._slots if not s.retired]
        if want.only_infeasible:  # recipes that offered variants, or have not made a draft yet
            active = [s for s in active if s.variants or not s.drafts] or active
        preferred = [s for s in active if want.capability in s.recipe.capabilities] if want.capability else []
        pool = preferred or active
        if want.infeasible:  # recipes seen offering infeasible variants, while they keep offering some
            offering = [s for s in pool if s.variants and s.variants * 4 >= s.attempts]
            pool = offering or pool
        total = sum(s.recipe.weight for s in pool)
        for slot in pool:
            slot.current += slot.recipe.weight
        chosen = max(pool, key=lambda s: s.current)  # the first of equals: the shuffled order decides
        chosen.current -= total
        return chosen

    def propose(self, want: Want) -> Proposal:
        """Run the next recipe once: its feasible draft and, when wanted and offered, its infeasible variant
        first."""
        self._release()
        slot = self._choose(want)
        recipe = slot.recipe
        slot.attempts += 1
        started = time.perf_counter()
        proposal = Proposal(source=recipe.name, capabilities=recipe.capabilities)
        ctx = RecipeContext(self.workspace, self.toolkit, recipe, seed=self.seed, attempt=want.attempt)
        try:
            recipe(ctx)
            feasible, variant = ctx.drafts()
            slot.drafts += 1
            slot.variants += variant is not None or not feasible.feasible
            proposal.capabilities = feasible.capabilities
            proposal.drafts = [variant, feasible] if variant is not None and want.infeasible else [feasible]
            if variant is not None and not want.infeasible:
                proposal.detail = "infeasible variant offered, not wanted"
        except Skip as skip:
            proposal.skipped, proposal.detail = skip.reason, skip.detail
        except RecipeDefinitionError as exc:
            proposal.error, proposal.detail = str(exc), str(exc)
            slot.retired = f"definition error: {exc}"
        except TerminalError:
            raise  # the database or the toolkit is wrong, not this recipe: stop the run
        except Exception as exc:  # noqa: BLE001 - a recipe bug must not end the run; it is reported
            where = error_site(exc, recipe.source.rsplit(":", 1)[0])
            proposal.error = f"{type(exc).__name__} at {where}"
            proposal.detail = f"{type(exc).__name__}: {exc} ({where})"
        finally:
            if proposal.drafts:
                self._open = ctx  # the gate diffs its episode; released at feedback or the next proposal
            else:
                ctx.close()
        proposal.seconds = time.perf_counter() - started
        return proposal

    def _release(self) -> None:
        if self._open is not None:
            ctx, self._open = self._open, None
            ctx.close()

    def close(self) -> None:
        """Discard the episode a proposal kept for the gate, if the gate never took it."""
        self._release()

    def feedback(self, proposal: Proposal, kept: bool) -> None:
        self._release()
        slot = self._by_name[proposal.source]
        if kept:
            slot.kept += 1
            slot.misses = slot.skips = 0
            return
        if proposal.skipped is not None:
            slot.skips += 1
            slot.same_skips = slot.same_skips + 1 if proposal.skipped == slot.last_skip else 1
            slot.last_skip = proposal.skipped
        else:
            slot.misses += 1
            slot.same_skips, slot.last_skip = 0, None
        if slot.retired:
            return
        if not slot.drafts and slot.same_skips >= SAME_SKIPS:
            slot.retired = f"{SAME_SKIPS} skips in a row, never a draft: {proposal.skipped}"
        elif slot.misses >= MAX_MISSES:
            slot.retired = f"{MAX_MISSES} drafts in a row were rejected or failed"
        elif slot.skips >= MAX_SKIPS:
            slot.retired = f"{MAX_SKIPS} attempts in a row found no situation"

    def describe(self) -> dict[str, Any]:
        return {
            "generator": self.name,
            "recipes": {
                s.recipe.name: {
                    "capabilities": list(s.recipe.capabilities),
                    "difficulty": s.recipe.difficulty,
                    "attempts": s.attempts,
                    "kept": s.kept,
                    "variants": s.variants,
                    "retired": s.retired,
                }
                for s in sorted(self._slots, key=lambda s: s.recipe.name)
            },
        }


GeneratorFactory = Callable[..., Generator]
"""`factory(workspace, toolkit, *, recipes, seed, **options)`: a generator for one run."""

GENERATORS = Registry(
    "task generator",
    group="stateforge.generators",
    hint=" Choose one with --backend (offline, the default, runs the pack's recipes).",
)
"""Every task generator, by name: a `GeneratorFactory` or its `module:attribute`."""


def register_generator(name: str, factory: GeneratorFactory | str, description: str = "") -> None:
    """Make `--backend <name>` available: `factory(workspace, toolkit, recipes=..., seed=..., **options)`, or
    its `module:attribute` (imported when a run asks for it)."""
    GENERATORS.add(name, factory, description)


def _offline(
    workspace: Workspace, toolkit: Toolkit, *, recipes: list[Recipe], seed: int, **_: Any
) -> Generator:
    return OfflineGenerator(workspace, toolkit, recipes, seed=seed)


register_generator("offline", _offline, "the pack's recipes, run on the database (no LLM)")
register_generator(
    "openai", "stateforge.tasks.llm:llm_generator", "an agent over an OpenAI-compatible server proposes tasks"
)


def make_generator(
    name: str, workspace: Workspace, toolkit: Toolkit, *, recipes: list[Recipe], seed: int, **options: Any
) -> Generator:
    """The generator registered as `name`; `TerminalError` naming the ones there are otherwise."""
    factory = GENERATORS.load(name)
    return factory(workspace, toolkit, recipes=recipes, seed=seed, **options)
