"""The stored-key look-ups a batch skips (`WrittenRanges`) never hide a key already stored."""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import pyarrow as pa

from stateforge.graph import plan_fill
from stateforge.schema.model import Column, Schema, Table
from stateforge.store import create_tables
from stateforge.validation.batch_ranges import WrittenRanges
from stateforge.validation.batch_store import store_failures


def _table() -> Table:
    return Table(
        "plays",
        [
            Column("id", "BIGINT", nullable=False),
            Column("code", "VARCHAR", nullable=False),
            Column("user_id", "INTEGER"),
            Column("day", "DATE"),
            Column("score", "DOUBLE"),
        ],
        primary_key=("id",),
        unique=[("code",), ("user_id", "day"), ("score",)],
    )


def _batch(rng: np.random.Generator, n: int, id_low: int, id_high: int) -> pa.Table:
    days = [dt.date(2024, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 40, n)]
    users = rng.integers(0, 30, n)
    return pa.table({
        "id": pa.array(rng.choice(np.arange(id_low, id_high), n, replace=False), pa.int64()),
        "code": pa.array([f"c{int(x):04d}" for x in rng.choice(5000, n, replace=False)]),
        "user_id": pa.array(users, pa.int32(), mask=rng.random(n) < 0.2),
        "day": pa.array(days, pa.date32()),
        "score": pa.array(rng.random(n).round(2)),
    })


def test_skipped_look_ups_find_nothing_the_full_ones_would() -> None:
    """Batches that advance, overlap or fall behind the stored ranges: skipping by range finds exactly
    the stored repeats that looking every key up finds (were a skip wrong, a repeat would go unseen)."""
    table = _table()
    rng = np.random.default_rng(11)
    skipped = 0
    with duckdb.connect() as con:
        create_tables(con, Schema([table]), plan_fill(Schema([table])))
        written = WrittenRanges(table)
        for i, (low, high) in enumerate([(0, 400), (400, 800), (300, 900), (900, 1300), (0, 2000),
                                         (2000, 2400), (2400, 2800)]):
            batch = _batch(rng, 60, low, high)
            checked = written.keys_to_check(batch) if i else []
            skipped += len(written.keys) - len(checked)
            full = store_failures(con, table, batch, stored=i > 0)
            fast = store_failures(con, table, batch, stored=checked)
            assert [(f.columns, list(f.rows)) for f in fast] == [(f.columns, list(f.rows)) for f in full]
            bad = np.unique(np.concatenate([f.rows for f in full] + [np.zeros(0, np.int64)]))
            keep = batch.filter(pa.array(~np.isin(np.arange(batch.num_rows), bad)))
            con.register("b", keep)
            con.execute("INSERT INTO plays BY NAME SELECT * FROM b ON CONFLICT DO NOTHING")
            con.unregister("b")
            written.add(keep)
        assert skipped > 0  # the ids that advance skip their look-ups


def test_ranges_decide_per_column_and_keep_untracked_types() -> None:
    table = _table()
    written = WrittenRanges(table)
    first = pa.table({"id": pa.array([5, 9], pa.int64()), "code": ["b", "d"],
                      "user_id": pa.array([None, None], pa.int32()),
                      "day": pa.array([dt.date(2024, 1, 2)] * 2), "score": [0.5, 0.7]})
    written.add(first)
    later = pa.table({"id": pa.array([10, 11], pa.int64()), "code": ["c", "e"],
                      "user_id": pa.array([1, 2], pa.int32()),
                      "day": pa.array([dt.date(2024, 1, 2)] * 2), "score": [0.9, 1.5]})
    # id advances: skipped; "c" lies inside [b, d]: looked up; user_id was only ever NULL: nothing
    # stored to repeat; a DOUBLE keeps no range, so its key is always looked up
    assert written.keys_to_check(later) == [("code",), ("score",)]
    behind = later.set_column(0, "id", pa.array([1, 9], pa.int64()))
    assert ("id",) in written.keys_to_check(behind)
