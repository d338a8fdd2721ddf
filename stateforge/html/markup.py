"""HTML as safe strings: every value is escaped unless it is already `Markup`.

    tag("td", 1234, class_="num")              # <td class="num">1234</td>
    tag("a", "users", href="#t-users")         # attribute values are escaped too
    join(tag("li", n) for n in names)          # Markup, never a plain str

Built on MarkupSafe (the escaping Jinja2 uses), so that no page of Stateforge builds HTML by pasting
strings: a table name or a value read from a database can never inject markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup, escape

__all__ = ["Markup", "anchor", "escape", "join", "tag"]

_VOID = frozenset({"br", "col", "hr", "img", "input", "meta", "link", "wbr"})


def _attr_name(name: str) -> str:
    """`class_` -> `class`, `data_table` -> `data-table`, `aria_label` -> `aria-label`."""
    return name.rstrip("_").replace("_", "-")


def attrs(values: dict[str, Any]) -> Markup:
    """Attributes in the order given; None and False leave one out, True writes it bare."""
    parts = []
    for key, value in values.items():
        if value is None or value is False:
            continue
        name = _attr_name(key)
        parts.append(Markup(" {}").format(name) if value is True else Markup(' {}="{}"').format(name, value))
    return Markup("").join(parts)


def tag(element: str, /, *content: Any, **attributes: Any) -> Markup:
    """One element: `content` is escaped unless it is Markup; None is left out."""
    inner = Markup("").join(escape(c) for c in content if c is not None)
    opening = Markup("<{}{}>").format(Markup(element), attrs(attributes))
    if element in _VOID:
        return opening
    return opening + inner + Markup("</{}>").format(Markup(element))


def join(parts: Iterable[Any], separator: str = "") -> Markup:
    """Escape and join `parts` (Markup stays as is)."""
    return Markup(escape(separator)).join(escape(p) for p in parts)


def anchor(*names: str) -> str:
    """A stable, readable element id from names: `("t", "Order Items")` -> `t-order-items`.

    Different names can meet (`a b`, `a-b`); callers that need uniqueness keep a set (`Anchors`)."""
    text = "-".join(names).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "x"


class Anchors:
    """Hands out unique ids: the second `users` becomes `users-2` (same input order, same ids)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, *names: str) -> str:
        """A unique id for `names`."""
        base = anchor(*names)
        n = self._seen.get(base, 0) + 1
        self._seen[base] = n
        return base if n == 1 else f"{base}-{n}"
