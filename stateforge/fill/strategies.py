"""The strategy registry, and the number and pick-from strategies.

A strategy is a function `(ctx: Ctx) -> values` that returns `ctx.n` values for the column `ctx.spec`, in
a native form (see `stateforge.types`), vectorised: no Python loop over rows. `STRATEGIES` maps
every name of docs/domain-packs.md to its function; text and time strategies live in their own modules.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, time
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.draw import permute, unit_draw
from stateforge.fill.pools import DEFAULT_POOL, pool, sample, stable_hash
from stateforge.fill.spec import Ctx
from stateforge.fill.strategies_text import TEXT_STRATEGIES
from stateforge.fill.strategies_time import TIME_STRATEGIES
from stateforge.fill.strategies_vocab import NAME_VOCABULARIES, VOCAB_STRATEGIES
from stateforge.fill.strings import with_suffix
from stateforge.registry import Registry

Strategy = Callable[[Ctx], Any]


def draw_number(ctx: Ctx) -> np.ndarray:
    """Numbers between the spec's bounds, rounded to its decimals (integers when integral)."""
    spec = ctx.spec
    lo, hi = float(spec.lo), float(spec.hi)
    if spec.integral:
        u = unit_draw(ctx.rng, ctx.n, spec.distribution, hi - lo)
        return np.minimum(np.floor(lo + u * (hi - lo + 1)), hi).astype(np.int64)
    u = unit_draw(ctx.rng, ctx.n, spec.distribution, (hi - lo) / spec.step)
    return np.round(lo + u * (hi - lo), spec.decimals if spec.decimals is not None else 2)


def price(ctx: Ctx) -> np.ndarray:
    """Prices with a long tail; about a third end in .99 (charm prices)."""
    values = draw_number(ctx)
    if ctx.spec.integral or (ctx.spec.decimals or 0) < 2:
        return values
    charm = np.floor(values) + 0.99
    use = (ctx.rng.random(ctx.n) < 0.35) & (charm <= ctx.spec.hi) & (charm >= ctx.spec.lo)
    return np.where(use, charm, values)


def rating(ctx: Ctx) -> np.ndarray:
    """Ratings skewed towards the top of the scale, as reviews are."""
    spec = ctx.spec
    lo, hi = float(spec.lo), float(spec.hi)
    if spec.integral:
        levels = np.arange(int(lo), int(hi) + 1)
        weights = (levels - lo + 1.0) ** 1.5
        return ctx.rng.choice(levels, size=ctx.n, p=weights / weights.sum()).astype(np.int64)
    return np.round(lo + ctx.rng.beta(4.0, 1.5, ctx.n) * (hi - lo), spec.decimals or 1)


def sequence(ctx: Ctx) -> np.ndarray:
    """Global row numbers `start+1 ..` (plus `min - 1`); grouped sequences are `apply_sequences`'s job."""
    first = ctx.spec.hint.min if isinstance(ctx.spec.hint.min, int) else 1
    return ctx.ordinals + (first - 1)


def boolean(ctx: Ctx) -> np.ndarray:
    return ctx.rng.random(ctx.n) < ctx.spec.p


def values(ctx: Ctx) -> pa.Array:
    """Picks from the spec's values, by weight; for a unique column, each value once (then numbered)."""
    choices = ctx.spec.values or [None]
    if ctx.spec.unique:
        choices_array = values_array(choices, ctx.spec.arrow_type)
        picks = permute(ctx.ordinals, len(choices), stable_hash(ctx.seed, ctx.spec.key)) % len(choices)
        picked = choices_array.take(picks)
        if ctx.start + ctx.n <= len(choices) or not pa.types.is_string(picked.type):
            return picked
        numbered = with_suffix(picked, ctx.ordinals, " ", ctx.spec.max_len)
        return pc.if_else(pa.array(ctx.ordinals <= len(choices)), picked, numbered)
    weights = np.asarray(ctx.spec.weights or [1.0] * len(choices), dtype=np.float64)
    picks = ctx.rng.choice(len(choices), size=ctx.n, p=weights / weights.sum())
    return values_array(choices, ctx.spec.arrow_type).take(picks)


