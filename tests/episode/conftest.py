"""Fixtures: the built shop database (session) and episodes over it with the example tools."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.episode import Episode
from stateforge.tools import Toolkit
from tests.episode.fixture import build_shop, full_toolkit, shop_schema


@pytest.fixture(scope="session")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shop(tmp_path_factory.getbasetemp() / "fixtures")


@pytest.fixture(scope="session")
def kit() -> Toolkit:
    return full_toolkit(shop_schema())


@pytest.fixture
def ep(shop_db: Path, kit: Toolkit, tmp_path: Path) -> Iterator[Episode]:
    """A fresh episode over the shop (copies under tmp_path)."""
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as episode:
        yield episode
