"""Self-contained HTML pages with plots: the shared layer of every report Stateforge writes.

    from stateforge.html import Page, Section, NavItem, data_table, cards, Card, plots

    page = Page(title="music.duckdb", subtitle="Audit report")
    page.nav("Tables", [NavItem("#t-users", "users", note="11,440")], filterable=True)
    page.add(Section("t-users", "users", data_table(["column", "nulls"], rows, align="lr")))
    page.add(Section("t-plots", "Plots", plots.histogram("h-1", edges, counts).html()))
    Path("report.html").write_text(page.render())

- `markup`: escaping (`tag`, `join`, `Markup`), element ids (`anchor`, `Anchors`);
- `fmt`: numbers, shares, sizes and database values as text, locale- and clock-free;
- `blocks`: tables (sortable), key-figure cards, badges, meters, callouts, fact lists, tiles in a grid;
- `plots`: histogram, bars, columns, scatter, drawn by matplotlib as deterministic inline SVG (`svg`);
- `page`: the page template (navigation, sections, inline CSS and script from `assets`).

One file, no network, no CDN; the same data gives the same bytes (the release bundle hashes the report).
Imports nothing of Stateforge but the canonical values and the version, so any stage can use it.
"""

from __future__ import annotations

from stateforge.html import plots
from stateforge.html.blocks import (
    Card,
    Cell,
    badge,
    callout,
    cards,
    code_block,
    data_table,
    facts,
    grid,
    meter,
    tile,
)
from stateforge.html.markup import Anchors, Markup, anchor, escape, join, tag
from stateforge.html.page import NavGroup, NavItem, Page, Section, Tone
from stateforge.html.plots import Plot

__all__ = [
    "Anchors", "Card", "Cell", "Markup", "NavGroup", "NavItem", "Page", "Plot", "Section", "Tone", "anchor",
    "badge", "callout", "cards", "code_block", "data_table", "escape", "facts", "grid", "join", "meter",
    "plots", "tag", "tile",
]
