"""The shop pack (tests/episode/shop), built once per test process, and a toolkit over it."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from stateforge.build import build_domain
from stateforge.domain import load_domain
from stateforge.schema.model import Schema
from stateforge.tools import Toolkit, generic_tools
from tests.episode.example_tools import EXAMPLES, MISBEHAVING

SHOP = Path(__file__).parent / "shop"
_LOCK = threading.Lock()
_BUILT: dict[str, Path] = {}


def build_shop(root: Path) -> Path:
    """The built shop database (built at most once per process, under `root`). Never write to it."""
    with _LOCK:
        if "shop" not in _BUILT:
            build_domain(str(SHOP), out=root / "shop")
            _BUILT["shop"] = root / "shop" / "shop.duckdb"
        return _BUILT["shop"]


def shop_schema() -> Schema:
    return load_domain(str(SHOP)).schema


def full_toolkit(schema: Schema) -> Toolkit:
    """The example tools, the misbehaving ones and the shop's generic tools."""
    return Toolkit(EXAMPLES + MISBEHAVING + generic_tools(schema), name="shop-test")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
