"""Recipes: plain Python functions that make one task draft each, marked with `@recipe`.

    from stateforge.tasks import RecipeContext, Skip, recipe

    @recipe(capabilities=("cross_step_dependency",), difficulty="easy")
    def rename_playlist(ctx: RecipeContext) -> None:
        '''A listener renames one of their playlists.'''
        row = ctx.pick("SELECT ... FROM playlists ...")
        ...

A pack keeps its recipes in its `tasks/` package (`stateforge/packs/<pack>/tasks/`, imported with the pack
as a package of its own, like `tools/`: `stateforge.domain.modules`), and gives them as `RECIPES = [...]`
(exactly these, in this order) or else as every `@recipe` function defined at
module level, in definition order. A database or DDL with no pack recipes gets the generic set
(`stateforge.tasks.generic_recipes.GENERIC_RECIPES`). docs/tasks.md is the guide.
"""

from __future__ import annotations

import inspect
import re
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from stateforge.domain.modules import import_pack_part, part_file
from stateforge.errors import TerminalError
from stateforge.tasks.model import CAPABILITIES, DIFFICULTIES

if TYPE_CHECKING:
    from stateforge.tasks.context import RecipeContext

RECIPES_PART = "tasks"
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class RecipeDefinitionError(TerminalError):
    """A recipe or a pack's `tasks` is written wrong; the message names the file, line and the fix."""


