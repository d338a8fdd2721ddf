"""Grouped sequences across batches: the integer fast path numbers exactly as the general path does."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from stateforge.fill.numbering import Numbering


def _reference(batches: list[list[object]], first: int) -> list[list[int]]:
    """Numbers by the definition: per group, first, first+1, ... in row order across batches."""
    last: dict[object, int] = {}
    out = []
    for values in batches:
        numbers = []
        for v in values:
            last[v] = last.get(v, first - 1) + 1
            numbers.append(last[v])
        out.append(numbers)
    return out


def test_integer_groups_continue_across_batches() -> None:
    rng = np.random.default_rng(3)
    batches = [rng.integers(-5, 40, size).tolist() for size in (0, 17, 1, 60, 33)]
    numbering = Numbering(first=0)
    got = [numbering.next([pa.chunked_array([pa.array(b, pa.int64())])]).tolist() for b in batches]
    assert got == _reference(batches, 0)
    assert numbering.seen is None  # every batch took the integer path


def test_other_groups_and_a_switch_midway_keep_counting() -> None:
    ints = [[3, 1, 3, 7], [1, 1, 9]]
    mixed = [[3, None, 1, None], [7, 3]]
    numbering = Numbering(first=1)
    got = [numbering.next([pa.array(b, pa.int32())]).tolist() for b in ints]
    got += [numbering.next([pa.array(b, pa.int32())]).tolist() for b in mixed]  # NULLs: the dict path
    assert numbering.seen is not None
    assert got == _reference(ints + mixed, 1)
    two = Numbering(first=1)  # two columns: a group is the pair
    a, b = pa.array(["x", "x", "y", "x"]), pa.array([1, 2, 1, 1], pa.int64())
    assert two.next([a, b]).tolist() == [1, 1, 1, 2]
    assert two.next([a.slice(0, 1), b.slice(0, 1)]).tolist() == [3]
