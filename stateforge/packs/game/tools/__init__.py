"""The game pack's business tools: what a MOBA player does in the client, as a solver agent may call it.

The tools live in one module per part of the product (relative imports: the pack loads as a package wherever
its folder lives), each saying in its docstring what it holds; clients see them in the order `TOOLS` lists
the modules, each module's tools in the order it defines them. docs/packs/game.md lists every tool, the
policies they enforce and the tables that stay read-only.
"""

from __future__ import annotations

from stateforge.tools import Toolkit
from stateforge.tools.base import Tool
from stateforge.tools.collect import defined_in

from . import account, builds, catalog, clans, friends, mail, matches, runes

TOOLS = Toolkit(
    defined_in(catalog, account, runes, builds, friends, clans, mail, matches, kind=Tool), name="game"
)
