"""DuckDB's key, NOT NULL and CHECK failures, and lengths and types it does not check, as readable errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stateforge.episode import Episode
from stateforge.tools import Env, Toolkit, tool
from tests.episode.fixture import full_toolkit, shop_schema


@tool(kind="write", writes=("customers",))
def raw_customer(env: Env, values: dict[str, Any]) -> dict:
    """Insert a customer row as given (to reach the database's own checks).

    Args:
        values: Column to value.
    """
    return env.insert("customers", values)


@pytest.fixture
def cep(shop_db: Path, tmp_path: Path):
    kit = Toolkit([raw_customer, *full_toolkit(shop_schema())])
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as episode:
        yield episode


GOOD = {"email": "a@shop.test", "name": "A", "created_at": "2025-01-01T00:00:00"}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({**GOOD, "email": None}, "table customers, column email: a value is required (NOT NULL)."),
        ({k: v for k, v in GOOD.items() if k != "name"}, "table customers, column name: a value is required"),
        (
            {**GOOD, "tier": "gold"},
            "table customers: the row breaks CHECK (tier IN ('free', 'pro')) with tier = 'gold'.",
        ),
        (
            {**GOOD, "name": "n" * 61},
            "table customers, column name: 61 characters, at most 60 allowed (VARCHAR(60)).",
        ),
        (
            {**GOOD, "created_at": "yesterday"},
            "table customers, column created_at: 'yesterday' is not a valid TIMESTAMP.",
        ),
        (
            {**GOOD, "customer_id": 3},
            "table customers: a row with customer_id 3 already exists (customer_id: "
            "the primary key); choose another value.",
        ),
        (
            {**GOOD, "referred_by": 777},
            "table customers: referred_by = 777 refers to no row of customers(customer_id)",
        ),
    ],
)
def test_database_refusals_name_table_column_and_value(cep: Episode, values, message):
    result = cep.call("raw_customer", {"values": values})
    assert not result.ok and result.error_kind == "constraint", result.error
    assert message in result.error
    assert cep.query("SELECT count(*) AS n FROM customers")[0]["n"] == 30


def test_unique_and_composite_keys(cep: Episode):
    email = cep.query("SELECT email FROM customers WHERE customer_id = 1")[0]["email"]
    dup = cep.call("create_customer", {**GOOD, "email": email})
    assert dup.error == (
        f"table customers: a row with email {email!r} already exists (email: unique); choose another value."
    )
    line = cep.query("SELECT order_id, line_no, product_id FROM order_lines LIMIT 1")[0]
    again = cep.call("create_order_line", {**line, "quantity": 1})
    assert again.error == (
        f"table order_lines: a row with order_id {line['order_id']}, line_no {line['line_no']} "
        "already exists (order_id, line_no: the primary key); choose another value."
    )
    check = cep.call("create_order_line", {**line, "line_no": 99, "quantity": 0})
    assert check.error == "table order_lines: the row breaks CHECK (quantity > 0) with quantity = 0."


def test_a_self_reference_to_the_new_row_is_allowed(cep: Episode):
    made = cep.call("raw_customer", {"values": {**GOOD, "customer_id": 100, "referred_by": 100}})
    assert made.ok and made.value["referred_by"] == 100  # the parent is the row itself, checked after insert


def test_a_tool_bug_names_the_column(cep: Episode):
    bad = cep.call("raw_customer", {"values": {**GOOD, "emial": "x"}})
    assert bad.error_kind == "definition"
    assert 'table customers has no column "emial". Did you mean "email"?' in bad.error
