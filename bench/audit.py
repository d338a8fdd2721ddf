"""What the audit costs: a 1M-row child table audited against a 100k-row parent.

    .venv/bin/python bench/audit.py [--rows 1000000] [--runs 5] [--no-write]

Builds a database with `create_database` (accounts: 100k rows; payments: --rows rows with a single and a
composite foreign key to accounts, a UNIQUE, a CHECK and allowed values), loads it from Arrow, then times
the full audit (median of --runs), each of its checks, and two baselines for the foreign-key orphan
check: the `EXCEPT` formulation and a pandas merge (data already in memory). Prints a markdown report and
writes it to docs/BENCHMARKS.md under "## Audit (bench/audit.py)", leaving other sections alone.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from _doc import DOC, write_section

from stateforge.graph import plan_fill
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.store import create_database
from stateforge.validation.audit import audit, run_check
from stateforge.validation.checks import build_checks

HEADING = "Audit (bench/audit.py)"
REGIONS = ["eu", "us", "apac", "latam", "mea", "cn", "in", "jp"]


def bench_schema() -> Schema:
    accounts = Table(
        "accounts",
        [
            Column("id", "BIGINT", nullable=False, identity=True),
            Column("region", "VARCHAR", nullable=False),
            Column("number", "INTEGER", nullable=False),
        ],
        primary_key=("id",),
        unique=[("region", "number")],
    )
    payments = Table(
        "payments",
        [
            Column("id", "BIGINT", nullable=False),
            Column("account_id", "BIGINT", nullable=False),
            Column("region", "VARCHAR"),
            Column("number", "INTEGER"),
            Column("reference", "VARCHAR", nullable=False),
            Column("amount", "DECIMAL(12,2)", nullable=False),
            Column("status", "VARCHAR", nullable=False, allowed_values=["ok", "refunded", "disputed"]),
        ],
        primary_key=("id",),
        unique=[("reference",)],
        foreign_keys=[
            ForeignKey(("account_id",), "accounts", ("id",)),
            ForeignKey(("region", "number"), "accounts", ("region", "number")),
        ],
        checks=[Check("amount >= 0", ("amount",))],
    )
    return Schema([accounts, payments])


def load(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    con.register("_bench_rows", data)
    try:
        con.execute(f'INSERT INTO "{table}" SELECT * FROM _bench_rows')
    finally:
        con.unregister("_bench_rows")


def accounts_arrow(n: int) -> pa.Table:
    ids = np.arange(1, n + 1, dtype=np.int64)
    return pa.table({
        "id": ids,
        "region": pa.array(np.array(REGIONS)[ids % len(REGIONS)]),
        "number": (ids // len(REGIONS)).astype(np.int32),
    })


def payments_arrow(n: int, parents: pa.Table, rng: np.random.Generator, first_id: int = 1) -> pa.Table:
    ids = np.arange(first_id, first_id + n, dtype=np.int64)
    pick = rng.integers(0, parents.num_rows, n)
    return pa.table({
        "id": ids,
        "account_id": parents["id"].to_numpy()[pick],
        "region": parents["region"].take(pa.array(pick)),
        "number": parents["number"].take(pa.array(pick)),
        "reference": pc.binary_join_element_wise("R", pa.array(ids).cast(pa.string()), ""),
        "amount": rng.integers(0, 1_000_000, n) / 100,
        "status": pa.array(np.array(["ok", "refunded", "disputed"])[rng.integers(0, 3, n)]),
    })


def median_ms(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def orphan_baselines(
    con: duckdb.DuckDBPyConnection, cols: tuple[str, ...], ref: tuple[str, ...], runs: int
) -> dict[str, float]:
    """Other ways to find the orphans of payments(cols) -> accounts(ref), timed the same way."""
    present = " AND ".join(f"c.{c} IS NOT NULL" for c in cols)
    match = " AND ".join(f"p.{r} = c.{c}" for c, r in zip(cols, ref, strict=True))
    not_exists = (
        f"SELECT count(*) FROM payments AS c WHERE {present} "
        f"AND NOT EXISTS (SELECT 1 FROM accounts AS p WHERE {match})"
    )
    except_ = (
        f"SELECT count(*) FROM (SELECT {', '.join(cols)} FROM payments AS c WHERE {present} "
        f"EXCEPT SELECT {', '.join(ref)} FROM accounts)"
    )
    child = con.sql(f"SELECT id, {', '.join(cols)} FROM payments").df()
    parent = con.sql(f"SELECT DISTINCT {', '.join(ref)} FROM accounts").df()

    def pandas_merge() -> int:
        merged = child.dropna(subset=list(cols)).merge(
            parent, left_on=list(cols), right_on=list(ref), how="left", indicator=True
        )
        return int((merged["_merge"] == "left_only").sum())

    return {
        "`NOT EXISTS` (standard SQL)": median_ms(lambda: con.sql(not_exists).fetchall(), runs),
        "`EXCEPT` (distinct orphan keys, not rows)": median_ms(lambda: con.sql(except_).fetchall(), runs),
        "pandas merge (frames already in memory)": median_ms(pandas_merge, runs),
    }


def measure(rows: int, parents: int, runs: int, workdir: Path) -> list[str]:
    """Build, load and time everything; return the report's markdown lines."""
    rng = np.random.default_rng(7)
    schema = bench_schema()
    path = create_database(schema, plan_fill(schema), workdir / "audit-bench.duckdb")
    con = duckdb.connect(str(path))
    accounts = accounts_arrow(parents)
    started = time.perf_counter()
    load(con, "accounts", accounts)
    load(con, "payments", payments_arrow(rows, accounts, rng))
    load_s = time.perf_counter() - started

    report = audit(con)
    assert report.clean, report.summary()
    full_ms = median_ms(lambda: audit(con), runs)
    per_check = [(q, median_ms(lambda q=q: run_check(con, q), runs)) for q in build_checks(schema)]
    baselines = []
    for q, ms in per_check:
        if q.kind == "foreign_key":
            baselines.append(f"| FK orphans `{q.constraint}`: the audit's `ANTI JOIN` | {ms:.1f} | 1.0x |")
            for name, other in orphan_baselines(con, q.columns, q.ref_columns, runs).items():
                baselines.append(f"| same, {name} | {other:.1f} | {other / ms:.1f}x |")

    seeded = payments_arrow(1000, accounts, rng, first_id=rows + 1)
    seeded = seeded.set_column(1, "account_id", pc.add(seeded["account_id"], parents))  # no such account
    load(con, "payments", seeded)
    dirty = audit(con)
    dirty_ms = median_ms(lambda: audit(con), runs)
    con.close()

    n_checks = len(per_check)
    lines = [
        f"Command: `.venv/bin/python bench/audit.py --rows {rows}` ({dt.date.today().isoformat()}; "
        f"{os.cpu_count()} cores, DuckDB {duckdb.__version__}, pandas {pd.__version__}). "
        f"Tables: accounts {parents:,} rows, payments {rows:,} rows (loaded from Arrow in {load_s:.2f} s "
        f"with PK, UNIQUE and CHECK declared). Times are medians of {runs} runs.",
        "",
        "| what | ms | vs the audit's query |",
        "|---|---:|---:|",
        f"| **full audit**, {n_checks} checks + row counts, clean | **{full_ms:.0f}** | |",
        f"| full audit, {dirty.total:,} orphans seeded (counts + 5 sample keys) | {dirty_ms:.0f} | |",
        *baselines,
        "",
        "Each check of the clean audit:",
        "",
        "| check | constraint | ms |",
        "|---|---|---:|",
        *(f"| {q.kind} | `{q.constraint}` | {ms:.1f} |" for q, ms in per_check),
    ]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows of the child table")
    parser.add_argument("--parents", type=int, default=None, help="rows of the parent table (rows / 10)")
    parser.add_argument("--runs", type=int, default=5, help="runs per timing; the median is reported")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    parents = args.parents or max(args.rows // 10, 1)
    with tempfile.TemporaryDirectory(prefix="stateforge-bench-") as tmp:
        lines = measure(args.rows, parents, args.runs, Path(tmp))
    print("\n".join([f"## {HEADING}", "", *lines]))
    if not args.no_write:
        write_section(HEADING, "\n".join(lines))
        print(f"\nwritten to {DOC}")


if __name__ == "__main__":
    main()
