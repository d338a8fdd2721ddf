"""Canonical JSON values: one spelling per value, whatever the machine."""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal

import duckdb

from stateforge.values import dumps, json_row, json_value


def test_scalars_keep_their_exact_spelling() -> None:
    assert json_value(Decimal("12.50")) == "12.50"
    assert json_value(dt.datetime(2026, 6, 30, 12, 0)) == "2026-06-30T12:00:00"
    assert json_value(dt.date(2026, 6, 30)) == "2026-06-30"
    assert json_value(dt.time(9, 30)) == "09:30:00"
    assert json_value(dt.timedelta(minutes=2)) == 120.0
    assert json_value(float("nan")) == "NaN"
    assert json_value(float("-inf")) == "-Infinity"
    assert json_value(uuid.UUID(int=1)) == "00000000-0000-0000-0000-000000000001"
    assert json_value(b"\x00\xff") == "00ff"
    assert json_value(None) is None and json_value(True) is True and json_value(3) == 3


def test_values_read_from_duckdb_round_trip_to_the_same_text() -> None:
    con = duckdb.connect()
    row = con.execute(
        "SELECT 12.50::DECIMAL(8,2) AS d, TIMESTAMP '2026-01-02 03:04:05' AS ts, [1, 2] AS l, "
        "{'a': DATE '2026-01-02'} AS s, NULL AS n"
    ).fetchone()
    names = [c[0] for c in con.description]
    assert json_row(dict(zip(names, row, strict=True))) == {
        "d": "12.50", "ts": "2026-01-02T03:04:05", "l": [1, 2], "s": {"a": "2026-01-02"}, "n": None,
    }


def test_dumps_is_canonical() -> None:
    assert dumps({"b": Decimal("1.0"), "a": "é"}) == '{"a":"é","b":"1.0"}'
