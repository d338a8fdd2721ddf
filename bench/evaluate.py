"""Harness throughput: episodes per second with the oracle solver on music, against the cost of the episodes.

    .venv/bin/python bench/evaluate.py [--scale 1] [--tasks 30] [-k 2] [--concurrency 2] [--rounds 3]
                                       [--no-write]

Builds the music pack at --scale and generates --tasks tasks on it once (kept under
artifacts/bench-evaluate/ and reused; the pack's `tasks/` and tools when it has recipes, else the
generic recipes through the generic toolkit), then, interleaved in each of --rounds rounds (so that the
machine's load hits every variant alike), runs every (task, trial) pair at --concurrency:

- the floor: `Episode.open`, the reference calls, `close`; what any harness pays (no grading);
- the harness: `evaluate(solver="oracle")`'s episodes: open, solve, verifiers, diff, close, compare,
  records on disk (the run's fixed start, reading the tasks and checking the database's fingerprint, is
  left out of the wall time; its CPU counts, with the fingerprint and what a grader reads of the base
  computed once by a warm-up run, as in any process that runs several evaluations of a database);
- a process's first run: the same evaluation with the database's data fingerprint and what its grader
  reads of the base computed (forgotten first: `stateforge/evaluate/fingerprint.py`, `basefacts.py`), what
  a one-run process such as the CLI pays; its wall time includes the run's start;
- a naive grader: the episode closed and its copy attached beside the base (`Workspace.end_state`), every
  table diffed, then `compare` and the verifiers: what `stateforge/evaluate/grader.py` avoids.

Reports episodes per second (wall, at the machine's load), CPU ms per episode (every thread of the process,
background work included) and the throughput that CPU cost allows on the machine's cores when they are
free; then the median ms of each part of a harness episode. Writes the section "## Evaluation harness
(bench/evaluate.py)" of docs/BENCHMARKS.md unless --no-write.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import duckdb
from _doc import write_section

from stateforge.build import build_domain
from stateforge.diff import compare
from stateforge.episode import Episode
from stateforge.episode.storage import REAPER, SPARE
from stateforge.evaluate import evaluate
from stateforge.evaluate.basefacts import forget_facts
from stateforge.evaluate.fingerprint import forget
from stateforge.evaluate.rundir import RunFolder
from stateforge.evaluate.summary import PARTS
from stateforge.tasks import Task, generate_tasks, read_tasks
from stateforge.tasks.verifiers import rows_match
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit, generic_toolkit
from stateforge.tools.loader import toolkit_for

HEADING = "Evaluation harness (bench/evaluate.py)"
ROOT = Path(__file__).resolve().parent.parent
GOAL = 50.0
FIRST = (
    "a process's first run: the harness, its data fingerprint and what its grader reads of the base "
    "computed (wall: with the run's start)"
)
BEFORE = (
    "revision df951b7 (every run's grader read the base anew: its catalog, the group sums of the tables "
    "episodes touched, whether each 'keys and constraints' verifier is clean on it, its key counts, ~3 ms an "
    "episode of this run; export summed every group of each table an episode may have changed, and worked "
    "out a table's totals anew for each verifier; the same command on a quiet machine, load 2.1): harness "
    "46.99 episodes/s, 38.0 CPU ms per episode, 52.6 episodes/s on free cores; floor 19.6 CPU ms per "
    "episode; on the episode's thread verifiers 3.4, export 4.9 CPU ms. Earlier, "
    "revision 547c79f (the data fingerprint computed by every run, ~340 CPU ms, ~6 ms an episode of this "
    "run; an episode's close timed in no part; the same command, load 2.8): harness 30.27 episodes/s, "
    "40.7 CPU ms per episode, 49.1 episodes/s on free cores; floor 20.0 CPU ms per episode. Earlier, "
    "revision 21618b8 (the grader read every changed table whole: copied it out and joined it against the "
    "base, ran 'keys and constraints' and the rules over whole tables; the same command, load 14.0): harness "
    "2.87 episodes/s, 109.2 CPU ms per episode, 18.3 episodes/s on free cores; on the episode's thread "
    "verifiers 21.8, export 2.9, diff 18.7, compare 1.9 CPU ms (45.3 in all); floor 56.4 CPU ms per episode. "
    "Before that, revision 73dc091 (every verifier's SQL run whole on the end state; load 27.3): harness "
    "1.70 episodes/s, 131.4 CPU ms per episode; revision 86b0de7 (every episode copied the base; load 20.5): "
    "1.34 episodes/s, 150.3 CPU ms per episode."
)
COMPARABLE = (
    "The tasks now change 5 rows on average, against 10 for the revisions before 547c79f: the data's "
    "foreign-key popularity changed on main (a heavy-tail fix), so per-episode costs across that line are "
    "not strictly comparable."
)
REMAINS = (
    "What keeps it from the goal (50 episodes/s on 2 cores is 40 CPU ms per episode, background work "
    "included): on free cores the CPU allows more than 50; the wall figure is what the machine's other "
    "work leaves (the load average). Threads are not the limit: the episode's thread holds the GIL ~20% of "
    "its CPU time (py-spy 0.4.3 `record --gil` against a plain `record` of the same run at --concurrency "
    "1: 537 of 2,630 samples; DuckDB's work, most of an episode, runs without it), so 2 concurrent "
    "episodes use 2 cores: the harness alone at load 2.4 (medians of 3 runs of 60 episodes) ran 32.1 "
    "episodes/s at --concurrency 1, 51.3 at 2, 51.5 at 3 and 42.6 at 4 (the threads then contend for the "
    "cores, 39.7 CPU ms an episode against 30.8): the cores, not the GIL, are full, and worker processes "
    "would not raise it on 2 cores. The run's own start "
    "(`prepare`: reading the tasks, the grader's base, the solver) is ~90 CPU ms a run once the "
    "database's data fingerprint is cached (`stateforge/evaluate/fingerprint.py`: computed once a process "
    "while the file's inode, size, mtime, ctime and WAL are unchanged; ~340 CPU ms on music at scale 1, "
    "paid by the first run of a process); what a grader reads of the base (its catalog, group sums, clean "
    "checks, key counts, the base's rows of changed groups) is kept the same way "
    "(`stateforge/evaluate/basefacts.py`, ~0.2 s a run before). Grading is export + diff + verifiers + "
    "compare on the episode's thread (the table below). Export is the row-group sums of each table the "
    "episode may have changed and the changed groups' rows: a hashed scan of the table (~3.4 CPU ms for "
    "listening_history's 50,000 rows), of only its groups from the base's last one on when the WAL shows "
    "nothing but appended rows for it (~1 ms, most of it the statement's own cost), none when the WAL "
    "shows it unwritten (`stateforge/evaluate/delta.py`); deletes and updates still scan the whole table "
    "(the WAL's row ids of them are not read; DuckDB's storage info does not show deletes and costs ~1 ms "
    "a table); the diff of those rows runs in Python; the verifiers left to run as SQL are the goals "
    "and the policies (the checksums, row counts, 'keys and constraints' and domain rules are answered "
    "from the groups, the rows and the calls' own rule checks: stateforge/evaluate/answers.py). The rest is "
    "the floor: solving is the tools' own work (validation, transaction, rule checks: 1.8 calls per task "
    "here), and opening and closing an episode: a clean copy from the pool on the DuckDB instance its last "
    "episode ran on (`stateforge/episode/instances.py`: started once per pooled copy, ~14 CPU ms, not once "
    "per episode), attached, used through a cursor of its own, detached and checked `pristine` at close."
)


def prepare(scale: float, n: int) -> tuple[Path, Path, Toolkit, str]:
    """The built database, its tasks, the toolkit they were made with and how (built once, then reused)."""
    folder = ROOT / "artifacts" / "bench-evaluate" / f"music-scale-{scale:g}-tasks-{n}"
    db, tasks = folder / "music.duckdb", folder / "tasks.jsonl"
    if not db.is_file():
        build_domain("music", scale=scale, out=folder)
    with Workspace(db) as ws:
        recipes = (ROOT / "stateforge" / "packs" / "music" / "tasks").is_dir()
        kit = toolkit_for(ws.schema, ws.domain) if recipes else generic_toolkit(ws.schema)
    how = "the music pack's recipes and tools" if recipes else "the generic recipes and toolkit"
    if not tasks.is_file():
        generate_tasks(db, n=n, seed=1, toolkit=None if recipes else kit)
    return db, tasks, kit, how


def settle() -> None:
    """Let the episodes' background work finish (the spare instance's start, the reaper's closes)."""
    SPARE.wait()
    REAPER.drain()


