"""What pandera's pyarrow backend would cost as the batch validator, against the Arrow checks, same batches.

    .venv/bin/python bench/batch_validation.py [--domain music] [--scale 12.7] [--rounds 5] [--no-write]

1. Builds the pack (`stateforge build-domain`, a child process: its wall and CPU seconds are the build's).
2. Reads every table back and cuts it into the build's batches (`batch_size` of the pack's config): the
   batches the build validated, as they were inserted.
3. Times, batch by batch and in alternating order, the column checks of both validators on each batch:
   `stateforge.validation.batch_arrow.schema_failures` (what the build runs) and
   `batch_schema(table).validate(batch,
   lazy=True)` (`stateforge.validation.batch_pandera`, the same rules derived from the same description);
   `--rounds`
   passes over every batch, medians of the pass totals reported. Both must pass every batch.
4. The same on one batch of the largest table with a few bad rows (NULLs in a NOT NULL column, a string
   too long), where pandera builds its failure cases.

The extra seconds of the pandera pass, against the build's own seconds, say what making it the batch
validator would add to a build. Writes the "Batch validation" section of docs/BENCHMARKS.md unless
`--no-write`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
from _doc import write_section
from pandera.errors import SchemaErrors

from stateforge.domain import load_domain
from stateforge.schema.model import Table
from stateforge.store import read_model
from stateforge.store.sql import table_ref
from stateforge.validation.batch_arrow import schema_failures
from stateforge.validation.batch_pandera import batch_schema, pandera_rules

HEADING = "Batch validation: pandera against the Arrow checks (bench/batch_validation.py)"


def build(domain: str, scale: float, out: Path) -> tuple[float, float, dict]:
    """Build the pack in a child process: its wall and CPU seconds, and the build report."""
    stateforge = str(Path(sys.executable).with_name("stateforge"))
    command = [stateforge, "build-domain", domain, "--scale", str(scale), "--out", str(out), "--json"]
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the build failed: {' '.join(command)}")
    wall = time.perf_counter() - started
    return wall, usage.ru_utime + usage.ru_stime, json.loads((out / "build_report.json").read_text())


def batches(db: Path, batch_size: int) -> list[tuple[Table, pa.Table]]:
    """Every table of the built file, cut into batches of `batch_size` rows."""
    out = []
    with duckdb.connect(str(db), read_only=True) as con:
        schema, _ = read_model(con)
        for table in schema.tables:
            data = con.sql(f"SELECT * FROM {table_ref(table.name)}").to_arrow_table()
            out += [(table, data.slice(i, batch_size)) for i in range(0, data.num_rows, batch_size)]
    return out


def arrow_pass(table: Table, batch: pa.Table) -> None:
    """The build's column checks; the batch must pass."""
    if schema_failures(table, batch):
        raise SystemExit(f"{table.name}: the Arrow checks reject a stored batch")


def pandera_pass(table: Table, batch: pa.Table) -> None:
    """pandera's pyarrow backend over the same rules; the batch must pass."""
    batch_schema(table).validate(batch, lazy=True)


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def passes(work: list[tuple[Table, pa.Table]], rounds: int) -> dict[str, list[tuple[float, float]]]:
    """Per round, each validator's total (wall, CPU) over every batch, in alternating order."""
    totals: dict[str, list[tuple[float, float]]] = {"arrow": [], "pandera": []}
    for table, batch in work[:1]:  # warm both (imports, schema derivation) before timing
        arrow_pass(table, batch)
        pandera_pass(table, batch)
    for r in range(rounds):
        sums = {"arrow": [0.0, 0.0], "pandera": [0.0, 0.0]}
        for i, (table, batch) in enumerate(work):
            order = [("arrow", arrow_pass), ("pandera", pandera_pass)]
            for name, fn in order if (i + r) % 2 == 0 else order[::-1]:
                wall, cpu = timed(lambda fn=fn, t=table, b=batch: fn(t, b))
                sums[name][0] += wall
                sums[name][1] += cpu
        for name, (wall, cpu) in sums.items():
            totals[name].append((wall, cpu))
    return totals


def broken(work: list[tuple[Table, pa.Table]]) -> tuple[Table, pa.Table]:
    """A full batch of the largest table with NULLs in its first NOT NULL column outside its keys (rows 5,
    50 and 500; in a key column pandera would also report the NULLs as duplicates, SQL never does)."""
    table, batch = max(work, key=lambda tb: tb[1].num_rows * tb[1].num_columns)
    keyed = {c.lower() for key in table.unique_keys for c in key}
    name = next(c.name for c in table.columns
                if not c.nullable and c.name in batch.column_names and c.name.lower() not in keyed)
    values = batch.column(name).combine_chunks()
    mask = pa.array([i in (5, 50, 500) for i in range(batch.num_rows)])
    spoiled = pc.if_else(mask, pa.nulls(batch.num_rows, values.type), values)
    return table, batch.set_column(batch.column_names.index(name), name, spoiled)


