"""Grouped sequences: rows numbered 1..n inside each group, continuing across the batches of a table.

    numbering = Numbering(first=1)
    numbers = numbering.next([batch.column("playlist_id")])     # 1, 2, 1, 3, ... per playlist, in row order

The groups of one table's batches share one `Numbering`, so a group met again in a later batch continues
where it stopped. A single integer group column without NULLs (a parent's key: the common case) keeps
its last numbers in sorted numpy arrays, looked up with one binary search per batch; any other group
(several columns, strings, NULLs) keeps a dict from the group's values to its last number, one Python
look-up per group and batch. Both give the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


class Numbering:
    """The last number given in each group so far, for one grouped sequence column of one table."""

    def __init__(self, first: int = 1) -> None:
        self.first = first
        self.keys = np.zeros(0, dtype=np.int64)
        """Sorted integer group values (the fast path)."""
        self.last = np.zeros(0, dtype=np.int64)
        """The last number given in the group of `keys[i]`."""
        self.seen: dict[tuple[Any, ...], int] | None = None
        """The general path's state: group values -> the last number; once used, used for good."""

    def next(self, groups: list[pa.ChunkedArray | pa.Array]) -> np.ndarray:
        """1-based numbers inside each group of `groups` (rows equal on every column), in row order,
        continuing from the numbers given before."""
        n = len(groups[0])
        if n == 0:
            return np.zeros(0, dtype=np.int64)
        if self.seen is None and len(groups) == 1 and pa.types.is_integer(groups[0].type) \
                and not groups[0].null_count:
            return self._next_int(np.asarray(groups[0].to_numpy(), dtype=np.int64))
        if self.seen is None:  # move the integer state over (its groups are 1-tuples of ints)
            self.seen = {(int(k),): int(v) for k, v in zip(self.keys, self.last, strict=True)}
        return _number_groups(groups, self.seen, self.first)

    def _next_int(self, values: np.ndarray) -> np.ndarray:
        groups, inverse, sizes = np.unique(values, return_inverse=True, return_counts=True)
        rank = _rank_in_group(inverse.ravel(), sizes)
        pos = np.searchsorted(self.keys, groups)
        hit = np.zeros(len(groups), dtype=bool)
        offsets = np.full(len(groups), self.first - 1, dtype=np.int64)
        if len(self.keys):
            at = np.minimum(pos, len(self.keys) - 1)
            hit = self.keys[at] == groups
            offsets[hit] = self.last[at[hit]]
        ends = offsets + sizes
        self.last[pos[hit]] = ends[hit]
        self.keys = np.insert(self.keys, pos[~hit], groups[~hit])
        self.last = np.insert(self.last, pos[~hit], ends[~hit])
        return offsets[inverse.ravel()] + rank + 1


def _rank_in_group(inverse: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Each row's 0-based place among the rows of its group, in row order."""
    n = len(inverse)
    order = np.argsort(inverse, kind="stable")
    run_starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - run_starts
    return rank


def _number_groups(groups: list[pa.ChunkedArray], seen: dict[tuple[Any, ...], int], first: int) -> np.ndarray:
    """1-based numbers inside each group, in row order, continuing from `seen` (updated in place)."""
    inverse = _group_index(groups)
    sizes = np.bincount(inverse)
    rank = _rank_in_group(inverse, sizes)
    # one dictionary look-up per group, not per row
    order = np.argsort(inverse, kind="stable")
    representatives = order[np.cumsum(sizes) - sizes]
    keys = list(zip(*(g.take(pa.array(representatives)).to_pylist() for g in groups), strict=True))
    offsets = np.array([seen.get(key, first - 1) for key in keys], dtype=np.int64)
    for key, offset, size in zip(keys, offsets, sizes, strict=True):
        seen[key] = int(offset + size)
    return offsets[inverse] + rank + 1


def _codes(values: pa.ChunkedArray) -> np.ndarray:
    """Integer codes of a column's distinct values (NULL gets its own code)."""
    encoded = pc.dictionary_encode(values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values)
    return pc.fill_null(encoded.indices, -1).to_numpy().astype(np.int64)


def _group_index(groups: list[pa.ChunkedArray]) -> np.ndarray:
    """Per row, the index of its group (rows equal on every column of `groups`), from 0.

    The columns' codes are packed into one int64 (mixed radix) so that one 1-D `np.unique` groups them;
    `np.unique(axis=0)` sorts rows as opaque bytes and costs ten times more. Codes too wide to pack fall
    back to it."""
    codes = [_codes(g) + 1 for g in groups]  # NULL's -1 becomes 0
    packed, span = np.zeros(len(codes[0]), dtype=np.int64), 1
    for c in codes:
        width = int(c.max()) + 1
        span *= width
        if span >= 2**62:
            return np.unique(np.stack(codes, axis=1), axis=0, return_inverse=True)[1].ravel()
        packed = packed * width + c
    return np.unique(packed, return_inverse=True)[1].ravel()
