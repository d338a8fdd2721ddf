"""The music pack built small once per test process (scale 0.05: 500 listeners, 1,000 songs, 250
playlists), and a fresh episode over it, with the pack's own tools, for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.episode import Episode
from stateforge.tools import Toolkit, load_toolkit
from tests.packs.music.calls import Calls
from tests.shared import pack_at


@pytest.fixture(scope="session")
def music_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built pack, once for the session (the MCP tests read the same build); never written (episodes
    work on copies)."""
    return pack_at(tmp_path_factory, "music", 0.05)


@pytest.fixture(scope="session")
def music_kit() -> Toolkit:
    """The pack's toolkit (stateforge/packs/music/tools/)."""
    return load_toolkit("music")


@pytest.fixture
def ep(music_db: Path, music_kit: Toolkit, tmp_path: Path) -> Iterator[Episode]:
    """A fresh episode over the built pack."""
    with Episode.open(music_db, toolkit=music_kit, workdir=tmp_path) as episode:
        yield episode


@pytest.fixture
def run(ep: Episode) -> Calls:
    """`run.ok(tool, **args)` / `run.refused(tool, **args)` over the episode, and `run.one(sql)` to look."""
    return Calls(ep)
