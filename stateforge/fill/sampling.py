"""Vectorised sampling of foreign keys: popularity, per-parent counts, unique pairs, forests, lookups.

    cdf = popularity_cdf(len(parents), rng_for(seed, "users", "popularity"), skew=1.1)
    index = draw(cdf, 10_000, rng)                # parent rows of 10,000 children, a few parents popular

Pure numpy (and Arrow for codes): no DuckDB, no schema. Parents have popularity weights
1/(rank + 1 + HEAD * n)^skew over a seeded random ranking of the n parents: `skew` 0 is uniform, the
default 1.1 is a long tail. `stateforge.fill.keys` decides which function draws which key; the second pass
(`stateforge.fill.deferred`) uses the same ones.

Why the offset: a plain power law 1/(rank+1)^skew with skew > 1 converges, so its first parent takes a
fixed share of all children whatever their number (1.1: 16% of 3,000 parents, 15% of 20,000: one
organizer of 3,348 meetings out of 20,000, one meeting with 901 of 6,000 notes). Zipf-Mandelbrot's
offset, a fixed fraction of the parents, makes the shape scale-free: at 1.1 the top tenth of the parents
draws about 57% of the children and the favourite about 26x the mean, for 1,000 or 20,000 parents alike;
under 100 parents the offset is below one rank and the law is the plain one.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np
import pyarrow as pa

DEFAULT_SKEW = 1.1
"""Exponent of the popularity power law when no hint sets one (0 is uniform)."""

HEAD = 0.01
"""The popularity law's rank offset, as a fraction of the parents: no parent stands apart from the top
1% of them (see the module's docstring)."""

LINK_ROUNDS = 24
"""Redraw rounds for duplicate pairs of a link table before the leftover duplicates are dropped."""

SKEWED_ROUNDS = 3
"""Link-table redraw rounds that keep the popularity skew; later rounds draw uniformly."""

Order = tuple[int, int, bool]
"""(lo, hi, strict): positions of two foreign keys that a CHECK orders, `lo < hi` (or `<=`)."""


def rng_for(seed: int, table: str, purpose: str, *more: int) -> np.random.Generator:
    """A generator for one table and purpose, independent of other tables and of the fill order."""
    words = [seed % 2**64, zlib.crc32(table.lower().encode()), zlib.crc32(purpose.encode())]
    return np.random.default_rng([*words, *(m % 2**64 for m in more)])


def popularity_cdf(n: int, rng: np.random.Generator, skew: float = DEFAULT_SKEW) -> np.ndarray:
    """Cumulative draw probabilities of `n` parents: a random rank each, weight
    1/(rank + 1 + HEAD * n)^skew."""
    weights = 1.0 / (rng.permutation(n) + 1.0 + HEAD * n) ** skew
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def draw(cdf: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` parent indices drawn with the probabilities of `cdf`."""
    return np.minimum(cdf_index(cdf, rng.random(size)), len(cdf) - 1).astype(np.int64)


GUIDED = 1024
"""Parents from which `cdf_index` searches through a guide table (below, a plain binary search wins)."""


def cdf_index(cdf: np.ndarray, u: np.ndarray) -> np.ndarray:
    """`np.searchsorted(cdf, u, side="right")`, faster for many draws among many parents.

    A binary search of 250k parents per draw misses the cache at every step; a guide table of len(cdf)
    equal slices of [0, 1) (the first parent past each slice's start) narrows each draw to the few
    parents its slice spans, which a binary search over only those finishes (draws still searching are
    compacted each step). The slice is widened by one on each side, so a rounding of `u * k` cannot miss.
    The result is exactly searchsorted's: 1.5-4x faster from 1,000 parents and as many draws.
    """
    m = len(cdf)
    if m < GUIDED or len(u) < m // 2:
        return np.searchsorted(cdf, u, side="right")
    guide = np.searchsorted(cdf, np.arange(m + 1) / m, side="right")
    slot = (u * m).astype(np.int64)
    lo = guide[np.maximum(slot - 1, 0)]
    hi = guide[np.minimum(slot + 2, m)]
    active = np.flatnonzero(lo < hi)
    while len(active):
        a_lo, a_hi = lo[active], hi[active]
        mid = (a_lo + a_hi) >> 1
        right = cdf[np.minimum(mid, m - 1)] <= u[active]
        a_lo, a_hi = np.where(right, mid + 1, a_lo), np.where(right, a_hi, mid)
        lo[active], hi[active] = a_lo, a_hi
        active = active[a_lo < a_hi]
    return lo


def duplicated(codes: np.ndarray) -> np.ndarray:
    """True for every occurrence of a value after its first (a hash pass, not a sort). pandas is imported
    here, by the fill, not by every command that reads a schema (half a second at start-up)."""
    import pandas as pd

    return pd.Series(codes, copy=False).duplicated(keep="first").to_numpy()


def group_codes(left: list[pa.Array], right: list[pa.Array]) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes such that left row i and right row j get the same code iff their values are equal.

    A NULL on the left gets code -1 (it matches nothing).
    """
    n = len(left[0]) if left else 0
    codes = np.zeros(n + (len(right[0]) if right else 0), dtype=np.int64)
    nulls = np.zeros(n, dtype=bool)
    for a, b in zip(left, right, strict=True):
        both = pa.chunked_array([a, b.cast(a.type)]).combine_chunks().dictionary_encode()
        idx = both.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        codes = codes * (len(both.dictionary) + 1) + idx
        nulls |= a.is_null().to_numpy(zero_copy_only=False)
    left_codes = codes[:n]
    left_codes[nulls] = -1
    return left_codes, codes[n:]


def match_draw(
    child: np.ndarray, parent: np.ndarray, rng: np.random.Generator, weights: np.ndarray | None = None
) -> np.ndarray:
    """For each child code, a random parent index with the same code (-1 where there is none).

    Parents with the same code are equally likely, or as likely as their `weights` (popularity) say.
    """
    if len(parent) == 0:
        return np.full(len(child), -1, dtype=np.int64)
    order = np.argsort(parent, kind="stable")
    keys, starts, counts = np.unique(parent[order], return_index=True, return_counts=True)
    pos = np.clip(np.searchsorted(keys, child), 0, len(keys) - 1)
    if weights is None:
        pick = starts[pos] + np.floor(rng.random(len(child)) * counts[pos]).astype(np.int64)
    else:  # a point under the group's stretch of the cumulative weights, then the parent it falls on
        cum = np.r_[0.0, np.cumsum(weights[order])]
        low, high = cum[starts[pos]], cum[starts[pos] + counts[pos]]
        found = np.searchsorted(cum, low + rng.random(len(child)) * (high - low), side="right") - 1
        pick = np.clip(found, starts[pos], starts[pos] + counts[pos] - 1)
    return np.where(keys[pos] == child, order[pick], -1)


def lookup(child: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """For each child code, the index of the parent with that code; -1 for none (or a child code of -1).

    Parent codes are those of a key, so distinct; with repeats the first in sort order is taken.
    """
    if len(parent) == 0:
        return np.full(len(child), -1, dtype=np.int64)
    order = np.argsort(parent, kind="stable")
    ranked = parent[order]
    pos = np.clip(np.searchsorted(ranked, child), 0, len(parent) - 1)
    return np.where((ranked[pos] == child) & (child >= 0), order[pos], -1).astype(np.int64)


def cycle_cuts(parent: np.ndarray) -> np.ndarray:
    """Rows whose link to their parent must go for `parent` (row indices, -1 for none) to be a forest.

    One row per cycle: its lowest index (a row pointing at itself is a cycle of one). Pointer doubling:
    after 2^k >= n steps every walk is inside its cycle (or ended at a root), and the least index seen on
    the way from a row of a cycle is the cycle's least one. O(n log n), no Python loop over rows.
    """
    n = len(parent)
    sink = n  # where roots lead; it leads to itself
    step = np.append(np.where(parent >= 0, parent, sink), sink).astype(np.int64)
    low = np.arange(n + 1, dtype=np.int64)
    for _ in range(max(1, n.bit_length())):
        low = np.minimum(low, low[step])
        step = step[step]
    on_cycle = np.zeros(n + 1, dtype=bool)
    on_cycle[step] = True
    return on_cycle[:n] & (low[:n] == np.arange(n))


def earlier_in_group(codes: np.ndarray, rng: np.random.Generator, *, chain: bool, roots: int) -> np.ndarray:
    """For rows in order, a row before each one with the same code (-1 for the first `roots` of a group).

    Parents always come earlier, so following them never loops: the result is a forest. `chain` makes
    each row's parent the one just before it (for a UNIQUE self-reference: a list, one child each).
    """
    n = len(codes)
    order = np.lexsort((np.arange(n), codes))
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1] if n else np.zeros(0, int)
    group_start = np.repeat(starts, np.diff(np.r_[starts, n])) if n else np.zeros(0, int)
    rank = np.arange(n) - group_start
    offset = rank - 1 if chain else np.floor(rng.random(n) * rank).astype(np.int64)
    parent_sorted = np.where(rank >= max(roots, 1), order[group_start + np.maximum(offset, 0)], -1)
    out = np.empty(n, dtype=np.int64)
    out[order] = parent_sorted
    return out


def quantile_counts(m: int, points: Sequence[tuple[float, int]]) -> np.ndarray:
    """Children of `m` parents, most first, following a distribution given by (quantile, count) points
    from (0, min) to (1, max): log(count + 1) interpolated linearly between the points, at the middle of
    each parent's share of [0, 1]. Deterministic, so the table's size is known before it is filled."""
    if not m:
        return np.zeros(0, dtype=np.int64)
    qs = np.array([q for q, _ in points], dtype=float)
    logs = np.log1p(np.array([v for _, v in points], dtype=float))
    at = (np.arange(m, dtype=float) + 0.5) / m
    counts = np.rint(np.expm1(np.interp(at, qs, logs))).astype(np.int64)
    return counts[::-1].copy()


def by_rank(counts: np.ndarray, cdf: np.ndarray) -> np.ndarray:
    """`counts` (most first) given to the parents of `cdf` in order of popularity (the most popular
    parent, the largest count)."""
    weights = np.diff(cdf, prepend=0.0)
    order = np.argsort(-weights, kind="stable")
    out = np.empty(len(counts), dtype=np.int64)
    out[order] = counts
    return out


def per_parent_counts(
    m: int, exactly: int | None, low: int, high: int, target: int, rng: np.random.Generator,
    cdf: np.ndarray | None = None,
) -> np.ndarray:
    """Rows per parent: `exactly` each, or between low and high each, summing to `target` when it fits.

    Without `cdf` the counts are uniform between low and high; with one (a popularity hint on the key),
    the rows above `low` go to popular parents first, each parent holding at most `high`.
    """
    if exactly is not None:
        return np.full(m, exactly, dtype=np.int64)
    target = min(max(target, m * low), m * high)
    if cdf is not None and m:
        return _popular_counts(cdf, low, high, target, rng)
    counts = rng.integers(low, high + 1, m)
    while (diff := target - int(counts.sum())) != 0:
        movable = np.flatnonzero(counts < high) if diff > 0 else np.flatnonzero(counts > low)
        chosen = rng.choice(movable, size=min(abs(diff), len(movable)), replace=False)
        counts[chosen] += 1 if diff > 0 else -1
    return counts


def _popular_counts(cdf: np.ndarray, low: int, high: int, target: int, rng: np.random.Generator
                    ) -> np.ndarray:
    m = len(cdf)
    counts = np.full(m, low, dtype=np.int64)
    extra = target - m * low
    for _ in range(LINK_ROUNDS):
        if extra <= 0:
            break
        add = np.minimum(np.bincount(draw(cdf, extra, rng), minlength=m), high - counts)
        counts += add
        extra -= int(add.sum())
    if extra > 0:  # the popular parents are full: the rest go to parents with room, uniformly
        room = np.repeat(np.arange(m), high - counts)
        counts += np.bincount(rng.choice(room, size=extra, replace=False), minlength=m)
    return counts


def link_draw(
    cdfs: list[np.ndarray],
    fixed: list[np.ndarray | None],
    n: int,
    rng: np.random.Generator,
    ordered: Sequence[Order] = (),
) -> tuple[list[np.ndarray], np.ndarray]:
    """Parent indices for `n` rows of a link table without duplicate combinations.

    `fixed[i]` holds indices decided already (`per_parent`, or a UNIQUE key drawn without replacement);
    the others are drawn with popularity, duplicates redrawn (uniformly after `SKEWED_ROUNDS`). `ordered`
    lists (lo, hi, strict) pairs that a CHECK orders (`lo < hi`): free pairs are swapped into order, rows
    that stay out of order are redrawn. Returns the indices and the mask of rows kept: rows still bad
    after `LINK_ROUNDS` are dropped (the key space is nearly full).
    """
    sizes = [len(c) for c in cdfs]
    free = [i for i, f in enumerate(fixed) if f is None]
    space = math.prod(sizes)
    if len(free) == len(fixed) and not ordered and n * 3 > space and space < 2**62:
        codes = rng.choice(space, size=n, replace=False)
        return list(np.unravel_index(codes, sizes)), np.ones(n, dtype=bool)
    idx = [f.copy() if f is not None else draw(cdfs[i], n, rng) for i, f in enumerate(fixed)]
    bad = np.zeros(n, dtype=bool)
    for round_ in range(LINK_ROUNDS):
        bad = _out_of_order(idx, ordered, free)
        bad |= duplicated(np.ravel_multi_index(idx, sizes) if space < 2**62 else _row_codes(idx))
        if not bad.any() or not free:
            break
        for i in free:
            k = int(bad.sum())
            idx[i][bad] = draw(cdfs[i], k, rng) if round_ < SKEWED_ROUNDS else rng.integers(0, sizes[i], k)
    return idx, ~bad


def _out_of_order(idx: list[np.ndarray], ordered: Sequence[Order], free: list[int]) -> np.ndarray:
    """Swap free (lo, hi) pairs into order in place; True where a row stays out of order."""
    bad = np.zeros(len(idx[0]) if idx else 0, dtype=bool)
    for lo, hi, strict in ordered:
        if lo in free and hi in free:
            swap = idx[lo] > idx[hi]
            idx[lo][swap], idx[hi][swap] = idx[hi][swap], idx[lo][swap]
        bad |= (idx[lo] >= idx[hi]) if strict else (idx[lo] > idx[hi])
    return bad


def _row_codes(idx: list[np.ndarray]) -> np.ndarray:
    _, inverse = np.unique(np.stack(idx, axis=1), axis=0, return_inverse=True)
    return inverse.ravel()


def in_order(lo: np.ndarray, hi: np.ndarray, strict: bool, cdf: np.ndarray, rng) -> tuple[np.ndarray, ...]:
    """Swap (lo, hi) parent indices into order; redraw `hi` where a strict order meets a tie."""
    both = (lo >= 0) & (hi >= 0)
    lo, hi = np.where(both, np.minimum(lo, hi), lo), np.where(both, np.maximum(lo, hi), hi)
    for round_ in range(LINK_ROUNDS if strict else 0):
        tie = both & (lo == hi)
        if not tie.any() or not len(cdf):
            break
        k = int(tie.sum())
        hi[tie] = draw(cdf, k, rng) if round_ < SKEWED_ROUNDS else rng.integers(0, len(cdf), k)
        lo, hi = np.where(both, np.minimum(lo, hi), lo), np.where(both, np.maximum(lo, hi), hi)
    return lo, hi
