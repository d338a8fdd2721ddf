"""`defined_in`: the tools (or recipes) a pack's modules define, in order, without listing them again.

    from . import account, catalog
    TOOLS = defined_in(catalog, account, kind=Tool)   # catalog's tools as defined, then account's

A pack's `tools/__init__.py` (or `tasks/__init__.py`) names its modules in the order clients see them;
each module's own order is its definition order. An object a module imports from another module is not
its own and is left out, so a tool is listed once, where it is written.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, TypeVar

T = TypeVar("T")


def defined_in(*modules: ModuleType, kind: type[T]) -> list[T]:
    """Every `kind` object (a `Tool`, a `Recipe`: anything whose decorated function is its `fn`) bound at
    module level in each of `modules`: the modules in the order given, each in definition order."""
    found: list[T] = []
    for module in modules:
        for value in vars(module).values():
            if isinstance(value, kind) and _home(value) == module.__name__:
                found.append(value)
    return found


def _home(value: Any) -> str | None:
    fn = getattr(value, "fn", None)
    return getattr(fn, "__module__", None)
