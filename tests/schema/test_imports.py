"""The parser's modules import on their own, first in a fresh interpreter: no import cycle with the graph."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["stateforge.graph", "stateforge.schema", "stateforge.graph.report"])
def test_module_imports_first(module: str) -> None:
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
