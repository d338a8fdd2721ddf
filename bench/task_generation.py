"""What the offline task generator yields for a pack, and what a kept task costs.

    .venv/bin/python bench/task_generation.py [--pack music] [--scale 1] [--n 150] [--seeds 0,7]
                                              [--db FILE] [--no-write]

Builds the pack at --scale (or takes --db), then for each seed runs `generate_tasks` (the CLI's stages:
recipes, the gate, tasks.jsonl, the report) and sums up the set against the targets of issue 10: tasks
kept and rejected by reason, the capability mix, the infeasible share, changed rows per feasible task
(mean, median, p95, max, share with 50 or more), and time per kept task (wall and CPU).

The baseline, measured in the same run: every kept task replayed once on a fresh episode and diffed against
the base (what a grader does with a solver's calls). It doubles as an independent check that every kept
task replays to its expected diff. Prints a markdown report and writes it to docs/BENCHMARKS.md under
"## Task generation: <pack> (bench/task_generation.py)", leaving other sections alone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _doc import write_section

from pipeline.build import build_domain
from pipeline.diff import diff_files
from pipeline.episode import Episode
from pipeline.tasks import CAPABILITIES, Task, generate_tasks, read_tasks
from pipeline.tools import load_toolkit

TARGETS = "150+ kept; each capability 15%+; 10%+ infeasible; changed rows mean 10+, 5%+ with 50+, max 200+"


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def replay_ms(db: Path, task: Task, kit: Any, work: Path) -> tuple[float, bool]:
    """One replay of the task's reference calls on a fresh episode, and the diff against the base: its
    milliseconds, and whether it gives the task's expected diff."""
    started = time.perf_counter()
    with Episode.open(db, toolkit=kit, workdir=work, keep=True) as episode:
        for call in task.reference_calls:
            episode.call(call.tool, call.arguments)
        path = episode.path
    same = diff_files(db, path).to_dict() == task.expected_diff
    ms = (time.perf_counter() - started) * 1000
    path.unlink()
    return ms, same


def one_seed(db: Path, pack: str, n: int, seed: int, work: Path) -> dict[str, Any]:
    out = work / f"seed-{seed}"
    wall, cpu = time.perf_counter(), time.process_time()
    report = generate_tasks(db, n=n, seed=seed, out=out)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tasks = read_tasks(out / "tasks.jsonl")
    kit = load_toolkit(pack)
    replays = [replay_ms(db, t, kit, work) for t in tasks]
    feasible = [t for t in tasks if t.feasible]
    rows = [sum(t.diff.summary.values()) for t in feasible]
    return {
        "seed": seed,
        "report": report,
        "tasks": tasks,
        "wall": wall,
        "cpu": cpu,
        "rows": rows,
        "replay_ms": [ms for ms, _ in replays],
        "replayed": sum(ok for _, ok in replays),
    }


