"""Vectorised draws shared by the strategies: shaped unit draws and permutations of row numbers."""

from __future__ import annotations

import math

import numpy as np

PERMUTATION_SPACE = 2**31
"""Largest space `permute` works in (keeps a * i within int64)."""


def unit_draw(rng: np.random.Generator, n: int, distribution: str, span: float | None = None) -> np.ndarray:
    """`n` floats in [0, 1] shaped by `distribution`; `zipf` is log-uniform over `span` steps."""
    if distribution == "normal":
        return np.clip(rng.normal(0.5, 1 / 6, n), 0.0, 1.0)
    if distribution == "lognormal":
        return np.clip(rng.lognormal(math.log(0.15), 0.7, n), 0.0, 1.0)
    if distribution == "zipf":
        if span is None or span <= 1:
            return rng.random(n) ** 3
        return np.expm1(rng.random(n) * math.log1p(span)) / span
    return rng.random(n)


def permute(ordinals: np.ndarray, space: int, key: int) -> np.ndarray:
    """Distinct indices for distinct 1-based ordinals: a shuffle of 0..space-1 while the space lasts.

    Ordinals past the space map to `ordinal - 1` (past the shuffled range), so values stay distinct even
    when a table outgrows its range (they then run past its upper end).
    """
    space = max(1, min(int(space), PERMUTATION_SPACE))
    a = key % space or 1
    while math.gcd(a, space) != 1:
        a += 1
    b = (key >> 32) % space
    shuffled = (a * ((ordinals - 1) % space) + b) % space
    return np.where(ordinals > space, ordinals - 1, shuffled)
