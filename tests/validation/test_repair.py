"""Repairs: one golden case per rule (input batch + failures -> expected batch and count), then the loop."""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from stateforge.errors import BuildError
from stateforge.schema.model import Column, ForeignKey, Table
from stateforge.validation.batch import Failure
from stateforge.validation.repair import (
    REPAIRS,
    RepairContext,
    coerce_types,
    drop_invalid,
    redraw_dangling_keys,
    redraw_duplicates,
    repair_batch,
    truncate_to_length,
)

TABLE = Table(
    "t",
    [
        Column("id", "INTEGER", nullable=False),
        Column("name", "VARCHAR(3)", length=3),
        Column("price", "DECIMAL(4,1)", precision=4, scale=1),
        Column("parent", "INTEGER"),
    ],
    primary_key=("id",),
    foreign_keys=[ForeignKey(("parent",), "p", ("id",))],
)


def fail(rule: str, columns: tuple[str, ...], rows: list[int]) -> Failure:
    return Failure(rule, "t", columns, np.array(rows, dtype=np.int64), f"{rule} on {columns}")


class FakeKeys:
    """Stands in for TableKeys: the parent keys to redraw from are 7, 8, 9 in turn."""

    def __init__(self) -> None:
        self.fks = TABLE.foreign_keys
        self.next = 7

    def position(self, columns):
        return 0 if [c.lower() for c in columns] == ["parent"] else None

    def redraw(self, position, n, rng, uniform=False):
        values = pa.array(list(range(self.next, self.next + n)), pa.int32())
        self.next += n
        return {"parent": values}


def fresh(n: int, keep: dict[str, pa.Array]) -> pa.Table:
    """Replacement rows with ids from 1000 up."""
    base = {"id": pa.array(range(1000, 1000 + n), pa.int32()), "name": pa.array(["new"] * n),
            "price": pa.array([Decimal("1.0")] * n, pa.decimal128(4, 1)),
            "parent": pa.array([7] * n, pa.int32())}
    base.update(keep)
    return pa.table(base)


def ctx(**kw) -> RepairContext:
    keys, source = kw.pop("keys", FakeKeys()), kw.pop("fresh", fresh)
    return RepairContext(TABLE, np.random.default_rng(0), keys, source, **kw)


def batch(**columns) -> pa.Table:
    data = {"id": pa.array([1, 2, 3], pa.int32()), "name": pa.array(["a", "b", "c"]),
            "price": pa.array([Decimal("1.0")] * 3, pa.decimal128(4, 1)),
            "parent": pa.array([7, 8, 9], pa.int32())}
    data.update(columns)
    return pa.table(data)


def test_the_rules_run_in_the_documented_order():
    assert [r.__name__ for r in REPAIRS] == [
        "coerce_types", "truncate_to_length", "redraw_dangling_keys", "redraw_duplicates", "drop_invalid"]


def test_coerce_types_casts_clamps_and_nulls_what_cannot_convert():
    got, count = coerce_types(
        batch(id=pa.array(["1", "2", "x"]), price=pa.array([1.26, 5000.0, -2.0])),
        [fail("dtype", ("id",), []), fail("dtype", ("price",), [])], ctx())
    assert got.column("id").to_pylist() == [1, 2, None] and got.schema.field("id").type == pa.int32()
    assert got.column("price").to_pylist() == [Decimal("1.3"), Decimal("999.9"), Decimal("-2.0")]
    assert (count.rule, count.count, count.failures) == ("coerce_types", 6, (0, 1))


def test_coerce_types_rounds_and_clamps_numbers_into_an_integer_column():
    got, count = coerce_types(batch(id=pa.array([1.6, 3e10, -5.0])), [fail("dtype", ("id",), [])], ctx())
    assert got.column("id").to_pylist() == [2, 2_147_483_647, -5]
    assert got.schema.field("id").type == pa.int32()
    assert count.failures == (0,)


def test_coerce_types_clamps_range_failures_in_place():
    got, count = coerce_types(
        batch(price=pa.array([Decimal("1.0"), Decimal("12345.6"), None], pa.decimal128(6, 1))),
        [fail("range", ("price",), [1])], ctx())
    assert got.column("price").to_pylist()[:2] == [Decimal("1.0"), Decimal("999.9")]
    assert count.count == 1


def test_coerce_types_adds_a_missing_nullable_column():
    got, count = coerce_types(batch().drop_columns(["name"]), [fail("missing_column", ("name",), [])], ctx())
    assert got.column("name").null_count == 3 and count.failures == (0,)


def test_truncate_to_length_cuts_only_the_long_values():
    got, count = truncate_to_length(batch(name=pa.array(["abcdef", "ab", "wxyz"])),
                                    [fail("length", ("name",), [0, 2])], ctx())
    assert got.column("name").to_pylist() == ["abc", "ab", "wxy"]
    assert (count.count, count.failures) == (2, (0,))


