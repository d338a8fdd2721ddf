"""A page of the HTML layer in a real headless Chromium: every kind of plot drawn, the navigation filter
and the table sorting work, no error, no request to the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.html import Card, Markup, NavItem, Page, Section, cards, data_table, grid, meter, tile
from tests.html.browser import PLOTS_JS, Chromium, distinct_colours, undrawn
from tests.html.test_plots import every_kind

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    figures = every_kind()
    page = Page(title="demo.duckdb", subtitle="A page of every block", lead=cards([Card("rows", "1,000")]))
    page.nav("Overview", [NavItem("#plots", "Plots"), NavItem("#numbers", "Numbers")])
    page.nav("Tables", [NavItem("#plots", "alpha", "3", "good"), NavItem("#numbers", "beta", "7", "bad")],
             filterable=True)
    page.add(Section("plots", "Plots", grid(tile(p.title or p.id, p.html(), kind="kind") for p in figures)))
    rows = [["b", 10, meter(0.5)], ["a", 2, meter(0.1)], ["c", 33, meter(0.9, "bad")]]
    page.add(Section("numbers", "Numbers", data_table(["name", "n", "share"], rows, align="lrr")))
    path = tmp_path_factory.mktemp("page") / "page.html"
    path.write_text(page.render())
    return path


def test_every_plot_is_drawn_without_errors_or_network(page_file: Path, tmp_path: Path):
    with Chromium.launch(tmp_path / "profile") as browser:
        page = browser.open(page_file)
        drawn = page.evaluate(PLOTS_JS)
        assert len(drawn) == 5
        assert not undrawn(drawn), undrawn(drawn)
        shot = page.screenshot(tmp_path / "page.png")
        assert distinct_colours(shot) > 20
        assert page.problems() == []


def test_the_filter_hides_links_and_a_header_click_sorts(page_file: Path, tmp_path: Path):
    with Chromium.launch(tmp_path / "profile") as browser:
        page = browser.open(page_file)
        shown = page.evaluate("""(function () {
            var f = document.getElementById('nav-filter'); f.value = 'alp';
            f.dispatchEvent(new Event('input'));
            return [...document.querySelectorAll('.nav a[data-filter]')]
                .filter(a => a.offsetParent !== null).map(a => a.textContent.trim()); })()""")
        assert shown == ["alpha3"]
        order = page.evaluate("""(function () {
            var th = document.querySelectorAll('#numbers th')[1]; th.click();
            var up = [...document.querySelectorAll('#numbers tbody tr')].map(r => r.cells[0].textContent);
            th.click();
            var down = [...document.querySelectorAll('#numbers tbody tr')].map(r => r.cells[0].textContent);
            document.querySelectorAll('#numbers th')[2].click();
            var share = [...document.querySelectorAll('#numbers tbody tr')].map(r => r.cells[0].textContent);
            return [up, down, share]; })()""")
        assert order == [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"]]
        assert page.problems() == []


def test_the_check_sees_a_plot_that_is_not_drawn(tmp_path: Path):
    """The checker itself: an empty data group, a zero-size SVG and a missing one are all reported."""
    page = Page(title="broken")
    body = (every_kind()[0].html()
            + Markup('<figure class="plot" id="e1"><svg viewBox="0 0 10 10"><g id="e1-data"></g></svg>'
                     "</figure>")
            + Markup('<figure class="plot" id="e2"><svg style="width:0;height:0" viewBox="0 0 10 10">'
                     '<g id="e2-data"><path d="M0 0 L10 10"/></g></svg></figure>')
            + Markup('<figure class="plot" id="e3"></figure>'))
    page.add(Section("s", "S", body))
    path = tmp_path / "broken.html"
    path.write_text(page.render())
    with Chromium.launch(tmp_path / "profile") as browser:
        drawn = browser.open(path).evaluate(PLOTS_JS)
    assert [p["id"] for p in undrawn(drawn)] == ["e1", "e2", "e3"]
