"""CHECKs evaluated with Arrow give DuckDB's answer row for row, or decline (None) and leave it to SQL."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from stateforge.domain.loader import load_domain
from stateforge.schema.model import Check, Table
from stateforge.types import batch_arrow_type
from stateforge.validation.batch_checks import arrow_check


def _values(typ: pa.DataType, literals: list[str], n: int, rng: np.random.Generator) -> pa.Array:
    """`n` values of `typ` that meet the CHECK's literals: equal, just off, far off; 20% NULL."""
    nulls = rng.random(n) < 0.2
    numbers = [x for x in literals if re.fullmatch(r"-?\d+(\.\d+)?", x)]
    if pa.types.is_integer(typ):
        near = [int(Decimal(x)) + d for x in numbers for d in (-1, 0, 1)]
        info = np.iinfo(typ.to_pandas_dtype())
        values = np.clip(rng.choice(np.array(near + [-3, 0, 1, 7], dtype=np.int64), n), info.min, info.max)
        return pa.array(values, typ, mask=nulls)
    if pa.types.is_decimal(typ) or pa.types.is_floating(typ):
        step = Decimal(1).scaleb(-typ.scale) if pa.types.is_decimal(typ) else Decimal("0.01")
        pool = [Decimal(x).quantize(step) + d for x in numbers for d in (-step, 0, step)] or [Decimal(0)]
        picked = [pool[i] for i in rng.integers(0, len(pool), n)]
        values = pa.array([float(v) for v in picked]) if pa.types.is_floating(typ) else pa.array(picked)
        return pc.if_else(pa.array(nulls), pa.scalar(None, typ), values.cast(typ))
    if pa.types.is_boolean(typ):
        return pa.array(rng.random(n) < 0.5, mask=nulls)
    if pa.types.is_timestamp(typ) or pa.types.is_date(typ) or pa.types.is_time(typ):
        stamps = pa.array([dt.datetime(2024, 1, 1, 9) + dt.timedelta(days=int(d), hours=int(h))
                           for d, h in zip(rng.integers(0, 3, n), rng.integers(0, 3, n), strict=True)])
        values = pc.cast(stamps, pa.time64("us")) if pa.types.is_time(typ) else stamps.cast(typ)
        return pc.if_else(pa.array(nulls), pa.scalar(None, typ), values.cast(typ))
    if pa.types.is_string(typ):
        pool = [x for x in literals if x not in numbers] + ["zzz", ""]
        return pa.array([pool[i] for i in rng.integers(0, len(pool), n)], typ, mask=nulls)
    return pa.nulls(n, typ)


_CON = duckdb.connect()


def _duckdb_rows(sql: str, batch: pa.Table) -> list[int]:
    _CON.register("b", batch.append_column("__row", pa.array(np.arange(batch.num_rows))))
    try:
        return sorted(r for (r,) in _CON.execute(f"SELECT __row FROM b WHERE NOT ({sql})").fetchall())
    finally:
        _CON.unregister("b")


def _batch(table: Table, check: Check, rng: np.random.Generator, n: int = 400) -> pa.Table:
    literals = re.findall(r"'([^']*)'|(-?\d+(?:\.\d+)?)", check.sql)
    flat = [a or b for a, b in literals]
    return pa.table({c: _values(batch_arrow_type(table.column(c).type), flat, n, rng) for c in check.columns})


@pytest.mark.parametrize("pack", ["music", "game", "meeting"])
def test_every_check_of_the_packs_matches_duckdb_or_declines(pack: str) -> None:
    schema = load_domain(pack).schema
    rng = np.random.default_rng(5)
    evaluated = declined = 0
    for table in schema.tables:
        for check in table.checks:
            batch = _batch(table, check, rng)
            rows = arrow_check(check.sql, batch)
            if rows is None:
                declined += 1
                continue
            evaluated += 1
            assert rows.tolist() == _duckdb_rows(check.sql, batch), f"{table.name}: {check.sql}"
    assert evaluated > 3 * declined  # the common shapes are all evaluated here


@pytest.mark.parametrize(("sql", "columns"), [
    ("a IS NULL OR a <> b", {"a": pa.int64(), "b": pa.int64()}),
    ("(s IN ('x', 'y')) = (t IS NULL)", {"s": pa.string(), "t": pa.timestamp("us")}),
    ("(s = 'x') = (NOT t IS NULL)", {"s": pa.string(), "t": pa.timestamp("us")}),
    ("NOT (p AND q)", {"p": pa.bool_(), "q": pa.bool_()}),
    ("p OR a BETWEEN -2 AND 3", {"p": pa.bool_(), "a": pa.int16()}),
    ("a NOT IN (1, 7) AND s NOT BETWEEN 'a' AND 'm'", {"a": pa.int32(), "s": pa.string()}),
    ("price >= 0.01 AND price < 100", {"price": pa.decimal128(6, 2)}),
    ("d2 > d1", {"d1": pa.date32(), "d2": pa.date32()}),
    ("p = TRUE", {"p": pa.bool_()}),
])
def test_shapes_match_duckdb_with_nulls_ties_and_misses(sql: str, columns: dict[str, pa.DataType]) -> None:
    rng = np.random.default_rng(9)
    literals = [a or b for a, b in re.findall(r"'([^']*)'|(-?\d+(?:\.\d+)?)", sql)]
    batch = pa.table({c: _values(t, literals, 500, rng) for c, t in columns.items()})
    rows = arrow_check(sql, batch)
    assert rows is not None
    assert rows.tolist() == _duckdb_rows(sql, batch)
    assert len(rows) and len(rows) < batch.num_rows  # the batch has rows each way


@pytest.mark.parametrize(("sql", "columns"), [
    ("hash(a) % 2 = 0", {"a": pa.int64()}),                 # a function
    ("a + 1 > 2", {"a": pa.int64()}),                       # arithmetic
    ("a > 0.5", {"a": pa.int64()}),                         # SQL would compare as decimals
    ("f > 0", {"f": pa.float64()}),                         # NaN orders differently in DuckDB
    ("d >= '2024-01-01'", {"d": pa.date32()}),              # a date spelt as text
    ("a IN (1, NULL)", {"a": pa.int64()}),                  # a NULL in the list
    ("a > b", {"a": pa.int32(), "b": pa.int64()}),          # SQL casts one side
    ("a < 100000", {"a": pa.int16()}),                      # outside the column's type
    ("price > 0.001", {"price": pa.decimal128(6, 2)}),      # not a value of the column's type
    ("s = 1", {"s": pa.string()}),                          # a string against a number
    ("missing > 1", {"a": pa.int64()}),                     # not in the batch
])
def test_what_sql_must_judge_is_declined(sql: str, columns: dict[str, pa.DataType]) -> None:
    batch = pa.table({c: pa.nulls(3, t) for c, t in columns.items()})
    assert arrow_check(sql, batch) is None
