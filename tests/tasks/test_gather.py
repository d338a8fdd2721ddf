"""`recipes_in`: the recipes a pack's modules define, module by module in definition order, not the ones they
import."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from stateforge.tasks.gather import recipes_in

FIRST = '''
from stateforge.tasks import RecipeContext, recipe


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def zeta(ctx: RecipeContext) -> None:
    """Defined first, named last."""


@recipe(capabilities=("cross_step_dependency",), difficulty="easy", name="renamed")
def alpha(ctx: RecipeContext) -> None:
    """Defined second, under another name."""
'''

SECOND = '''
from stateforge.tasks import RecipeContext, recipe

from FIRST_MODULE import zeta


@recipe(capabilities=("aggregation_computation",), difficulty="medium")
def middle(ctx: RecipeContext) -> None:
    """The second module's own recipe (zeta is only imported here)."""
'''


def _module(tmp_path: Path, name: str, text: str) -> ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_recipes_in_lists_each_modules_own_recipes_in_definition_order(tmp_path: Path):
    first = _module(tmp_path, "recipes_first", FIRST)
    second = _module(tmp_path, "recipes_second", SECOND.replace("FIRST_MODULE", "recipes_first"))
    try:
        assert [r.name for r in recipes_in(first, second)] == ["zeta", "renamed", "middle"]
        assert [r.name for r in recipes_in(second, first)] == ["middle", "zeta", "renamed"]
    finally:
        sys.modules.pop("recipes_first", None)
        sys.modules.pop("recipes_second", None)
