"""One self-contained HTML page: a navigation column on the left, sections on the right.

    page = Page(title="music.duckdb", subtitle="Audit report", brand="Stateforge audit report")
    page.nav("Overview", [NavItem("#summary", "Summary")])
    page.add(Section("summary", "Summary", body))
    html = page.render()                       # str: CSS and script inline, nothing fetched

Every report of Stateforge (the audit report, the evaluation report, a release's pages) is a `Page`: the
same look, the same navigation, one file that works offline. The output depends only on what was added,
in the order added (no clock, no random ids), so the same data gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from stateforge import __version__
from stateforge.html.assets import CSS, JS
from stateforge.html.markup import Markup, join, tag

Tone = Literal["good", "bad", "warn", "info", "none"] | None
"""How a mark reads: fine, a problem, worth a look, neutral information, or nothing."""


@dataclass(frozen=True)
class NavItem:
    """One link of the navigation: `href` (`#section-id`), a label, an optional note (a count) and a dot."""

    href: str
    label: str
    note: str | None = None
    tone: Tone = None


@dataclass(frozen=True)
class NavGroup:
    """A titled list of links; `filterable` groups answer the filter box (long lists: tables, tasks)."""

    title: str
    items: Sequence[NavItem]
    filterable: bool = False


@dataclass(frozen=True)
class Section:
    """One section of the page: an anchor id, a heading (with badges beside it), a subtitle, a body."""

    id: str
    title: str
    body: Markup
    subtitle: Markup | str | None = None
    badges: Sequence[Markup] = ()


@dataclass
class Page:
    """A page being put together; `render` writes it out."""

    title: str
    subtitle: str = ""
    brand: str = "Stateforge"
    lead: Markup | None = None
    """Under the page heading, before the first section (a verdict, key figures)."""
    groups: list[NavGroup] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)

    def nav(self, title: str, items: Sequence[NavItem], *, filterable: bool = False) -> None:
        """Add a group of navigation links."""
        self.groups.append(NavGroup(title, list(items), filterable))

    def add(self, section: Section) -> None:
        """Append a section."""
        self.sections.append(section)

    def render(self) -> str:
        """The whole document: `<!doctype html>`, inline CSS and script; deterministic."""
        return render_page(self)


def _nav_item(item: NavItem, filterable: bool) -> Markup:
    dot = tag("span", class_=f"dot {item.tone}") if item.tone else None
    note = tag("span", item.note, class_="note") if item.note else None
    return tag("a", dot, tag("span", item.label, class_="label"), note, href=item.href,
               data_filter=item.label.lower() if filterable else None, title=item.label)


def _nav(page: Page) -> Markup:
    parts = [tag("div", page.brand, class_="brand"), tag("div", page.title, class_="nav-title")]
    if any(g.filterable for g in page.groups):
        parts.append(tag("input", type="search", id="nav-filter", placeholder="Filter tables\u2026",
                         aria_label="Filter the navigation", autocomplete="off"))
    for group in page.groups:
        parts.append(tag("div", group.title, class_="nav-head"))
        parts.extend(_nav_item(item, group.filterable) for item in group.items)
    return tag("aside", tag("nav", *parts, aria_label="Sections"), class_="nav")


def _section(section: Section) -> Markup:
    heading = tag("h2", section.title, *section.badges)
    sub = tag("p", section.subtitle, class_="sub") if section.subtitle else None
    return tag("section", heading, sub, section.body, id=section.id, class_="section")


def render_page(page: Page) -> str:
    """`page` as one HTML document (see `Page`)."""
    head = join([
        Markup('<meta charset="utf-8">'),
        Markup('<meta name="viewport" content="width=device-width, initial-scale=1">'),
        tag("meta", name="generator", content=f"Stateforge {__version__}"),
        tag("title", f"{page.title} \u2014 {page.subtitle}" if page.subtitle else page.title),
        tag("style", Markup(CSS)),
    ], "\n")
    sub = tag("p", page.subtitle, class_="sub") if page.subtitle else None
    header = tag("header", tag("h1", page.title), sub, page.lead, class_="page-head")
    main = tag("main", header, join((_section(s) for s in page.sections), "\n"),
               tag("footer", f"Made by Stateforge {__version__}. One file: it needs no network."))
    body = join([_nav(page), main, tag("script", Markup(JS))], "\n")
    document = Markup('<!doctype html>\n<html lang="en">\n<head>\n{}\n</head>\n'
                      "<body>\n{}\n</body>\n</html>\n")
    return str(document.format(head, body))
