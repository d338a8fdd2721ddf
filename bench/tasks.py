"""What task generation costs, and what the gate adds to the least a ground truth needs.

    .venv/bin/python bench/tasks.py [--scale 1] [--n 150] [--seed 7] [--sample 15] [--no-write]

Two cases, each built into ./artifacts/bench-tasks/ when missing: a bare DDL (tests/fixtures/ddl/
postgres_dump.sql, --rows 40, 30 tasks) and the music pack (--scale, --n tasks), both with the recipes they
have (the pack's `tasks/`, else the generic set). For each: the generation report's figures (kept,
attempts, rejections by reason, capability mix, infeasible share, changed rows, seconds per kept task).

Then, on a sample of the kept tasks, interleaved, medians of --runs:

- the baseline: the task's reference calls replayed on a fresh episode and diffed from the base (the least
  any replay-based ground truth does: one copy, the calls, one diff);
- the gate: `Gate.check` of the task made a draft again (`draft_of`): references, two replays, two diffs,
  nothing-hidden, and every verifier on the end state and the base.

Prints a markdown report; unless --no-write, replaces the "Task generation" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _doc import DOC, write_section

from stateforge.build import build_domain
from stateforge.resources import artifacts_dir
from stateforge.tasks import Gate, Workspace, generate_tasks, read_tasks
from stateforge.tasks.gate import draft_of
from stateforge.tasks.grading import domain_policy
from stateforge.tools import toolkit_for

HEADING = "Task generation (bench/tasks.py)"
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ddl" / "postgres_dump.sql"


def built(target: str, name: str, **options: Any) -> Path:
    """The database of `target` under artifacts/bench-tasks/<name>/, built when missing."""
    out = artifacts_dir() / "bench-tasks" / name
    db = next(out.glob("*.duckdb"), None)
    if db is None:
        build_domain(target, out=out, **options)
        db = next(out.glob("*.duckdb"))
    return db


def gate_vs_replay(db: Path, tasks: list, runs: int) -> dict[str, float]:
    """Median seconds per task of the baseline replay and of the gate, interleaved task by task."""
    base, gated = [], []
    with Workspace(db) as ws:
        toolkit = toolkit_for(ws.schema, ws.domain)
        defaults = domain_policy(ws.config, ws.schema)
        for _ in range(runs):
            for task in tasks:
                started = time.perf_counter()
                episode = ws.episode(toolkit)
                for call in task.reference_calls:
                    episode.call(call.tool, call.arguments)
                with ws.end_state(episode) as end:
                    assert end.diff.to_dict() == task.expected_diff
                base.append(time.perf_counter() - started)
                started = time.perf_counter()
                result = Gate(ws, toolkit, defaults=defaults).check(draft_of(task))
                gated.append(time.perf_counter() - started)
                assert result.task is not None, result.rejection
                assert result.task.expected_diff == task.expected_diff
    return {"replay": statistics.median(base), "gate": statistics.median(gated)}


def case(label: str, db: Path, n: int, seed: int, sample: int, runs: int) -> str:
    out = db.parent / f"tasks-{n}-{seed}"
    report = generate_tasks(db, n=n, seed=seed, out=out)
    tasks = read_tasks(out / "tasks.jsonl")
    step = max(1, len(tasks) // sample)
    timing = gate_vs_replay(db, tasks[::step][:sample], runs)
    caps = ", ".join(f"{c.split('_')[0]} {v['share']:.0%}" for c, v in report["capabilities"].items())
    rows, attempts, timed = report["changed_rows"], report["attempts"], report["timing"]
    diversity = report["diversity"]
    reasons = ", ".join(f"{k} {v}" for k, v in list({**report["rejected"], **report["skipped"]}.items())[:6])
    figures = [
        (
            "kept / asked",
            f"**{report['kept']} / {report['asked']}** in {attempts['total']} attempts "
            f"({attempts['rejected']} rejected by the gate, {attempts['skipped']} skipped)",
        ),
        ("wall time, per kept task", f"{timed['seconds']} s, **{timed['per_kept_task_seconds']} s**"),
        ("capabilities", caps),
        (
            "feasible / infeasible",
            f"{report['feasible']} / {report['infeasible']} ({report['infeasible_share']:.0%})",
        ),
        (
            "changed rows per feasible task",
            f"mean {rows['mean']}, median {rows['median']}, max {rows['max']}, "
            f"{rows['share_50_or_more']:.0%} with 50+",
        ),
        (
            "distinct tool sequences, near-duplicate pairs",
            f"{diversity['distinct_tool_sequences']}, {diversity['near_duplicate_pairs']}",
        ),
        ("most common rejections and skips", reasons or "none"),
    ]
    table = "| figure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in figures)
    ratio = timing["gate"] / timing["replay"]
    return (
        f"### {label}\n\n{table}\n"
        f"Gate against the baseline on {min(sample, len(tasks))} kept tasks, median of {runs} runs each: "
        f"replay + diff {timing['replay'] * 1000:.0f} ms, `Gate.check` {timing['gate'] * 1000:.0f} ms "
        f"(**{ratio:.1f}x**).\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    sections = [
        case(
            "A bare DDL: postgres_dump.sql, --rows 40, generic recipes",
            built(str(FIXTURE), "postgres_dump", rows=40, seed=5),
            30,
            args.seed,
            args.sample,
            args.runs,
        ),
        case(
            f"music, scale {args.scale:g}",
            built("music", f"music-{args.scale:g}", scale=args.scale),
            args.n,
            args.seed,
            args.sample,
            args.runs,
        ),
    ]
    body = (
        f"Command: `.venv/bin/python bench/tasks.py --scale {args.scale:g} --n {args.n} --seed {args.seed}` "
        f"({dt.date.today().isoformat()}; {os.cpu_count()} cores). Recipes: the pack's `tasks/`, else the "
        "generic set; the solver's tools: the pack's `tools/`, else the generic toolkit.\n\n"
        + "\n".join(sections)
    )
    print(body)
    if not args.no_write:
        write_section(HEADING, body)
        print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
