"""The argument at fault in a tool's error, when the tool did not say: the one whose value the message names.

    blame("no user named 'ana'; check the spelling.", {"username": "ana", "limit": 20})   # "username"

Tools raise `ToolError(text)` mostly without `argument=`; the text quotes what was not found or not
allowed. The parameter whose value the message quotes first (`'ana'`, `"ana"`) is the one at fault; else
one whose text value (3 characters or more) the message names as a word; else one whose integer value is a
number of the message. Values inside lists and nested objects count for their top-level parameter. None
when no value is named, so that a message about the state (not an argument) names none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel


def blame(message: str, arguments: Mapping[str, Any]) -> str | None:
    """The top-level parameter whose value `message` names (see the module), or None."""
    quoted: list[tuple[int, str]] = []
    worded: list[tuple[int, str]] = []
    numbered: list[tuple[int, str]] = []
    for name, value in arguments.items():
        for leaf in _leaves(value):
            if isinstance(leaf, bool) or leaf is None:
                continue
            if isinstance(leaf, str) and leaf.strip():
                for quote in ("'", '"'):
                    at = message.find(f"{quote}{leaf}{quote}")
                    if at >= 0:
                        quoted.append((at, name))
                if len(leaf) >= 3:
                    found = re.search(rf"(?<!\w){re.escape(leaf)}(?!\w)", message)
                    if found:
                        worded.append((found.start(), name))
            elif isinstance(leaf, int):
                found = re.search(rf"(?<![\w.,-]){leaf}(?![\w.,])", message)
                if found:
                    numbered.append((found.start(), name))
    for matches in (quoted, worded, numbered):
        if matches:
            return min(matches)[1]
    return None


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, BaseModel):
        for item in value.__dict__.values():
            yield from _leaves(item)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _leaves(item)
    else:
        yield value
