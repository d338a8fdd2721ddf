"""What the offline task generator yields for a pack or for every bare DDL fixture, and what a task costs.

    .venv/bin/python bench/task_generation.py [--pack music] [--scale 1] [--n 150] [--seeds 0,7]
                                              [--db FILE] [--no-write]
    .venv/bin/python bench/task_generation.py --fixtures [--rows 40] [--n 30] [--seeds 0] [--no-write]

Pack mode builds the pack at --scale (or takes --db), then for each seed runs `generate_tasks` (the CLI's
stages: recipes, the gate, tasks.jsonl, the report) and sums up the set against the targets of issue 10:
tasks kept and rejected by reason, the capability mix, the infeasible share, changed rows per feasible task
(mean, median, p95, max, share with 50 or more), and time per kept task (wall and CPU).

Fixture mode does the same for every DDL of the parser tests (tests/fixtures/ddl/*.sql) with no pack: each
built at --rows with the generic toolkit and the generic recipe set, --n tasks asked (target: 30 kept).

Every kept task is then audited independently of the gate (bench/_task_audit.py): its uniqueness checks
rerun on the base, a feasible diff not empty and no goal already true on the base, and its reference calls
replayed once on a fresh episode to its expected diff with every stored verifier passing on the end state.
That replay is the baseline measured in the same run (what a grader does with a solver's calls). Prints a
markdown report and writes it to docs/BENCHMARKS.md under "## Task generation: <pack>
(bench/task_generation.py)" or "## Task generation: bare DDL (bench/task_generation.py --fixtures)",
leaving other sections alone.
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
from _task_audit import Audit, audit_tasks

from stateforge.build import build_domain
from stateforge.evaluate import evaluate
from stateforge.tasks import CAPABILITIES, generate_tasks, read_tasks

TARGETS = (
    "150+ kept; each capability 15%+; 10%+ infeasible; changed rows mean 10+, 5%+ with 50+, max 200+; "
    "100% replay, 0 empty or already true, 0 ambiguous"
)
FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "ddl"


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


def one_seed(db: Path, n: int, seed: int, work: Path, k: int = 0) -> dict[str, Any]:
    """Generate `n` tasks on `db` with `seed`, time it, audit the kept set and (with `k`) score the oracle
    and the noop solver on it."""
    out = work / f"seed-{seed}"
    wall, cpu = time.perf_counter(), time.process_time()
    report = generate_tasks(db, n=n, seed=seed, out=out)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tasks = read_tasks(out / "tasks.jsonl")
    audit = audit_tasks(db, tasks, work)
    rows = [sum(t.diff.summary.values()) for t in tasks if t.feasible]
    scored = scores(db, out / "tasks.jsonl", k, work) if k else {}
    return {
        "scores": scored,
        "seed": seed,
        "report": report,
        "tasks": tasks,
        "wall": wall,
        "cpu": cpu,
        "rows": rows,
        "audit": audit,
    }


def scores(db: Path, tasks_file: Path, k: int, work: Path) -> dict[str, dict[str, Any]]:
    """The oracle's and the noop solver's summaries on the tasks of `tasks_file` (`k` trials each), run by
    the evaluation harness as `stateforge evaluate` does."""
    out = {}
    for solver in ("oracle", "noop"):
        out[solver] = evaluate(
            db, solver=solver, k=k, tasks_file=tasks_file, out=work / "runs", concurrency=2, seed=0
        )
    return out


def shares(tasks: list[Any]) -> str:
    """Each capability's share of `tasks`, shortened to its first word."""
    caps = Counter(c for t in tasks for c in t.capabilities)
    return ", ".join(f"{c.split('_')[0]} {caps[c] / max(1, len(tasks)):.0%}" for c in CAPABILITIES)


def rows_figures(rows: list[int]) -> str:
    """Changed rows per feasible task: mean / median / p95 / max."""
    if not rows:
        return "-"
    return f"{statistics.mean(rows):.1f} / {statistics.median(rows):g} / {pct(rows, 0.95):g} / {max(rows)}"


