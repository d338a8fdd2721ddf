"""Fixtures: the built shop (generic toolkit; shared with tests/episode) and a small build of the game pack
(its own business tools, stateforge/packs/game/tools/, and policies)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.episode.fixture import build_shop
from tests.shared import pack_at

STATEFORGE = str(Path(sys.executable).with_name("stateforge"))


@pytest.fixture(scope="session")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop pack, built once (no tools.py: the generic toolkit). Never write to it."""
    return build_shop(tmp_path_factory.getbasetemp() / "fixtures")


def built(tmp_path_factory: pytest.TempPathFactory, pack: str) -> Path:
    """`pack` built at scale 0.05 once for the session (the pack's own tests read the same build). Never
    write to it."""
    return pack_at(tmp_path_factory, pack, 0.05)


@pytest.fixture(scope="session")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The game pack built at scale 0.05. Never write to it."""
    return built(tmp_path_factory, "game")


@pytest.fixture(scope="session")
def meeting_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The meeting pack built at scale 0.05. Never write to it."""
    return built(tmp_path_factory, "meeting")
