"""What the HTML audit report costs: the music pack at scale 1 and 10, against the audit alone.

    .venv/bin/python bench/report.py [--scales 1 10] [--runs 3] [--no-write]

For each scale, in one run: the baseline is `stateforge.validation.audit.audit` on the same file (what
`stateforge
audit` does, and a part of the report); then the report's two halves, `collect` (every figure, in
DuckDB: counts, ranges, distributions, fan-outs, rules, the audit) and `render` (the page and its
matplotlib plots), and `write_report` end to end. Times are medians of --runs, interleaved. Also: rows,
tables sampled, plots, bytes, and whether two reports of the same file are byte-identical. The packs
are built into ./artifacts/bench-report/ when missing. Prints a markdown report; unless --no-write,
replaces the "Report" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _doc import write_section

from stateforge.build import build_domain
from stateforge.report import collect, render, write_report
from stateforge.store import connect
from stateforge.validation.audit import audit

HEADING = "Report (bench/report.py)"


def timed(work: Callable[[], object]) -> tuple[float, float, object]:
    """Wall seconds, CPU seconds of this process (every thread: DuckDB's too) and the result."""
    start, cpu = time.perf_counter(), time.process_time()
    result = work()
    return time.perf_counter() - start, time.process_time() - cpu, result


def database(scale: float) -> Path:
    """The music pack at `scale`, built once into ./artifacts/bench-report/."""
    out = Path("artifacts") / "bench-report" / f"music-{scale:g}"
    path = out / "music.duckdb"
    if not path.exists():
        build_domain("music", scale=scale, out=out)
    return path


def run_audit(path: Path) -> object:
    with connect(path, read_only=True) as con:
        return audit(con)


def measure(scale: float, runs: int) -> dict[str, object]:
    path = database(scale)
    names = ("audit", "collect", "render", "write_report")
    times: dict[str, list[float]] = {k: [] for k in names} | {f"{k}_cpu": [] for k in names}
    outputs = []

    def note(name: str, wall: float, cpu: float) -> None:
        times[name].append(wall)
        times[f"{name}_cpu"].append(cpu)

    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            note("audit", *timed(lambda: run_audit(path))[:2])
            wall, cpu, profile = timed(lambda: collect(path))
            note("collect", wall, cpu)
            note("render", *timed(lambda profile=profile: render(profile))[:2])
            out = Path(tmp) / f"report-{i}.html"
            wall, cpu, result = timed(lambda out=out: write_report(path, out))
            note("write_report", wall, cpu)
            outputs.append(out.read_bytes())
    medians = {k: statistics.median(v) for k, v in times.items()}
    html = outputs[0].decode()
    return {
        "scale": scale,
        "rows": result.profile.rows,
        "sampled": sum(1 for t in result.profile.tables if t.sampled is not None),
        "plots": html.count('<figure class="plot"'),
        "bytes": len(outputs[0]),
        "identical": all(o == outputs[0] for o in outputs),
        **medians,
    }


def report(results: list[dict[str, object]], runs: int) -> str:
    load = os.getloadavg()[0]
    scales = " ".join(f"{r['scale']:g}" for r in results)
    lines = [
        f"`.venv/bin/python bench/report.py --scales {scales} "
        f"--runs {runs}`: the music pack, medians of {runs} runs on 2 cores (load average {load:.1f} while "
        "it ran: other work shared the machine, so wall times run long; CPU seconds of the process, DuckDB's "
        "threads included, say what the work costs). Baseline: the audit alone on the same file.",
        "",
        "| scale | rows | tables sampled | plots | HTML | audit (baseline): wall (CPU) | collect | render "
        "| write_report | report / audit: wall (CPU) | same bytes twice |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
    ]
    for r in results:
        lines.append(
            f"| {r['scale']:g} | {r['rows']:,} | {r['sampled']} | {r['plots']} "
            f"| {r['bytes'] / 1024:,.0f} KiB "
            + " ".join(f"| {r[k]:.2f} s ({r[k + '_cpu']:.2f})" for k in ("audit", "collect", "render",
                                                                           "write_report"))
            + " "
            f"| {r['write_report'] / r['audit']:.1f}x ({r['write_report_cpu'] / r['audit_cpu']:.1f}x) "
            f"| {'yes' if r['identical'] else 'NO'} |"
        )
    if len(results) > 1:
        a, b = results[0], results[-1]
        lines += ["", f"From scale {a['scale']:g} to {b['scale']:g} ({b['rows'] / a['rows']:.1f}x the rows): "
                      f"collect {b['collect'] / a['collect']:.1f}x, render {b['render'] / a['render']:.1f}x, "
                      f"the whole report {b['write_report'] / a['write_report']:.1f}x. "
                      "Rendering depends on the "
                      "number of columns and keys, not rows; tables above 200,000 rows are profiled on a "
                      "sample of about 200,000 (counts of NULLs, ranges, fan-outs and the audit read every "
                      "row)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    results = [measure(scale, args.runs) for scale in args.scales]
    text = report(results, args.runs)
    print(text)
    if not args.no_write:
        write_section(HEADING, text)


if __name__ == "__main__":
    main()
