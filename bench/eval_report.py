"""report.html of an evaluation run: what it costs at the end of a run, against the summary every run writes.

    .venv/bin/python bench/eval_report.py [--scale 1] [--tasks 30] [-k 3] [--rounds 5] [--no-write]

Uses the music database and tasks of bench/evaluate.py (built once under artifacts/bench-evaluate/),
runs the oracle (every episode passes) and noop (most fail, with reasons) once each without a report,
then, interleaved in each of --rounds rounds, for each run: the baseline, what every run already pays at
its end (`summarize` of its records and summary.json written), and `write_run_report` (the page: plots
drawn by matplotlib, every trajectory). Reports the medians, their ratio, the milliseconds per episode,
the file's size, and the report's share of the run's own wall time. Writes the section "## Evaluation
report (bench/eval_report.py)" of docs/BENCHMARKS.md unless --no-write.
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import tempfile
import time
from pathlib import Path

from _doc import bench_parser, publish
from evaluate import prepare

from stateforge.evaluate import evaluate
from stateforge.evaluate.htmlreport import write_run_report
from stateforge.evaluate.rundir import RunFolder, write_json
from stateforge.evaluate.summary import summarize

HEADING = "Evaluation report (bench/eval_report.py)"


def baseline(folder: RunFolder) -> dict:
    """What every run does at its end: the summary of its records, written to summary.json."""
    summary = summarize(folder.spec, folder.records())
    write_json(folder.summary_path, summary)
    return summary


def main() -> None:
    parser = bench_parser(__doc__ or "")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--tasks", type=int, default=30)
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    db, tasks_file, kit, how = prepare(args.scale, args.tasks)
    with tempfile.TemporaryDirectory(prefix="bench-eval-report-") as tmp:
        runs = {}
        for solver in ("oracle", "noop"):
            summary = evaluate(db, solver=solver, k=args.k, concurrency=2, toolkit=kit, tasks_file=tasks_file,
                               out=Path(tmp), report=False)
            runs[solver] = (RunFolder.open(Path(summary["folder"])), summary)
        times: dict[tuple[str, str], list[float]] = {}
        write_run_report(runs["oracle"][0])  # warm: matplotlib's import and font cache
        for _ in range(args.rounds):
            for solver, (folder, _summary) in runs.items():
                for name, work in (("baseline", lambda f=folder: baseline(f)),
                                   ("report", lambda f=folder: write_run_report(f, baseline(f)))):
                    start = time.perf_counter()
                    work()
                    times.setdefault((solver, name), []).append(time.perf_counter() - start)
        lines = [
            f"Command: `.venv/bin/python bench/eval_report.py --scale {args.scale:g} --tasks {args.tasks} "
            f"-k {args.k} --rounds {args.rounds}` ({dt.date.today().isoformat()}; {os.cpu_count()} cores "
            f"shared with other work, load average {os.getloadavg()[0]:.1f} at the end). Music at scale "
            f"{args.scale:g}, tasks made with {how}; medians over {args.rounds} rounds, interleaved. "
            "Baseline: the summary every run computes and writes at its end; report: the same plus "
            "report.html.",
            "",
            "| run | episodes | failed | baseline ms | with report.html ms | ratio | report ms per episode "
            "| report.html | share of the run's wall time |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for solver, (folder, summary) in runs.items():
            base = statistics.median(times[(solver, "baseline")])
            full = statistics.median(times[(solver, "report")])
            n = summary["episodes"]
            size = (folder.path / "report.html").stat().st_size
            run_wall = summary["timing"]["session_seconds"]
            lines.append(
                f"| {solver} | {n} | {summary['failed']} | {base * 1000:.0f} | {full * 1000:.0f} | "
                f"{full / base:.1f}x | {(full - base) * 1000 / n:.1f} | {size / 1024:,.0f} KiB | "
                f"{(full - base) / (run_wall + full - base):.1%} of {run_wall + full - base:.1f} s |"
            )
    publish(HEADING, lines, write=not args.no_write)


if __name__ == "__main__":
    main()
