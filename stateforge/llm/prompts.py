"""Prompt templates: the files of the `prompts` package, loaded by name, hashed, rendered into messages.

    messages = render_messages("fill_rows", table="songs", ddl=..., rows=...)
    prompt_hashes()   # {"fill_rows": "3f2a...", "repair_rows": "9c41..."}: into every build report

A template is a Markdown file with `string.Template` placeholders (`$table`, `${ddl}`; `$$` is a literal
dollar). HTML comments `<!-- role: system -->` and `<!-- role: user -->` on lines of their own split it
into chat messages (text before the first marker is a note for the reader and is not sent). Rendering is
strict: a placeholder without a value is an error naming the template, never a silent blank.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from stateforge.errors import TerminalError
from stateforge.resources import package_dir
from stateforge.schema.model import suggest

PROMPTS_DIR = package_dir("stateforge.prompts")
"""Where the templates live: one `<name>.md` per prompt (the `prompts` package's data)."""

_ROLE = re.compile(r"^<!--\s*role:\s*(system|user|assistant)\s*-->\s*$", re.MULTILINE)


@dataclass(frozen=True)
class PromptTemplate:
    """One template: its name, its text, the sha256 of its bytes, and its messages' role and text."""

    name: str
    text: str
    sha256: str
    parts: tuple[tuple[str, Template], ...]

    @property
    def placeholders(self) -> set[str]:
        """Every `$name` the template uses."""
        found: set[str] = set()
        for _, part in self.parts:
            for match in part.pattern.finditer(part.template):
                name = match.group("named") or match.group("braced")
                if name:
                    found.add(name)
        return found

    def render(self, **values: Any) -> list[dict[str, str]]:
        """The chat messages with every placeholder replaced (values are turned into text with `str`)."""
        missing = sorted(self.placeholders - set(values))
        if missing:
            raise TerminalError(f"prompt {self.name}: no value for {', '.join('$' + m for m in missing)}")
        text = {k: str(v) for k, v in values.items()}
        return [{"role": role, "content": part.substitute(text).strip()} for role, part in self.parts]


def template_path(name: str, root: Path = PROMPTS_DIR) -> Path:
    """The file of template `name` (TerminalError with the closest name when there is none)."""
    path = root / f"{name}.md"
    if not path.is_file():
        known = available(root)
        listed = ", ".join(known) or "none"
        raise TerminalError(f"no prompt template {name!r} in {root}.{suggest(name, known)} Known: {listed}.")
    return path


def available(root: Path = PROMPTS_DIR) -> list[str]:
    """The names of every template under `root`, sorted."""
    return sorted(p.stem for p in root.glob("*.md")) if root.is_dir() else []


@cache
def _load(path: Path, stamp: tuple[int, int]) -> PromptTemplate:
    raw = path.read_bytes()
    text = raw.decode("utf-8")
    pieces = _ROLE.split(text)
    if len(pieces) < 3:
        raise TerminalError(f"prompt {path}: no `<!-- role: system -->` / `<!-- role: user -->` marker")
    roles = pieces[1::2]
    bodies = pieces[2::2]
    parts = tuple((role, Template(body)) for role, body in zip(roles, bodies, strict=True))
    return PromptTemplate(path.stem, text, hashlib.sha256(raw).hexdigest(), parts)


def load(name: str, root: Path = PROMPTS_DIR) -> PromptTemplate:
    """Template `name`, read from `root` (re-read when the file changes)."""
    path = template_path(name, root)
    info = path.stat()
    return _load(path, (info.st_mtime_ns, info.st_size))


def prompt_sha256(name: str, root: Path = PROMPTS_DIR) -> str:
    """The hex sha256 of template `name`'s bytes."""
    return load(name, root).sha256


def prompt_hashes(root: Path = PROMPTS_DIR) -> dict[str, str]:
    """`{name: sha256}` of every template: what a build report records of the prompts it used."""
    return {name: prompt_sha256(name, root) for name in available(root)}


def render_messages(name: str, root: Path = PROMPTS_DIR, **values: Any) -> list[dict[str, str]]:
    """Template `name` rendered with `values` into chat messages."""
    return load(name, root).render(**values)