def pool_run(work: Callable[[Task, int], None], pairs: list[tuple[Task, int]], concurrency: int) -> None:
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        for future in [pool.submit(work, task, trial) for task, trial in pairs]:
            future.result()


def floor(db: Path, kit: Toolkit, pairs: list[tuple[Task, int]], concurrency: int, work: Path) -> None:
    def one(task: Task, trial: int) -> None:
        with Episode.open(db, toolkit=kit, workdir=work) as episode:
            for call in task.reference_calls:
                episode.call(call.tool, call.arguments)

    pool_run(one, pairs, concurrency)


def naive(db: Path, kit: Toolkit, pairs: list[tuple[Task, int]], concurrency: int, work: Path) -> None:
    local = threading.local()
    spaces: list[Workspace] = []

    def one(task: Task, trial: int) -> None:
        ws = getattr(local, "ws", None)
        if ws is None:
            ws = local.ws = Workspace(db, workdir=work)
            spaces.append(ws)
        episode = ws.episode(kit)
        for call in task.reference_calls:
            episode.call(call.tool, call.arguments)
        with ws.end_state(episode) as end:
            verdict = compare(task.diff, end.diff, schema=ws.schema, policy=task.grading_policy)
            checks = [rows_match(end.query(v.sql), v.expected) for v in task.verifiers]
        assert verdict.passed and all(checks), task.id

    try:
        pool_run(one, pairs, concurrency)
    finally:
        for ws in spaces:
            ws.close()


