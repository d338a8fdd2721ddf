"""The generic toolkit: readable names, descriptions from the DDL, and each operation on a real episode."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.episode import Episode
from stateforge.schema import parse_ddl
from stateforge.tools import generic_toolkit
from stateforge.tools.naming import MAX, Names, singular, snake
from stateforge.values import json_row
from tests.episode.fixture import shop_schema


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("OrderLines", "order_lines"),
        ("order-lines", "order_lines"),
        ("Order Lines", "order_lines"),
        ("2fa codes", "t_2fa_codes"),
        ("__x__", "x"),
    ],
)
def test_snake(name, expected):
    assert snake(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("categories", "category"),
        ("order_lines", "order_line"),
        ("addresses", "address"),
        ("boxes", "box"),
        ("status", "status"),
        ("people", "person"),
        ("news", "news"),
        ("bus", "bus"),
        ("series", "series"),
    ],
)
def test_singular(name, expected):
    assert singular(name) == expected


def test_names_are_unique_and_fit_64_characters():
    names = Names()
    assert names.take("get_user", "get_users") == "get_user"
    assert names.take("get_user", "get_users") == "get_users"
    assert names.take("get_user", "get_users") == "get_users_2"
    long = "search_" + "x" * 80
    first, second = names.take(long), names.take(long)
    assert len(first) <= MAX and len(second) <= MAX and first != second


def test_any_ddl_gets_valid_distinct_names():
    ddl = """
    CREATE TABLE "User" (id INT PRIMARY KEY, name TEXT);
    CREATE TABLE users (id INT PRIMARY KEY, name TEXT);
    CREATE TABLE "a very long table name that goes on and on and on beyond every limit" (id INT PRIMARY KEY);
    CREATE TABLE log (at TIMESTAMP, msg TEXT);
    """
    kit = generic_toolkit(parse_ddl(ddl, "postgres"))
    names = kit.names
    assert len(names) == len(set(names)) == 5 + 5 + 5 + 2 + 1
    assert {"get_user", "get_users", "search_users", "search_log", "create_log"} <= set(names)
    assert all(len(n) <= MAX for n in names)
    assert "get_log" not in names  # no key: only search and create


def test_shop_listing_descriptions_and_coverage():
    schema = shop_schema()
    kit = generic_toolkit(schema, name="shop")
    assert kit.names[:5] == [
        "search_carriers",
        "get_carrier",
        "create_carrier",
        "update_carrier",
        "delete_carrier",
    ]
    assert "Parcel services that ship orders." in kit["search_carriers"].description
    email = kit["create_customer"].parameters["properties"]["email"]
    assert email["description"].startswith("Login address. Text, at most 120 characters. Unique.")
    assert (
        "References customers.customer_id."
        in kit["create_order"].parameters["properties"]["customer_id"]["description"]
    )
    assert "order_id" not in kit["create_order"].parameters["properties"]  # identity: allocated
    assert "customer_id" not in kit["create_customer"].parameters["properties"]  # max+1: allocated
    assert kit["create_category"].parameters["required"] == ["code", "name"]  # a text key is given
    tier = kit["create_customer"].parameters["properties"]["tier"]
    assert tier["enum"] == ["free", "pro"] and "default" not in tier  # NOT NULL with a DDL default
    coverage = kit.coverage(schema)
    assert coverage.unwritable == [] and coverage.unread == []
    customers = next(t for t in coverage.tables if t.table == "customers")
    assert "delete_customer" in customers.writes and "get_customer" in customers.reads
    orders = next(t for t in coverage.tables if t.table == "orders")
    assert "delete_customer" in orders.cascades  # ON DELETE CASCADE from customers
    assert {m["table"] for m in coverage.to_dict()["tables"]} == {t.name for t in schema.tables}


@pytest.fixture
def gep(shop_db: Path, tmp_path: Path):
    with Episode.open(shop_db, workdir=tmp_path) as episode:  # no toolkit: the pack has no tools.py
        yield episode


def test_search_filters_sort_and_paginate(gep: Episode):
    every = gep.call("search_products", {"limit": 100})
    assert every.ok and every.value["total"] == 40 and len(every.value["rows"]) == 40
    keys = [r["product_id"] for r in every.value["rows"]]
    assert keys == sorted(keys)  # default order: the key
    page = gep.call("search_products", {"sort_by": "price", "descending": True, "limit": 5, "offset": 5})
    prices = [
        r["price"]
        for r in gep.call("search_products", {"sort_by": "price", "descending": True, "limit": 10}).value[
            "rows"
        ]
    ]
    assert [r["price"] for r in page.value["rows"]] == prices[5:10]
    cheap = gep.call(
        "search_products",
        {"filters": [{"column": "price", "op": "lt", "value": "20"}, {"column": "in_stock", "value": True}]},
    )
    truth = gep.query("SELECT count(*) AS n FROM products WHERE price < 20 AND in_stock")[0]["n"]
    assert cheap.value["total"] == truth
    sku = every.value["rows"][3]["sku"]
    found = gep.call(
        "search_products", {"filters": [{"column": "sku", "op": "contains", "value": sku[2:].lower()}]}
    )
    assert sku in [r["sku"] for r in found.value["rows"]]
    some = gep.call(
        "search_products", {"filters": [{"column": "product_id", "op": "in", "value": [3, 1, 99]}]}
    )
    assert sorted(r["product_id"] for r in some.value["rows"]) == [1, 3]
    nulls = gep.call("search_orders", {"filters": [{"column": "note", "op": "is_null", "value": False}]})
    assert nulls.value["total"] == gep.query("SELECT count(note) AS n FROM orders")[0]["n"]
    not_new = gep.call("search_orders", {"filters": [{"column": "status", "op": "ne", "value": "new"}]})
    assert (
        not_new.value["total"] == gep.query("SELECT count(*) AS n FROM orders WHERE status <> 'new'")[0]["n"]
    )


@pytest.mark.parametrize(
    ("flt", "message"),
    [
        (
            {"column": "price", "op": "lt", "value": "cheap"},
            "'filters[0].value' must be decimal with 2 decimals",
        ),
        ({"column": "prize", "value": 1}, "argument 'filters[0].column' is 'prize'"),
        ({"column": "price", "op": "like", "value": 1}, "argument 'filters[0].op' is 'like'"),
        ({"column": "sku", "op": "in", "value": "X"}, "must be a non-empty list with op in"),
        ({"column": "sku", "op": "is_null", "value": "yes"}, "must be true or false with op is_null"),
        ({"column": "price", "op": "gt", "value": None}, "use op is_null"),
    ],
)
def test_search_argument_errors(gep: Episode, flt, message):
    result = gep.call("search_products", {"filters": [flt]})
    assert not result.ok and result.error_kind == "arguments"
    assert message in result.error


def test_get_create_update_delete(gep: Episode):
    assert gep.call("get_customer", {"customer_id": 3}).value["customer_id"] == 3
    missing = gep.call("get_customer", {"customer_id": 999})
    assert missing.error == "no customers row with customer_id 999."
    created = gep.call(
        "create_customer", {"email": "new@shop.test", "name": "New", "created_at": "2025-06-01T09:00:00"}
    )
    assert created.ok and created.value["tier"] == "free"  # the DDL default
    assert created.value["customer_id"] == 31 and created.changes == {"customers": {"inserted": 1}}
    updated = gep.call("update_customer", {"customer_id": 31, "tier": "pro", "referred_by": 3})
    assert updated.value["tier"] == "pro" and updated.value["referred_by"] == 3
    cleared = gep.call("update_customer", {"customer_id": 31, "referred_by": None})
    assert cleared.value["referred_by"] is None
    nothing = gep.call("update_customer", {"customer_id": 31})
    assert nothing.error_kind == "arguments" and "give at least one column to change" in nothing.error
    gone = gep.call("delete_customer", {"customer_id": 31})
    assert gone.ok and gone.value == {"deleted": {"customer_id": 31}, "also_changed": {}}
    assert gep.call("delete_customer", {"customer_id": 31}).error == "no customers row with customer_id 31."
    line = gep.call("get_order_line", {"order_id": 1, "line_no": 1})
    assert line.ok and line.value["order_id"] == 1


def test_table_without_key_gets_search_and_create(gep: Episode):
    added = gep.call(
        "create_wishlist", {"customer_id": 1, "product_id": 2, "added_at": "2025-01-01T00:00:00"}
    )
    assert added.ok
    found = gep.call(
        "search_wishlist",
        {"filters": [{"column": "customer_id", "value": 1}, {"column": "product_id", "value": 2}]},
    )
    assert found.value["total"] >= 1
    assert "delete_wishlist" not in gep.toolkit


def test_every_generic_tool_touches_only_what_it_declares(gep: Episode):
    """One call of each tool: the episode checks its reads and writes against its declaration."""
    results = []
    for made in gep.toolkit:
        op, _, _ = made.name.partition("_")
        table = next(t for t in (*made.reads, *made.writes)) if made.reads or made.writes else None
        if table is None:
            results.append(gep.call(made.name, {"reason": "checking"}))
            continue
        row = gep.query(f'SELECT * FROM "{table}" ORDER BY ALL LIMIT 1')[0]
        props = made.parameters["properties"]
        if op == "search":
            arguments: dict = {"filters": [{"column": next(iter(row)), "value": row[next(iter(row))]}]}
        elif op == "create":
            arguments = {k: v for k, v in row.items() if k in props}
        elif op == "update":
            settable = [k for k in props if k not in made.parameters["required"]]
            arguments = {k: row[k] for k in made.parameters["required"]} | {settable[0]: row[settable[0]]}
        else:
            arguments = {k: row[k] for k in made.parameters["required"]}
        results.append(gep.call(made.name, json_row(arguments)))
    assert len(results) == len(gep.toolkit) == 11 * 5 - 3 + 1  # wishlist: no get, update, delete
    assert [r.tool for r in results if r.error_kind in ("definition", "internal")] == []
    assert {r.tool for r in results if r.ok} >= {t.name for t in gep.toolkit if t.kind == "read"}
