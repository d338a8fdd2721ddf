"""The metrics against values worked out by hand."""

from __future__ import annotations

import pytest

from stateforge.evaluate.metrics import (
    TaskScore,
    avg_at_k,
    bootstrap_mean,
    grouped,
    metrics,
    paired,
    pass_at_k,
    pass_hat_k,
    plan_bin,
    sign_test,
    wilson,
)


@pytest.mark.parametrize(
    ("n", "c", "k", "at_k", "hat_k"),
    [
        (5, 2, 2, 0.7, 0.1),  # 1 - C(3,2)/C(5,2) = 1 - 3/10; C(2,2)/C(5,2) = 1/10
        (4, 1, 1, 0.25, 0.25),  # k = 1: both are c/n
        (3, 1, 3, 1.0, 0.0),  # n - c < k: some trial of any 3 passes; C(1,3) = 0
        (3, 3, 3, 1.0, 1.0),
        (3, 0, 2, 0.0, 0.0),
        (10, 5, 3, 1 - 10 / 120, 10 / 120),  # C(5,3) = 10, C(10,3) = 120
    ],
)
def test_pass_at_k_and_pass_hat_k(n: int, c: int, k: int, at_k: float, hat_k: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(at_k)
    assert pass_hat_k(n, c, k) == pytest.approx(hat_k)
    assert avg_at_k(n, c) == pytest.approx(c / n)


@pytest.mark.parametrize(("n", "c", "k"), [(0, 0, 1), (3, 4, 1), (3, 1, 4), (3, 1, 0)])
def test_impossible_counts_are_refused(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="need"):
        pass_at_k(n, c, k)


def test_wilson_interval() -> None:
    low, high = wilson(8, 10)  # the textbook 95% Wilson interval of 8/10: 0.490 .. 0.943
    assert (round(low, 3), round(high, 3)) == (0.49, 0.943)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_sign_test_is_the_exact_binomial() -> None:
    assert sign_test(8, 2) == pytest.approx(112 / 1024)  # 2 * (C(10,0) + C(10,1) + C(10,2)) / 2^10
    assert sign_test(0, 6) == pytest.approx(2 / 64)
    assert sign_test(5, 5) == 1.0
    assert sign_test(0, 0) == 1.0


def test_bootstrap_is_seeded_and_brackets_the_mean() -> None:
    values = [(i * 37 % 101) / 100 for i in range(60)]
    mean = sum(values) / len(values)
    first = bootstrap_mean(values, seed=7)
    assert first == bootstrap_mean(values, seed=7)
    assert first != bootstrap_mean(values, seed=8)
    assert mean - 0.2 < first[0] < mean < first[1] < mean + 0.2
    assert bootstrap_mean([0.5] * 10) == (0.5, 0.5)


def test_metrics_over_tasks_leave_short_tasks_out_of_pass_at_k() -> None:
    scores = [TaskScore("a", 3, 3), TaskScore("b", 3, 1), TaskScore("c", 3, 0), TaskScore("d", 2, 2)]
    out = metrics(scores, 3)
    assert out["avg_at_k"] == pytest.approx((1 + 1 / 3 + 0 + 1) / 4, abs=1e-6)
    assert out["pass_at_k"] == pytest.approx(2 / 3, abs=1e-6)  # a: 1, b: 1 (n - c < k), c: 0
    assert out["pass_hat_k"] == pytest.approx(1 / 3, abs=1e-6)  # a only
    assert out["tasks_scored"] == {"avg_at_k": 4, "pass_at_k": 3, "pass_hat_k": 3}
    assert out["ci"]["method"] == "bootstrap"
    low, high = out["ci"]["avg_at_k"]
    assert low <= out["avg_at_k"] <= high


def test_one_trial_per_task_uses_the_wilson_interval() -> None:
    scores = [TaskScore(str(i), 1, int(i < 8)) for i in range(10)]
    out = metrics(scores, 1)
    assert out["avg_at_k"] == out["pass_at_k"] == out["pass_hat_k"] == 0.8
    assert out["ci"]["method"] == "wilson"
    assert out["ci"]["avg_at_k"] == [round(v, 6) for v in wilson(8, 10)]


def test_groups_count_a_task_in_each_of_its_groups() -> None:
    groups = {"a": ["x", "y"], "b": ["y"], "c": ["z"]}
    scores = [TaskScore("a", 1, 1), TaskScore("b", 1, 0), TaskScore("c", 1, 1)]
    out = grouped(scores, lambda t: groups[t], 1, order=["z"])
    assert list(out) == ["z", "x", "y"]
    assert out["y"]["tasks"] == 2 and out["y"]["avg_at_k"] == 0.5
    assert out["x"]["avg_at_k"] == 1.0


def test_plan_bins() -> None:
    bins = [plan_bin(n) for n in (1, 2, 3, 4, 5, 8, 9, 40)]
    assert bins == ["1", "2", "3-4", "3-4", "5-8", "5-8", "9+", "9+"]


def test_paired_comparison() -> None:
    a = [TaskScore("x", 2, 0), TaskScore("y", 2, 1), TaskScore("z", 2, 2), TaskScore("only-a", 2, 2)]
    b = [TaskScore("x", 2, 2), TaskScore("y", 2, 1), TaskScore("z", 2, 1)]
    out = paired(a, b)
    assert out["tasks"] == 3
    assert out["avg_at_k_a"] == pytest.approx(0.5) and out["avg_at_k_b"] == pytest.approx(2 / 3, abs=1e-6)
    assert out["difference"] == pytest.approx((1 + 0 - 0.5) / 3, abs=1e-6)
    assert (out["b_better"], out["a_better"], out["ties"]) == (1, 1, 1)
    assert out["sign_test_p"] == 1.0
    low, high = out["ci"]["difference"]
    assert -0.5 <= low <= out["difference"] <= high <= 1.0
    assert paired(a, [TaskScore("w", 1, 1)]) == {"tasks": 0}
