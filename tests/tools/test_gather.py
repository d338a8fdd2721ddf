"""`tools_in`: the tools a pack's modules define, module by module in definition order, not the ones they
import."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from stateforge.tools import Toolkit
from stateforge.tools.gather import tools_in

FIRST = '''
from stateforge.tools import Env, tool


@tool(reads=("customers",))
def zeta(env: Env) -> dict:
    """Defined first, named last."""
    return {}


def helper() -> int:
    return 1


@tool(reads=("customers",))
def alpha(env: Env) -> dict:
    """Defined second."""
    return {}
'''

SECOND = '''
from stateforge.tools import Env, tool

from FIRST_MODULE import alpha


@tool(reads=("orders",))
def middle(env: Env) -> dict:
    """The second module's own tool (alpha is only imported here)."""
    return {}
'''


def _module(tmp_path: Path, name: str, text: str) -> ModuleType:
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_tools_in_lists_each_modules_own_tools_in_definition_order(tmp_path: Path):
    first = _module(tmp_path, "gather_first", FIRST)
    second = _module(tmp_path, "gather_second", SECOND.replace("FIRST_MODULE", "gather_first"))
    try:
        assert [t.name for t in tools_in(first, second)] == ["zeta", "alpha", "middle"]
        assert [t.name for t in tools_in(second, first)] == ["middle", "zeta", "alpha"]
        kit = Toolkit(tools_in(first, second), name="gathered")
        assert [t.name for t in kit][:3] == ["zeta", "alpha", "middle"]
    finally:
        sys.modules.pop("gather_first", None)
        sys.modules.pop("gather_second", None)
