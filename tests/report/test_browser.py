"""The audit report in a real headless Chromium (Debian's package; `make browser`): every plot drawn,
every link lands, no error and no request to the network, and the screen shows a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.html.browser import PLOTS_JS, Chromium, distinct_colours, undrawn

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("report")]


def test_the_report_renders_with_every_plot_drawn(music_report: Path, tmp_path: Path):
    expected = music_report.read_text().count('<figure class="plot"')
    with Chromium.launch(tmp_path / "profile") as browser:
        page = browser.open(music_report)
        drawn = page.evaluate(PLOTS_JS)
        assert len(drawn) == expected > 60
        assert not undrawn(drawn), f"plots not drawn: {undrawn(drawn)[:5]}"
        broken_links = page.evaluate(
            "[...document.querySelectorAll('a[href^=\"#\"]')].map(a => a.getAttribute('href'))"
            ".filter(h => !document.getElementById(h.slice(1)))")
        assert broken_links == []
        layout = page.evaluate("""({width: document.documentElement.scrollWidth, view: window.innerWidth,
            nav: document.querySelector('.nav').getBoundingClientRect().width,
            title: document.querySelector('h1').textContent})""")
        assert layout["width"] <= layout["view"], "the page scrolls sideways on a laptop screen"
        assert layout["title"] == "music.duckdb" and 200 < layout["nav"] < 300
        top = page.screenshot(tmp_path / "top.png")
        page.evaluate("document.getElementById('t-songs').scrollIntoView()")
        songs = page.screenshot(tmp_path / "songs.png")
        assert distinct_colours(top) > 50 and distinct_colours(songs) > 50
        assert page.problems() == []
