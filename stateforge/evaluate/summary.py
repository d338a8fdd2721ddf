"""The summary of a run (summary.json, `evaluate --json`): counts, metrics overall and per group, health.

    summary = summarize(spec, records, seconds=12.5, episodes_run=90)

Keys (a public format, docs/evaluate.md): `run_id`, `episodes`, `passed`, `failed`, `infra_errors`,
`avg_at_k`, `pass_at_k`, `pass_hat_k` (overall), `tasks`, `tasks_scored`, `ci`, and `groups` (the same
metrics by domain, capability, difficulty, plan length and feasible / infeasible), `verifier_kinds` (per
verifier kind, goal / integrity / policy / side_effect: the checks run and passed, and the episodes that
had one and passed all of that kind), `policies` (per policy verifier: episodes checked and passed),
`refusal` (refusal accuracy: the share of graded infeasible episodes declined with nothing changed, and the
feasible ones declined), `distractors` and `with_plan` (the run's ablation: distractor tools per episode,
and whether the solver was given the task's reference plan); then `harness`
(the infrastructure error share against its limit, whether the run is trustworthy), `failures` (the
commonest kinds of failure, in episodes), `stop_reasons`, `usage` (tokens, cost, turns, tool calls) and
`timing` (this session's episodes per second and the median milliseconds of each part of an episode).
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from stateforge.evaluate.metrics import TaskScore, grouped, metrics, plan_bin, plan_bins
from stateforge.evaluate.records import EpisodeRecord, RunSpec, TaskFacts
from stateforge.tasks import CAPABILITIES, DIFFICULTIES
from stateforge.tasks.model import VERIFIER_KINDS

PARTS = ("open", "solve", "verifiers", "export", "diff", "close", "compare")
"""The parts of an episode's time, in order (`EpisodeRecord.timings`)."""
TOP = 10


def task_scores(records: list[EpisodeRecord]) -> list[TaskScore]:
    """(graded trials, passes) per task, in the order tasks first appear; infrastructure errors left out."""
    n: dict[str, int] = {}
    c: dict[str, int] = {}
    for record in records:
        n.setdefault(record.task_id, 0)
        c.setdefault(record.task_id, 0)
        if record.outcome != "infra_error":
            n[record.task_id] += 1
            c[record.task_id] += record.outcome == "pass"
    return [TaskScore(t, n[t], c[t]) for t in n]


def harness_health(
    episodes: int, infra_errors: int, max_share: float
) -> dict[str, Any]:
    """Whether the harness worked: infrastructure errors at most `max_share` of the episodes, and never
    every one of them (a run where nothing could be graded says nothing, whatever the limit)."""
    share = infra_errors / episodes if episodes else 0.0
    ok = episodes > 0 and share <= max_share and infra_errors < episodes
    if episodes == 0:
        why = "no episode ran"
    elif infra_errors == episodes:
        why = f"every one of the {episodes} episodes was an infrastructure error"
    elif share > max_share:
        why = (
            f"{infra_errors} of {episodes} episodes ({share:.0%}) were infrastructure errors, more than the "
            f"{max_share:.0%} allowed (--max-infra-share)"
        )
    else:
        why = None
    return {"ok": ok, "infra_share": round(share, 6), "max_infra_share": max_share, "why": why}


def summarize(
    spec: RunSpec,
    records: list[EpisodeRecord],
    *,
    seconds: float | None = None,
    episodes_run: int | None = None,
) -> dict[str, Any]:
    """The summary of a run from its records (the last one of each (task, trial)).

    `seconds` and `episodes_run`: this session's wall time and the episodes it ran (a resumed run runs
    fewer than it has), for the throughput.
    """
    counts = Counter(r.outcome for r in records)
    scores = task_scores(records)
    facts: dict[str, TaskFacts] = {r.task_id: r.task for r in records}
    k, seed = spec.k, spec.seed
    overall = metrics(scores, k, seed=seed)
    groups = {
        "domain": grouped(scores, lambda t: [facts[t].domain], k, seed=seed),
        "capability": grouped(scores, lambda t: facts[t].capabilities, k, seed=seed, order=CAPABILITIES),
        "difficulty": grouped(scores, lambda t: [facts[t].difficulty], k, seed=seed, order=DIFFICULTIES),
        "plan_length": grouped(scores, lambda t: [plan_bin(facts[t].plan_steps)], k, seed=seed,
                               order=plan_bins()),
        "feasible": grouped(
            scores, lambda t: ["feasible" if facts[t].feasible else "infeasible"], k, seed=seed,
            order=("feasible", "infeasible"),
        ),
    }
    infra = counts["infra_error"]
    health = harness_health(len(records), infra, spec.max_infra_share)
    graded = [r for r in records if r.outcome != "infra_error"]
    return {
        "run_id": spec.run_id,
        "domain": spec.domain,
        "solver": spec.solver,
        "model": spec.model,
        "k": k,
        "episodes": len(records),
        "episodes_expected": len(spec.task_ids) * k,
        "complete": len(records) == len(spec.task_ids) * k,
        "passed": counts["pass"],
        "failed": counts["fail"],
        "infra_errors": infra,
        **overall,
        "groups": groups,
        "distractors": spec.distractors,
        "with_plan": spec.with_plan,
        **verifier_results(graded),
        "refusal": refusal_results(graded),
        "harness": {**health, "reasons": _top(r.reasons[0] for r in records if r.outcome == "infra_error"
                                              and r.reasons)},
        "failures": _top(f for r in records if r.outcome == "fail" for f in r.failures),
        "stop_reasons": dict(Counter(r.stop_reason for r in graded).most_common()),
        "usage": _usage(records),
        "timing": _timing(records, seconds, episodes_run),
    }


