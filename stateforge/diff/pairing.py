"""Pairing the rows an expected diff inserts with the rows an actual diff inserts, by content.

Rows arrive as cells (column -> comparable value; `compare` has already mapped foreign keys that point to
new rows). Columns whose rule has no tolerance are reduced to a signature, so rows fall into buckets of
equal signatures; inside a bucket, columns with a tolerance (numeric, time) decide which pairs are
possible and a maximum matching pairs as many rows as can be paired. Everything runs in the rows' given
order (the diffs' key order), so the same diffs always give the same pairing.

Rows left over on both sides are then paired when they differ in few columns ("near" pairs), so that a
verdict can say "position expected 3, got 4" rather than "missing" plus "unexpected", and children that
reference them still follow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from stateforge.diff.policy import PAIRWISE, ColumnRule

Cells = dict[str, Any]

NEAR_PAIR_BUDGET = 40_000
"""Leftover pairs examined for near pairs at most (left expected x left actual); beyond, none are made."""


@dataclass
class Pairing:
    """How the expected rows of one table pair with the actual rows (indices into the two lists)."""

    pairs: dict[int, int] = field(default_factory=dict)
    """Expected row -> actual row with equal content under the policy."""
    near: dict[int, tuple[int, list[str]]] = field(default_factory=dict)
    """Expected row -> (actual row, the columns that differ)."""
    missing: list[int] = field(default_factory=list)
    unexpected: list[int] = field(default_factory=list)

    def partner(self, expected: int) -> int | None:
        """The actual row paired (exactly or nearly) with expected row `expected`, or None."""
        if expected in self.pairs:
            return self.pairs[expected]
        near = self.near.get(expected)
        return near[0] if near else None


def differing(expected: Cells, actual: Cells, rules: dict[str, ColumnRule]) -> list[str]:
    """The columns of two rows that do not match under their rules."""
    return [c for c, rule in rules.items() if not rule.matches(expected.get(c), actual.get(c))]


def _augment(root: int, candidates: dict[int, list[int]], owner: dict[int, int]) -> bool:
    """One augmenting path from expected row `root` (Kuhn's algorithm, iterative: buckets can be large)."""
    seen: set[int] = set()
    stack: list[list[Any]] = [[root, iter(candidates[root]), None]]
    while stack:
        level = stack[-1]
        for a in level[1]:
            if a in seen:
                continue
            seen.add(a)
            level[2] = a
            if a not in owner:
                for e, _, chosen in stack:  # flip the path: each row takes the row it reached
                    owner[chosen] = e
                return True
            stack.append([owner[a], iter(candidates[owner[a]]), None])
            break
        else:
            stack.pop()
    return False


def _match_bucket(
    es: list[int],
    as_: list[int],
    expected: Sequence[Cells],
    actual: Sequence[Cells],
    tolerant: dict[str, ColumnRule],
) -> dict[int, int]:
    if not tolerant:
        return dict(zip(es, as_, strict=False))
    candidates = {e: [a for a in as_ if not differing(expected[e], actual[a], tolerant)] for e in es}
    owner: dict[int, int] = {}
    for e in es:
        _augment(e, candidates, owner)
    return {e: a for a, e in owner.items()}


def _pair_by(
    keys: tuple[Sequence[Any], Sequence[Any]],
    todo: tuple[list[int], list[int]],
    expected: Sequence[Cells],
    actual: Sequence[Cells],
    tolerant: dict[str, ColumnRule],
) -> dict[int, int]:
    """Pairs among the rows `todo`, inside buckets of equal `keys`."""
    buckets: dict[Any, tuple[list[int], list[int]]] = {}
    for side in (0, 1):
        for i in todo[side]:
            buckets.setdefault(keys[side][i], ([], []))[side].append(i)
    pairs: dict[int, int] = {}
    for es, as_ in buckets.values():
        if es and as_:
            pairs.update(_match_bucket(es, as_, expected, actual, tolerant))
    return pairs


def pair_rows(
    expected: Sequence[Cells],
    actual: Sequence[Cells],
    rules: dict[str, ColumnRule],
    hints: tuple[Sequence[str], Sequence[str]] | None = None,
) -> Pairing:
    """Pair `expected` with `actual` rows on the columns of `rules` (ignored columns must be left out).

    `hints` (one string a row, e.g. what the rows that reference it look like) break ties between rows
    of equal content: rows are first paired within equal hints, and what is left without them.
    """
    exact = {c: r for c, r in rules.items() if r.rule not in PAIRWISE}
    tolerant = {c: r for c, r in rules.items() if r.rule in PAIRWISE}

    def signature(cells: Cells) -> tuple:
        return tuple(rule.signature(cells.get(c)) for c, rule in exact.items())

    keys = ([signature(c) for c in expected], [signature(c) for c in actual])
    todo = (list(range(len(expected))), list(range(len(actual))))
    pairing = Pairing()
    if hints is not None:
        hinted = tuple([(k, h) for k, h in zip(keys[s], hints[s], strict=True)] for s in (0, 1))
        pairing.pairs.update(_pair_by(hinted, todo, expected, actual, tolerant))
        taken = set(pairing.pairs.values())
        todo = ([i for i in todo[0] if i not in pairing.pairs], [i for i in todo[1] if i not in taken])
    pairing.pairs.update(_pair_by(keys, todo, expected, actual, tolerant))
    pairing.pairs = dict(sorted(pairing.pairs.items()))
    taken = set(pairing.pairs.values())
    left_e = [i for i in range(len(expected)) if i not in pairing.pairs]
    left_a = [i for i in range(len(actual)) if i not in taken]
    if left_e and left_a and len(left_e) * len(left_a) <= NEAR_PAIR_BUDGET:
        limit = max(1, len(rules) // 2)
        scored = []
        for e in left_e:
            for a in left_a:
                cols = differing(expected[e], actual[a], rules)
                if len(cols) <= limit:
                    scored.append((len(cols), e, a, cols))
        used_e: set[int] = set()
        used_a: set[int] = set()
        for _, e, a, cols in sorted(scored, key=lambda s: s[:3]):
            if e not in used_e and a not in used_a:
                used_e.add(e)
                used_a.add(a)
                pairing.near[e] = (a, cols)
        pairing.near = dict(sorted(pairing.near.items()))
    near_a = {a for a, _ in pairing.near.values()}
    pairing.missing = [e for e in left_e if e not in pairing.near]
    pairing.unexpected = [a for a in left_a if a not in near_a]
    return pairing
