"""What generating the game pack's tasks costs and yields, against the least a replayed ground truth needs.

    .venv/bin/python bench/game_tasks.py [--scale 1] [--n 150] [--seed 0] [--sample 15] [--no-write]

The game pack built at --scale into ./artifacts/bench-tasks/game-<scale>/ (when missing), then
`generate_tasks` with its recipes (stateforge/packs/game/tasks/): the report's figures (kept, attempts,
rejections
and skips by reason, capability mix, infeasible share, changed rows per feasible task with the 95th
percentile, difficulty) and the seconds per kept task (recipe + gate).

Baseline, measured in the same run on a sample of the kept feasible tasks (spread over the changed-row
sizes): the task's reference calls replayed on a fresh episode and diffed from the base (one copy, the
calls, one diff: the least any replay-based ground truth does). The ratio says what the recipe and the gate
(references, two replays, nothing-hidden, every verifier) cost on top.

Prints a markdown report; unless --no-write, replaces the "Task generation: game" section of
docs/BENCHMARKS.md.
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
from stateforge.tasks import Workspace, generate_tasks, read_tasks
from stateforge.tools import toolkit_for

HEADING = "Task generation: game (bench/game_tasks.py)"


def built(scale: float) -> Path:
    """The game pack built at `scale` under artifacts/bench-tasks/game-<scale>/, built when missing."""
    out = artifacts_dir() / "bench-tasks" / f"game-{scale:g}"
    db = out / "game.duckdb"
    if not db.is_file():
        build_domain("game", scale=scale, out=out)
    return db


def replay_seconds(db: Path, tasks: list[Any], runs: int) -> list[float]:
    """Seconds of the baseline per task and run: reference calls on a fresh episode, then the diff."""
    seconds = []
    with Workspace(db) as ws:
        toolkit = toolkit_for(ws.schema, ws.domain)
        for _ in range(runs):
            for task in tasks:
                started = time.perf_counter()
                episode = ws.episode(toolkit)
                for call in task.reference_calls:
                    episode.call(call.tool, call.arguments)
                with ws.end_state(episode) as end:
                    assert end.diff.to_dict() == task.expected_diff, task.id
                seconds.append(time.perf_counter() - started)
    return seconds


def percentile(values: list[int], share: float) -> int:
    """The nearest-rank percentile of `values`."""
    ordered = sorted(values)
    return ordered[max(0, int(round(share * len(ordered) + 0.5)) - 1)] if ordered else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sample", type=int, default=15)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    db = built(args.scale)
    out = db.parent / f"tasks-{args.n}-{args.seed}"
    report = generate_tasks(db, n=args.n, seed=args.seed, out=out)
    tasks = read_tasks(out / "tasks.jsonl")
    feasible = sorted((t for t in tasks if t.feasible), key=lambda t: sum(t.diff.summary.values()))
    step = max(1, len(feasible) // args.sample)
    sample = feasible[::step][: args.sample]
    baseline = statistics.median(replay_seconds(db, sample, args.runs))
    per_task = report["timing"]["gate_and_recipe_seconds_kept"]["median"]

    sizes = [sum(t.diff.summary.values()) for t in feasible]
    rows, attempts = report["changed_rows"], report["attempts"]
    caps = ", ".join(f"{c} {v['share']:.0%}" for c, v in report["capabilities"].items())
    kinds = ", ".join(f"{k} {v}" for k, v in sorted(report["infeasible_kinds"].items()))
    rejected = ", ".join(f"{k} {v}" for k, v in sorted(report["rejected"].items())) or "none"
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(report["skipped"].items())) or "none"
    diversity = report["diversity"]
    difficulty = ", ".join(f"{k} {v}" for k, v in report["difficulty"].items())
    figures = [
        (
            "kept / asked",
            f"**{report['kept']} / {report['asked']}** in {attempts['total']} attempts "
            f"({attempts['rejected']} rejected by the gate, {attempts['skipped']} skipped, "
            f"{len(report['errors'])} recipe errors)",
        ),
        ("rejected by reason", rejected),
        ("skipped by reason", skipped),
        ("capabilities (share of tasks)", caps),
        (
            "feasible / infeasible",
            f"{report['feasible']} / {report['infeasible']} "
            f"(**{report['infeasible_share']:.0%}** infeasible: {kinds})",
        ),
        (
            "changed rows per feasible task",
            f"mean **{rows['mean']}**, median {rows['median']}, p95 {percentile(sizes, 0.95)}, "
            f"max **{rows['max']}**, **{rows['share_50_or_more']:.1%}** with 50+",
        ),
        ("difficulty", difficulty),
        (
            "distinct tool sequences, near-duplicate pairs",
            f"{diversity['distinct_tool_sequences']}, {diversity['near_duplicate_pairs']}",
        ),
        (
            "wall time; per kept task (median, recipe + gate)",
            f"{report['timing']['seconds']} s; **{per_task:.2f} s**",
        ),
    ]
    table = "| figure | value |\n|---|---|\n" + "".join(f"| {k} | {v} |\n" for k, v in figures)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    body = (
        "Command: `.venv/bin/python bench/game_tasks.py "
        f"--scale {args.scale:g} --n {args.n} --seed {args.seed}` ({dt.date.today().isoformat()}; "
        f"{os.cpu_count()} cores, load average {load:.1f} at the end). The game pack at scale "
        f"{args.scale:g}, its {len(report['recipes'])} recipes "
        "(stateforge/packs/game/tasks/) and its tools.\n\n"
        f"{table}\n"
        f"Baseline on {len(sample)} kept feasible tasks (spread over the sizes), median of {args.runs} runs: "
        f"replay + diff **{baseline * 1000:.0f} ms**; a kept task costs **{per_task / baseline:.1f}x** that "
        "(the recipe's reads and episode, then the gate's references, two replays, nothing-hidden and every "
        "verifier).\n"
    )
    print(body)
    if not args.no_write:
        write_section(HEADING, body)
        print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
