"""Strategies over the project's vocabularies and frequency tables: titles, names, texts, weighted codes.

Every vocabulary of `stateforge.fill.vocab` is a strategy of the same name (`song_title`, `bio`, ...,
and the generic `words`, `title`, `sentence`, `paragraph`); the column's topic picks the variant. Values
always fit the column's length without cutting a word. A unique column of a name-like vocabulary gets
distinct combinations (`Compiled.enumerate`), so it needs no numbered suffix while combinations last.
Countries, languages, currencies and time zones are drawn by real-world frequency
(`stateforge.fill.frequencies`), restricted to the codes that fit the column.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.draw import permute
from stateforge.fill.frequencies import table_for
from stateforge.fill.grammar import Compiled, Grammar
from stateforge.fill.pools import pool, sample, stable_hash
from stateforge.fill.spec import Ctx
from stateforge.fill.strings import from_matrix, join, per_distinct, truncate, truncate_words
from stateforge.fill.vocab import (
    BY_KIND,
    SHORT_SENTENCE,
    VOCABULARIES,
    Prose,
    Vocabulary,
    kind_of,
    vocabulary,
)

Strategy = Callable[[Ctx], pa.Array]


def _compiled(grammar: Grammar, max_len: int | None) -> Compiled | None:
    try:
        return grammar.fit(max_len)
    except ValueError:  # no template fits so few characters
        return None


def phrases(
    ctx: Ctx, grammar: Grammar, rows: np.ndarray | None = None, *, distinct: bool = False
) -> pa.Array:
    """A phrase for each of `rows` (every row of the batch by default).

    `distinct` numbers the rows through the grammar's combinations (`Compiled.enumerate`): no value
    repeats in the table while combinations last; past them a unique column's values get a number, the
    others repeat.
    """
    n = ctx.n if rows is None else len(rows)
    compiled = _compiled(grammar, ctx.spec.max_len)
    if compiled is None:
        return truncate_words(grammar.sample(ctx.rng, n), ctx.spec.max_len)
    if distinct or ctx.spec.unique:
        ordinals = ctx.ordinals if rows is None else ctx.ordinals[rows]
        key = stable_hash(ctx.seed, ctx.spec.key, len(compiled.templates))
        return compiled.enumerate(ordinals, key, ctx.rng, ctx.spec.max_len, number=ctx.spec.unique)
    return compiled.sample(ctx.rng, n)


def prose(ctx: Ctx, text: Prose, n: int | None = None) -> pa.Array:
    """1 to `text.most` sentences a row (fewer when the column is short); agendas as numbered lines."""
    n = ctx.n if n is None else n
    width = ctx.spec.max_len
    first = _first_sentences(ctx, text, n)
    if text.more is None or text.most <= 1:
        return first
    wanted = ctx.rng.integers(1, text.most + 1, n)
    sep = "\n" if text.numbered else " "
    parts = [join("1. ", first) if text.numbered else first]
    length = pc.utf8_length(parts[0]).to_numpy(zero_copy_only=False).astype(np.int64)
    keep = np.ones(n, dtype=bool)
    more = _compiled(text.more, width)
    for i in range(1, text.most):
        if more is None:
            break
        sentence = more.sample(ctx.rng, n)
        if text.numbered:
            sentence = join(f"{i + 1}. ", sentence)
        length = length + len(sep) + pc.utf8_length(sentence).to_numpy(zero_copy_only=False)
        keep &= (wanted > i) & (length <= (width if width is not None else np.iinfo(np.int64).max))
        parts.append(pc.if_else(pa.array(keep), sentence, pa.scalar(None, pa.string())))
    return pc.binary_join_element_wise(*parts, sep, null_handling="skip")


def _first_sentences(ctx: Ctx, text: Prose, n: int) -> pa.Array:
    """First sentences that fit the column: `first`, else `more`, else generic ones, else cut at a word."""
    for grammar in (text.first, text.more, SHORT_SENTENCE):
        compiled = _compiled(grammar, ctx.spec.max_len) if grammar is not None else None
        if compiled is not None:
            return compiled.sample(ctx.rng, n)
    return truncate_words(text.first.sample(ctx.rng, n), ctx.spec.max_len)


def _render(ctx: Ctx, name: str, vocab: Vocabulary) -> pa.Array:
    if isinstance(vocab, Prose):
        return prose(ctx, vocab)
    return phrases(ctx, vocab, distinct=name in CATALOGUE)


def from_vocabulary(name: str) -> Strategy:
    """The strategy of the vocabulary `name` (its variant for the column's topic)."""

    def strategy(ctx: Ctx) -> pa.Array:
        if name in BY_KIND and ctx.spec.kind_column and ctx.spec.kind_column.lower() in ctx.row:
            return _by_kind(ctx, name, ctx.row[ctx.spec.kind_column.lower()])
        if name == "artist_name":
            return _artist_names(ctx)
        return _render(ctx, name, vocabulary(name, ctx.spec.topic))

    strategy.__doc__ = f"Values from the `{name}` vocabulary (stateforge.fill.vocab), by the column's topic."
    return strategy


_ARTIST_MIX = (("solo", 0.5), ("band", 0.33), ("duo", 0.05), ("dj", 0.12))
KINDS = ("solo", "band", "duo", "dj", "orchestra", "choir")
"""The forms `vocab.kind_of` knows, by code."""


def _artist_names(ctx: Ctx) -> pa.Array:
    """Artist names when no column states the kind: mostly people and bands, some duos and DJs."""
    kinds, weights = zip(*_ARTIST_MIX, strict=True)
    p = np.array(weights) / sum(weights)
    picked = ctx.rng.choice(len(kinds), size=ctx.n, p=p)
    return _assemble_kinds(ctx, "artist_name", np.array([KINDS.index(k) for k in kinds])[picked])


def _by_kind(ctx: Ctx, name: str, kinds_raw: Any) -> pa.Array:
    """Values whose form follows each row's kind (a band gets a band name, an orchestra an orchestra's)."""
    encoded = pc.dictionary_encode(pa.array(kinds_raw).cast(pa.string()).fill_null(""))
    forms = np.array([KINDS.index(kind_of(v)) for v in encoded.dictionary.to_pylist()], dtype=np.int64)
    return _assemble_kinds(ctx, name, forms[encoded.indices.to_numpy(zero_copy_only=False)])


def _assemble_kinds(ctx: Ctx, name: str, codes: np.ndarray) -> pa.Array:
    """Each kind's rows made by its form, put back in row order (Arrow takes, no Python loop over rows)."""
    order = np.argsort(codes, kind="stable")
    counts = np.bincount(codes, minlength=len(KINDS))
    pieces, start = [], 0
    for code, m in enumerate(counts):
        if m:
            rows = order[start : start + m]
            pieces.append(_one_kind(ctx, name, KINDS[code], rows).cast(pa.string()))
            start += m
    inverse = np.empty(ctx.n, dtype=np.int64)
    inverse[order] = np.arange(ctx.n)
    return pa.concat_arrays(pieces).take(inverse)


def _one_kind(ctx: Ctx, name: str, kind: str, rows: np.ndarray) -> pa.Array:
    n = len(rows)
    if name == "artist_name" and kind in ("solo", "duo"):
        first = sample(pool("first_name", seed=ctx.seed, distinct=True), ctx.rng, n)
        last = sample(pool("last_name", seed=ctx.seed, distinct=True), ctx.rng, n)
        if kind == "duo":
            other = sample(pool("last_name", seed=ctx.seed, distinct=True), ctx.rng, n)
            return truncate(join(last, " & ", other), ctx.spec.max_len)
        return truncate(join(first, " ", last), ctx.spec.max_len)
    form = BY_KIND[name].get(kind) or vocabulary(name, ctx.spec.topic)
    if isinstance(form, Prose):
        return prose(ctx, form, n)
    return phrases(ctx, form, rows, distinct=name in CATALOGUE)


def tag(ctx: Ctx) -> pa.Array:
    """Clan or team tags: letters of the row's name (`Crimson Wolves` -> `CRWO`), upper-case.

    A unique column keeps two letters of the name and adds letters numbered by the row (a permutation of
    AA..ZZ, then AAA..ZZZ): distinct by construction.
    """
    width = max(2, min(ctx.spec.max_len or 4, 4))
    named = ctx.spec.sources.get("name")
    source = ctx.row.get(named.lower()) if named else None
    if source is None:
        names = phrases(ctx, vocabulary("clan_name"))
    else:
        names = pa.array(source).cast(pa.string()).fill_null("")
    if not ctx.spec.unique:
        return per_distinct(names, lambda v: pa.array([_abbreviate(x, width) for x in v.to_pylist()]))
    head = per_distinct(names, lambda v: pa.array([_abbreviate(x, 2) for x in v.to_pylist()]))
    wide = ctx.ordinals > 26**2
    letters = np.where(wide, 3, 2) if (ctx.spec.max_len or 5) >= 5 else np.full(ctx.n, 2)
    index = np.where(letters == 2, permute(ctx.ordinals, 26**2, stable_hash(ctx.seed, ctx.spec.key)),
                     permute(ctx.ordinals, 26**3, stable_hash(ctx.seed, ctx.spec.key, 3)))
    chars = np.zeros((ctx.n, 3), dtype=np.uint8)
    for i in range(3):
        chars[:, 2 - i] = ord("A") + (index // 26**i) % 26
    short = from_matrix(chars[:, 1:])
    return join(head, pc.if_else(pa.array(letters == 3), from_matrix(chars), short))


def _abbreviate(name: str | None, width: int) -> str:
    words = [w for w in (name or "").replace("&", " ").split() if w.lower() not in ("the", "of", "and")]
    letters = "".join(c for c in (name or "X") if c.isalpha()).upper() or "X"
    if len(words) >= width:
        return "".join(w[0] for w in words[:width]).upper()
    first = [c for c in (words[0] if words else letters).upper() if c.isalpha()]
    rest = "".join(w[0] for w in words[1:]).upper()
    consonants = [c for c in first[1:] if c not in "AEIOU"] + [c for c in first[1:] if c in "AEIOU"]
    tag = (first[0] if first else "X") + "".join(consonants)[: max(width - 1 - len(rest), 0)] + rest
    return (tag + letters)[:width]


@functools.lru_cache(maxsize=64)
def _frequency(kind: str, topic: str, max_len: int | None, top: int | None) -> tuple[pa.Array, np.ndarray]:
    table = table_for(kind, topic) or ()
    fitting = [(v, w) for v, w in table if max_len is None or len(v) <= max_len]
    if not fitting:  # a column too short for any value: the common ones, cut
        fitting = [(v[:max_len], w) for v, w in table]
    if top:
        fitting = sorted(fitting, key=lambda vw: -vw[1])[:top]
    values, weights = zip(*fitting, strict=True)
    p = np.array(weights, dtype=np.float64)
    return pa.array(values, pa.string()), p / p.sum()


def weighted(kind: str) -> Strategy:
    """Codes or names of `kind` (country, language, currency, time zone) drawn by real-world frequency."""

    def strategy(ctx: Ctx) -> pa.Array:
        values, p = _frequency(kind, ctx.spec.topic, ctx.spec.max_len, ctx.spec.pool)
        return values.take(ctx.rng.choice(len(values), size=ctx.n, p=p))

    strategy.__doc__ = f"`{kind}` values weighted by how common they are (stateforge.fill.frequencies)."
    return strategy


VOCAB_STRATEGIES: dict[str, Strategy] = {name: from_vocabulary(name) for name in VOCABULARIES}
VOCAB_STRATEGIES |= {"artist_name": from_vocabulary("artist_name"), "tag": tag}
VOCAB_STRATEGIES |= {k: weighted(k) for k in ("country", "country_code", "language_code", "currency_code")}
VOCAB_STRATEGIES["timezone"] = weighted("timezone")

CATALOGUE = frozenset({"song_title", "album_title", "artist_name", "clan_name", "words", "title"})
"""Names of catalogue items: drawn without repeats (one combination a row) while combinations last.
Playlist names and meeting subjects are sampled instead: "Workout" and "Weekly Sync" do recur."""
NAME_VOCABULARIES = frozenset(
    {"song_title", "album_title", "playlist_name", "meeting_title", "clan_name", "words", "title"}
)
"""Vocabularies of names and titles (one phrase a row): they keep unique columns distinct themselves."""
TEXT_VOCABULARIES = frozenset(VOCABULARIES) | {"artist_name"}
"""Every vocabulary: text written with meaning (what an LLM, when configured, may write instead)."""
