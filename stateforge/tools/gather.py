"""Every tool a pack's modules define, so that a pack's `tools/__init__.py` names its modules once instead
of listing each tool again.

    from stateforge.tools import Toolkit
    from stateforge.tools.gather import tools_in

    from . import account, catalog

    TOOLS = Toolkit(tools_in(catalog, account), name="game")   # catalog's tools, then account's
"""

from __future__ import annotations

from types import ModuleType

from stateforge.tools.base import Tool


def tools_in(*modules: ModuleType) -> list[Tool]:
    """The `@tool`s each module defines (not the ones it imports), module by module, each module's in the
    order its file defines them."""
    found: list[Tool] = []
    for module in modules:
        own = [
            v
            for v in vars(module).values()
            if isinstance(v, Tool) and v.fn is not None and v.fn.__module__ == module.__name__
        ]
        found.extend(sorted(own, key=lambda t: t.fn.__code__.co_firstlineno))  # type: ignore[union-attr]
    return found
