"""Sampling primitives: popularity, draws, codes, lookups, per-parent counts, link pairs, forests, cycles."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from stateforge.fill.sampling import (
    DEFAULT_SKEW,
    cdf_index,
    cycle_cuts,
    draw,
    duplicated,
    earlier_in_group,
    group_codes,
    link_draw,
    lookup,
    match_draw,
    per_parent_counts,
    popularity_cdf,
)


def _top_share(index: np.ndarray, n: int, top: float = 0.1) -> float:
    """Share of the draws that went to the most drawn `top` fraction of the `n` parents."""
    counts = np.sort(np.bincount(index, minlength=n))[::-1]
    return counts[: max(1, int(n * top))].sum() / counts.sum()


def test_popularity_cdf_is_a_distribution():
    cdf = popularity_cdf(50, np.random.default_rng(0))
    assert cdf[-1] == pytest.approx(1.0) and np.all(np.diff(cdf) > 0)


def test_duplicated_keeps_first_occurrences():
    assert duplicated(np.array([3, 1, 3, 2, 1])).tolist() == [False, False, True, False, True]


def test_group_codes_and_match_draw_pair_equal_values():
    left = [pa.array(["a", "b", None, "z"])]
    right = [pa.array(["b", "a", "a", "c"])]
    child, parent = group_codes(left, right)
    assert child[2] == -1
    picks = match_draw(child, parent, np.random.default_rng(0))
    assert picks[0] in (1, 2) and picks[1] == 0 and picks[2] == -1 and picks[3] == -1


def test_earlier_in_group_points_backwards_within_groups():
    codes = np.array([0, 1, 0, 0, 1, 1])
    chain = earlier_in_group(codes, np.random.default_rng(0), chain=True, roots=1)
    assert chain.tolist() == [-1, -1, 0, 2, 1, 4]
    tree = earlier_in_group(codes, np.random.default_rng(0), chain=False, roots=1)
    assert all(p < i and (p == -1 or codes[p] == codes[i]) for i, p in enumerate(tree))


def test_per_parent_counts_stay_in_bounds():
    counts = per_parent_counts(100, None, 2, 5, 10_000, np.random.default_rng(0))
    assert counts.sum() == 500 and counts.min() == 5  # the target is clipped to what the bounds allow
    assert per_parent_counts(4, 3, 0, 0, 0, np.random.default_rng(0)).tolist() == [3, 3, 3, 3]


def test_link_draw_dense_and_fixed():
    cdfs = [popularity_cdf(5, np.random.default_rng(1)), popularity_cdf(4, np.random.default_rng(2))]
    idx, keep = link_draw(cdfs, [None, None], 20, np.random.default_rng(0))
    assert keep.all() and len({(a, b) for a, b in zip(*idx, strict=True)}) == 20
    fixed = np.repeat(np.arange(5), 3)
    idx, keep = link_draw(cdfs, [fixed, None], 15, np.random.default_rng(0))
    assert keep.all() and idx[0].tolist() == fixed.tolist()
    assert len({(a, b) for a, b in zip(*idx, strict=True)}) == 15


@pytest.mark.parametrize(("skew", "low", "high"), [(0.0, 0.09, 0.13), (0.5, 0.2, 0.4), (1.1, 0.55, 0.8)])
def test_skew_sets_how_popular_the_popular_parents_are(skew, low, high):
    cdf = popularity_cdf(1_000, np.random.default_rng(3), skew)
    assert low < _top_share(draw(cdf, 50_000, np.random.default_rng(4)), 1_000) < high


@pytest.mark.parametrize("skew", [0.5, 1.1, 2.0])
def test_the_favourite_parent_is_a_multiple_of_the_mean_whatever_the_number_of_parents(skew):
    """A plain 1/(rank+1)^1.1 gives its favourite 16-18% of every child table (one organizer with 3,348
    of 20,000 meetings): the favourite's multiple of the mean must not grow with the parents."""
    multiples = []
    for n in (1_000, 3_000, 20_000):
        weights = np.diff(popularity_cdf(n, np.random.default_rng(5), skew), prepend=0.0)
        multiples.append(weights.max() * n)
    assert max(multiples) < 1.25 * min(multiples) and max(multiples) < 120
    if skew == DEFAULT_SKEW:
        assert 15 < min(multiples) and max(multiples) < 40  # the favourite of 3,000 has under 1.3%