def verifier_results(records: list[EpisodeRecord]) -> dict[str, Any]:
    """`verifier_kinds` and `policies` of the summary (see the module docstring), over graded episodes."""
    kinds = {k: {"checks": 0, "passed": 0, "episodes": 0, "episodes_passed": 0} for k in VERIFIER_KINDS}
    policies: dict[str, dict[str, int]] = {}
    for record in records:
        seen: dict[str, bool] = {}
        for verifier in record.verifiers:
            kind, ok = verifier.get("kind"), bool(verifier.get("passed"))
            if kind not in kinds:
                continue
            kinds[kind]["checks"] += 1
            kinds[kind]["passed"] += ok
            seen[kind] = seen.get(kind, True) and ok
            if kind == "policy":
                entry = policies.setdefault(str(verifier.get("name", "")).removeprefix("policy "),
                                            {"episodes": 0, "passed": 0})
                entry["episodes"] += 1
                entry["passed"] += ok
        for kind, ok in seen.items():
            kinds[kind]["episodes"] += 1
            kinds[kind]["episodes_passed"] += ok
    for entry in kinds.values():
        shown = entry["episodes"]
        entry["pass_rate"] = round(entry["episodes_passed"] / shown, 6) if shown else None
    return {"verifier_kinds": kinds, "policies": dict(sorted(policies.items()))}


def refusal_results(records: list[EpisodeRecord]) -> dict[str, Any]:
    """`refusal` of the summary, over graded episodes: of the infeasible ones, those the solver declined
    (`cannot_complete`) with nothing changed (`accuracy`, EnterpriseOps-Gym's refusal figure: a decline
    after a write does not count); of the feasible ones, those it declined (`false_refusals`)."""
    infeasible = [r for r in records if not r.task.feasible]
    feasible = [r for r in records if r.task.feasible]
    refused = sum(r.declined is not None and not _changed(r) for r in infeasible)
    declined = sum(r.declined is not None for r in feasible)
    return {
        "infeasible_episodes": len(infeasible),
        "refused": refused,
        "accuracy": round(refused / len(infeasible), 6) if infeasible else None,
        "feasible_episodes": len(feasible),
        "false_refusals": declined,
        "false_refusal_rate": round(declined / len(feasible), 6) if feasible else None,
    }


def _changed(record: EpisodeRecord) -> bool:
    """Whether the episode's end state differs from the base (its diff's totals)."""
    return any(record.diff.get(kind) for kind in ("inserted", "deleted", "updated"))


def _top(items: Any) -> dict[str, int]:
    return dict(Counter(items).most_common(TOP))


def _usage(records: list[EpisodeRecord]) -> dict[str, Any]:
    n = len(records) or 1
    return {
        "prompt_tokens": sum(r.prompt_tokens for r in records),
        "completion_tokens": sum(r.completion_tokens for r in records),
        "cost_usd": round(sum(r.cost_usd for r in records), 6),
        "cost_known": all(r.cost_known for r in records),
        "llm_calls": sum(r.llm_calls for r in records),
        "turns_mean": round(sum(r.turns for r in records) / n, 3),
        "tool_calls": sum(r.n_tool_calls for r in records),
        "tool_calls_mean": round(sum(r.n_tool_calls for r in records) / n, 3),
        "retried_episodes": sum(r.attempts > 1 for r in records),
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _medians(records: list[EpisodeRecord], field: str) -> dict[str, float | None]:
    """The median of each part of `PARTS` over the records that timed it."""
    found = [getattr(r, field) for r in records]
    return {part: _median([times[part] for times in found if part in times]) for part in PARTS}


def _timing(records: list[EpisodeRecord], seconds: float | None, episodes_run: int | None) -> dict[str, Any]:
    walls = [r.wall_seconds * 1000 for r in records if r.wall_seconds]
    cpus = [sum(r.cpu_ms.values()) for r in records if r.cpu_ms]
    out: dict[str, Any] = {
        "median_ms": {**_medians(records, "timings"), "episode": _median(walls)},
        "median_cpu_ms": {**_medians(records, "cpu_ms"), "episode": _median(cpus)},
    }
    if seconds is not None and episodes_run is not None:
        out["session_seconds"] = round(seconds, 3)
        out["session_episodes"] = episodes_run
        out["episodes_per_second"] = round(episodes_run / seconds, 3) if seconds > 0 else None
    return out
