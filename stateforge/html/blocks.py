"""The building blocks of report pages: tables, figure cards, badges, meters, callouts, fact lists.

    data_table(["table", "rows"], [["users", Cell("11,440", 11440)]], align="lr")
    cards([Card("rows", "160,667"), Card("violations", "0", tone="good")])
    meter(0.12, "warn")          # an inline bar for a share, with the percentage beside it
    badge("clean", "good")

Every function returns `Markup` (values are escaped); the classes they use are styled in
`stateforge.html.assets`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from stateforge.html.fmt import percent
from stateforge.html.markup import Markup, tag
from stateforge.html.page import Tone


@dataclass(frozen=True)
class Cell:
    """A table cell whose sort key differs from what it shows (`1.2%` sorts as 0.012)."""

    shown: Any
    sort: float | str | None = None
    title: str | None = None
    """A tooltip: the full text of a shortened value."""


_ALIGN = {"r": "r", "n": "nw"}


def _cell(value: Any, align: str) -> Markup:
    cls = _ALIGN.get(align)
    if isinstance(value, Cell):
        return tag("td", value.shown, class_=cls, data_sort=value.sort, title=value.title)
    return tag("td", value, class_=cls)


def data_table(header: Sequence[str], rows: Iterable[Sequence[Any]], *, align: str = "",
               caption: str | None = None, sortable: bool = True, empty: str = "Nothing to show.",
               class_: str | None = None) -> Markup:
    """A table: `align` has one letter per column, `l`, `r` (numbers) or `n` (left, never wrapped;
    default `l`); headers sort the rows on click when `sortable`. No rows: the `empty` sentence."""
    body = [tag("tr", *(_cell(v, align[i:i + 1]) for i, v in enumerate(row))) for row in rows]
    if not body:
        return tag("p", empty, class_="muted")
    head = tag("tr", *(tag("th", h, class_="r" if align[i:i + 1] == "r" else None, scope="col")
                       for i, h in enumerate(header)))
    classes = " ".join(c for c in ("data", "sortable" if sortable else None, class_) if c)
    table = tag("table", tag("caption", caption) if caption else None, tag("thead", head),
                tag("tbody", *body), class_=classes)
    return tag("div", table, class_="scroll")


@dataclass(frozen=True)
class Card:
    """A key figure: a label, a value, an optional note under it, a tone."""

    label: str
    value: str
    note: str | None = None
    tone: Tone = None


def cards(items: Iterable[Card]) -> Markup:
    """A row of key figures."""
    return tag("div", *(
        tag("div", tag("div", c.label, class_="k"), tag("div", c.value, class_="v"),
            tag("div", c.note, class_="n") if c.note else None, class_=f"card {c.tone or ''}".strip())
        for c in items), class_="cards")


def badge(text: str, tone: Tone = None, title: str | None = None) -> Markup:
    """A small label (`clean`, `sampled`, `3 violations`)."""
    return tag("span", text, class_=f"badge {tone or ''}".strip(), title=title)


def meter(fraction: float, tone: Tone = None, *, label: str | None = None) -> Cell:
    """A share as an inline bar with its percentage (a table `Cell` sorting by the share)."""
    width = f"width:{max(0.0, min(1.0, fraction)) * 100:.1f}%"
    bar = tag("span", tag("span", style=width), class_=f"meter {tone or ''}".strip())
    return Cell(Markup("{}{}").format(bar, label or percent(fraction)), sort=round(fraction, 6))


def callout(body: Markup | str, tone: Tone = None) -> Markup:
    """A highlighted paragraph (a verdict, a warning, a note on sampling)."""
    return tag("div", body, class_=f"callout {tone or ''}".strip())


def facts(pairs: Iterable[tuple[str, Any]]) -> Markup:
    """A two-column list of names and values; a None value leaves its row out."""
    items = [(tag("dt", k), tag("dd", v)) for k, v in pairs if v is not None]
    return tag("dl", *(part for pair in items for part in pair), class_="facts")


def tile(title: Markup | str, *body: Markup | str | None, kind: str | None = None,
         stats: Markup | str | None = None, id_: str | None = None) -> Markup:
    """A bordered card in a grid: a heading (with a muted `kind` beside it), a stats line, then `body`."""
    heading = tag("h4", title, tag("span", kind, class_="type") if kind else None)
    line = tag("div", stats, class_="stats") if stats else None
    return tag("div", heading, line, *body, class_="tile", id=id_)


def grid(items: Iterable[Markup], *, wide: bool = False) -> Markup:
    """Tiles side by side, as many a row as fit (three on a laptop screen)."""
    return tag("div", *items, class_="grid wide" if wide else "grid")


def code_block(text: str) -> Markup:
    """Preformatted code (SQL of a rule, a sample row as JSON)."""
    return tag("pre", text, class_="code")
