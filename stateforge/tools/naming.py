"""Readable, valid tool names derived from table names.

`snake("OrderLines")` -> `order_lines`; `singular("categories")` -> `category`. A tool name is at most 64
characters of letters, digits and `_`, starting with a letter (what OpenAI and MCP clients accept);
`Names` hands out unique ones, resolving collisions by the table's full name, then a number.
"""

from __future__ import annotations

import hashlib
import re

MAX = 64
_IRREGULAR = {
    "people": "person",
    "children": "child",
    "men": "man",
    "women": "woman",
    "data": "data",
    "media": "media",
    "series": "series",
    "news": "news",
    "status": "status",
    "indices": "index",
}


def snake(name: str) -> str:
    """`OrderLines`, `order-lines`, `Order Lines` -> `order_lines`; starts with a letter."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    text = re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").lower()
    text = re.sub(r"_+", "_", text)
    if not text or not text[0].isalpha():
        text = "t_" + text
    return text


def singular(name: str) -> str:
    """The singular of the last word of a snake-case name (a best effort for English plurals)."""
    head, _, last = name.rpartition("_")
    word = _IRREGULAR.get(last)
    if word is None:
        if last.endswith("ies") and len(last) > 4:
            word = last[:-3] + "y"
        elif last.endswith(("sses", "shes", "ches", "xes", "zes")):
            word = last[:-2]
        elif last.endswith("s") and not last.endswith(("ss", "us", "is")) and len(last) > 3:
            word = last[:-1]
        else:
            word = last
    return f"{head}_{word}" if head else word


def fit(name: str) -> str:
    """`name` cut to 64 characters, with a short hash of the whole so that cut names stay distinct."""
    if len(name) <= MAX:
        return name
    digest = hashlib.sha1(name.encode()).hexdigest()[:6]
    return f"{name[: MAX - 7].rstrip('_')}_{digest}"


class Names:
    """Hands out unique tool names."""

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def take(self, *candidates: str) -> str:
        """The first free candidate (each fitted to 64 characters), else the last one numbered."""
        for candidate in candidates:
            name = fit(candidate)
            if name not in self._taken:
                self._taken.add(name)
                return name
        base, n = candidates[-1], 2
        while fit(f"{base}_{n}") in self._taken:
            n += 1
        name = fit(f"{base}_{n}")
        self._taken.add(name)
        return name
