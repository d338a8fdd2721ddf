"""Grammatical templates over word lists, sampled in bulk: the engine of the project's vocabularies.

    SONG = Grammar.of(("{adj} {noun}", 4), ("{gerund} {nouns}", 2), adj="Golden Paper ...", noun=...)
    titles = SONG.fit(40).sample(rng, 10_000)                  # fits VARCHAR(40), no word cut
    unique = SONG.fit(40).enumerate(ordinals, key)             # distinct by construction

A template is text with `{slot}` placeholders; each slot is a list of words or phrases (a string of items
separated by `|`, or by spaces when it has no `|`). Words are written as they must appear (capitalised or
not): nothing is re-cased, so "of" stays small in "Streets of Gold". `fit(n)` drops the longest items of a
template's slots (and then whole templates) until every value fits in n characters, so nothing is ever
truncated mid-word. Sampling picks a template by weight and each slot's item uniformly, with numpy, one
`take` per slot and template: no Python loop over rows. `enumerate` maps distinct row ordinals to distinct
combinations (a keyed permutation of each template's combinations), so unique columns need no suffix.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from string import Formatter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.draw import PERMUTATION_SPACE, permute
from stateforge.fill.strings import join, with_suffix


def items(text: str) -> tuple[str, ...]:
    """A slot's items: `"a b c"` -> (a, b, c); `"New York|Rio"` -> (New York, Rio); duplicates dropped."""
    parts = text.split("|") if "|" in text else text.split()
    return tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))


@dataclass(frozen=True)
class Grammar:
    """Weighted templates and the items of their slots (hashable, so compiled forms are cached)."""

    templates: tuple[tuple[str, float], ...]
    slots: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, *templates: tuple[str, float] | str, **slots: str | tuple[str, ...]) -> Grammar:
        """`Grammar.of(("{a} {b}", 3), "{b}", a="x y", b=("p", "q"))`: a bare template weighs 1."""
        pairs = tuple((t, 1.0) if isinstance(t, str) else (t[0], float(t[1])) for t in templates)
        named = tuple((k, items(v) if isinstance(v, str) else tuple(v)) for k, v in sorted(slots.items()))
        grammar = cls(pairs, named)
        grammar.check()
        return grammar

    @staticmethod
    def slot_names(template: str) -> list[str]:
        """The `{slot}` names of a template, in order."""
        return _slot_names(template)

    def check(self) -> None:
        """Raise ValueError for a template naming a slot that has no items."""
        known = dict(self.slots)
        for template, _ in self.templates:
            for slot in _slot_names(template):
                if not known.get(slot):
                    raise ValueError(f"template {template!r}: slot {{{slot}}} has no items")

    def fit(self, max_len: int | None) -> Compiled:
        """The grammar compiled for values of at most `max_len` characters (None: any length)."""
        return _compile(self, max_len)

    def sample(self, rng: np.random.Generator, n: int, max_len: int | None = None) -> pa.Array:
        """`n` values, templates by weight and items uniformly."""
        return self.fit(max_len).sample(rng, n)


def _slot_names(template: str) -> list[str]:
    return [name for _, name, _, _ in Formatter().parse(template) if name is not None]


def _parts(template: str) -> list[tuple[str, str | None]]:
    """(literal text before, slot name or None) pairs."""
    return [(literal, name) for literal, name, _, _ in Formatter().parse(template)]


@dataclass(frozen=True)
class _Template:
    literals: tuple[str, ...]
    """Text before each slot, and after the last one (one more than `pools`)."""
    pools: tuple[pa.Array, ...]
    weight: float

    @property
    def space(self) -> int:
        return math.prod(len(p) for p in self.pools)


