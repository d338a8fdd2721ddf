"""The plots: inline SVG whose ids are the plot's own, whose bytes depend only on the data, whose drawn
marks are in `<id>-data`."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from stateforge.html import plots

EDGES = [float(i * 10) for i in range(31)]
COUNTS = [i * (30 - i) for i in range(30)]


def every_kind() -> list[plots.Plot]:
    """One plot of each kind, with ids p1..p5 (the same calls in a test and in a subprocess)."""
    return [
        plots.histogram("p1", EDGES, COUNTS, title="numbers", xlabel="ms", note="sample"),
        plots.histogram("p2", [1.6e9 + i * 86400 * 20 for i in range(31)], COUNTS, scale="time"),
        plots.bars("p3", ["active", "closed", "NULL"], [950, 40, 10], warn=["NULL"]),
        plots.columns("p4", list(range(12)), [5, 9, 12, 8, 4, 2, 1, 1, 0, 0, 0, 1], warn=[0]),
        plots.scatter("p5", [0.1, 0.4, 0.9], [0.2, 0.5, 0.7], labels=["a", "b", "c"], groups=["x", "y", "x"]),
    ]


@pytest.fixture(scope="module")
def drawn() -> list[plots.Plot]:
    return every_kind()


def test_every_id_inside_a_plot_starts_with_its_id(drawn: list[plots.Plot]):
    for plot in drawn:
        svg = str(plot.svg)
        ids = re.findall(r'\bid="([^"]+)"', svg)
        refs = re.findall(r'(?:url\(#|href="#)([^")]+)', svg)
        assert ids and all(i.startswith(f"{plot.id}-") for i in ids), plot.id
        assert all(r.startswith(f"{plot.id}-") for r in refs), plot.id
        assert set(refs) <= set(ids), f"{plot.id}: a reference to an id the plot does not define"
        assert f'id="{plot.id}-data"' in svg, f"{plot.id}: no data group"
    all_ids = [i for p in drawn for i in re.findall(r'\bid="([^"]+)"', str(p.svg))]
    assert len(all_ids) == len(set(all_ids)), "two plots of one page share an id"


def test_svg_is_inline_ready_without_dates_metadata_or_a_fixed_size(drawn: list[plots.Plot]):
    for plot in drawn:
        svg = str(plot.svg)
        assert svg.startswith("<svg") and svg.endswith("</svg>")
        assert "<metadata" not in svg and "<?xml" not in svg and "<style" not in svg
        assert 'viewBox="' in svg and not re.search(r'<svg[^>]* width="', svg)
        assert re.search(r"20\d\d-\d\d-\d\d", svg) is None or plot.id == "p2"


def test_same_data_same_bytes_in_another_process(drawn: list[plots.Plot]):
    code = ("import sys, json; sys.path.insert(0, '.'); from tests.html.test_plots import every_kind; "
            "print(json.dumps([str(p.svg) for p in every_kind()]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          check=True)
    import json

    assert json.loads(done.stdout) == [str(p.svg) for p in drawn]


def test_labels_are_text_whatever_they_hold():
    hostile = ['<b id="x">', 'url(#clip) & href="#y"']
    svg = str(plots.bars("h", hostile, [2, 1]).svg)
    assert "&lt;b id=\"x\"&gt;" in svg and 'url(#clip) &amp; href="#y"' in svg
    assert "<b " not in svg


def test_the_figure_carries_its_id_title_and_summary(drawn: list[plots.Plot]):
    html = str(drawn[2].html("caption & more"))
    assert html.startswith('<figure class="plot" id="p3" data-plot="p3" role="img"')
    assert "active: 950" in html and "<figcaption>caption &amp; more</figcaption>" in html


@pytest.mark.parametrize("call", [
    lambda: plots.histogram("x", [0, 1], [1, 2]),
    lambda: plots.bars("x", ["a"], [1, 2]),
    lambda: plots.bars("x", [], []),
    lambda: plots.columns("x", [1, 2], [1]),
    lambda: plots.scatter("x", [], []),
])
def test_mismatched_data_is_an_error_naming_the_plot(call):
    with pytest.raises(ValueError, match="x"):
        call()
