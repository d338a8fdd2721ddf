"""Domain rules: a seeded violation is repaired, dangling rows are cleaned, errors name the rule."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.errors import BuildError, DomainError
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from stateforge.validation.rules import apply_rules, changed_tables, clean_orphans


def shop() -> Schema:
    """customers <- orders <- items (NOT NULL keys, cascading); orders.coupon_id -> coupons is nullable."""
    return Schema([
        Table("customers", [Column("id", "INTEGER", nullable=False)], primary_key=("id",)),
        Table("coupons", [Column("id", "INTEGER", nullable=False)], primary_key=("id",)),
        Table(
            "orders",
            [Column("id", "INTEGER", nullable=False), Column("customer_id", "INTEGER", nullable=False),
             Column("coupon_id", "INTEGER"), Column("total", "INTEGER")],
            primary_key=("id",),
            foreign_keys=[ForeignKey(("customer_id",), "customers", ("id",), on_delete="CASCADE"),
                          ForeignKey(("coupon_id",), "coupons", ("id",), on_delete="SET NULL")],
        ),
        Table(
            "items",
            [Column("order_id", "INTEGER", nullable=False), Column("line", "INTEGER", nullable=False),
             Column("qty", "INTEGER")],
            primary_key=("order_id", "line"),
            foreign_keys=[ForeignKey(("order_id",), "orders", ("id",), on_delete="CASCADE")],
        ),
    ])


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("""
        CREATE TABLE customers (id INTEGER PRIMARY KEY);
        CREATE TABLE coupons (id INTEGER PRIMARY KEY);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL, coupon_id INTEGER,
                             total INTEGER);
        CREATE TABLE items (order_id INTEGER NOT NULL, line INTEGER NOT NULL, qty INTEGER,
                            PRIMARY KEY (order_id, line));
        INSERT INTO customers VALUES (1), (2), (3);
        INSERT INTO coupons VALUES (10), (11);
        INSERT INTO orders VALUES (100, 1, 10, 5), (101, 2, 11, 7), (102, 3, NULL, -4), (103, 3, 10, 9);
        INSERT INTO items VALUES (100, 1, 1), (101, 1, 2), (101, 2, 3), (102, 1, 1), (103, 1, 2);
    """)
    return con


def rules(*items: dict[str, object]) -> DomainConfig:
    return DomainConfig.model_validate({"name": "shop", "rules": list(items)})


def count(con, table: str) -> int:
    return con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]


def test_clean_orphans_deletes_recursively_and_sets_nullable_keys_null(con):
    con.execute("DELETE FROM customers WHERE id = 3; DELETE FROM coupons WHERE id = 11")
    cleaned = clean_orphans(con, shop())
    assert cleaned == {"delete items(order_id)": 2, "delete orders(customer_id)": 2,
                       "set_null orders(coupon_id)": 1}
    assert con.execute("SELECT id, coupon_id FROM orders ORDER BY id").fetchall() == [(100, 10), (101, None)]
    assert count(con, "items") == 3
    assert clean_orphans(con, shop()) == {}


def test_clean_orphans_can_start_from_the_tables_a_repair_changed(con):
    con.execute("DELETE FROM coupons WHERE id = 11; DELETE FROM customers WHERE id = 3").fetchall()
    # customers changed too, but the call only names coupons
    assert clean_orphans(con, shop(), tables=["coupons"]) == {"set_null orders(coupon_id)": 1}
    assert clean_orphans(con, shop(), tables=["customers"]) == {
        "delete items(order_id)": 2, "delete orders(customer_id)": 2}


def test_changed_tables_reads_the_targets_of_repair_statements():
    statements = ["DELETE FROM orders WHERE total < 0", 'UPDATE main."Items" SET qty = 1', "SELECT 1"]
    assert changed_tables(statements) == {"orders", "Items"}
    assert changed_tables(["CREATE TABLE x (a INTEGER)"]) is None


def test_a_seeded_violation_is_repaired_and_dangling_children_cleaned(con):
    config = rules({
        "name": "no_negative_totals",
        "check": "SELECT id FROM orders WHERE total < 0",
        "repair": ["DELETE FROM orders WHERE total < 0"],
    })
    [report] = apply_rules(con, shop(), config)
    assert (report.name, report.found, report.repaired, report.rounds) == ("no_negative_totals", 1, 1, 1)
    assert report.orphans == {"delete items(order_id)": 1}
    assert count(con, "items WHERE order_id = 102") == 0


def test_repaired_counts_the_rows_the_repair_changed_not_the_violations(con):
    # one violation (customer 3 has a non-positive order) whose repair touches both of its orders
    config = rules({
        "name": "customers_in_good_standing",
        "check": "SELECT DISTINCT customer_id FROM orders WHERE total <= 0",
        "repair": ["UPDATE orders SET total = abs(total) + 1 WHERE customer_id IN "
                   "(SELECT customer_id FROM orders WHERE total <= 0)",
                   "CREATE TEMP TABLE audit_note AS SELECT 42 AS answer"],  # not a write to count
    })
    [report] = apply_rules(con, shop(), config)
    assert (report.found, report.repaired, report.rounds) == (1, 2, 1)
    assert con.execute("SELECT id, total FROM orders WHERE customer_id = 3 ORDER BY id").fetchall() == [
        (102, 5), (103, 10)]


def test_rules_are_checked_again_after_other_rules_repair(con):
    config = rules(
        {"name": "totals_positive", "check": "SELECT id FROM orders WHERE total <= 0",
         "repair": ["UPDATE orders SET total = 1 WHERE total <= 0"]},
        {"name": "totals_odd", "check": "SELECT id FROM orders WHERE total % 2 = 0",
         "repair": ["UPDATE orders SET total = total + 1 WHERE total % 2 = 0"]},
    )
    reports = apply_rules(con, shop(), config)
    assert [(r.found, r.rounds) for r in reports] == [(1, 1), (1, 1)]
    assert count(con, "orders WHERE total <= 0 OR total % 2 = 0") == 0


def test_a_rule_that_stays_violated_fails_the_build_naming_it(con):
    config = rules({"name": "never", "check": "SELECT id, total FROM orders", "repair": ["SELECT 1"]})
    with pytest.raises(BuildError, match=r"rule never still finds 4 row\(s\) after 2 rounds.*'id': 100"):
        apply_rules(con, shop(), config, max_rounds=2)


def test_a_violated_rule_without_repairs_fails_the_build(con):
    with pytest.raises(BuildError, match="no_repair finds 1 row"):
        apply_rules(con, shop(), rules({"name": "no_repair", "check": "SELECT id FROM orders WHERE total<0"}))


def test_bad_rule_sql_is_a_domain_error(con):
    with pytest.raises(DomainError, match="rule broken: its check failed in DuckDB.*nope"):
        apply_rules(con, shop(), rules({"name": "broken", "check": "SELECT * FROM nope"}))
    config = rules({"name": "bad_fix", "check": "SELECT id FROM orders WHERE total < 0",
                    "repair": ["DELETE FROM nope"]})
    with pytest.raises(DomainError, match="rule bad_fix: repair statement 1 failed"):
        apply_rules(con, shop(), config)
    assert count(con, "orders") == 4  # the failed repair was rolled back


def test_a_clean_rule_is_checked_again_when_a_repair_writes_what_it_reads(con, monkeypatch):
    """Rules clean in one round are skipped in the next only if no repair (nor the orphan cleanup after
    it) wrote a table they read; a repair that breaks a clean rule is caught either way."""
    import stateforge.validation.rules as rules_module

    checked: list[str] = []
    real = rules_module._count
    monkeypatch.setattr(rules_module, "_count", lambda c, rule: checked.append(rule.name) or real(c, rule))
    config = rules(
        {"name": "no_zero", "check": "SELECT id FROM orders WHERE total = 0",
         "repair": ["UPDATE orders SET total = 2 WHERE total = 0"]},
        {"name": "four_items", "check": "SELECT n FROM (SELECT count(*) AS n FROM items) WHERE n < 4",
         "repair": ["INSERT INTO items VALUES (100, 9, 1)"]},
        {"name": "coupons_kept", "check": "WITH c AS (SELECT * FROM coupons) SELECT id FROM c WHERE id < 0",
         "repair": []},
        {"name": "no_negative", "check": "SELECT id FROM orders WHERE total < 0",
         "repair": ["UPDATE orders SET total = 0 WHERE total < 0", "DELETE FROM orders WHERE id = 101"]},
    )
    reports = apply_rules(con, shop(), config)
    # order 101 went with its 2 items (the cleanup), so four_items is checked again and repaired;
    # the zero total it wrote is caught by no_zero; coupons are never written: checked once
    assert [(r.name, r.found) for r in reports] == [("no_zero", 1), ("four_items", 1), ("coupons_kept", 0),
                                                    ("no_negative", 1)]
    assert count(con, "orders WHERE total <= 0") == 0 and count(con, "items") == 4
    assert checked.count("coupons_kept") == 1
    assert checked.count("no_zero") == 3  # round 0 clean, round 1 violated, round 2 clean
