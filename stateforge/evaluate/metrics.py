"""The metrics of a run, as pure functions of (trials, successes) per task.

For a task with n graded trials of which c passed, and k the trials asked for:

    Avg@k    c / n                                the expected share of trials that pass
    Pass@k   1 - C(n - c, k) / C(n, k)            at least one of k trials passes (unbiased estimator)
    Pass^k   C(c, k) / C(n, k)                    all k trials pass

Each is averaged over tasks. Pass@k and Pass^k need n >= k: a task whose infrastructure errors left it
with fewer graded trials counts for Avg@k only (`tasks_scored` says how many tasks each metric covers).

Confidence intervals (95%): with one trial per task the three metrics are one proportion, and its Wilson
score interval is used (`method: "wilson"`); with k > 1, a percentile bootstrap over tasks (2,000
resamples, seeded: `method: "bootstrap"`). A paired comparison of two runs takes the tasks both graded:
the mean difference of the per-task Avg@k, a paired bootstrap interval, and an exact two-sided sign test on
the tasks one run did better on (McNemar's exact test when k = 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

Z95 = 1.959963984540054
RESAMPLES = 2000
PLAN_BINS: tuple[tuple[int, int | None], ...] = ((1, 1), (2, 2), (3, 4), (5, 8), (9, None))
"""Bins of the reference plan's length (steps)."""


@dataclass(frozen=True)
class TaskScore:
    """One task's graded trials and passes."""

    task_id: str
    n: int
    c: int


def avg_at_k(n: int, c: int) -> float:
    """The share of a task's trials that passed."""
    _check(n, c)
    return c / n


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k trials drawn from the n passes: 1 - C(n-c, k) / C(n, k)."""
    _check(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all of k trials drawn from the n pass: C(c, k) / C(n, k)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int | None = None) -> None:
    if n < 1 or not 0 <= c <= n:
        raise ValueError(f"need n >= 1 and 0 <= c <= n, got n={n}, c={c}")
    if k is not None and not 1 <= k <= n:
        raise ValueError(f"need 1 <= k <= n, got k={k}, n={n}")


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def bootstrap_mean(
    values: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0, level: float = 0.95
) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of `values` (resampled with replacement, seeded)."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return (0.0, 1.0)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return (float(low), float(high))


def sign_test(wins: int, losses: int) -> float:
    """The exact two-sided binomial (sign) test p-value of `wins` against `losses` (ties left out)."""
    n = wins + losses
    if n == 0:
        return 1.0
    low = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2**n
    return min(1.0, 2 * tail)


def metrics(scores: Iterable[TaskScore], k: int, *, seed: int = 0) -> dict[str, object]:
    """Avg@k, Pass@k and Pass^k over tasks, how many tasks each covers, and their 95% intervals."""
    scored = [s for s in scores if s.n >= 1]
    full = [s for s in scored if s.n >= k]
    avg = [avg_at_k(s.n, s.c) for s in scored]
    at_k = [pass_at_k(s.n, s.c, k) for s in full]
    hat_k = [pass_hat_k(s.n, s.c, k) for s in full]
    out: dict[str, object] = {
        "tasks": len(scored),
        "tasks_scored": {"avg_at_k": len(scored), "pass_at_k": len(full), "pass_hat_k": len(full)},
        "avg_at_k": _mean(avg),
        "pass_at_k": _mean(at_k),
        "pass_hat_k": _mean(hat_k),
    }
    if k == 1 and all(s.n == 1 for s in scored):
        passed = sum(s.c for s in scored)
        interval = _round(wilson(passed, len(scored)))
        out["ci"] = {"method": "wilson", "level": 0.95, "avg_at_k": interval, "pass_at_k": interval,
                     "pass_hat_k": interval}
    else:
        out["ci"] = {
            "method": "bootstrap",
            "level": 0.95,
            "resamples": RESAMPLES,
            "seed": seed,
            "avg_at_k": _round(bootstrap_mean(avg, seed=seed)),
            "pass_at_k": _round(bootstrap_mean(at_k, seed=seed)),
            "pass_hat_k": _round(bootstrap_mean(hat_k, seed=seed)),
        }
    return out


def grouped(
    scores: Iterable[TaskScore],
    groups_of: Callable[[str], Iterable[str]],
    k: int,
    *,
    seed: int = 0,
    order: Sequence[str] = (),
) -> dict[str, dict[str, object]]:
    """`metrics` per group; `groups_of(task_id)` names the groups of a task (a task may be in several).
    Groups come in `order` first, then by name."""
    members: dict[str, list[TaskScore]] = {}
    for score in scores:
        for group in groups_of(score.task_id):
            members.setdefault(group, []).append(score)
    names = [g for g in order if g in members] + sorted(g for g in members if g not in order)
    return {g: metrics(members[g], k, seed=seed) for g in names}


def plan_bin(steps: int) -> str:
    """The bin of a reference plan's length: `1`, `2`, `3-4`, `5-8`, `9+`."""
    for low, high in PLAN_BINS:
        if steps >= low and (high is None or steps <= high):
            return f"{low}+" if high is None else (str(low) if low == high else f"{low}-{high}")
    return "0"


def plan_bins() -> list[str]:
    """Every bin name, in order."""
    return [plan_bin(low) for low, _ in PLAN_BINS]


def paired(
    a: Iterable[TaskScore], b: Iterable[TaskScore], *, seed: int = 0
) -> dict[str, object]:
    """Run B against run A on the tasks both graded: mean per-task Avg@k of each, B - A with a paired
    bootstrap interval, wins / losses / ties, and the sign test's p-value."""
    mine = {s.task_id: s for s in a if s.n >= 1}
    theirs = {s.task_id: s for s in b if s.n >= 1}
    common = [t for t in mine if t in theirs]
    if not common:
        return {"tasks": 0}
    avg_a = np.array([avg_at_k(mine[t].n, mine[t].c) for t in common])
    avg_b = np.array([avg_at_k(theirs[t].n, theirs[t].c) for t in common])
    delta = avg_b - avg_a
    wins, losses = int((delta > 0).sum()), int((delta < 0).sum())
    return {
        "tasks": len(common),
        "avg_at_k_a": _r(float(avg_a.mean())),
        "avg_at_k_b": _r(float(avg_b.mean())),
        "difference": _r(float(delta.mean())),
        "ci": {"method": "paired bootstrap", "level": 0.95, "resamples": RESAMPLES, "seed": seed,
               "difference": _round(bootstrap_mean(delta.tolist(), seed=seed))},
        "b_better": wins,
        "a_better": losses,
        "ties": len(common) - wins - losses,
        "sign_test_p": float(f"{sign_test(wins, losses):.6g}"),  # significant digits: p can be tiny
    }


def _mean(values: list[float]) -> float | None:
    return _r(sum(values) / len(values)) if values else None


def _r(value: float) -> float:
    return round(value, 6)


def _round(pair: tuple[float, float]) -> list[float]:
    return [_r(pair[0]), _r(pair[1])]
