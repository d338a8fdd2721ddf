"""Benchmark of the offline build: end to end against the floor and a naive loop, in one run.

    .venv/bin/python bench/fill.py [--domain music] [--scale 12.7] [--repeats 3] [--before DIR] [--no-write]

1. The build: `stateforge build-domain` of a pack (music at 12.7: 3.66M rows), in a child process (so its
   peak RSS is its own): parse, plan, generate, validate, repair, rules, audit and publish; `--repeats`
   times, the median reported.
2. The floor: a bulk Arrow insert of the same rows into the same empty tables with their keys
   (the built tables read back as Arrow, inserted into a fresh database made by `create_tables`), timed
   after each build (median).
3. The naive baseline: a per-row Faker loop (one Faker call per field, `executemany` per table) over the
   same tables, timed on `--naive-rows` rows per table and extrapolated to the build's row counts.
4. With `--before DIR` (a source tree of an earlier revision, e.g. `git archive REV | tar -x -C DIR`),
   that tree's build too, each repeat right before this tree's, so both meet the same machine load.

The machine is shared: only ratios between runs of the same invocation mean much. Prints a markdown
table; unless `--no-write`, replaces the "Fill" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
from _doc import write_section

from pipeline.fill.generator import strategy_for
from pipeline.schema import Schema
from pipeline.store import create_tables, read_model


def run_build(domain: str, scale: float, out: Path, source: Path | None = None) -> tuple[float, float, dict]:
    """The end-to-end build in a child process (of `source`'s code when given): (seconds, its peak RSS in
    MiB, the build report)."""
    env = dict(os.environ)
    if source is not None:  # its packages come first on the path; the console script imports them
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    stateforge = str(Path(sys.executable).with_name("stateforge"))
    command = [stateforge, "build-domain", domain, "--scale", str(scale), "--out", str(out), "--json"]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env, cwd=source or Path.cwd())
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command)
    return seconds, usage.ru_maxrss / 1024, json.loads((out / "build_report.json").read_text())


def floor(db: Path) -> float:
    """Seconds to bulk-insert the built tables, as Arrow, into empty tables with their keys."""
    with duckdb.connect(str(db), read_only=True) as con:
        schema, plan = read_model(con)
        data = {t.name: con.sql(f'SELECT * FROM "{t.name}"').to_arrow_table() for t in schema.tables}
    with tempfile.TemporaryDirectory() as tmp, duckdb.connect(str(Path(tmp) / "floor.duckdb")) as con:
        create_tables(con, schema, plan)
        started = time.perf_counter()
        for name in plan.order:
            con.register("__arrow", data[name])
            con.execute(f'INSERT INTO "{name}" SELECT * FROM __arrow')
            con.unregister("__arrow")
        con.execute("CHECKPOINT")
        return time.perf_counter() - started


def _faker_value(fake, kind: str, rownum: int):  # noqa: ANN001 - Faker has no useful static type
    """One value the way a naive generator makes it: one Faker call per field."""
    if kind in ("sequence", "foreign_key"):
        return rownum
    if kind in ("int", "duration", "year", "rating"):
        return fake.random_int(0, 1000)
    if kind in ("float", "decimal", "price", "latitude", "longitude"):
        return float(fake.pydecimal(left_digits=3, right_digits=2, positive=True))
    if kind == "bool":
        return fake.pybool()
    if kind in ("timestamp",):
        return fake.date_time_between("-3y", "now")
    if kind == "date":
        return fake.date_between("-3y", "today")
    if kind == "time":
        return fake.time_object()
    if kind == "email":
        return fake.email()
    if kind in ("full_name", "first_name", "last_name", "username"):
        return fake.name()
    if kind in ("paragraph", "text"):
        return fake.paragraph()
    return fake.sentence(nb_words=4)


def naive(schema: Schema, rows: dict[str, int], per_table: int) -> tuple[float, int]:
    """Seconds a per-row Faker loop takes for `per_table` rows of each table, and the rows it wrote."""
    from faker import Faker

    from pipeline.domain.config import DomainConfig

    fake = Faker()
    Faker.seed(0)
    config = DomainConfig.default("naive")
    total_rows = 0
    started = time.perf_counter()
    with duckdb.connect() as con:
        for table in schema.tables:
            cols = ", ".join(f'"{c.name}" VARCHAR' for c in table.columns)
            con.execute(f'CREATE TABLE "{table.name}" ({cols})')
            kinds = [strategy_for(table, c.name, config) for c in table.columns]
            n = min(per_table, rows[table.name])
            batch = [[str(_faker_value(fake, k, i)) for k in kinds] for i in range(n)]
            marks = ", ".join("?" for _ in table.columns)
            con.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', batch)
            total_rows += n
    return time.perf_counter() - started, total_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="music")
    parser.add_argument("--scale", type=float, default=12.7, help="music at 12.7 is about 3.66M rows")
    parser.add_argument("--naive-rows", type=int, default=300, help="rows per table for the naive loop")
    parser.add_argument("--repeats", type=int, default=3, help="builds and floors (medians)")
    parser.add_argument("--before", type=Path, help="a source tree of an earlier revision to time too")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()

    builds: list[float] = []
    before: list[float] = []
    floors: list[float] = []
    peak_mib = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            if args.before is not None:
                before.append(run_build(args.domain, args.scale, Path(tmp) / "before", args.before)[0])
                shutil.rmtree(Path(tmp) / "before")
            out = Path(tmp) / f"build{i}"
            shutil.rmtree(Path(tmp) / f"build{i - 1}", ignore_errors=True)
            seconds, peak, report = run_build(args.domain, args.scale, out)
            builds.append(seconds)
            peak_mib = max(peak_mib, peak)
            db = out / f"{report['domain']}.duckdb"
            floors.append(floor(db))
        total = report["totals"]["rows"]
        with duckdb.connect(str(db), read_only=True) as con:
            schema, _ = read_model(con)
        rows = {t["table"]: t["rows"] for t in report["tables"]}
    naive_s, naive_rows = naive(schema, rows, args.naive_rows)
    figures = Figures(total, len(rows), builds, floors, before, naive_s, naive_rows, peak_mib)
    text = render(args, figures)
    print(text)
    if not args.no_write:
        write_section("Fill (bench/fill.py)", text)


@dataclass
class Figures:
    """What one run measured."""

    total: int
    tables: int
    builds: list[float]
    floors: list[float]
    before: list[float]
    naive_s: float
    naive_rows: int
    peak_mib: float


def render(args: argparse.Namespace, f: Figures) -> str:
    """The markdown section: the build against the floor, the naive loop, and the revision before."""
    total, naive_s, naive_rows, before = f.total, f.naive_s, f.naive_rows, f.before
    build_s, floor_s = statistics.median(f.builds), statistics.median(f.floors)
    # Extrapolate table by table: each table's naive rate times its rows in the build.
    naive_total_s = naive_s / naive_rows * total
    command = f".venv/bin/python bench/fill.py --domain {args.domain} --scale {args.scale}"
    command += f" --repeats {args.repeats}" + (" --before DIR" if args.before is not None else "")
    runs = ", ".join(f"{b:.1f}" for b in f.builds)
    lines = [
        f"Command: `{command}` ({dt.date.today()}; {platform.machine()}, 2 cores, shared and noisy: "
        f"compare the ratios). Build of `{args.domain}` at scale {args.scale}: {total:,} rows in {f.tables} "
        f"tables; medians of {args.repeats} builds ({runs} s) and of as many floors, each timed right after "
        "its build.",
        "",
        "| what | seconds | rows/s | vs the build |",
        "|---|---:|---:|---:|",
        f"| **build end to end** (parse, generate, validate, repair, rules, audit, publish) | {build_s:.1f} "
        f"| {total / build_s:,.0f} | 1.0x |",
        f"| floor: bulk Arrow insert of the same rows, same tables and keys "
        f"| {floor_s:.1f} | {total / floor_s:,.0f} | build is **{build_s / floor_s:.2f}x** the floor |",
        f"| naive: per-row Faker loop + executemany ({naive_rows:,} rows timed, extrapolated) "
        f"| {naive_total_s:,.0f} | {naive_rows / naive_s:,.0f} "
        f"| **{naive_total_s / build_s:.0f}x** slower than the build |",
    ]
    if before:
        before_s = statistics.median(before)
        lines.append(
            f"| the build of the revision before (`--before`; {', '.join(f'{b:.1f}' for b in before)} s) "
            f"| {before_s:.1f} | {total / before_s:,.0f} | {before_s / build_s:.2f}x the build's time, "
            f"{before_s / floor_s:.2f}x the floor |"
        )
    lines += [
        "",
        f"Peak memory of a build process: {f.peak_mib:,.0f} MiB. Targets: the build within 2.5x of the floor "
        f"(measured {build_s / floor_s:.2f}x) and at least 100x faster than the naive loop (measured "
        f"{naive_total_s / build_s:.0f}x).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