class Skip(Exception):  # noqa: N818 - a recipe "skips", it does not fail
    """Raised by a recipe (`ctx.skip(...)`, or raise it) when the database offers no situation for it.

    `reason` is short and stable (it is counted in the generation report): "no playlist with 3+ songs".
    """

    def __init__(self, reason: str, detail: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.detail = detail or reason


class CallFailed(Skip):
    """A tool call of a recipe failed (`ctx.call` raises it): counted as `call failed: <tool> (<kind>)`."""

    def __init__(self, tool: str, kind: str | None, error: str | None) -> None:
        super().__init__(f"call failed: {tool} ({kind})", f"{tool}: {error}")
        self.tool, self.kind, self.error = tool, kind, error


@dataclass(frozen=True, eq=False)
class Recipe:
    """A recipe: its function and what the tasks it makes exercise."""

    name: str
    fn: Callable[[RecipeContext], Any]
    capabilities: tuple[str, ...]
    difficulty: str
    weight: float = 1.0
    """How often the scheduler tries it, relative to the others."""
    description: str = ""
    source: str = field(default="", repr=False)
    """`file:line` of the function, for messages."""

    def __call__(self, ctx: RecipeContext) -> Any:
        return self.fn(ctx)


def recipe(
    fn: Callable[[RecipeContext], Any] | None = None,
    *,
    capabilities: Iterable[str] = (),
    difficulty: str = "medium",
    name: str | None = None,
    weight: float = 1.0,
) -> Any:
    """Mark `fn(ctx)` as a recipe that makes tasks exercising `capabilities` at `difficulty`.

    `capabilities`: one or more of `CAPABILITIES` (a recipe may add more per draft, `ctx.also(...)`);
    `difficulty`: easy, medium or hard (a draft may change it, `ctx.difficulty = "hard"`); `name`: the
    recipe's name in reports and provenance (default: the function's); `weight`: relative frequency.
    Mistakes are a `RecipeDefinitionError` at import time naming the function and the fix.
    """

    def make(func: Callable[[RecipeContext], Any]) -> Recipe:
        where = _source(func)
        recipe_name = name or func.__name__
        caps = tuple(capabilities)
        check_recipe(recipe_name, caps, difficulty, weight, where)
        params = [p for p in inspect.signature(func).parameters.values()]
        if len(params) != 1:
            raise RecipeDefinitionError(
                f"{where}: recipe {recipe_name} takes one parameter, the RecipeContext (def {func.__name__}"
                "(ctx: RecipeContext) -> None)."
            )
        return Recipe(
            name=recipe_name,
            fn=func,
            capabilities=tuple(c for c in CAPABILITIES if c in caps),
            difficulty=difficulty,
            weight=float(weight),
            description=inspect.cleandoc(func.__doc__ or "").split("\n\n")[0].replace("\n", " "),
            source=where,
        )

    return make(fn) if fn is not None else make


def check_recipe(
    name: str, capabilities: tuple[str, ...], difficulty: str, weight: float, where: str
) -> None:
    """`RecipeDefinitionError` for a bad name, capability, difficulty or weight."""
    if not _NAME.match(name):
        raise RecipeDefinitionError(
            f"{where}: recipe name {name!r}: use lower-case letters, digits and _ (at most 64)."
        )
    if not capabilities:
        raise RecipeDefinitionError(
            f"{where}: recipe {name}: give capabilities=(...), one or more of {', '.join(CAPABILITIES)}."
        )
    for cap in capabilities:
        if cap not in CAPABILITIES:
            from stateforge.schema.model import suggest

            raise RecipeDefinitionError(
                f"{where}: recipe {name}: unknown capability {cap!r}.{suggest(cap, list(CAPABILITIES))} "
                f"The five are {', '.join(CAPABILITIES)}."
            )
    if difficulty not in DIFFICULTIES:
        raise RecipeDefinitionError(
            f"{where}: recipe {name}: difficulty {difficulty!r} is not one of {', '.join(DIFFICULTIES)}."
        )
    if not weight > 0:
        raise RecipeDefinitionError(f"{where}: recipe {name}: weight must be above 0, got {weight!r}.")


def _source(func: Callable[..., Any]) -> str:
    try:
        return f"{inspect.getsourcefile(func)}:{inspect.getsourcelines(func)[1]}"
    except (OSError, TypeError):
        return getattr(func, "__qualname__", repr(func))


def load_recipes(path: str | Path, tier: str | None = None) -> list[Recipe]:
    """The recipes of a pack folder's `tasks` (or of one module or package of recipes, given by its path):
    the tier `tier` of its `TIERS` (a dict name -> recipes, the first the default), else `RECIPES`, else
    every `Recipe` at module level in definition order. A tier the pack lacks is a `RecipeDefinitionError`
    naming the ones it has."""
    root, part = recipes_source(Path(path))
    path = part_file(root, part)
    module = import_recipes(root, part)
    tiers = getattr(module, "TIERS", None)
    if tier is not None or tiers:
        if not tiers or (tier is not None and tier not in tiers):
            have = ", ".join(tiers) if tiers else "none (one set: RECIPES)"
            raise RecipeDefinitionError(f"{path}: no task tier {tier!r}; the pack's tiers: {have}.")
        found = list(tiers[tier] if tier is not None else next(iter(tiers.values())))
    elif hasattr(module, "RECIPES"):
        found = list(module.RECIPES)
    else:
        found = [v for v in vars(module).values() if isinstance(v, Recipe)]
    bad = [r for r in found if not isinstance(r, Recipe)]
    if bad:
        raise RecipeDefinitionError(
            f"{path}: RECIPES holds {bad[0]!r}, which is not a recipe; decorate it with @recipe(...)."
        )
    if not found:
        raise RecipeDefinitionError(
            f"{path}: defines no recipe. Decorate functions with @recipe(capabilities=..., difficulty=...) "
            "or list them in RECIPES."
        )
    names: dict[str, Recipe] = {}
    for item in found:
        if item.name in names and names[item.name] is not item:
            raise RecipeDefinitionError(f"{path}: two recipes are named {item.name}; rename one.")
        names[item.name] = item
    return found


def recipes_source(path: Path) -> tuple[Path, str]:
    """(pack folder, part) for a pack folder (its `tasks`), a recipes module `x.py` or a package folder."""
    if path.suffix == ".py":
        return path.parent, path.stem
    if path.is_dir() and (path / "__init__.py").is_file() and not (path / "schema.sql").is_file():
        return path.parent, path.name
    return path, RECIPES_PART


def import_recipes(root: Path, part: str = RECIPES_PART) -> ModuleType:
    """Import a pack's recipes (cached until a file of the pack changes); errors name the file and line."""
    return import_pack_part(root, part, what="recipes", error=RecipeDefinitionError, keep_own=True)


def error_site(exc: BaseException, file: str | None = None) -> str:
    """`file:line` of the innermost frame of `exc` in `file` (a recipe's module), else the innermost one."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if file and Path(f.filename).resolve() == Path(file).resolve()]
    chosen = inside[-1] if inside else (frames[-1] if frames else None)
    return f"{chosen.filename}:{chosen.lineno}" if chosen else "?"