def evaluated(run: dict[str, Any]) -> str:
    """The oracle's and noop's scores on a seed's set, and the infeasible share noop should score."""
    parts = []
    for solver, summary in run["scores"].items():
        parts.append(
            f"`{solver}` Avg@{summary['k']} **{summary['avg_at_k']:.1%}** ({summary['passed']} of "
            f"{summary['episodes']} episodes passed, {summary['infra_errors']} infrastructure errors)"
        )
    share = run["report"]["infeasible"] / max(1, run["report"]["kept"])
    return "; ".join(parts) + f"; the infeasible share is {share:.1%} (what noop should score)"


def checks(audit: Audit) -> str:
    """The audit in one cell: replayed and verified counts, then the failures."""
    return f"{audit.replayed}/{audit.tasks} replay, {audit.verified}/{audit.tasks} verified; failures: " + (
        audit.summary()
    )


def section(pack: str, where: str, n: int, db: Path, runs: list[dict[str, Any]], argv: str) -> str:
    """The pack section: one row per seed, then the first seed in detail."""
    load = os.getloadavg()[0]
    lines = [
        f"Command: `.venv/bin/python bench/task_generation.py {argv}` ({dt.date.today()}; 2 cores shared "
        f"with other work, load average {load:.1f} at the end). Database: the {pack} pack ({where}, "
        f"{db.stat().st_size / 1e6:.1f} MB); `generate_tasks(..., n={n})`, the offline generator (the "
        f"pack's recipes). Targets (issue 10): {TARGETS}.",
        "",
        "| seed | kept | attempts | rejected | skipped | infeasible | capabilities (share of kept) | "
        "changed rows: mean / median / p95 / max | 50+ | independent audit | wall s per kept task | CPU "
        "s per kept task | vs one replay |",
        "|---:|---:|---:|---:|---:|---:|---|---|---:|---|---:|---:|---:|",
    ]
    for run in runs:
        r, tasks, rows, audit = run["report"], run["tasks"], run["rows"], run["audit"]
        per_task = run["wall"] / max(1, len(tasks))
        replay = statistics.median(audit.replay_ms) / 1000
        lines.append(
            f"| {run['seed']} | {len(tasks)} | {r['attempts']['total']} | {r['attempts']['rejected']} | "
            f"{r['attempts']['skipped']} | {r['infeasible']} ({r['infeasible_share']:.0%}) | "
            f"{shares(tasks)} | {rows_figures(rows)} | "
            f"{sum(x >= 50 for x in rows) / max(1, len(rows)):.1%} | {checks(audit)} | "
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
    for run in runs:
        if run["scores"]:
            lines.append(f"- seed {run['seed']}, the evaluation harness: " + evaluated(run))
    replay_ms = first["audit"].replay_ms
    lines += [
        "",
        "The independent audit (bench/_task_audit.py) reruns every kept task's uniqueness checks on the "
        "base, checks a feasible diff is not empty and no goal verifier already holds on the base, replays "
        "the reference calls once on a fresh episode, compares the diff with the expected one and runs every "
        "stored verifier on that end state. Baseline: that replay and its diff (median "
        f"{statistics.median(replay_ms):.0f} ms, p95 {pct(replay_ms, 0.95):.0f} ms). A kept task costs the "
        "recipe's SQL and calls on its own episode, then the gate: two replays on fresh episodes, the "
        "diff, the nothing-hidden check and the verifiers on the end state and on the base; the ratio is "
        "the wall time per kept task over that one replay. On shared cores the CPU column is the steadier "
        "figure.",
    ]
    return "\n".join(lines)


def one_fixture(ddl: Path, rows: int, n: int, seed: int, work: Path) -> dict[str, Any]:
    """Build one parser fixture at `rows` with no pack, generate `n` tasks on it and audit them."""
    started = time.perf_counter()
    build = build_domain(str(ddl), rows=rows, out=work / ddl.stem)
    built = time.perf_counter() - started
    db = next((work / ddl.stem).glob("*.duckdb"))
    run = one_seed(db, n, seed, work / ddl.stem)
    run.update(fixture=ddl.name, build_s=built, tables=len(build.get("tables") or []), db=db)
    return run


def fixtures_section(runs: list[dict[str, Any]], rows: int, n: int, argv: str) -> str:
    """The bare-DDL section: one row per (fixture, seed)."""
    load = os.getloadavg()[0]
    lines = [
        f"Command: `.venv/bin/python bench/task_generation.py {argv}` ({dt.date.today()}; 2 cores shared "
        f"with other work, load average {load:.1f} at the end). Every DDL of the parser tests "
        f"(tests/fixtures/ddl/*.sql) with no pack: built with `--rows {rows}`, the generic toolkit and the "
        f"generic recipe set (stateforge/tasks/generic), `generate_tasks(..., n={n})`. Target (issue 10): a "
        f"bare DDL yields at least 30 tasks that pass the gate. The audit column is the independent one "
        f"(bench/_task_audit.py, as in the pack sections).",
        "",
        "| fixture | seed | tables | kept | attempts | rejected by reason | skipped | infeasible | "
        "capabilities (share of kept) | changed rows: mean / median / p95 / max | recipes kept | "
        "independent audit | wall s per kept task | vs one replay |",
        "|---|---:|---:|---:|---:|---|---:|---:|---|---|---:|---|---:|---:|",
    ]
    for run in runs:
        r, tasks, audit = run["report"], run["tasks"], run["audit"]
        reasons = ", ".join(f"{k} {v}" for k, v in (r.get("rejected") or {}).items()) or "-"
        per_task = run["wall"] / max(1, len(tasks))
        replay = statistics.median(audit.replay_ms) / 1000 if audit.replay_ms else float("nan")
        recipes = len({t.provenance.recipe for t in tasks})
        lines.append(
            f"| {run['fixture']} | {run['seed']} | {run['tables']} | **{len(tasks)}** | "
            f"{r['attempts']['total']} | {reasons} | {r['attempts']['skipped']} | {r['infeasible']} | "
            f"{shares(tasks)} | {rows_figures(run['rows'])} | {recipes} | {checks(audit)} | {per_task:.2f} | "
            f"{per_task / replay:.1f}x |"
        )
    met = sum(len(run["tasks"]) >= 30 for run in runs)
    lines += ["", f"{met} of {len(runs)} runs kept 30 or more tasks."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", default="music")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--n", type=int, help="tasks to keep (default: 150 for a pack, 30 per fixture)")
    parser.add_argument("--seeds", default="0", help="comma-separated seeds, e.g. 0,7")
    parser.add_argument("--db", type=Path, help="a built database of the pack (default: build one)")
    parser.add_argument("--fixtures", action="store_true", help="every parser fixture DDL, no pack")
    parser.add_argument(
        "--evaluate", type=int, default=0, metavar="K", help="score oracle and noop with K trials per task"
    )
    parser.add_argument("--rows", type=int, default=40, help="rows per root table of a fixture build")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    with tempfile.TemporaryDirectory(prefix="bench-tasks-") as tmp:
        work = Path(tmp)
        if args.fixtures:
            n = args.n or 30
            runs = [
                one_fixture(ddl, args.rows, n, seed, work / f"s{seed}")
                for ddl in sorted(FIXTURES.glob("*.sql"))
                for seed in seeds
            ]
            argv = f"--fixtures --rows {args.rows} --n {n} --seeds {args.seeds}"
            heading = "Task generation: bare DDL (bench/task_generation.py --fixtures)"
            body = fixtures_section(runs, args.rows, n, argv)
        else:
            n = args.n or 150
            db = args.db
            if db is None:
                build_domain(args.pack, scale=args.scale, out=work / "db")
                db = work / "db" / f"{args.pack}.duckdb"
            runs = [one_seed(db, n, seed, work, args.evaluate) for seed in seeds]
            argv = f"--pack {args.pack} --scale {args.scale:g} --n {n} --seeds {args.seeds}"
            if args.db is not None:
                argv = f"--pack {args.pack} --db {args.db} --n {n} --seeds {args.seeds}"
            argv += f" --evaluate {args.evaluate}" if args.evaluate else ""
            where = f"built at scale {args.scale:g}" if args.db is None else f"the build {args.db}"
            heading = f"Task generation: {args.pack} (bench/task_generation.py)"
            body = section(args.pack, where, n, db, runs, argv)
    print(body)
    if not args.no_write:
        write_section(heading, body)


if __name__ == "__main__":
    main()
