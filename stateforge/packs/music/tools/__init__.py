"""The music pack's business tools: what a listener (or the support agent acting for one) can do in the
app, shaped like the product's API rather than its tables.

The tools live in modules beside this file, one area each; `TOOLS` lists them in the order clients see
them, module by module (each module's tools in the order they are written there): the catalogue and
charts, people and accounts, billing, the library, listening, playlists and comments. Every write tool
acts for one listener, named by username (or e-mail address), and refuses what the pack's policies
(domain.yaml `policies`) forbid, naming the policy. docs/packs/music.md describes them.
"""

from __future__ import annotations

from stateforge.tools import Tool
from stateforge.tools.collect import defined_in

from . import account, billing, catalog, charts, comments, history, library, playlist_songs, playlists

TOOLS = defined_in(
    catalog, charts, account, billing, library, history, playlists, playlist_songs, comments, kind=Tool
)
