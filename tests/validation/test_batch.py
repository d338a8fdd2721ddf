"""Batch validation: each check on a seeded bad batch, against a real DuckDB holding stored rows."""

from __future__ import annotations

from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from stateforge.graph import plan_fill
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.store import create_tables
from stateforge.validation.batch import schema_failures, store_failures, validate_batch
from stateforge.validation.batch_arrow import duplicate_rows


def items_table() -> Table:
    return Table(
        "items",
        [
            Column("id", "BIGINT", nullable=False),
            Column("code", "VARCHAR(4)", nullable=False, length=4),
            Column("status", "VARCHAR", allowed_values=["new", "paid"]),
            Column("low", "INTEGER"),
            Column("high", "INTEGER"),
            Column("price", "DECIMAL(5,2)", precision=5, scale=2),
            Column("shop_id", "INTEGER"),
            Column("note", "VARCHAR", default="'-'"),
        ],
        primary_key=("id",),
        unique=[("code",), ("low", "high")],
        foreign_keys=[ForeignKey(("shop_id",), "shops", ("id",))],
        checks=[Check("low < high", ("low", "high"))],
    )


def schema() -> Schema:
    shops = Table("shops", [Column("id", "INTEGER", nullable=False)], primary_key=("id",))
    return Schema([shops, items_table()])


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    s = schema()
    con = duckdb.connect()
    create_tables(con, s, plan_fill(s))
    con.execute("INSERT INTO shops VALUES (1), (2)")
    con.execute("INSERT INTO items (id, code, status, low, high, price, shop_id) "
                "VALUES (100, 'zz', 'new', 50, 60, 1, 1)").fetchall()
    return con


def good(n: int = 4) -> dict[str, pa.Array]:
    return {
        "id": pa.array(np.arange(1, n + 1), pa.int64()),
        "code": pa.array([f"c{i}" for i in range(n)]),
        "status": pa.array(["new"] * n),
        "low": pa.array(np.arange(n), pa.int32()),
        "high": pa.array(np.arange(n) + 10, pa.int32()),
        "price": pa.array([Decimal("1.50")] * n, pa.decimal128(5, 2)),
        "shop_id": pa.array([1, 2, None, 1], pa.int32())[:n],
    }


def bad(**columns: pa.Array) -> pa.Table:
    data = good()
    data.update(columns)
    return pa.table(data)


def rules(failures) -> dict[str, tuple[tuple[str, ...], list[int]]]:
    return {f.rule: (f.columns, f.rows.tolist()) for f in failures}


def test_a_good_batch_has_no_failures(con):
    assert validate_batch(con, items_table(), pa.table(good())) == []


@pytest.mark.parametrize(
    ("columns", "rule", "expected"),
    [
        ({"code": pa.array(["a", "toolong", "b", "c"])}, "length", (("code",), [1])),
        ({"status": pa.array(["new", "lost", None, "paid"])}, "allowed_values", (("status",), [1])),
        ({"code": pa.array(["a", None, "b", "c"])}, "not_null", (("code",), [1])),
        ({"price": pa.array([Decimal("1"), None, None, Decimal("0")], pa.decimal128(6, 2))}, "dtype",
         (("price",), [])),
        ({"id": pa.array([1, 2, 2, 1], pa.int64())}, "unique", (("id",), [2, 3])),
        ({"low": pa.array([1, 1, None, None], pa.int32()), "high": pa.array([5, 5, None, None], pa.int32())},
         "unique", (("low", "high"), [1])),  # NULLs never clash in a UNIQUE key
    ],
)
def test_schema_checks(columns, rule, expected):
    failures = schema_failures(items_table(), bad(**columns), batch_no=7)
    assert rules(failures)[rule] == expected
    assert all(f.batch == 7 and "table items" in f.message and "batch 7" in f.message for f in failures)


def test_decimal_precision_is_a_range_check():
    table = items_table()
    wide = pa.array([Decimal("999.99"), Decimal("1000.00"), None, Decimal("-1000.50")], pa.decimal128(7, 2))
    frame = bad(price=wide.cast(pa.decimal128(5, 2), safe=False))  # Arrow does not check precision here
    assert rules(schema_failures(table, frame))["range"] == (("price",), [1, 3])


def test_missing_columns_with_a_default_are_fine_others_are_not():
    table = items_table()
    assert schema_failures(table, bad()) == []  # `note` has a default
    failures = schema_failures(table, bad().drop_columns(["code"]))
    assert rules(failures)["missing_column"] == (("code",), [])


@pytest.mark.parametrize(
    ("columns", "rule", "expected"),
    [
        ({"id": pa.array([1, 100, 3, 4], pa.int64())}, "stored", (("id",), [1])),
        ({"code": pa.array(["a", "b", "zz", "c"])}, "stored", (("code",), [2])),
        ({"shop_id": pa.array([1, 9, None, 3], pa.int32())}, "foreign_key", (("shop_id",), [1, 3])),
        ({"low": pa.array([5, 1, 2, 3], pa.int32()), "high": pa.array([4, 2, 2, 4], pa.int32())}, "check",
         (("low", "high"), [0, 2])),
    ],
)
def test_store_checks(con, columns, rule, expected):
    failures = store_failures(con, items_table(), bad(**columns), batch_no=2)
    assert rules(failures)[rule] == expected
    f = next(f for f in failures if f.rule == rule)
    assert f"columns {', '.join(expected[0])}" in f.message or f"column {expected[0][0]}" in f.message


def test_foreign_keys_can_be_limited(con):
    frame = bad(shop_id=pa.array([1, 9, None, 3], pa.int32()))
    assert store_failures(con, items_table(), frame, fks=[]) == []


def test_validate_batch_combines_both_halves_and_skips_the_store_on_bad_dtypes(con):
    frame = bad(code=pa.array(["a", "toolong", "b", "c"]), id=pa.array([1, 100, 3, 4], pa.int64()))
    assert set(rules(validate_batch(con, items_table(), frame))) == {"length", "stored"}
    wrong = bad(id=pa.array(["1", "2", "3", "x"]))
    assert set(rules(validate_batch(con, items_table(), wrong))) == {"dtype"}


@pytest.mark.parametrize(
    ("columns", "expected"),
    [
        ({"a": pa.array([1, 2, 3], pa.int64())}, []),  # in order: no hashing
        ({"a": pa.array([3, 1, 3, 1, 2], pa.int16())}, [2, 3]),
        ({"a": pa.array([1, 1, 1], pa.int32()), "b": pa.array([1, 2, 1], pa.int8())}, [2]),
        ({"a": pa.array([2**62, -(2**62), 2**62], pa.int64()), "b": pa.array([5, 5, 5], pa.int64())}, [2]),
        ({"a": pa.array(["x", "y", "x", None, None])}, [2]),  # NULLs never clash
        ({"a": pa.array([1, 1, None], pa.int64()), "b": pa.array(["p", "p", "p"])}, [1]),
        ({"a": pa.array([1, None, 1], pa.int64()), "b": pa.array([None, 2, 2], pa.int64())}, []),
    ],
)
def test_duplicate_rows_whatever_the_key_types(columns, expected):
    assert duplicate_rows(pa.table(columns)).tolist() == expected