def section(pack: str, where: str, n: int, db: Path, runs: list[dict[str, Any]], argv: str) -> str:
    load = os.getloadavg()[0]
    lines = [
        f"Command: `.venv/bin/python bench/task_generation.py {argv}` ({dt.date.today()}; 2 cores shared "
        f"with other work, load average {load:.1f} at the end). Database: the {pack} pack ({where}, "
        f"{db.stat().st_size / 1e6:.1f} MB); `generate_tasks(..., n={n})`, the offline generator (the "
        f"pack's recipes). Targets (issue 10): {TARGETS}.",
        "",
        "| seed | kept | attempts | rejected | skipped | infeasible | capabilities (share of kept) | "
        "changed rows: mean / median / p95 / max | 50+ | replayed to its diff | wall s per kept task | CPU "
        "s per kept task | vs one replay |",
        "|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        r, tasks, rows = run["report"], run["tasks"], run["rows"]
        caps = Counter(c for t in tasks for c in t.capabilities)
        shares = ", ".join(f"{c.split('_')[0]} {caps[c] / len(tasks):.0%}" for c in CAPABILITIES)
        per_task = run["wall"] / max(1, len(tasks))
        replay = statistics.median(run["replay_ms"]) / 1000
        lines.append(
            f"| {run['seed']} | {len(tasks)} | {r['attempts']['total']} | {r['attempts']['rejected']} | "
            f"{r['attempts']['skipped']} | {r['infeasible']} ({r['infeasible_share']:.0%}) | {shares} | "
            f"{statistics.mean(rows):.1f} / {statistics.median(rows):g} / {pct(rows, 0.95):g} / {max(rows)} "
            f"| {sum(x >= 50 for x in rows) / len(rows):.1%} | {run['replayed']}/{len(tasks)} | "
            f"{per_task:.2f} | {run['cpu'] / max(1, len(tasks)):.2f} | {per_task / replay:.1f}x |"
        )
    first = runs[0]
    r = first["report"]
    lines += ["", f"Seed {first['seed']} in detail:", ""]
    reasons = r.get("rejected") or {}
    skips = r.get("skipped") or {}
    lines.append("- rejected by reason: " + (", ".join(f"{k} {v}" for k, v in reasons.items()) or "none"))
    lines.append("- skipped by reason: " + (", ".join(f"{k} {v}" for k, v in skips.items()) or "none"))
    lines.append(
        "- difficulty: "
        + ", ".join(f"{k} {v}" for k, v in sorted(r["difficulty"].items()))
        + "; infeasible by kind: "
        + ", ".join(f"{k} {v}" for k, v in sorted(r["infeasible_kinds"].items()))
    )
    hist = r["changed_rows"]["histogram"]
    lines.append("- changed rows per feasible task: " + ", ".join(f"{k}: {v}" for k, v in hist.items()))
    kept = Counter(t.provenance.recipe for t in first["tasks"])
    lines.append(
        f"- {len(kept)} recipes kept tasks: "
        + ", ".join(f"{name} {count}" for name, count in sorted(kept.items()))
    )
    lines.append(
        f"- diversity: {r['diversity']['distinct_tool_sequences']} distinct tool sequences, "
        f"{r['diversity']['near_duplicate_pairs']} near-duplicate instruction pairs; instruction words: "
        f"median {r['instruction_words']['median']:g}, max {r['instruction_words']['max']}"
    )
    replay = statistics.median(first["replay_ms"])
    lines += [
        "",
        "Baseline: one replay of a kept task's reference calls on a fresh episode and its diff against the "
        f"base (median {replay:.0f} ms, p95 {pct(first['replay_ms'], 0.95):.0f} ms). A kept task costs the "
        "recipe's SQL and calls on its own episode, then the gate: two replays on fresh episodes, the "
        "diff, the nothing-hidden check and the verifiers on the end state and on the base; the ratio is "
        "the wall time per kept task over that one replay. On shared cores the CPU column is the steadier "
        "figure.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", default="music")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, default=150)
    parser.add_argument("--seeds", default="0", help="comma-separated seeds, e.g. 0,7")
    parser.add_argument("--db", type=Path, help="a built database of the pack (default: build one)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as tmp:
        work = Path(tmp)
        db = args.db
        if db is None:
            build_domain(args.pack, scale=args.scale, out=work / "db")
            db = work / "db" / f"{args.pack}.duckdb"
        runs = [one_seed(db, args.pack, args.n, int(s), work) for s in args.seeds.split(",")]
        argv = f"--pack {args.pack} --scale {args.scale:g} --n {args.n} --seeds {args.seeds}"
        if args.db is not None:
            argv = f"--pack {args.pack} --db {args.db} --n {args.n} --seeds {args.seeds}"
        where = f"built at scale {args.scale:g}" if args.db is None else f"the build {args.db}"
        body = section(args.pack, where, args.n, db, runs, argv)
    print(body)
    if not args.no_write:
        write_section(f"Task generation: {args.pack} (bench/task_generation.py)", body)


if __name__ == "__main__":
    main()
