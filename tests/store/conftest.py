"""Fixtures for the store's tests: the shop model and a database created from it."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.graph import FillPlan
from stateforge.schema.model import Schema
from stateforge.store import create_database
from tests.store.shop import shop


@pytest.fixture
def model() -> tuple[Schema, FillPlan]:
    return shop()


@pytest.fixture
def db_path(tmp_path: Path, model: tuple[Schema, FillPlan]) -> Path:
    """A fresh, empty shop database on disk."""
    schema, plan = model
    return create_database(schema, plan, tmp_path / "shop.duckdb")
