"""The vocabularies' word lists and templates, read from the TOML files beside this module.

    grammar("music.song_title")     # the Grammar `[grammar.song_title]` of music.toml

Each file (`common`, `music`, `music_text`, `work`, `game`) holds `[words]`: named lists, one namespace
for all files (a name is defined once), and `[grammar.<name>]`: templates with their weights
(`"{adj} {noun}" = 10`). A template's `{slot}` takes the word list of the same name unless
`[grammar.<name>.slots]` says otherwise: another list's name, or a list of its own. `like = "<grammar>"`
reuses the templates of another grammar of the file (with other slots). The files are package data: they
ship in the wheel and are read with `importlib.resources`.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import resources
from typing import Any

from stateforge.errors import DomainError
from stateforge.fill.grammar import Grammar

FILES = ("common", "music", "music_text", "work", "game")


@functools.cache
def _documents() -> dict[str, dict[str, Any]]:
    folder = resources.files(__package__)
    return {name: tomllib.loads(folder.joinpath(f"{name}.toml").read_text("utf-8")) for name in FILES}


@functools.cache
def _words() -> dict[str, tuple[str, ...]]:
    words: dict[str, tuple[str, ...]] = {}
    for file, document in _documents().items():
        for name, items in document.get("words", {}).items():
            if name in words:
                raise DomainError(f"vocabulary {file}.toml: word list {name!r} is defined twice")
            words[name] = tuple(items)
    return words


@functools.cache
def grammar(ref: str) -> Grammar:
    """The grammar `<file>.<name>` (`music.song_title`)."""
    file, _, name = ref.partition(".")
    section = _documents()[file].get("grammar", {})
    if name not in section:
        raise DomainError(f"vocabulary {file}.toml has no [grammar.{name}]; it has {', '.join(section)}")
    spec = section[name]
    templates = section[spec["like"]] if "like" in spec else spec
    pairs = [(t, float(w)) for t, w in templates.items() if t not in ("like", "slots")]
    return Grammar.of(*pairs, **_slots(pairs, spec.get("slots", {}), ref))


def _slots(pairs: list[tuple[str, float]], overrides: dict[str, Any], ref: str) -> dict[str, tuple[str, ...]]:
    words = _words()
    names = {slot for template, _ in pairs for slot in Grammar.slot_names(template)}
    out = {}
    for slot in names:
        chosen = overrides.get(slot, slot)
        if isinstance(chosen, list):
            out[slot] = tuple(chosen)
        elif chosen in words:
            out[slot] = words[chosen]
        else:
            raise DomainError(f"vocabulary grammar {ref}: slot {{{slot}}} names no word list ({chosen!r})")
    return out
