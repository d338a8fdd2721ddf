"""Composed tasks: steps that chain on shared entities, declared once, run as one recipe.

    @step(goal="the listener's top artists", capabilities=("aggregation_computation",))
    def top_artists(story: Story) -> None:
        stats = story.read("listening_stats", {"username": story["user"]["username"], "group_by": "artist"})
        story["artists"] = [row["artist"] for row in stats["rows"][:3]]
        story.say("Take the three artists I've played most this year ...")

    MIXTAPE = Storyline("artist_mixtape", cast=pick_listener,  # its source sets story["user"]
                        steps=(top_artists, collect_songs, new_playlist, fill_playlist))
    RECIPES = [MIXTAPE.recipe()]

A `Step` is a function of the `Story` (a `RecipeContext` plus the values the steps share): it reads through
the solver's tools (`story.read`, `story.read_all` for every page), writes (`story.call`), says its part of
the request (`story.say`), and records goals. `inputs` are the shared values it uses; `outputs` the ones it
sets. Left out, they are read from the function's source: every `story["name"]` it reads is an input (unless
it also sets it), every one it assigns an output; declare `inputs` only for an order the body does not show
(a step that must come after another one's writes without reading its values). A `Storyline` names the
steps in order; its `cast` picks the situation with SQL (the listener, the period) and provides the first
values. Declaring is checked at import time: an input nobody provides before the step is a
`RecipeDefinitionError` naming the storyline and the step.

What a storyline records in the task's `provenance`: `storyline`, `steps`, `knobs` (the difficulty the
generator set: `full_data`, `solver_filtering`, `boundary_distractor`, `policy_detour`, `found_by_working`,
each with what it was), `distractors` (the near-boundary items the gate checks exist) and, set by the gate,
`horizon` (the number of reference calls). A step whose input is another step's output makes the task
`cross_step_dependency`.

An infeasible storyline ends with `story.blocked(...)`: the write the domain's policies refuse, met only
after the earlier steps' reads (the sum, the age, the limit found by working). The reference is the reads,
the refused call and the decline; nothing is written (the pack's policies say the user wants all or
nothing).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stateforge.tasks.context import RecipeContext
from stateforge.tasks.model import CAPABILITIES
from stateforge.tasks.recipes import Recipe, RecipeDefinitionError, Skip, check_recipe

KNOBS = {
    "full_data": "full_data_acquisition",
    "solver_filtering": "multi_condition_filtering",
    "aggregation": "aggregation_computation",
    "boundary_distractor": "precise_boundary_judgment",
    "policy_detour": "cross_step_dependency",
    "found_by_working": "aggregation_computation",
}
"""The difficulty knobs a storyline sets, and the capability each one exercises."""

PAGE = 50
"""The largest page the packs' list tools serve: `read_all` pages with it, as a careful solver would."""


