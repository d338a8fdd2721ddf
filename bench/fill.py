"""Benchmark of the offline build: end to end against the floor and a naive loop, in one run.

    .venv/bin/python bench/fill.py [--domain music] [--scale 3.6] [--naive-rows 300] [--no-write]

1. The build: `stateforge build-domain` of a pack at a scale of at least 1M rows, in a child process (so
   its peak RSS is its own): parse, plan, generate, validate, repair, rules, audit and publish.
2. The floor: a bulk Arrow insert of the same rows into the same empty tables with their keys
   (the built tables read back as Arrow, inserted into a fresh database made by `create_tables`).
3. The naive baseline: a per-row Faker loop (one Faker call per field, `executemany` per table) over the
   same tables, timed on `--naive-rows` rows per table and extrapolated to the build's row counts.

Prints a markdown table; unless `--no-write`, replaces the "Fill" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
from _doc import write_section

from pipeline.fill.generator import strategy_for
from pipeline.schema import Schema
from pipeline.store import create_tables, read_model


def run_build(domain: str, scale: float, out: Path) -> tuple[float, float, dict]:
    """The end-to-end build in a child process: (seconds, peak RSS in MiB, report)."""
    started = time.perf_counter()
    subprocess.run(
        [
            str(Path(sys.executable).with_name("stateforge")),
            "build-domain",
            domain,
            "--scale",
            str(scale),
            "--out",
            str(out),
            "--json",
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    seconds = time.perf_counter() - started
    peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak_mib, json.loads((out / "build_report.json").read_text())


def floor(db: Path, repeats: int) -> float:
    """Median seconds to bulk-insert the built tables, as Arrow, into empty tables with their keys."""
    with duckdb.connect(str(db), read_only=True) as con:
        schema, plan = read_model(con)
        data = {t.name: con.sql(f'SELECT * FROM "{t.name}"').to_arrow_table() for t in schema.tables}
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp, duckdb.connect(str(Path(tmp) / "floor.duckdb")) as con:
            create_tables(con, schema, plan)
            started = time.perf_counter()
            for name in plan.order:
                con.register("__arrow", data[name])
                con.execute(f'INSERT INTO "{name}" SELECT * FROM __arrow')
                con.unregister("__arrow")
            con.execute("CHECKPOINT")
            times.append(time.perf_counter() - started)
    return statistics.median(times)


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
    parser.add_argument("--scale", type=float, default=3.6, help="music at 3.6 is about 1.04M rows")
    parser.add_argument("--naive-rows", type=int, default=300, help="rows per table for the naive loop")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the floor (median)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        build_s, peak_mib, report = run_build(args.domain, args.scale, out)
        db = out / f"{report['domain']}.duckdb"
        total = report["totals"]["rows"]
        floor_s = floor(db, args.repeats)
        with duckdb.connect(str(db), read_only=True) as con:
            schema, _ = read_model(con)
        rows = {t["table"]: t["rows"] for t in report["tables"]}
    naive_s, naive_rows = naive(schema, rows, args.naive_rows)
    # Extrapolate table by table: each table's naive rate times its rows in the build.
    naive_total_s = naive_s / naive_rows * total

    command = f".venv/bin/python bench/fill.py --domain {args.domain} --scale {args.scale}"
    lines = [
        f"Command: `{command}` ({dt.date.today()}; {platform.machine()}, 2 cores, shared and noisy: "
        "compare the ratios). One build of "
        f"`{args.domain}` at scale {args.scale}: {total:,} rows in {len(rows)} tables.",
        "",
        "| what | seconds | rows/s | vs the build |",
        "|---|---:|---:|---:|",
        f"| **build end to end** (parse, generate, validate, repair, rules, audit, publish) | {build_s:.1f} "
        f"| {total / build_s:,.0f} | 1.0x |",
        f"| floor: bulk Arrow insert of the same rows, same tables and keys (median of {args.repeats}) "
        f"| {floor_s:.1f} | {total / floor_s:,.0f} | {build_s / floor_s:.1f}x faster than the build |",
        f"| naive: per-row Faker loop + executemany ({naive_rows:,} rows timed, extrapolated) "
        f"| {naive_total_s:,.0f} | {naive_rows / naive_s:,.0f} "
        f"| {naive_total_s / build_s:.0f}x slower than the build |",
        "",
        f"Peak memory of the build process: {peak_mib:,.0f} MiB. Targets: the build within 8x of the floor "
        f"(measured {build_s / floor_s:.1f}x) and at least 50x faster than the naive loop (measured "
        f"{naive_total_s / build_s:.0f}x).",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("Fill (bench/fill.py)", text)


if __name__ == "__main__":
    main()
