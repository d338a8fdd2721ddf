"""Fixtures: the built shop (generic toolkit; shared with tests/episode) and a small build of music."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

from pipeline.build import build_domain
from tests.episode.fixture import build_shop

STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
_MUSIC_LOCK = threading.Lock()


@pytest.fixture(scope="session")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop pack, built once (no tools.py: the generic toolkit). Never write to it."""
    return build_shop(tmp_path_factory.getbasetemp() / "fixtures")


@pytest.fixture(scope="session")
def music_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The music pack built small. Never write to it."""
    out = tmp_path_factory.getbasetemp() / "fixtures" / "music-mcp"
    with _MUSIC_LOCK:
        if not (out / "music.duckdb").is_file():
            build_domain("music", rows=20, seed=5, out=out)
    return out / "music.duckdb"
