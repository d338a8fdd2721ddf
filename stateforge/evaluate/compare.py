"""A paired comparison of two runs on the tasks both graded (`stateforge compare-runs A B`).

    result = compare_runs("20261130T184301-oracle-3fa2", "20261130T190012-openai-81c0")
    result["paired"]["difference"], result["paired"]["ci"], result["paired"]["sign_test_p"]

Tasks pair by id (an id is a hash of the task's content and of the data it was made on, so a shared id
means the same task on the same data). Per task, each run's score is its Avg@k (the share of its graded
trials that passed); the comparison reports both means on the shared tasks, B - A with a paired bootstrap
interval, how many tasks each run did better on, the exact sign test, and the same per capability.
`conditions` says how the two runs' ablations differ (`with_plan`, `distractors`: [A, B]), so that B - A of
a run with `--with-plan` against one without is the plan's gain, and of `--distractors 10` against none the
distractors' cost.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from stateforge.evaluate.metrics import metrics, paired
from stateforge.evaluate.records import EpisodeRecord
from stateforge.evaluate.rundir import RunError, RunFolder, find_run
from stateforge.evaluate.summary import task_scores
from stateforge.resources import artifacts_dir
from stateforge.tasks import CAPABILITIES

CONDITIONS = ("with_plan", "distractors")
"""The ablations a run records (run.json), compared side by side."""


def default_runs_dirs() -> list[Path]:
    """Every `artifacts/<domain>/runs` folder under the current directory."""
    root = artifacts_dir()
    return sorted(p for p in root.glob("*/runs") if p.is_dir()) if root.is_dir() else []


def compare_runs(
    a: str | Path, b: str | Path, *, runs_dirs: list[Path] | None = None, seed: int = 0
) -> dict[str, Any]:
    """Compare run `b` with run `a` (ids or folders) on their shared tasks; `RunError` when a run is
    missing or the two share no graded task."""
    dirs = default_runs_dirs() if runs_dirs is None else runs_dirs
    first, second = (RunFolder.open(find_run(r, dirs)) for r in (a, b))
    rec_a, rec_b = first.records(), second.records()
    scores_a = {s.task_id: s for s in task_scores(rec_a) if s.n}
    scores_b = {s.task_id: s for s in task_scores(rec_b) if s.n}
    shared = [t for t in scores_a if t in scores_b]
    if not shared:
        raise RunError(
            f"runs {first.run_id} and {second.run_id} share no graded task: compare runs of the same tasks "
            "(the same tasks file on the same data)."
        )
    capabilities = _capabilities(rec_a + rec_b)
    by_capability = {}
    for cap in CAPABILITIES:
        ids = [t for t in shared if cap in capabilities.get(t, ())]
        if ids:
            by_capability[cap] = paired([scores_a[t] for t in ids], [scores_b[t] for t in ids], seed=seed)
    side_a = _side(first, [scores_a[t] for t in shared], seed)
    side_b = _side(second, [scores_b[t] for t in shared], seed)
    return {
        "a": side_a,
        "b": side_b,
        "conditions": {key: [side_a[key], side_b[key]] for key in CONDITIONS if side_a[key] != side_b[key]},
        "shared_tasks": len(shared),
        "only_in_a": len(scores_a) - len(shared),
        "only_in_b": len(scores_b) - len(shared),
        "paired": paired([scores_a[t] for t in shared], [scores_b[t] for t in shared], seed=seed),
        "by_capability": by_capability,
    }


def _side(folder: RunFolder, scores: list[Any], seed: int) -> dict[str, Any]:
    spec = folder.spec
    overall = metrics(scores, spec.k, seed=seed)
    return {
        "run_id": spec.run_id,
        "solver": spec.solver,
        "model": spec.model,
        "k": spec.k,
        "avg_at_k": overall["avg_at_k"],
        "pass_at_k": overall["pass_at_k"],
        "pass_hat_k": overall["pass_hat_k"],
        "with_plan": spec.with_plan,
        "distractors": spec.distractors,
    }


def _capabilities(records: list[EpisodeRecord]) -> dict[str, list[str]]:
    return {r.task_id: r.task.capabilities for r in records}