def measure(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of the process, result), background work settled on both sides."""
    settle()
    wall, cpu = time.perf_counter(), time.process_time()
    result = fn()
    settle()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def run_rounds(args: argparse.Namespace, db: Path, tasks_file: Path, kit: Toolkit) -> dict[str, Any]:
    tasks = read_tasks(tasks_file)
    pairs = [(t, trial) for trial in range(args.k) for t in tasks]
    out: dict[str, Any] = {
        "wall": {}, "cpu": {}, "records": [], "episode_cpu": [], "pairs": len(pairs), "tasks": tasks
    }
    with tempfile.TemporaryDirectory(prefix="bench-evaluate-") as tmp:
        work, runs = Path(tmp) / "work", Path(tmp) / "runs"
        work.mkdir()
        harness_wall: list[float] = []

        def harness() -> dict[str, Any]:
            # report=False: the episodes' CPU alone (report.html's cost: bench/eval_report.py)
            summary = evaluate(db, solver="oracle", k=args.k, concurrency=args.concurrency, toolkit=kit,
                               tasks_file=tasks_file, out=runs, workdir=work, report=False)
            assert summary["passed"] == len(pairs), summary["failures"]
            harness_wall.append(summary["timing"]["session_seconds"])
            records = RunFolder.open(Path(summary["folder"])).records()
            out["episode_cpu"].append(statistics.mean(sum(r.cpu_ms.values()) for r in records))
            return summary

        def first_run() -> None:
            forget(db)  # what a process's first evaluation of the database pays: the fingerprint and
            forget_facts(db)  # what its grader reads of the base (`stateforge/evaluate/basefacts.py`)
            summary = evaluate(db, solver="oracle", k=args.k, concurrency=args.concurrency, toolkit=kit,
                               tasks_file=tasks_file, out=runs, workdir=work, report=False)
            assert summary["passed"] == len(pairs), summary["failures"]

        variants: dict[str, Callable[[], Any]] = {
            "floor: open + reference calls + close": lambda: floor(db, kit, pairs, args.concurrency, work),
            "harness: evaluate --solver oracle": harness,
            FIRST: first_run,
            "naive grader: attach the closed copy, diff every table": lambda: naive(
                db, kit, pairs, args.concurrency, work),
        }
        floor(db, kit, pairs, 1, work)  # warm: the page cache, the model cache, every SQL text checked once
        # and the data fingerprint, which a process computes once per database (`evaluate/fingerprint.py`)
        evaluate(db, solver="oracle", toolkit=kit, tasks_file=tasks_file, out=runs, workdir=work, limit=1,
                 report=False)
        for _ in range(args.rounds):
            for name, fn in variants.items():
                wall, cpu, result = measure(fn)
                if name.startswith("harness"):
                    wall = harness_wall[-1]  # the episodes alone (the run's start left out)
                    out["records"].append(result)
                out["wall"].setdefault(name, []).append(wall)
                out["cpu"].setdefault(name, []).append(cpu)
    return out


def report(args: argparse.Namespace, db: Path, how: str, data: dict[str, Any]) -> str:
    n, cores = data["pairs"], os.cpu_count() or 1
    tasks: list[Task] = data["tasks"]
    changed = statistics.mean(sum(t.diff.summary.values()) for t in tasks)
    calls = statistics.mean(len(t.reference_calls) for t in tasks)
    base_wall = statistics.median(data["wall"]["floor: open + reference calls + close"])
    lines = [
        "Command: `.venv/bin/python bench/evaluate.py "
        f"--scale {args.scale:g} --tasks {args.tasks} -k {args.k} --concurrency {args.concurrency} "
        f"--rounds {args.rounds}` ({dt.date.today().isoformat()}; {cores} cores shared with other work, "
        f"load average {os.getloadavg()[0]:.1f} at the end; DuckDB {duckdb.__version__}). Database: music "
        f"at scale {args.scale:g}, {db.stat().st_size / 1e6:.1f} MB; {len(tasks)} tasks made with {how} "
        f"({sum(not t.feasible for t in tasks)} infeasible; {calls:.1f} reference calls and {changed:.0f} "
        f"changed rows per task on average); {n} episodes ({args.k} trials each) per variant and round, "
        f"{args.concurrency} at a time, the variants interleaved; medians over {args.rounds} rounds.",
        "",
        "| variant | episodes/s (wall) | vs floor | CPU ms per episode | episodes/s the CPU allows on "
        f"{cores} free cores |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, walls in data["wall"].items():
        wall = statistics.median(walls)
        cpu_ms = statistics.median(data["cpu"][name]) / n * 1000
        allowed = cores * 1000 / cpu_ms
        lines.append(f"| {name} | {n / wall:.2f} | {wall / base_wall:.2f}x | {cpu_ms:.1f} | {allowed:.1f} |")
    walls = [r["timing"]["median_ms"] for r in data["records"]]
    cpus = [r["timing"]["median_cpu_ms"] for r in data["records"]]
    wall = {p: statistics.median(t.get(p) or 0 for t in walls) for p in (*PARTS, "episode")}
    cpu = {p: statistics.median(t.get(p) or 0 for t in cpus) for p in (*PARTS, "episode")}
    harness = statistics.median(data["wall"]["harness: evaluate --solver oracle"])
    harness_cpu = statistics.median(data["cpu"]["harness: evaluate --solver oracle"]) / n * 1000
    own = statistics.median(data["episode_cpu"])
    lines += [
        "",
        f"Goal: at least {GOAL:g} episodes/s on 2 cores. Measured: **{n / harness:.2f} episodes/s** at this "
        "load; the last column is the bound the CPU cost sets on free cores. Opening an episode takes a "
        "clean copy from the pool (`stateforge/episode/pool.py`) instead of copying the database.",
        "",
        f"Before: {BEFORE}",
        "",
        COMPARABLE,
        "",
        f"Of the harness's {harness_cpu:.1f} CPU ms per episode, {own:.1f} are the episodes' own (the mean "
        "over the episodes of the parts below, on their threads) and "
        f"{harness_cpu - own:.1f} the rest: the run's start and end (`prepare`, `summarize`) spread over its "
        f"{n} episodes, the records' writing on the main thread, the thread pool, GC.",
        "",
        REMAINS,
        "",
        "Where a harness episode's time goes (medians over the episodes; CPU of the episode's thread, whose "
        "DuckDB work runs on it):",
        "",
        "| part | wall ms | CPU ms | share of the CPU |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {p} | {wall[p]:.1f} | {cpu[p]:.1f} | {cpu[p] / cpu['episode']:.0%} |" for p in PARTS]
    lines.append(f"| episode | {wall['episode']:.1f} | {cpu['episode']:.1f} | 100% |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("-k", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    db, tasks_file, kit, how = prepare(args.scale, args.tasks)
    data = run_rounds(args, db, tasks_file, kit)
    text = report(args, db, how, data)
    print(text)
    if not args.no_write:
        write_section(HEADING, text)


if __name__ == "__main__":
    main()
