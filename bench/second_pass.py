"""Benchmark of the second pass's two writes, each against the way it replaced, in one run.

    .venv/bin/python bench/second_pass.py [--rows 60000] [--children 1000000] [--repeats 5] [--no-write]

1. Setting a deferred key on every row of a table whose CHECK reads the key with the primary key
   (`users.referred_by_user_id <> user_id`): DuckDB's `UPDATE ... FROM` against `rewrite_table` (the table
   built anew and moved into place), each in its own transaction, on a fresh copy of the same table.
2. The orphan cleanup on `--children` rows with 1% of them dangling: counting the dangling rows and
   deleting them, with the cleanup's anti-join (`stateforge.store.sql.orphans_sql`) against NOT EXISTS.

Medians of `--repeats` runs; prints a markdown section and, unless `--no-write`, replaces the "Second
pass" section of docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from _doc import write_section

from stateforge.schema.model import Check, Column, Table
from stateforge.store import rewrite_table, table_ddl
from stateforge.store.sql import orphans_sql, table_ref

USERS = Table(
    "users",
    [Column("user_id", "BIGINT", nullable=False), Column("email", "VARCHAR", nullable=False),
     Column("name", "VARCHAR"), Column("referred_by_user_id", "BIGINT")],
    primary_key=("user_id",),
    unique=[("email",)],
    checks=[Check("referred_by_user_id IS NULL OR referred_by_user_id <> user_id",
                  ("referred_by_user_id", "user_id"))],
)


Step = Callable[[duckdb.DuckDBPyConnection], object]


def timed(work: Step, setup: Step, repeats: int) -> float:
    """Median seconds of `work` (in a transaction, committed) on a fresh database made by `setup`."""
    times = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as tmp, duckdb.connect(str(Path(tmp) / "b.duckdb")) as con:
            setup(con)
            con.execute("CHECKPOINT")
            started = time.perf_counter()
            con.begin()
            work(con)
            con.commit()
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def deferred_key(rows: int, repeats: int) -> tuple[float, float]:
    """(UPDATE, rewrite) seconds to set the self-reference of every row."""
    ids = np.arange(1, rows + 1, dtype=np.int64)
    update = pa.table({"id": ids, "ref": np.roll(ids, 1)})

    def setup(con: duckdb.DuckDBPyConnection) -> None:
        con.execute(table_ddl(USERS))
        con.execute(f"INSERT INTO users SELECT range, 'u' || range, 'n', NULL FROM range(1, {rows + 1})")
        con.register("u", update)

    def by_update(con: duckdb.DuckDBPyConnection) -> None:
        sql = "UPDATE users AS t SET referred_by_user_id = u.ref FROM u WHERE t.user_id = u.id"
        con.execute(sql).fetchall()

    def by_rewrite(con: duckdb.DuckDBPyConnection) -> None:
        rewrite_table(con, USERS, "SELECT t.user_id, t.email, t.name, u.ref FROM main.users AS t "
                                  "LEFT JOIN u ON t.user_id = u.id ORDER BY t.rowid")

    return timed(by_update, setup, repeats), timed(by_rewrite, setup, repeats)


def orphans(children: int, repeats: int) -> dict[str, float]:
    """Seconds to count, then delete, the 1% of `children` whose parent is gone: anti-join vs NOT EXISTS."""

    def setup(con: duckdb.DuckDBPyConnection) -> None:
        con.execute("CREATE TABLE parents (id BIGINT PRIMARY KEY)")
        con.execute(f"INSERT INTO parents SELECT range FROM range({children // 10})")
        con.execute("CREATE TABLE children (id BIGINT PRIMARY KEY, parent_id BIGINT)")
        con.execute(f"INSERT INTO children SELECT range, CASE WHEN range % 100 = 0 THEN -1 ELSE range % "
                    f"{children // 10} END FROM range({children})")

    anti = orphans_sql(table_ref("children"), ["parent_id"], table_ref("parents"), ["id"], "c.rowid")
    exists = ("SELECT c.rowid FROM main.children AS c WHERE c.parent_id IS NOT NULL AND NOT EXISTS "
              "(SELECT 1 FROM main.parents AS p WHERE p.id = c.parent_id)")
    out = {}
    for name, rows in (("anti-join", anti), ("NOT EXISTS", exists)):
        out[f"count, {name}"] = timed(
            lambda con, r=rows: con.execute(f"SELECT count(*) FROM ({r})").fetchall(), setup, repeats)
        out[f"delete, {name}"] = timed(
            lambda con, r=rows: con.execute(f"DELETE FROM main.children WHERE rowid IN ({r})").fetchall(),
            setup, repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for flag, default, meaning in (("--rows", 60_000, "rows of the table whose key is set"),
                                   ("--children", 1_000_000, "child rows of the cleanup"),
                                   ("--repeats", 5, "runs of each (medians)")):
        parser.add_argument(flag, type=int, default=default, help=meaning)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/BENCHMARKS.md alone")
    args = parser.parse_args()
    update_s, rewrite_s = deferred_key(args.rows, args.repeats)
    cleanup = orphans(args.children, args.repeats)
    lines = [
        f"Command: `.venv/bin/python bench/second_pass.py --rows {args.rows} --children {args.children}` "
        f"({dt.date.today()}; 2 cores, shared: compare the ratios). Medians of {args.repeats} runs, each on "
        "a fresh database, the write and its commit timed.",
        "",
        f"A deferred key set on all {args.rows:,} rows of `users(user_id PK, email UNIQUE, name, "
        "referred_by_user_id)` with `CHECK (referred_by_user_id IS NULL OR referred_by_user_id <> user_id)`:",
        "",
        "| how | seconds | vs the rewrite |",
        "|---|---:|---:|",
        f"| **`rewrite_table`** (the second pass): the table built anew, moved into place | {rewrite_s:.2f} "
        "| 1.0x |",
        f"| `UPDATE ... FROM` (DuckDB runs it as a delete and re-insert of every row) | {update_s:.2f} "
        f"| {update_s / rewrite_s:.1f}x |",
        "",
        f"The orphan cleanup on {args.children:,} children, 1% of them dangling:",
        "",
        "| query | ms | vs the anti-join |",
        "|---|---:|---:|",
    ]
    for step in ("count", "delete"):
        base = cleanup[f"{step}, anti-join"]
        for name in ("anti-join", "NOT EXISTS"):
            value = cleanup[f"{step}, {name}"]
            label = f"**{step}, {name}** (the cleanup)" if name == "anti-join" else f"{step}, {name}"
            lines.append(f"| {label} | {value * 1000:.0f} | {value / base:.1f}x |")
    text = "\n".join(lines)
    print(text)
    if not args.no_write:
        write_section("Second pass (bench/second_pass.py)", text)


if __name__ == "__main__":
    main()
