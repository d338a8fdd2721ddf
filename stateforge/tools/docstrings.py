"""Google-style docstrings -> a tool's description and one description per parameter.

    Create a playlist for a user.            <- summary (first paragraph)

    Longer text, kept in the description.    <- body, up to the first section

    Args:
        owner: The owner's username.         <- `name: text` or `name (type): text`
        name: The playlist's name,
            1 to 100 characters.             <- indented lines continue the entry

    Returns:                                 <- other sections (Returns, Raises, Example, Note, ...)
        The new playlist.                       are not sent to the model

Only `Args:` (also `Arguments:`, `Parameters:`) is read; other sections end it.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_ARGS = {"args", "arguments", "parameters", "params"}
_SECTION = re.compile(r"^([A-Z][A-Za-z ]*):\s*$")
_ENTRY = re.compile(r"^(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*:\s*(.*)$")


@dataclass
class Docstring:
    """What a docstring says: the description for the model and each parameter's text."""

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(text: str | None) -> Docstring:
    """Split a Google-style docstring into its description and its `Args:` entries."""
    lines = inspect.cleandoc(text or "").splitlines()
    body: list[str] = []
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    entry_indent: int | None = None
    for line in lines:
        stripped = line.strip()
        header = _SECTION.match(line)
        if header and not line.startswith((" ", "\t")):
            section = header.group(1).strip().lower()
            current, entry_indent = None, None
            continue
        if section is None:
            body.append(line)
        elif section in _ARGS and stripped:
            indent = len(line) - len(line.lstrip())
            match = _ENTRY.match(stripped)
            if match and (entry_indent is None or indent <= entry_indent):
                entry_indent = indent
                current = match.group(1).lstrip("*")
                params[current] = match.group(3).strip()
            elif current is not None:
                params[current] = f"{params[current]} {stripped}".strip()
    return Docstring(description=_paragraphs(body), params=params)


def _paragraphs(lines: list[str]) -> str:
    """Lines joined into paragraphs: wrapped lines become one line, blank lines separate paragraphs."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line.strip())
        elif paragraphs[-1]:
            paragraphs.append([])
    return "\n\n".join(" ".join(p) for p in paragraphs if p)
