"""The game pack's business tools: what a MOBA player does in the client, as a solver agent may call it.

The tools live in one module per part of the product (relative imports: the pack loads
as a package wherever its folder lives), listed here in the order clients see them (each module's tools in
the order it defines them):

| module | tools |
|---|---|
| catalog | heroes, skins, items, runes, seasons and season rewards (read-only catalogue) |
| account | profiles, player search, owned heroes and skins, buying, gifting, equipping skins |
| runes | rune pages and their runes |
| builds | item builds |
| friends | friends, friend requests, special relations |
| clans | clans, members and roles |
| mail | the mailbox, mail rewards, season rewards |
| matches | match history, match details, statistics, rank history |

docs/packs/game.md lists every tool, the policies they enforce and the tables that stay read-only.
"""

from __future__ import annotations

from stateforge.tools import Toolkit
from stateforge.tools.base import Tool
from stateforge.tools.collect import defined_in

from . import account, builds, catalog, clans, friends, mail, matches, runes

TOOLS = Toolkit(
    defined_in(catalog, account, runes, builds, friends, clans, mail, matches, kind=Tool), name="game"
)