def test_redraw_dangling_keys_gives_new_parents():
    got, count = redraw_dangling_keys(batch(parent=pa.array([7, 99, 98], pa.int32())),
                                      [fail("foreign_key", ("parent",), [1, 2])], ctx())
    assert got.column("parent").to_pylist() == [7, 7, 8]
    assert count.count == 2


def test_redraw_dangling_keys_leaves_kept_columns_alone():
    got, count = redraw_dangling_keys(batch(), [fail("foreign_key", ("parent",), [1])], ctx(keep=("parent",)))
    assert got.equals(batch()) and count.failures == ()


def test_redraw_duplicates_takes_fresh_values_for_non_key_parts():
    got, count = redraw_duplicates(batch(id=pa.array([1, 1, 1], pa.int32())),
                                   [fail("unique", ("id",), [1, 2])], ctx())
    assert got.column("id").to_pylist() == [1, 1000, 1001]
    assert (count.count, count.failures) == (2, (0,))


def test_redraw_duplicates_redraws_foreign_key_parts():
    # row 0 repeats row 1's parent (8); the redraw hands out 7, a value no row had before
    got, count = redraw_duplicates(batch(parent=pa.array([8, 8, 9], pa.int32())),
                                   [fail("stored", ("parent",), [0])], ctx())
    assert got.column("parent").to_pylist() == [7, 8, 9]
    assert got.column("id").to_pylist() == [1, 2, 3]  # the other columns stay
    assert (count.count, count.failures) == (1, (0,))


def test_redraw_duplicates_of_a_composite_key_redraws_both_kinds_of_part():
    # (parent, name) taken by rows 1 and 2: the parent comes from the parents, the name from fresh rows
    taken = batch(parent=pa.array([9, 9, 9], pa.int32()), name=pa.array(["a", "a", "a"]))
    got, count = redraw_duplicates(taken, [fail("unique", ("parent", "name"), [1, 2])], ctx())
    assert got.column("parent").to_pylist() == [9, 7, 8]
    assert got.column("name").to_pylist() == ["a", "new", "new"]
    assert count.count == 2


def test_redraw_duplicates_leaves_keys_made_of_kept_columns_to_drop_invalid():
    before = batch(parent=pa.array([8, 8, 9], pa.int32()))
    got, count = redraw_duplicates(before, [fail("unique", ("parent",), [0])], ctx(keep=("parent",)))
    assert got.equals(before) and (count.count, count.failures) == (0, ())


def test_drop_invalid_replaces_rows_and_keeps_kept_columns():
    got, count = drop_invalid(batch(), [fail("check", ("price",), [0, 2])], ctx(keep=("parent",)))
    assert got.column("id").to_pylist() == [2, 1000, 1001]
    assert got.column("parent").to_pylist() == [8, 7, 9]  # the replacements keep their rows' parents
    assert (count.rule, count.count) == ("drop_invalid", 2)


def test_drop_invalid_without_a_source_of_rows_just_drops():
    got, count = drop_invalid(batch(), [fail("not_null", ("name",), [1])], ctx(fresh=None))
    assert got.column("id").to_pylist() == [1, 3] and count.count == 1


def test_drop_invalid_refuses_a_missing_not_null_column():
    with pytest.raises(BuildError, match="NOT NULL without a default"):
        drop_invalid(batch(), [fail("missing_column", ("id",), [])], ctx())


def test_repair_batch_validates_again_after_repairs():
    seen = []

    def validate(b: pa.Table) -> list[Failure]:
        seen.append(b.column("name").to_pylist())
        long = [i for i, v in enumerate(b.column("name").to_pylist()) if v and len(v) > 3]
        return [fail("length", ("name",), long)] if long else []

    out = repair_batch(batch(name=pa.array(["abcd", "b", "c"])), validate, ctx())
    assert out.batch.column("name").to_pylist() == ["abc", "b", "c"]
    assert dict(out.repairs) == {"truncate_to_length": 1} and out.shortfall == 0 and len(seen) == 2


def test_repair_batch_drops_what_stays_invalid_and_reports_the_shortfall():
    def validate(b: pa.Table) -> list[Failure]:
        bad = [i for i, v in enumerate(b.column("id").to_pylist()) if v == 2 or v >= 1000]
        return [fail("check", ("id",), bad)] if bad else []

    out = repair_batch(batch(), validate, ctx(), rounds=3)
    assert out.batch.column("id").to_pylist() == [1, 3]
    assert out.shortfall == 1 and out.repairs["drop_invalid"] == 3 + 1


def test_repair_batch_raises_when_no_row_can_be_made_valid():
    def validate(b: pa.Table) -> list[Failure]:
        return [fail("check", ("price",), list(range(b.num_rows)))]

    with pytest.raises(BuildError, match=r"cannot satisfy CHECK .*no row passed after 2 rounds"):
        repair_batch(batch(), validate, ctx(), rounds=2)
