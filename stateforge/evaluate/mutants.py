"""The mutant report: for each mutant kind, the share of the tasks it applies to that the grading fails.

    report = run_mutants("music", db=..., kinds=None)      # every kind, one evaluation each
    print(render_mutants(report))

Each kind is one evaluation (`--solver mutant:<kind>`, its own run folder); an episode whose mutant did
not apply (`stop_reason` `not_applicable`) counts in `not_applicable`, with its reason, never as a pass or
a fail. So does an equivalent mutant: one that passed with exactly the reference's end state, every column
compared without tolerance (`EpisodeRecord.exact`): a device already signed out signed out again, a bound
moved where no item sits; no grading of the end state can see such a mistake, because it left none.
A passed episode of an applicable mutant is an escape: the report lists each one (task, recipe,
what the mutant did) so that the gap is fixed or reported, never hidden. `mutants.json` holds the report.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from stateforge.evaluate.records import EpisodeRecord
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.runner import evaluate
from stateforge.evaluate.solvers.mutant import NOT_APPLICABLE, PREFIX
from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS
from stateforge.tasks import Task, read_tasks

TARGET = 0.99
EQUIVALENT = "equivalent: the mutated calls left exactly the reference's end state"
"""The reason counted for a mutant that ran, passed, and changed exactly what the reference changes."""
"""The share of applicable episodes each kind must fail (issue 17)."""


def kind_report(kind: str, records: list[EpisodeRecord], tasks: dict[str, Task]) -> dict[str, Any]:
    """One kind's counts: applicable, failed, escaped (with each escape), not applicable by reason."""
    ran = [r for r in records if r.stop_reason != NOT_APPLICABLE and r.outcome != "infra_error"]
    # a pass with exactly the reference's end state is an equivalent mutant: its mistake changed nothing
    equivalent = [r for r in ran if r.outcome == "pass" and r.exact]
    applicable = [r for r in ran if not (r.outcome == "pass" and r.exact)]
    failed = [r for r in applicable if r.outcome == "fail"]
    escaped = [r for r in applicable if r.outcome == "pass"]
    skipped = Counter(str(r.solver_details.get("why")) for r in records if r.stop_reason == NOT_APPLICABLE)
    skipped.update({EQUIVALENT: len(equivalent)} if equivalent else {})
    share = len(failed) / len(applicable) if applicable else None
    return {
        "kind": kind,
        "episodes": len(records),
        "applicable": len(applicable),
        "failed": len(failed),
        "escaped": len(escaped),
        "infra_errors": sum(r.outcome == "infra_error" for r in records),
        "fail_share": round(share, 4) if share is not None else None,
        "meets_target": share is None or share >= TARGET,
        "not_applicable": dict(skipped.most_common()),
        "escapes": [
            {
                "task": r.task_id,
                "recipe": tasks[r.task_id].provenance.recipe if r.task_id in tasks else None,
                "feasible": r.task.feasible,
                "did": r.solver_details.get("did", []),
            }
            for r in escaped
        ],
    }


def run_mutants(
    target: str | Path, *, kinds: list[str] | None = None, out: Path | None = None, **options: Any
) -> dict[str, Any]:
    """Evaluate every mutant kind (or `kinds`) on `target`'s tasks; the report (also in `out`, default
    `mutants.json` in the runs folder). `options` are those of `evaluate` (db, tasks_file, limit, ...)."""
    chosen = list(kinds or MUTANT_KINDS)
    unknown = [k for k in chosen if k not in MUTANT_KINDS]
    if unknown:
        from stateforge.errors import TerminalError

        raise TerminalError(f"no mutant kind {unknown[0]!r}; the kinds: {', '.join(MUTANT_KINDS)}.")
    kinds_out, runs, tasks_file = [], {}, None
    for kind in chosen:
        summary = evaluate(target, solver=PREFIX + kind, report=False, **options)
        folder = RunFolder.open(Path(summary["folder"]))
        try:
            tasks_file = folder.spec.tasks_file
            tasks = {t.id: t for t in read_tasks(Path(tasks_file))}
            kinds_out.append(kind_report(kind, list(folder.records()), tasks))
        finally:
            folder.close()
        runs[kind] = summary["run_id"]
    report = {
        "target": str(target),
        "tasks_file": tasks_file,
        "fail_target": TARGET,
        "ok": all(k["meets_target"] for k in kinds_out),
        "kinds": kinds_out,
        "runs": runs,
    }
    path = out or Path(summary["folder"]).parent / "mutants.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    report["path"] = str(path)
    return report


def render_mutants(report: dict[str, Any]) -> str:
    """The report as a text table, then every escape."""
    lines = [f"{'kind':<18} {'applies':>7} {'failed':>6} {'share':>7}  not applicable (top reason)"]
    for k in report["kinds"]:
        share = "-" if k["fail_share"] is None else f"{k['fail_share']:.1%}"
        top = next(iter(k["not_applicable"].items()), None)
        na = sum(k["not_applicable"].values())
        why = f"{na} ({top[1]}: {top[0]})" if top else str(na)
        lines.append(f"{k['kind']:<18} {k['applicable']:>7} {k['failed']:>6} {share:>7}  {why}")
    for k in report["kinds"]:
        for e in k["escapes"]:
            lines.append(f"escaped {k['kind']}: task {e['task']} ({e['recipe']}): {'; '.join(e['did'])}")
    lines.append(f"-> {report.get('path')}")
    return "\n".join(lines)