def test_same_ranking_whatever_the_skew():
    """The ranking comes from the generator, the skew only sharpens it: the favourite stays the favourite."""
    mild = popularity_cdf(200, np.random.default_rng(9), 0.3)
    sharp = popularity_cdf(200, np.random.default_rng(9), 2.0)
    assert np.argmax(np.diff(mild, prepend=0)) == np.argmax(np.diff(sharp, prepend=0))


def test_weighted_match_draw_follows_the_weights_within_a_group():
    parent = np.array([7, 7, 7, 3])
    weights = np.array([0.0001, 0.9998, 0.0001, 1.0])
    picks = match_draw(np.full(2_000, 7), parent, np.random.default_rng(0), weights)
    assert set(picks) <= {0, 1, 2} and (picks == 1).mean() > 0.99
    assert match_draw(np.array([3, 5, -1]), parent, np.random.default_rng(0), weights).tolist() == [3, -1, -1]


def test_lookup_finds_the_parent_row_or_minus_one():
    parent = np.array([40, 10, 30, 20])
    assert lookup(np.array([10, 20, 25, -1, 40]), parent).tolist() == [1, 3, -1, -1, 0]
    assert lookup(np.array([1, 2]), np.zeros(0, dtype=np.int64)).tolist() == [-1, -1]


def test_cycle_cuts_cut_each_loop_at_its_lowest_row():
    # 0 -> 1 -> 2 -> 0 (a loop), 3 -> 0 (a tail into it), 4 root, 5 -> 5 (a self-loop), 6 -> 7 -> 6
    parent = np.array([1, 2, 0, 0, -1, 5, 7, 6])
    assert np.flatnonzero(cycle_cuts(parent)).tolist() == [0, 5, 6]
    assert not cycle_cuts(np.array([-1, 0, 0, 1, 2])).any()  # a tree: nothing to cut
    assert len(cycle_cuts(np.zeros(0, dtype=np.int64))) == 0


def test_cycle_cuts_leave_a_forest_on_large_random_graphs():
    rng = np.random.default_rng(1)
    parent = rng.integers(-1, 5_000, 5_000)
    fixed = np.where(cycle_cuts(parent), -1, parent)
    seen = np.arange(5_000)
    for _ in range(5_001):  # every walk reaches a root within n steps when there is no loop
        seen = np.where(seen >= 0, fixed[np.maximum(seen, 0)], -1)
    assert (seen == -1).all()


def test_per_parent_counts_follow_popularity_when_given_a_cdf():
    cdf = popularity_cdf(500, np.random.default_rng(2), 1.5)
    counts = per_parent_counts(500, None, 1, 12, 2_000, np.random.default_rng(0), cdf)
    assert counts.sum() == 2_000 and counts.min() >= 1 and counts.max() <= 12
    flat = per_parent_counts(500, None, 1, 12, 2_000, np.random.default_rng(0))
    assert (counts == 12).sum() > 3 * (flat == 12).sum()  # popular parents fill up to max
    skewed = popularity_cdf(50, np.random.default_rng(1))
    full = per_parent_counts(50, None, 0, 4, 10_000, np.random.default_rng(0), skewed)
    assert full.tolist() == [4] * 50  # the target is clipped; the rest goes where there is room


@pytest.mark.parametrize(("parents", "draws", "skew"), [(5_000, 20_000, 1.1), (3_000, 3_000, 0.0),
                                                          (2_000, 50_000, 3.0), (50, 1_000, 1.1)])
def test_the_guided_search_finds_what_searchsorted_finds(parents: int, draws: int, skew: float) -> None:
    cdf = popularity_cdf(parents, np.random.default_rng(1), skew)
    u = np.random.default_rng(2).random(draws)
    u[:parents] = np.minimum(cdf, np.nextafter(1.0, 0))[:draws]  # exactly on a boundary: side="right"
    u[-1] = 0.0
    assert np.array_equal(cdf_index(cdf, u), np.searchsorted(cdf, u, side="right"))
