"""Web and text strategies: URLs, domains, addresses, identifiers, words, titles, sentences, codes, JSON."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.draw import permute
from stateforge.fill.pools import pool, sample, stable_hash
from stateforge.fill.spec import Ctx
from stateforge.fill.strategies_people import PEOPLE_STRATEGIES, domains, pooled
from stateforge.fill.strings import (
    ascii_lower,
    fixed_hex,
    hex_strings,
    join,
    numbers,
    pattern_codes,
    truncate,
    uuids,
    with_suffix,
)

_IMAGE_WORDS = ("avatar", "image", "photo", "picture", "thumbnail", "logo", "icon", "cover", "img")


def lower_words(seed: int) -> pa.Array:
    """Faker's English words, lower-case ASCII and distinct ("PM" and "pm" are one word)."""
    return pc.unique(ascii_lower(pool("word", seed=seed, distinct=True)))


def _words(ctx: Ctx) -> pa.Array:
    """The distinct lower-case word pool (the first `pool` of them when the spec asks for a small pool)."""
    words = lower_words(ctx.seed)
    return words.slice(0, ctx.spec.pool) if ctx.spec.pool else words


def _word_runs(ctx: Ctx, low: int, high: int, sep: str = " ", title: bool = True) -> pa.Array:
    """`low` to `high` words a row, joined by `sep` (title-cased unless told otherwise)."""
    words = _words(ctx)
    counts = ctx.rng.integers(low, high + 1, ctx.n)
    parts = [sample(words, ctx.rng, ctx.n) for _ in range(high)]
    shown = [
        pc.if_else(pa.array(counts > i), part, pa.scalar(None, pa.string())) for i, part in enumerate(parts)
    ]
    # binary_join_element_wise skips NULLs with null_handling="skip"
    joined = pc.binary_join_element_wise(*shown, sep, null_handling="skip")
    return pc.utf8_title(joined) if title else joined


def word(ctx: Ctx) -> pa.Array:
    return sample(_words(ctx), ctx.rng, ctx.n)


def _prose(provider: str, typical: int):
    """Faker prose; columns shorter than the typical length get short texts that fit (ending in a period)."""

    def strategy(ctx: Ctx) -> pa.Array:
        width = ctx.spec.max_len
        if width is not None and width < 5:
            return truncate(word(ctx), width)
        if width is not None and width < typical:
            made = pool("text", seed=ctx.seed, size=ctx.spec.pool or 1000, args={"max_nb_chars": width})
        else:
            made = pool(provider, seed=ctx.seed, size=ctx.spec.pool or 1000)
        return sample(made, ctx.rng, ctx.n)

    strategy.__doc__ = f"Faker's `{provider}` from a pool, fitted to the column's length."
    return strategy


def slug(ctx: Ctx) -> pa.Array:
    slugs = _word_runs(ctx, 2, 4, sep="-", title=False)
    return with_suffix(slugs, ctx.ordinals, "-", ctx.spec.max_len) if ctx.spec.unique else slugs


def url(ctx: Ctx) -> pa.Array:
    """Page URLs; image URLs for columns named like avatar/image/photo. Unique ones carry the row number."""
    name = ctx.spec.key
    hosts = domains(ctx)
    if any(w in name for w in _IMAGE_WORDS):
        stem = hex_strings(ctx.rng, ctx.n, 12)
        if ctx.spec.unique:
            stem = join(numbers(ctx.ordinals), stem, sep="-")
        return join("https://cdn.", hosts, "/images/", stem, ".jpg")
    path = _word_runs(ctx, 1, 2, sep="-", title=False)
    if ctx.spec.unique:
        path = join(path, numbers(ctx.ordinals), sep="-")
    return join("https://www.", hosts, "/", path)


def domain(ctx: Ctx) -> pa.Array:
    return domains(ctx)


def ipv4(ctx: Ctx) -> pa.Array:
    """Public-looking IPv4 addresses (first octet 11..223); unique ones distinct by construction."""
    space = 212 * 2**24
    if ctx.spec.unique:
        index = permute(ctx.ordinals, space, stable_hash(ctx.seed, ctx.spec.key))
    else:
        index = ctx.rng.integers(0, space, ctx.n)
    address = index + 11 * 2**24
    octets = [numbers((address >> shift) & 255) for shift in (24, 16, 8, 0)]
    return join(*octets, sep=".")


def uuid(ctx: Ctx) -> pa.Array:
    return uuids(ctx.rng, ctx.n)


def hex_token(ctx: Ctx) -> pa.Array:
    """Hexadecimal tokens (hashes, secrets): 32 characters or the column's length.

    Unique ones end in the row number as fixed-width hex (distinct by construction, and still hex).
    """
    width = min(ctx.spec.max_len or 32, 64)
    if not ctx.spec.unique:
        return hex_strings(ctx.rng, ctx.n, width)
    tail = min(width, 10)
    return join(hex_strings(ctx.rng, ctx.n, width - tail), fixed_hex(ctx.ordinals, tail))


def color(ctx: Ctx) -> pa.Array:
    """Colour names, or `#rrggbb` for columns named like `hex` or too short for names."""
    if "hex" in ctx.spec.key or (ctx.spec.max_len is not None and ctx.spec.max_len <= 7):
        return join("#", hex_strings(ctx.rng, ctx.n, 6))
    return sample(pool("color_name", seed=ctx.seed, size=500, distinct=True), ctx.rng, ctx.n)


def code(ctx: Ctx) -> pa.Array:
    """Codes from the hint's `pattern` (default `??-####`, shortened to the column's length)."""
    spec = ctx.spec
    pattern = spec.pattern or "??-####"
    if spec.pattern is None and spec.max_len is not None and spec.max_len < len(pattern):
        pattern = "?" * spec.max_len
    if spec.min_len is not None and len(pattern) < spec.min_len:
        pattern += "#" * (spec.min_len - len(pattern))
    radix = 2 if spec.kind == "bit" else 10
    return pattern_codes(
        pattern, ctx.rng, ctx.ordinals, unique=spec.unique, key=stable_hash(ctx.seed, spec.key), digits=radix
    )


def json_object(ctx: Ctx) -> pa.Array:
    """Small JSON objects: `{"source": "word", "score": 42, "tags": ["word", "word"]}`."""
    pick = _words(ctx)
    score = numbers(ctx.rng.integers(0, 100, ctx.n))
    return join(
        '{"source": "',
        sample(pick, ctx.rng, ctx.n),
        '", "score": ',
        score,
        ', "tags": ["',
        sample(pick, ctx.rng, ctx.n),
        '", "',
        sample(pick, ctx.rng, ctx.n),
        '"]}',
    )


def file_path(ctx: Ctx) -> pa.Array:
    paths = sample(pool("file_path", seed=ctx.seed, size=ctx.spec.pool or 2000), ctx.rng, ctx.n)
    return with_suffix(paths, ctx.ordinals, "?v=", ctx.spec.max_len) if ctx.spec.unique else paths


TEXT_STRATEGIES = {
    **PEOPLE_STRATEGIES,
    "url": url,
    "domain": domain,
    "ipv4": ipv4,
    "user_agent": pooled("user_agent"),
    "uuid": uuid,
    "slug": slug,
    "color": color,
    "hex": hex_token,
    "file_path": file_path,
    "mime_type": pooled("mime_type"),
    "word": word,
    "text": _prose("text", 200),
    "code": code,
    "json": json_object,
}