def values_array(choices: list[Any], target: pa.DataType | None = None) -> pa.Array:
    """An Arrow array of YAML/SQL literals: ISO strings parsed for time columns, mixed types as strings."""
    parse = _ISO_PARSERS.get(str(target)) if target is not None else None
    if parse is not None:
        choices = [parse(c) if isinstance(c, str) else c for c in choices]
    try:
        return pa.array(choices)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if c is None else str(c) for c in choices], pa.string())


_ISO_PARSERS = {"time64[us]": time.fromisoformat, "date32[day]": date.fromisoformat}


def constant(ctx: Ctx) -> pa.Array:
    return values_array([ctx.spec.hint.constant], ctx.spec.arrow_type).take(np.zeros(ctx.n, dtype=np.int64))


def faker(ctx: Ctx) -> pa.Array:
    """Any Faker provider, sampled from a pool made once."""
    made = pool(
        ctx.spec.hint.faker or "word",
        seed=ctx.seed,
        size=ctx.spec.pool or DEFAULT_POOL,
        args=ctx.spec.hint.args,
    )
    return sample(made, ctx.rng, ctx.n)


def random_bytes(ctx: Ctx) -> pa.Array:
    """BLOBs of 8 to 64 random bytes (or the column's length)."""
    top = ctx.spec.max_len or 64
    lengths = ctx.rng.integers(min(8, top), top + 1, ctx.n)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    data = ctx.rng.integers(0, 256, int(offsets[-1]), dtype=np.uint8)
    return pa.Array.from_buffers(pa.binary(), ctx.n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def unique_numbers(ctx: Ctx, values: np.ndarray) -> np.ndarray:
    """Replace drawn numbers, timestamps or dates by distinct ones in the same bounds."""
    spec = ctx.spec
    key = stable_hash(ctx.seed, spec.key)
    if spec.domain == "ts":
        seconds = int((spec.hi - spec.lo) // np.timedelta64(1, "s")) + 1
        picked = permute(ctx.ordinals, seconds, key).astype("timedelta64[s]")
        return spec.lo + picked + ctx.rng.integers(0, 1_000_000, ctx.n).astype("timedelta64[us]")
    if spec.domain == "date":
        days = int((spec.hi - spec.lo) // np.timedelta64(1, "D")) + 1
        return spec.lo + permute(ctx.ordinals, days, key).astype("timedelta64[D]")
    if spec.domain == "time":
        seconds = int((spec.hi - spec.lo) // np.timedelta64(1, "s")) + 1
        return spec.lo + permute(ctx.ordinals, seconds, key).astype("timedelta64[s]").astype(
            "timedelta64[us]"
        )
    step = spec.step
    span = int((float(spec.hi) - float(spec.lo)) / step) + 1
    picked = float(spec.lo) + permute(ctx.ordinals, span, key) * step
    if spec.integral:
        return picked.astype(np.int64)
    return np.round(picked, spec.decimals if spec.decimals is not None else 2)


NUMBER_STRATEGIES: dict[str, Strategy] = {
    "int": draw_number,
    "float": draw_number,
    "decimal": draw_number,
    "price": price,
    "rating": rating,
    "year": draw_number,
    "duration": draw_number,
    "latitude": draw_number,
    "longitude": draw_number,
    "sequence": sequence,
    "bool": boolean,
}

ANY_STRATEGIES: dict[str, Strategy] = {
    "values": values,
    "constant": constant,
    "faker": faker,
    "bytes": random_bytes,
    "expr": lambda ctx: None,  # computed by `apply_expressions`, after the engine fills the keys
}

STRATEGIES = Registry("column strategy", group="stateforge.strategies")
"""Every strategy, by name (`STRATEGIES.add(name, strategy)`, or an entry point in the group
`stateforge.strategies` of a package of your own: a `Strategy`, `strategy(ctx) -> values`)."""
for _name, _strategy in {
    **TEXT_STRATEGIES,
    **VOCAB_STRATEGIES,
    **NUMBER_STRATEGIES,
    **TIME_STRATEGIES,
    **ANY_STRATEGIES,
}.items():
    STRATEGIES.add(_name, _strategy)

SELF_UNIQUE = frozenset(
    {
        "values",
        "email",
        "username",
        "uuid",
        "code",
        "phone",
        "ipv4",
        "url",
        "domain",
        "slug",
        "hex",
        "sequence",
        "tag",
        *NAME_VOCABULARIES,
    }
)
"""Strategies that keep their values distinct themselves when the column is unique."""