class Compiled:
    """A grammar whose every value fits a length: what `sample` and `enumerate` run on."""

    def __init__(self, templates: list[_Template]) -> None:
        if not templates:
            raise ValueError("no template fits")
        self.templates = templates
        weights = np.array([t.weight for t in templates], dtype=np.float64)
        self.p = weights / weights.sum()

    def sample(self, rng: np.random.Generator, n: int) -> pa.Array:
        """`n` values: a template by weight, then each slot's item uniformly."""
        choice = rng.choice(len(self.templates), size=n, p=self.p) if len(self.templates) > 1 else None
        def picks(t: _Template, rows: np.ndarray) -> list[np.ndarray]:
            return [rng.integers(0, len(pool), len(rows)) for pool in t.pools]

        return self._assemble(choice, n, picks)

    def enumerate(
        self,
        ordinals: np.ndarray,
        key: int,
        rng: np.random.Generator,
        max_len: int | None = None,
        *,
        number: bool = True,
    ) -> pa.Array:
        """Distinct values for distinct 1-based ordinals, templates still chosen by weight.

        Row `o` may use a template with at least `o` combinations, and takes the combination a keyed
        permutation of that template's space gives `o`: two rows of one template differ in their
        combination, rows of different templates in their template. An ordinal past every template's
        space takes its combination modulo the space, and with `number` ends in ` <ordinal>` (within
        `max_len`) to stay distinct; without, it repeats an earlier value.
        """
        n = len(ordinals)
        spaces = np.array([min(t.space, PERMUTATION_SPACE) for t in self.templates], dtype=np.int64)
        by_size = np.argsort(-spaces, kind="stable")
        cumulative = np.cumsum(self.p[by_size])
        eligible = np.searchsorted(-spaces[by_size], -ordinals, side="right")  # templates with room
        over = eligible == 0
        top = np.where(over, cumulative[-1], cumulative[np.maximum(eligible, 1) - 1])
        rank = np.searchsorted(cumulative, rng.random(n) * top, side="right")
        choice = by_size[np.minimum(rank, len(spaces) - 1)]

        def picks(t: _Template, rows: np.ndarray) -> list[np.ndarray]:
            space = min(t.space, PERMUTATION_SPACE)
            index = permute(ordinals[rows], space, key + len(t.literals) * 7919 + space) % space
            digits = []
            for pool in reversed(t.pools):
                digits.append(index % len(pool))
                index = index // len(pool)
            return digits[::-1]

        values = self._assemble(choice, n, picks)
        if number and over.any():
            values = pc.if_else(pa.array(over), with_suffix(values, ordinals, " ", max_len), values)
        return values

    def _assemble(
        self, choice: np.ndarray | None, n: int, picks: Callable[[_Template, np.ndarray], list[np.ndarray]]
    ) -> pa.Array:
        """Rows grouped by template, each group joined from its slots' picks, put back in row order."""
        if choice is None:
            choice = np.zeros(n, dtype=np.int64)
        order = np.argsort(choice, kind="stable")
        counts = np.bincount(choice, minlength=len(self.templates))
        pieces, start = [], 0
        for i, m in enumerate(counts):
            if not m:
                continue
            t = self.templates[i]
            rows = order[start : start + m]
            start += m
            pieces.append(_render(t, picks(t, rows), int(m)))
        if not pieces:
            return pa.array([], pa.string())
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n)
        return pa.concat_arrays(pieces).take(inverse)


def _render(t: _Template, chosen: list[np.ndarray], m: int) -> pa.Array:
    if not t.pools:
        return pa.repeat(pa.scalar(t.literals[0], pa.string()), m)
    parts: list[pa.Array | str] = []
    for literal, pool, index in zip(t.literals, t.pools, chosen, strict=False):
        if literal:
            parts.append(literal)
        parts.append(pool.take(index))
    if t.literals[-1]:
        parts.append(t.literals[-1])
    return join(*parts)


@functools.lru_cache(maxsize=512)
def _compile(grammar: Grammar, max_len: int | None) -> Compiled:
    slots = dict(grammar.slots)
    out = []
    for template, weight in grammar.templates:
        parts = _parts(template)
        literals = [literal for literal, _ in parts]
        names = [name for _, name in parts if name is not None]
        if len(literals) == len(names):
            literals.append("")
        pools = [list(slots[name]) for name in names]
        if max_len is not None and not _shrink(pools, max_len - sum(len(x) for x in literals)):
            continue
        arrays = tuple(pa.array(p, pa.string()) for p in pools)
        out.append(_Template(tuple(literals), arrays, weight))
    return Compiled(out)


def _shrink(pools: list[list[str]], room: int) -> bool:
    """Drop the longest items until the longest value fits `room`; False if a slot runs out."""
    if room < 0:
        return False
    while sum(max(len(x) for x in p) for p in pools) > room if pools else False:
        longest = max(pools, key=lambda p: max(len(x) for x in p))
        top = max(len(x) for x in longest)
        kept = [x for x in longest if len(x) < top]
        if not kept:
            return False
        longest[:] = kept
    return True


def sentence_case(values: pa.Array) -> pa.Array:
    """The first letter of every value upper-cased, the rest left as it is."""
    return join(pc.utf8_upper(pc.utf8_slice_codeunits(values, 0, 1)), pc.utf8_slice_codeunits(values, 1))
