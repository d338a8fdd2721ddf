"""The module boundaries: imports between subpackages go one way, down `stateforge.LAYERS`, with no cycle.

Every import counts: at the top of a module, inside a function, under `TYPE_CHECKING`.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import networkx as nx
import pytest

import stateforge

ROOT = Path(stateforge.__file__).resolve().parent.parent
PACKAGES = ("stateforge",)


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def unit(module: str) -> str:
    """The layer unit a module belongs to: `stateforge.fill.keys` -> `fill`, `stateforge.validation.audit` ->
    `validation`; the `stateforge` package's own `__init__` is `stateforge`."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def imported(module: str, tree: ast.AST) -> list[tuple[str, int]]:
    """Every project module `module` imports, with the line, wherever the import statement is."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolve against the importing package
                package = module.split(".")
                package = package if MODULES[module].name == "__init__.py" else package[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:  # `import stateforge.fill.keys as k` names a module
                name = name.rpartition(".")[0]
            if name:
                found.append((name, node.lineno))
    return found


def unit_edges() -> dict[tuple[str, str], list[str]]:
    """(importer unit, imported unit) -> where: `path:line` of each import between two units."""
    edges: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, path in MODULES.items():
        for target, line in imported(module, ast.parse(path.read_text(), str(path))):
            if unit(target) != unit(module):
                edges[(unit(module), unit(target))].append(f"{path.relative_to(ROOT)}:{line}")
    return edges


EDGES = unit_edges()
LAYER = {name: i for i, layer in enumerate(stateforge.LAYERS) for name in layer}


def test_the_package_root_imports_nothing_of_stateforge():
    assert not [target for (src, target) in EDGES if src == "stateforge"]


def test_every_subpackage_has_a_layer():
    units = {unit(m) for m in MODULES} - {"stateforge"}
    missing = sorted(units - set(LAYER))
    assert not missing, f"add {missing} to stateforge.LAYERS (and its docstring), below what they import"
    assert not set(LAYER) - units, "stateforge.LAYERS names a subpackage that does not exist"


def test_subpackages_import_each_other_without_a_cycle():
    graph = nx.DiGraph(list(EDGES))
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return
    where = "; ".join(f"{a} -> {b} ({', '.join(EDGES[(a, b)][:3])})" for a, b in cycle)
    pytest.fail(f"import cycle between subpackages: {where}")


@pytest.mark.parametrize("edge", sorted(EDGES), ids=lambda e: f"{e[0]}->{e[1]}")
def test_imports_go_down_the_layers(edge: tuple[str, str]):
    src, target = edge
    if target == "stateforge":
        return  # the package root (`__version__`) sits below everything
    assert LAYER[src] > LAYER[target], (
        f"{src} (layer {LAYER[src]}) imports {target} (layer {LAYER[target]}) at {', '.join(EDGES[edge])}: "
        "move the shared code down to a layer both can import (stateforge.LAYERS)"
    )


def test_the_walk_sees_imports_inside_functions():
    """The checker itself: a function-level import is found (so a lazy import cannot hide a cycle)."""
    tree = ast.parse("def f():\n    from stateforge.store.sql import table_ref\n")
    assert imported("stateforge.fill.engine", tree) == [("stateforge.store.sql", 2)]
