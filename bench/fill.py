"""Benchmark of the offline build: end to end against the floor and a naive loop, in one run.

    .venv/bin/python bench/fill.py [--domain music] [--scale 12.7] [--repeats 3] [--before DIR] [--no-write]

1. The build: `stateforge build-domain` of a pack (music at 12.7: 3.66M rows), in a child process (so its
   CPU time and peak RSS are its own): parse, plan, generate, validate, repair, rules, audit and
   publish; `--repeats` times, the median reported.
2. The floor: a bulk Arrow insert of the same rows into the same empty tables with their keys
   (the built tables read back as Arrow, inserted into a fresh database made by `create_tables`), timed
   after each build (median).
3. The naive baseline: a per-row Faker loop (one Faker call per field, `executemany` per table) over the
   same tables, timed on `--naive-rows` rows per table and extrapolated to the build's row counts.
4. With `--before DIR` (a source tree of an earlier revision, e.g. `git archive REV | tar -x -C DIR`),
   that tree's build too, each repeat right before this tree's, so both meet the same machine load.
5. The fixed costs: a build of the same pack at `--fixed-scale` (a few hundred rows), whose time is
   almost all interpreter start, imports, parsing, opening and publishing the file; the naive loop is
   also compared with the build less these, its per-row part.
6. The stages: one more build (and one of `--before`'s tree) with a CPU timer around each stage of
   `stateforge.build.run.STAGES`, to show where the time goes and what changed.

Faker pools come from the on-disk cache (`stateforge.fill.pool_cache`) when it holds them: the table says
whether it did when the first build started (a build's first run on a machine makes and stores them).

Each is timed twice: wall clock, and CPU (user + system, every thread). The machine is shared: wall
times follow whatever else runs, CPU times much less, so the CPU ratios are the steadier figure. Prints
a markdown table; unless `--no-write`, replaces the "Fill" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from _doc import write_section

from stateforge.fill.generator import strategy_for
from stateforge.fill.pool_cache import pool_cache
from stateforge.schema import Schema
from stateforge.store import create_tables, read_model


@dataclass
class Took:
    """Wall-clock and CPU seconds of one run."""

    wall: float = 0.0
    cpu: float = 0.0


@contextmanager
def clocked() -> Iterator[Took]:
    """Time the block: wall clock and this process's CPU (every thread, user + system)."""
    took, before = Took(), resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    yield took
    after = resource.getrusage(resource.RUSAGE_SELF)
    took.wall = time.perf_counter() - started
    took.cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def run_build(domain: str, scale: float, out: Path, source: Path | None = None) -> tuple[Took, float, dict]:
    """The end-to-end build in a child process (of `source`'s code when given): its times, its peak RSS in
    MiB, the build report."""
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
    took = Took(seconds, usage.ru_utime + usage.ru_stime)
    return took, usage.ru_maxrss / 1024, json.loads((out / "build_report.json").read_text())


_STAGES = """
import json, resource, sys, time
from stateforge.build.run import BuildRun, run_build
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
spent = {}
def runner(stage, label, work):
    started = cpu()
    work()
    spent[stage.name] = spent.get(stage.name, 0.0) + cpu() - started
run_build(BuildRun(sys.argv[1], scale=float(sys.argv[2]), out=sys.argv[3]), runner)
print(json.dumps(spent))
"""


