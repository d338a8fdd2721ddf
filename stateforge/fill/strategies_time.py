"""Time strategies, and `after`: a column generated as another column of the row plus a gap.

Timestamps are numpy datetime64[us] (timezone-naive), dates datetime64[D], times of day timedelta64[us];
`to_arrow` turns them into the column's type (or ISO strings for text columns).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from stateforge.fill.draw import unit_draw
from stateforge.fill.spec import Ctx


def _between(ctx: Ctx, unit: str) -> np.ndarray:
    """Values between the spec's bounds, counted in `unit` steps from `lo`."""
    lo, hi = ctx.spec.lo, ctx.spec.hi
    span = int((hi - lo) // np.timedelta64(1, unit))
    u = unit_draw(ctx.rng, ctx.n, ctx.spec.distribution, span)
    steps = np.minimum(np.floor(u * (span + 1)), span).astype(np.int64)
    return lo + steps.astype(f"timedelta64[{unit}]")


def timestamp(ctx: Ctx) -> np.ndarray:
    """Timestamps in the time window (or the hint's min/max), microsecond precision."""
    return _between(ctx, "us")


def date_(ctx: Ctx) -> np.ndarray:
    return _between(ctx, "D")


def time_(ctx: Ctx) -> np.ndarray:
    """Times of day, whole seconds."""
    return _between(ctx, "s").astype("timedelta64[us]")


def after(ctx: Ctx) -> Any:
    """The latest of the row's `after` columns plus a gap in [min_gap, max_gap], within the upper bound.

    Bases are read before NULLs are applied, so a chain a < b < c holds even where b is NULL.
    """
    spec = ctx.spec
    bases = [_as_domain(ctx.row[name.lower()], spec.domain) for name in spec.after]
    base = bases[0]
    for other in bases[1:]:
        base = np.maximum(base, other)
    u = unit_draw(ctx.rng, ctx.n, spec.distribution if spec.hint.distribution else "uniform")
    # the gap shrinks where the upper bound is near, rather than piling values up at the bound
    if spec.domain == "num":
        spread = np.full(ctx.n, float(spec.max_gap - spec.min_gap))
        if spec.hi is not None:
            spread = np.clip(spec.hi - base - spec.min_gap, 0, spread)
        values = base + spec.min_gap + u * spread
        if spec.integral:
            return np.ceil(values - 1e-9).astype(np.int64)
        return np.round(values, spec.decimals if spec.decimals is not None else 2)
    unit = "D" if spec.domain == "date" else "us"
    least = spec.min_gap.astype(f"timedelta64[{unit}]")
    spread = np.full(ctx.n, (spec.max_gap - spec.min_gap).astype(f"timedelta64[{unit}]").astype(np.int64))
    if spec.hi is not None:
        room = (spec.hi - base - least).astype(f"timedelta64[{unit}]").astype(np.int64)
        spread = np.clip(room, 0, spread)
    return base + least + np.floor(u * spread).astype(np.int64).astype(f"timedelta64[{unit}]")


def _as_domain(values: Any, domain: str) -> Any:
    """A base column's raw values in the dependent column's domain (dates round up to whole days)."""
    values = np.asarray(values)
    if domain == "date" and values.dtype == np.dtype("datetime64[us]"):
        return (values + np.timedelta64(86_399_999_999, "us")).astype("datetime64[D]")
    if domain == "ts" and values.dtype == np.dtype("datetime64[D]"):
        return values.astype("datetime64[us]")
    return values


TIME_STRATEGIES = {
    "timestamp": timestamp,
    "date": date_,
    "time": time_,
}