def median(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in runs), statistics.median(c for _, c in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="music")
    parser.add_argument("--scale", type=float, default=12.7)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    batch_size = load_domain(args.domain).config.batch_size
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "build"
        build_wall, build_cpu, report = build(args.domain, args.scale, out)
        work = batches(out / f"{report['domain']}.duckdb", batch_size)
    totals = passes(work, args.rounds)
    arrow, pandera = median(totals["arrow"]), median(totals["pandera"])
    table, bad = broken(work)
    bad_arrow = statistics.median(timed(lambda: schema_failures(table, bad))[0] for _ in range(3))

    def bad_pandera() -> None:
        try:
            batch_schema(table).validate(bad, lazy=True)
        except SchemaErrors:
            return
        raise SystemExit("pandera passed a batch with NULLs in a NOT NULL column")

    bad_pd = statistics.median(timed(bad_pandera)[0] for _ in range(3))
    agree = {(f.rule, f.columns[0]) for f in schema_failures(table, bad)} == pandera_rules(table, bad)

    rows = sum(b.num_rows for _, b in work)
    worst = max((pandera[0] - arrow[0]) / build_wall, (pandera[1] - arrow[1]) / build_cpu)
    within = "within" if worst <= 0.15 else "more than"
    extra_wall, extra_cpu = pandera[0] - arrow[0], pandera[1] - arrow[1]
    text = "\n".join([
        f"Command: `.venv/bin/python bench/batch_validation.py --domain {args.domain} --scale {args.scale} "
        f"--rounds {args.rounds}` ({dt.date.today()}; {platform.machine()}, 2 cores shared with other work). "
        f"The column checks of every batch of a `{args.domain}` build at scale {args.scale} ({rows:,} rows, "
        f"{len(work)} batches of at most {batch_size:,}), read back from the built file; medians of "
        f"{args.rounds} passes over all of them, the two validators alternating batch by batch.",
        "",
        "| what | wall s | CPU s | against the Arrow checks (wall, CPU) | against the build (wall, CPU) |",
        "|---|---:|---:|---:|---:|",
        f"| the build end to end | {build_wall:.1f} | {build_cpu:.1f} | | 1.0x |",
        f"| Arrow checks (`batch_arrow.schema_failures`, what the build runs) | {arrow[0]:.2f} "
        f"| {arrow[1]:.2f} | 1.0x | {arrow[0] / build_wall:.1%}, {arrow[1] / build_cpu:.1%} |",
        f"| pandera, pyarrow backend (`batch_schema(table).validate(batch, lazy=True)`) | {pandera[0]:.2f} "
        f"| {pandera[1]:.2f} | **{pandera[0] / arrow[0]:.1f}x**, **{pandera[1] / arrow[1]:.1f}x** "
        f"| {pandera[0] / build_wall:.1%}, {pandera[1] / build_cpu:.1%} |",
        "",
        f"Made the batch validator, pandera would add {extra_wall:.1f} s wall and {extra_cpu:.1f} s CPU to "
        f"the build: **{extra_wall / build_wall:+.0%}** wall, **{extra_cpu / build_cpu:+.0%}** CPU (the "
        f"threshold was +15%). One batch of `{table.name}` ({bad.num_rows:,} rows) with 3 NULLs in a NOT "
        "NULL column: "
        f"Arrow {bad_arrow * 1000:.0f} ms, pandera {bad_pd * 1000:.0f} ms (same rules failed: {agree}).",
        "",
        "Decision: the build keeps the Arrow checks (`stateforge.validation.batch_arrow`) as its batch "
        "validator, and the pandera schema stays a tested export derived from the same description "
        f"(`stateforge.validation.batch_pandera.batch_schema`). The cost above is {within} "
        f"the +15% the issue "
        "allowed, but would come on top of a build held to 2.5x the insert floor; and "
        "above all pandera's pyarrow backend cannot do the validator's job alone: its failure cases carry "
        "no row positions (`index` is empty for checks, and for NULLs it "
        "counts the failures, not the rows), while the repairs need the offending rows; it counts NULL "
        "keys as duplicates, which SQL never does (nullable keys stay out of its schema); and its engine "
        "has no DECIMAL, TIME, BLOB or UUID type, so those columns go untyped in it. Finding the rows "
        "would take the Arrow checks' work again on every failing batch.",
    ])
    print(text)
    if not args.no_write:
        write_section(HEADING, text)


if __name__ == "__main__":
    main()
