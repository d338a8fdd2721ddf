"""Fixtures: the built shop (generic toolkit; shared with tests/episode) and a small build of the game pack
(its own business tools, stateforge/packs/game/tools/, and policies)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from stateforge.build import build_domain
from tests.episode.fixture import build_shop

STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
_BUILD_LOCK = threading.Lock()


@pytest.fixture(scope="session")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop pack, built once (no tools.py: the generic toolkit). Never write to it."""
    return build_shop(tmp_path_factory.getbasetemp() / "fixtures")


def built(tmp_path_factory: pytest.TempPathFactory, pack: str) -> Path:
    """`pack` built at scale 0.05 once per test process. Never write to it."""
    out = tmp_path_factory.getbasetemp() / "fixtures" / f"{pack}-mcp"
    with _BUILD_LOCK:
        if not (out / f"{pack}.duckdb").is_file():
            build_domain(pack, scale=0.05, out=out)
    return out / f"{pack}.duckdb"


@pytest.fixture(scope="session")
def game_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The game pack built at scale 0.05. Never write to it."""
    return built(tmp_path_factory, "game")


@pytest.fixture(scope="session")
def meeting_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The meeting pack built at scale 0.05. Never write to it."""
    return built(tmp_path_factory, "meeting")