class Story:
    """One run of a storyline: the recipe context and the values its steps share (`story["user"]`)."""

    def __init__(self, ctx: RecipeContext, storyline: Storyline) -> None:
        self.ctx = ctx
        self.storyline = storyline
        self.values: dict[str, Any] = {}
        self.knobs: dict[str, Any] = {}
        self.step: Step | None = None
        self._made_by: dict[str, str] = {}
        self.cross_step = False

    # --- shared values ------------------------------------------------------------------------------

    def __getitem__(self, name: str) -> Any:
        if name not in self.values:
            where = f"step {self.step.name}" if self.step else "the cast"
            raise RecipeDefinitionError(
                f"storyline {self.storyline.name}: {where} reads {name!r}, which no earlier step set; "
                f"set so far: {', '.join(sorted(self.values)) or 'nothing'}."
            )
        if self.step is not None and self._made_by.get(name) not in (None, "cast", self.step.name):
            self.cross_step = True
        return self.values[name]

    def __setitem__(self, name: str, value: Any) -> None:
        self.values[name] = value
        self._made_by[name] = self.step.name if self.step else "cast"

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self.values else default

    # --- acting, reading, saying (the context's, recorded) -------------------------------------------

    @property
    def rng(self) -> Any:
        return self.ctx.rng

    def sql(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        return self.ctx.sql(sql, params)

    def say(self, variants: str | Sequence[str], **values: Any) -> str:
        return self.ctx.say(variants, **values)

    def read(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        return self.ctx.read(tool, arguments, step=step)

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        return self.ctx.call(tool, arguments, step=step)

    def read_all(
        self, tool: str, arguments: Mapping[str, Any], *, rows: str = "rows"
    ) -> list[dict[str, Any]]:
        """Every row of a paged list tool, a page of `PAGE` at a time (offset 0, 50, ...); more than one
        page sets the `full_data` knob."""
        found: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = self.read(tool, {**arguments, "limit": PAGE, "offset": offset})
            found.extend(page[rows])
            offset += PAGE
            if offset >= int(page.get("total", 0)) or not page[rows]:
                break
        if offset > PAGE:
            self.knob("full_data", self.knobs.get("full_data", 0) + offset // PAGE)
        return found

    def knob(self, name: str, value: Any = True) -> None:
        """Record a difficulty knob (one of `KNOBS`) and the capability it exercises."""
        if name not in KNOBS:
            raise RecipeDefinitionError(
                f"storyline {self.storyline.name}: unknown knob {name!r}; the knobs are {', '.join(KNOBS)}."
            )
        self.knobs[name] = value
        self.ctx.also(KNOBS[name])

    def distractor(self, entity: str, sql: str, params: Sequence[Any] | None = None) -> None:
        """Record a near-boundary distractor that exists in the data (a count query on the base that must
        return at least 1; the gate checks it again) and set the `boundary_distractor` knob."""
        self.ctx.distractor(entity, sql, params)
        self.knob("boundary_distractor", entity)

    def blocked(
        self, tool: str, arguments: Mapping[str, Any], *, kind: str, because: str, policy: str | None = None
    ) -> None:
        """End an infeasible storyline: `tool` must be refused (by `policy`, the domain.yaml policy that
        proves it, when given); the task is then to decline (`because`)."""
        self.ctx.blocked(tool, arguments, kind=kind, because=because, policy=policy)
        self.knob("found_by_working", because)


@dataclass(frozen=True)
class Step:
    """One step of a storyline: what it uses, what it sets, what it achieves, and its function."""

    name: str
    run: Callable[[Story], None]
    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    goal: str = ""
    capabilities: tuple[str, ...] = ()
    source: str = field(default="", repr=False)


def step(
    *,
    inputs: Iterable[str] | None = None,
    outputs: Iterable[str] | None = None,
    goal: str = "",
    capabilities: Iterable[str] = (),
    name: str | None = None,
) -> Callable[[Callable[[Story], None]], Step]:
    """Mark `fn(story)` as a step (see the module docstring); `inputs` and `outputs` default to the shared
    values its source reads and sets (`shared_values`)."""

    def make(fn: Callable[[Story], None]) -> Step:
        where = _source(fn)
        caps = tuple(capabilities)
        bad = [c for c in caps if c not in CAPABILITIES]
        if bad:
            raise RecipeDefinitionError(f"{where}: step {fn.__name__}: unknown capability {bad[0]!r}.")
        reads, sets = shared_values(fn) if inputs is None or outputs is None else ((), ())
        return Step(
            name or fn.__name__,
            fn,
            reads if inputs is None else tuple(inputs),
            sets if outputs is None else tuple(outputs),
            goal or (fn.__doc__ or "").strip(),
            caps,
            where,
        )

    return make


@dataclass(frozen=True)
class Storyline:
    """Steps in order on shared entities; `cast` picks the situation and provides the first values (left out,
    `provides` is what the cast's source sets: `story["user"] = ...`)."""

    name: str
    cast: Callable[[Story], None]
    steps: tuple[Step, ...]
    provides: tuple[str, ...] = ()
    capabilities: tuple[str, ...] = ("cross_step_dependency",)
    difficulty: str = "hard"
    weight: float = 1.0
    feasible: bool = True
    description: str = ""

    def __post_init__(self) -> None:
        if not self.provides:
            object.__setattr__(self, "provides", shared_values(self.cast)[1])
        where = _source(self.cast)
        check_recipe(self.name, self.capabilities, self.difficulty, self.weight, where)
        if not self.steps:
            raise RecipeDefinitionError(f"{where}: storyline {self.name} has no steps.")
        known = set(self.provides)
        for item in self.steps:
            missing = [i for i in item.inputs if i not in known]
            if missing:
                raise RecipeDefinitionError(
                    f"{item.source}: storyline {self.name}: step {item.name} needs {', '.join(missing)}, "
                    "which neither the cast nor an earlier step provides "
                    f"(known: {', '.join(sorted(known))})."
                )
            known.update(item.outputs)

    def recipe(self) -> Recipe:
        """The storyline as a recipe the offline generator schedules like any other."""

        def run(ctx: RecipeContext) -> None:
            story = Story(ctx, self)
            self.cast(story)
            for item in self.steps:
                story.step = item
                item.run(story)
                ctx.also(*item.capabilities)
            story.step = None
            if story.cross_step:
                ctx.also("cross_step_dependency")
            if self.feasible and ctx.declined:
                raise RecipeDefinitionError(f"storyline {self.name}: feasible, yet a step called blocked().")
            if not self.feasible and not ctx.declined:
                raise Skip("no blocker met", f"storyline {self.name}: no step met a refusal")
            ctx.provenance.update(
                storyline=self.name,
                steps=[s.name for s in self.steps],
                knobs=dict(sorted(story.knobs.items())),
            )

        caps = tuple(dict.fromkeys([*self.capabilities, *(c for s in self.steps for c in s.capabilities)]))
        return Recipe(
            name=self.name,
            fn=run,
            capabilities=tuple(c for c in CAPABILITIES if c in caps),
            difficulty=self.difficulty,
            weight=self.weight,
            description=self.description or " then ".join(s.goal or s.name for s in self.steps),
            source=_source(self.cast),
        )


def shared_values(fn: Callable[..., Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The shared values a step function reads and sets, from its source: `story["name"]` read (and never
    set by it) and `story["name"] = ...`, where `story` is its first parameter; each in the order of first
    use. Nothing when the source cannot be read (a function made at run time)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError, SyntaxError):
        return (), ()
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) or not func.args.args:
        return (), ()
    story = func.args.args[0].arg
    used = sorted(
        (
            node
            for node in ast.walk(func)
            if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and node.value.id == story
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
        ),
        key=lambda node: (node.lineno, node.col_offset),
    )
    sets = dict.fromkeys(n.slice.value for n in used if isinstance(n.ctx, ast.Store))  # type: ignore[attr-defined]
    reads = dict.fromkeys(n.slice.value for n in used if n.slice.value not in sets)  # type: ignore[attr-defined]
    return tuple(reads), tuple(sets)


def _source(fn: Callable[..., Any]) -> str:
    try:
        return f"{inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]}"
    except (OSError, TypeError):
        return getattr(fn, "__qualname__", repr(fn))