def stage_cpu(domain: str, scale: float, out: Path, source: Path | None = None) -> dict[str, float]:
    """CPU seconds of each stage of one build (`stateforge.build.run.STAGES`), in a child process running
    `source`'s code when given; imports and interpreter start are in no stage."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run([sys.executable, "-c", _STAGES, domain, str(scale), str(out)], env=env,
                          cwd=source or Path.cwd(), check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def floor(db: Path) -> Took:
    """The time to bulk-insert the built tables, as Arrow, into empty tables with their keys."""
    with duckdb.connect(str(db), read_only=True) as con:
        schema, plan = read_model(con)
        data = {t.name: con.sql(f'SELECT * FROM "{t.name}"').to_arrow_table() for t in schema.tables}
    with tempfile.TemporaryDirectory() as tmp, duckdb.connect(str(Path(tmp) / "floor.duckdb")) as con:
        create_tables(con, schema, plan)
        with clocked() as took:
            for name in plan.order:
                con.register("__arrow", data[name])
                con.execute(f'INSERT INTO "{name}" SELECT * FROM __arrow')
                con.unregister("__arrow")
            con.execute("CHECKPOINT")
    return took


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


def naive(schema: Schema, rows: dict[str, int], per_table: int) -> tuple[Took, int]:
    """The time a per-row Faker loop takes for `per_table` rows of each table, and the rows it wrote."""
    from faker import Faker

    from stateforge.domain.config import DomainConfig

    fake = Faker()
    Faker.seed(0)
    config = DomainConfig.default("naive")
    total_rows = 0
    with clocked() as took, duckdb.connect() as con:
        for table in schema.tables:
            cols = ", ".join(f'"{c.name}" VARCHAR' for c in table.columns)
            con.execute(f'CREATE TABLE "{table.name}" ({cols})')
            kinds = [strategy_for(table, c.name, config) for c in table.columns]
            n = min(per_table, rows[table.name])
            batch = [[str(_faker_value(fake, k, i)) for k in kinds] for i in range(n)]
            marks = ", ".join("?" for _ in table.columns)
            con.executemany(f'INSERT INTO "{table.name}" VALUES ({marks})', batch)
            total_rows += n
    return took, total_rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain", default="music")
    parser.add_argument("--scale", type=float, default=12.7, help="music at 12.7 is about 3.66M rows")
    parser.add_argument("--naive-rows", type=int, default=300, help="rows per table for the naive loop")
    parser.add_argument("--repeats", type=int, default=3, help="builds and floors (medians)")
    parser.add_argument("--before", type=Path, help="a source tree of an earlier revision to time too")
    parser.add_argument("--fixed-scale", type=float, default=0.002, help="the build measuring fixed costs")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()

    f = Figures()
    cache = pool_cache()
    if cache is not None and cache.root.exists():
        f.cached_pools = len(list(cache.root.rglob("*.arrow")))
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            if args.before is not None:
                f.before.append(run_build(args.domain, args.scale, Path(tmp) / "before", args.before)[0])
                shutil.rmtree(Path(tmp) / "before")
            out = Path(tmp) / f"build{i}"
            shutil.rmtree(Path(tmp) / f"build{i - 1}", ignore_errors=True)
            took, peak, report = run_build(args.domain, args.scale, out)
            f.builds.append(took)
            f.peak_mib = max(f.peak_mib, peak)
            db = out / f"{report['domain']}.duckdb"
            f.floors.append(floor(db))
        if args.before is not None:
            f.stages_before = stage_cpu(args.domain, args.scale, Path(tmp) / "stages_before", args.before)
        f.stages = stage_cpu(args.domain, args.scale, Path(tmp) / "stages")
        fixed = [run_build(args.domain, args.fixed_scale, Path(tmp) / f"fixed{i}")
                 for i in range(args.repeats)]
        f.fixed = median([t for t, _, _ in fixed])
        f.fixed_rows = fixed[0][2]["totals"]["rows"]
        f.total = report["totals"]["rows"]
        with duckdb.connect(str(db), read_only=True) as con:
            schema, _ = read_model(con)
        rows = {t["table"]: t["rows"] for t in report["tables"]}
    f.tables = len(rows)
    f.naive, f.naive_rows = naive(schema, rows, args.naive_rows)
    text = render(args, f)
    print(text)
    if not args.no_write:
        write_section("Fill (bench/fill.py)", text)


@dataclass
class Figures:
    """What one run measured."""

    total: int = 0
    tables: int = 0
    builds: list[Took] = field(default_factory=list)
    floors: list[Took] = field(default_factory=list)
    before: list[Took] = field(default_factory=list)
    naive: Took = field(default_factory=Took)
    naive_rows: int = 0
    peak_mib: float = 0.0
    fixed: Took = field(default_factory=Took)
    """A build of a few hundred rows: interpreter start, imports, parse, open, publish."""
    fixed_rows: int = 0
    cached_pools: int = 0
    """Pool files in the cache when the first build started."""
    stages: dict[str, float] = field(default_factory=dict)
    """CPU seconds per stage of one build (`stage_cpu`)."""
    stages_before: dict[str, float] = field(default_factory=dict)


def median(runs: list[Took]) -> Took:
    """The median wall time and the median CPU time of `runs`."""
    return Took(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs))


def render(args: argparse.Namespace, f: Figures) -> str:
    """The markdown section: the build against the floor, the naive loop, and the revision before."""
    build, floor_ = median(f.builds), median(f.floors)
    # Extrapolate table by table: each table's naive rate times its rows in the build.
    scale = f.total / f.naive_rows
    naive_all = Took(f.naive.wall * scale, f.naive.cpu * scale)
    command = f".venv/bin/python bench/fill.py --domain {args.domain} --scale {args.scale}"
    command += f" --repeats {args.repeats}" + (" --before DIR" if args.before is not None else "")
    runs = ", ".join(f"{b.wall:.1f}" for b in f.builds)

    def row(what: str, t: Took, vs: str, rows: int = f.total) -> str:
        return f"| {what} | {t.wall:,.1f} | {t.cpu:,.1f} | {rows / t.wall:,.0f} | {vs} |"

    lines = [
        f"Command: `{command}` ({dt.date.today()}; {platform.machine()}, 2 cores shared with other work: "
        f"compare the ratios, CPU ones first). Build of `{args.domain}` at scale {args.scale}: {f.total:,} "
        f"rows in {f.tables} tables; medians of {args.repeats} builds (wall {runs} s) and of as many floors, "
        "each timed right after its build.",
        "",
        "| what | wall s | CPU s | rows/s (wall) | the build against it: wall, CPU |",
        "|---|---:|---:|---:|---:|",
        row("**build end to end** (parse, generate, validate, repair, rules, audit, publish)", build, "1.0x"),
        row("floor: bulk Arrow insert of the same rows, same tables and keys", floor_,
            f"**{build.wall / floor_.wall:.2f}x**, **{build.cpu / floor_.cpu:.2f}x** the floor"),
        row(f"naive: per-row Faker loop + executemany ({f.naive_rows:,} rows timed, extrapolated)", naive_all,
            f"**{naive_all.wall / build.wall:.0f}x**, **{naive_all.cpu / build.cpu:.0f}x** faster than it"),
    ]
    if f.before:
        before = median(f.before)
        walls = ", ".join(f"{b.wall:.1f}" for b in f.before)
        versus = (f"{before.wall / floor_.wall:.2f}x, {before.cpu / floor_.cpu:.2f}x the floor; the build "
                  f"takes {build.wall / before.wall:.2f}x, {build.cpu / before.cpu:.2f}x its time")
        lines.append(row(f"the build of the revision before (`--before`; wall {walls} s)", before, versus))
    per_row = Took(build.wall - f.fixed.wall, build.cpu - f.fixed.cpu)
    lines.append(row(f"fixed costs: the same build at scale {args.fixed_scale} ({f.fixed_rows:,} rows: "
                     "start, imports, parse, open, publish)", f.fixed,
                     f"the build less them is **{naive_all.wall / per_row.wall:.0f}x**, "
                     f"**{naive_all.cpu / per_row.cpu:.0f}x** faster than the naive loop", f.fixed_rows))
    if f.stages:
        lines += ["", "CPU seconds per stage of one more build each (in-process stage timers; imports and "
                  "interpreter start are in no stage):", ""]
        head = "| stage | CPU s |" + (" before, CPU s | before / now |" if f.stages_before else "")
        lines += [head, "|---|---:|" + ("---:|---:|" if f.stages_before else "")]
        for name in [*f.stages, "total"]:
            now = sum(f.stages.values()) if name == "total" else f.stages[name]
            cell = f"| {'**total**' if name == 'total' else name} | {now:.2f} |"
            if f.stages_before:
                was = sum(f.stages_before.values()) if name == "total" else f.stages_before.get(name, 0.0)
                cell += f" {was:.2f} | {was / now:.2f}x |" if now else f" {was:.2f} | |"
            lines.append(cell)
    lines += [
        "",
        f"Faker pools: {'from the on-disk cache' if f.cached_pools else 'made by Faker (an empty cache)'} "
        f"({f.cached_pools} cached pools when the first build started).",
        "",
        f"Peak memory of a build process: {f.peak_mib:,.0f} MiB. Targets: the build within 2.5x of the floor "
        f"(measured {build.wall / floor_.wall:.2f}x wall, {build.cpu / floor_.cpu:.2f}x CPU) and at least "
        f"100x faster than the naive loop (measured {naive_all.wall / build.wall:.0f}x wall, "
        f"{naive_all.cpu / build.cpu:.0f}x CPU).",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
