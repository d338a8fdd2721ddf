"""The description of a table's constraints: what it derives from the schema model."""

from __future__ import annotations

from decimal import Decimal

import pytest

from stateforge.constraints import KINDS, Coverage, table_constraints
from stateforge.schema.model import Check, Column, ForeignKey, Table


def orders() -> Table:
    return Table(
        "orders",
        [
            Column("id", "BIGINT"),  # nullable in the model, NOT NULL as the primary key
            Column("Code", "VARCHAR(6)", nullable=False, length=6),
            Column("status", "VARCHAR", allowed_values=["new", "paid", None]),
            Column("qty", "SMALLINT", default="1"),
            Column("price", "DECIMAL(5,2)", precision=5, scale=2),
            Column("customer_id", "INTEGER", nullable=False),
            Column("coupon_id", "INTEGER"),
            Column("serial", "INTEGER", identity=True),
        ],
        primary_key=("id",),
        unique=[("code",), ("CODE",), ("customer_id", "coupon_id"), ("id",)],
        foreign_keys=[
            ForeignKey(("customer_id",), "customers", ("id",)),
            ForeignKey(("coupon_id",), "coupons", ("id",), on_delete="CASCADE"),
            ForeignKey(("customer_id", "coupon_id"), "offers", ("customer_id", "coupon_id")),
        ],
        checks=[Check("qty BETWEEN 1 AND 99", ("qty",)), Check("price > 0 OR qty > 5", ("price", "qty"))],
    )


def test_columns_carry_type_range_length_nulls_and_defaults() -> None:
    tc = table_constraints(orders())
    pk, code, status, qty, price = (tc.column(c) for c in ("id", "code", "STATUS", "qty", "price"))
    assert pk.nullable is False and code.nullable is False and status.nullable is True
    assert (qty.low, qty.high) == (-32768, 32767) and qty.kind == "int"
    assert (price.low, price.high) == (Decimal("-999.99"), Decimal("999.99")) and price.kind == "decimal"
    assert code.max_length == 6 and code.low is None and code.kind == "str"
    assert status.allowed == ("new", "paid") and status.enforced_allowed == ("new", "paid")
    assert qty.required is False and tc.column("serial").required is False and code.required is True
    assert qty.facts is not None and (qty.facts.lo, qty.facts.hi) == (1, 99)
    assert [c.sql for c in qty.checks] == ["qty BETWEEN 1 AND 99", "price > 0 OR qty > 5"]
    assert [c.sql for c in tc.unhandled_checks] == ["price > 0 OR qty > 5"]
    with pytest.raises(KeyError, match="orders has no column 'nope'"):
        tc.column("nope")


def test_keys_are_listed_once_primary_first_and_know_their_nulls() -> None:
    tc = table_constraints(orders())
    assert [(k.columns, k.primary, k.nullable) for k in tc.unique_keys] == [
        (("id",), True, False),
        (("code",), False, False),
        (("customer_id", "coupon_id"), False, True),
    ]
    assert [k.columns for k in tc.column("coupon_id").unique] == [("customer_id", "coupon_id")]


def test_references_say_what_a_dangling_row_becomes() -> None:
    refs = table_constraints(orders()).references
    assert [(r.columns, r.nullable, r.dangling) for r in refs] == [
        (("customer_id",), (), "delete"),
        (("coupon_id",), ("coupon_id",), "delete"),  # ON DELETE CASCADE
        (("customer_id", "coupon_id"), ("coupon_id",), "set_null"),
    ]
    assert len(table_constraints(orders()).column("customer_id").references) == 2


def test_the_description_is_made_once_per_table_definition() -> None:
    assert table_constraints(orders()) is table_constraints(orders())
    changed = orders()
    changed.columns[1].length = 7
    assert table_constraints(changed).column("code").max_length == 7


@pytest.mark.parametrize(
    ("check", "covered"),
    [
        ("status IN ('b', 'a')", True),  # same set, another order
        ("(\"Status\" in ('a', 'b'))", True),
        ("status IN ('a', 'b', 'c')", False),
        ("status NOT IN ('a', 'b')", False),
        ("other IN ('a', 'b')", False),
        ("status IN (other, 'b')", False),
        ("status >", False),  # unparsable: enforce the list ourselves
    ],
)
def test_allowed_values_are_covered_only_by_an_equivalent_check(check: str, covered: bool) -> None:
    table = Table(
        "t", [Column("status", "VARCHAR", allowed_values=["a", "b"])], checks=[Check(check, ("status",))]
    )
    column = table_constraints(table).column("status")
    assert column.allowed_by_check is covered
    assert column.enforced_allowed == (() if covered else ("a", "b"))


def test_a_coverage_must_name_every_kind_once() -> None:
    enforced = {kind: ("rule",) for kind in KINDS}
    assert Coverage("fine", enforced, {}).consumer == "fine"
    with pytest.raises(TypeError, match=r"missing \['default'\]"):
        Coverage("forgetful", {k: v for k, v in enforced.items() if k != "default"}, {})
    with pytest.raises(TypeError, match=r"twice \['check'\]"):
        Coverage("confused", enforced, {"check": "someone else"})
    with pytest.raises(TypeError, match=r"unknown \['colour'\]"):
        Coverage("inventive", enforced, {"colour": "not a constraint"})
