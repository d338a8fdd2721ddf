"""The one registry shape (stateforge/registry.py) and the one stage driver (stateforge/stages.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import SOLVERS
from stateforge.fill.strategies import STRATEGIES
from stateforge.llm.backends import BACKENDS
from stateforge.registry import Registry
from stateforge.stages import Stage, each, run_stages, until
from stateforge.tasks.generators import GENERATORS


class WidgetError(TerminalError):
    pass


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real installed distribution on sys.path: a module and an entry-point group, as pip would lay out."""
    (tmp_path / "sf_widgets.py").write_text("def make():\n    return 'from a plugin'\n\nCODE = 'from code'\n")
    info = tmp_path / "sf_widgets-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sf-widgets\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[stateforge.test-widgets]\nplugged = sf_widgets:make\nshadowed = sf_widgets:make\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "sf_widgets", raising=False)
    return tmp_path


def test_lazy_entries_import_only_when_loaded(plugin_path: Path) -> None:
    widgets = Registry("widget", error=WidgetError)
    entry = widgets.add("Lazy ", "sf_widgets:CODE", "a lazy one", weight=3)
    assert entry.name == "lazy" and entry.lazy and entry.options == {"weight": 3}
    assert "sf_widgets" not in sys.modules
    assert widgets.load("LAZY") == "from code" and "sf_widgets" in sys.modules
    obj = object()
    widgets.add("plain", obj)
    assert widgets.load("plain") is obj and sorted(widgets) == ["lazy", "plain"]


def test_entry_points_are_read_and_code_wins(plugin_path: Path) -> None:
    widgets = Registry("widget", group="stateforge.test-widgets", error=WidgetError)
    widgets.add("shadowed", "sf_widgets:CODE")
    assert "plugged" in widgets
    assert widgets.load("plugged")() == "from a plugin"
    assert widgets.load("shadowed") == "from code"
    assert set(widgets) == {"plugged", "shadowed"}


def test_unknown_names_say_what_there_is(plugin_path: Path) -> None:
    widgets = Registry("widget", error=WidgetError, paths=True, hint=" Pick one with --widget.")
    widgets.add("sprocket", "sf_widgets:CODE")
    expected = (r"unknown widget 'sprockt'\. Did you mean \"sprocket\"\? "
                r"Registered: sprocket\. Or give your own .* Pick one with --widget\.")
    with pytest.raises(WidgetError, match=expected):
        widgets.load("sprockt")
    assert widgets.load("sf_widgets:make")() == "from a plugin"
    with pytest.raises(WidgetError, match="cannot import no_such_module_here"):
        widgets.load("no_such_module_here:x")
    with pytest.raises(WidgetError, match="has no attribute missing"):
        widgets.load("sf_widgets:missing")
    closed = Registry("widget", error=WidgetError)
    with pytest.raises(WidgetError, match="Registered: none"):
        closed.load("sf_widgets:make")


def test_every_kind_uses_the_one_shape() -> None:
    for registry, name in ((SOLVERS, "oracle"), (GENERATORS, "offline"), (BACKENDS, "openai"),
                           (STRATEGIES, "email")):
        assert isinstance(registry, Registry) and name in registry
    assert SOLVERS.entry("oracle").options["privileged"] is True
    assert GENERATORS.entry("openai").lazy  # the LLM generator is imported only when asked for
    assert BACKENDS.load("offline").uses_llm is False


def test_stages_run_in_order_split_by_each_and_until() -> None:
    seen: list[str] = []

    class Run:
        rounds = 0

    def step(run: Run, *args: object) -> None:
        seen.append(f"{args}")
        if not args:
            run.rounds += 1

    held: list[str] = []

    def items(run: Run):
        held.append("open")
        try:
            yield from ("a", "b")
        finally:
            held.append("closed")

    labels: list[str] = []

    def runner(stage: Stage, label: str, work) -> None:
        labels.append(f"{stage.name}:{label}")
        work()

    stages = (Stage("first", step), Stage("fill-table", step, parts=each(items, prefix="fill")),
              Stage("round", step, parts=until(lambda run: run.rounds >= 3)))
    run_stages(Run(), stages, runner)
    assert labels == ["first:first", "fill-table:fill-a", "fill-table:fill-b",
                      "round:round-1", "round:round-2"]
    assert held == ["open", "closed"]


def test_a_failing_part_releases_what_its_parts_hold() -> None:
    held: list[str] = []

    def items(run: object):
        held.append("open")
        try:
            yield from ("a", "b", "c")
        finally:
            held.append("closed")

    def boom(run: object, item: str) -> None:
        if item == "b":
            raise RuntimeError("b failed")

    with pytest.raises(RuntimeError, match="b failed"):
        run_stages(object(), (Stage("fill", boom, parts=each(items)),))
    assert held == ["open", "closed"]
