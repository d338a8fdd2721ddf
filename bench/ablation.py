"""EnterpriseOps-Gym's ablations on a built pack: --distractors 0/5/10/15 and with/without --with-plan.

    .venv/bin/python bench/ablation.py --db artifacts/itsm/itsm.duckdb [--limit 30] [--solvers oracle,noop]
                                       [--fake-llm] [--no-write]

For each solver, every (distractors, plan) condition is one `evaluate` of the first --limit tasks of the
tasks.jsonl beside --db (the same tasks each time); reports each run's score (Avg@1), its refusal
accuracy, its policy verifiers passed, the tool calls made (a distractor called would show here) and the
harness's cost (episodes per second this session, median ms of an episode), then compare-runs of each
plan run against its plain twin (the plan's gain, B - A). With --fake-llm the `openai` solver also runs,
against the project's fake server replaying each task's reference calls (a scripted model): its prompt
tokens show what the distractors' schemas and the plan cost a model per episode. Writes the section
"## Ablations (bench/ablation.py)" of docs/BENCHMARKS.md unless --no-write.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from _doc import bench_parser, publish

from stateforge.evaluate import compare_runs, evaluate
from stateforge.evaluate.distractors import LEVELS
from stateforge.tasks import read_tasks
from stateforge.tasks.runner import TASKS_FILE

HEADING = "Ablations (bench/ablation.py)"


def run(db: Path, out: Path, solver: str, limit: int, distractors: int, plan: bool, **more: Any) -> dict:
    """One evaluation of the first `limit` tasks under one condition."""
    return evaluate(db, solver=solver, out=out, limit=limit, distractors=distractors, with_plan=plan,
                    concurrency=2, report=False, **more)


def row(solver: str, summary: dict) -> str:
    refusal = summary["refusal"]
    policy = summary["verifier_kinds"]["policy"]
    timing = summary["timing"]
    plan = "yes" if summary["with_plan"] else "no"
    tokens = summary["usage"]["prompt_tokens"] / max(1, summary["episodes"])
    return (
        f"| {solver} | {summary['distractors']} | {plan} | {summary['passed']}/{summary['episodes']} "
        f"({summary['avg_at_k']:.1%}) | {_pct(refusal['accuracy'])} ({refusal['refused']}/"
        f"{refusal['infeasible_episodes']}) | {policy['episodes_passed']}/{policy['episodes']} | "
        f"{summary['usage']['tool_calls']} | {tokens:,.0f} | {timing.get('episodes_per_second')} | "
        f"{timing['median_ms']['episode']} |"
    )


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def main() -> None:
    parser = bench_parser(__doc__)
    parser.add_argument("--db", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=30)
    parser.add_argument("--solvers", default="oracle,noop")
    parser.add_argument("--fake-llm", action="store_true")
    args = parser.parse_args()
    tasks = read_tasks(args.db.parent / TASKS_FILE)[: args.limit]
    out = Path(tempfile.mkdtemp(prefix="bench-ablation-"))
    solvers = [(s, {}) for s in args.solvers.split(",")]
    server = None
    if args.fake_llm:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from stateforge.fakellm import FakeLLMServer
        from tests.evaluate.scripted import post_scripts, tool_script

        server = FakeLLMServer(models=("fake",)).start()
        post_scripts(server.url, [tool_script(t) for t in tasks])
        os.environ.setdefault("OPENAI_API_KEY", "bench")
        solvers.append(("openai", {"model": "fake", "base_url": server.base_url,
                                   "options": {"cache": "off", "cache_dir": str(out / "llm-cache")}}))
    lines = [
        f"Command: `.venv/bin/python bench/ablation.py --db {args.db} --limit {args.limit} --solvers "
        f"{args.solvers}{' --fake-llm' if args.fake_llm else ''}` ({dt.date.today().isoformat()}; 2 cores "
        f"shared with other work, load average {os.getloadavg()[0]:.1f} at the start). {len(tasks)} tasks "
        f"({sum(not t.feasible for t in tasks)} infeasible), one trial each, 2 episodes at a time.",
        "",
        "| solver | distractors | plan | passed (Avg@1) | refusal accuracy | policy verifiers passed | tool "
        "calls | prompt tokens / episode | episodes/s | median ms / episode |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    gains = []
    try:
        for solver, more in solvers:
            plain: dict[int, dict] = {}
            for distractors in LEVELS:
                for plan in (False, True):
                    summary = run(args.db, out, solver, args.limit, distractors, plan, **more)
                    lines.append(row(solver, summary))
                    print(lines[-1], flush=True)
                    if not plan:
                        plain[distractors] = summary
                    else:
                        gain = compare_runs(plain[distractors]["folder"], summary["folder"])["paired"]
                        gains.append(f"{solver} at {distractors} distractors: {gain['difference']:+.1%}")
    finally:
        if server is not None:
            server.close()
    lines += ["", "The plan's gain (compare-runs, B with plan - A without): " + "; ".join(gains) + "."]
    publish(HEADING, lines, write=not args.no_write)


if __name__ == "__main__":
    main()
