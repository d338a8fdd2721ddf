"""Every recipe a pack's modules define, so that a pack's `tasks/__init__.py` names its modules once instead
of importing and listing each recipe again.

    from stateforge.tasks.gather import recipes_in

    from . import clans, friends

    WARMUP = recipes_in(friends, clans)   # friends' recipes, then clans', each in definition order
"""

from __future__ import annotations

from types import ModuleType

from stateforge.tasks.recipes import Recipe


def recipes_in(*modules: ModuleType) -> list[Recipe]:
    """The `@recipe`s each module defines (not the ones it imports), module by module, each module's in the
    order its file defines them."""
    found: list[Recipe] = []
    for module in modules:
        own = [
            v for v in vars(module).values() if isinstance(v, Recipe) and v.fn.__module__ == module.__name__
        ]
        found.extend(sorted(own, key=lambda r: r.fn.__code__.co_firstlineno))
    return found
