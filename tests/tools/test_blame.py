"""The argument at fault, read from a tool's message when the tool did not name it (tools/blame.py)."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from stateforge.tools.blame import blame


class Choice(BaseModel):
    skin: str
    hero: str | None = None


CASES = [
    ("no user named 'ana'; check the spelling.", {"username": "ana", "limit": 20}, "username"),
    ("ana already has a playlist named 'Road'.", {"username": "ana", "title": "Road"}, "title"),
    ('no song "Hey" by Ana.', {"songs": ["Hey"], "artist": None}, "songs"),
    ("no skin named 'Frost' for Mira.", {"player": "kim", "skins": [Choice(skin="Frost")]}, "skins"),
    ("Mira is banned until 2026-07-01.", {"player": "Mira", "clan": "ABC"}, "player"),
    ("playlist 42 is not yours.", {"username": "ana", "playlist": 42}, "playlist"),
    ("the shop is closed today.", {"username": "ana", "limit": 2}, None),
    ("costs 1,200 gold; 20 short.", {"player": "kim", "count": 1}, None),
    ("flag is on.", {"public": True, "note": "on"}, None),  # booleans and words under 3 letters name nothing
]


@pytest.mark.parametrize(("message", "arguments", "expected"), CASES, ids=[c[0][:30] for c in CASES])
def test_blame_names_the_parameter_whose_value_the_message_names(message, arguments, expected):
    assert blame(message, arguments) == expected
