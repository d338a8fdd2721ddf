"""The domain's rules run after every call that changed a table they read; a broken rule rolls it back."""

from __future__ import annotations

from stateforge.domain import DomainConfig
from stateforge.episode import Episode, compile_rules
from tests.episode.fixture import shop_schema

SHIPPED = "shipped_orders_have_a_shipment"
NUMBERED = "order_lines_numbered"


def test_rules_know_the_tables_they_read():
    config = DomainConfig.model_validate(
        {
            "name": "x",
            "rules": [
                {
                    "name": "a",
                    "check": "WITH s AS (SELECT order_id FROM shipments) SELECT * FROM orders o "
                    "WHERE o.order_id NOT IN (SELECT order_id FROM s);",
                },
                {"name": "b", "check": "SELECT * FROM order_lines QUALIFY weird syntax here ((("},
            ],
        }
    )
    a, b = compile_rules(config.rules, shop_schema())
    assert a.tables == {"orders", "shipments"} and a.sql.endswith("FROM s)")
    assert a.applies({"shipments"}) and not a.applies({"products"})
    assert b.tables is None and b.applies({"anything"})  # cannot be parsed: always run


def test_a_broken_rule_rolls_the_call_back(ep: Episode):
    order = ep.query(
        "SELECT order_id FROM orders o WHERE status <> 'shipped' AND NOT EXISTS "
        "(SELECT 1 FROM shipments s WHERE s.order_id = o.order_id) ORDER BY 1 LIMIT 1"
    )[0]["order_id"]
    result = ep.call("update_order", {"order_id": order, "status": "shipped"})
    assert not result.ok and result.error_kind == "rule"
    assert result.error == (
        f"the change would break the rule {SHIPPED} (An order marked shipped has at least one shipment): "
        f"1 offending row, e.g. {{order_id: {order}, status: 'shipped'}}. Nothing was changed."
    )
    assert ep.query("SELECT status FROM orders WHERE order_id = ?", [order])[0]["status"] != "shipped"


def test_only_rules_reading_a_changed_table_run(ep: Episode):
    order = ep.query("SELECT DISTINCT order_id FROM shipments ORDER BY 1 LIMIT 1")[0]["order_id"]
    shipped = ep.call("update_order", {"order_id": order, "status": "shipped"})
    assert shipped.ok and shipped.rules_checked == [SHIPPED]
    assert ep.call("update_product", {"product_id": 1, "title": "New title"}).rules_checked == []
    assert ep.call("get_order", {"order_id": order}).rules_checked == []
    sku = ep.query("SELECT sku FROM products LIMIT 1")[0]["sku"]
    email = ep.query("SELECT email FROM customers LIMIT 1")[0]["email"]
    placed = ep.call("place_order", {"email": email, "items": [{"sku": sku}, {"sku": sku, "quantity": 2}]})
    assert placed.rules_checked == [SHIPPED, NUMBERED]


def test_deleting_a_middle_line_breaks_the_numbering_unless_renumbered(ep: Episode):
    order = ep.query("SELECT order_id FROM order_lines GROUP BY 1 HAVING count(*) >= 3 ORDER BY 1 LIMIT 1")[
        0
    ]["order_id"]
    gap = ep.call("delete_order_line", {"order_id": order, "line_no": 2})
    assert gap.error_kind == "rule" and NUMBERED in gap.error
    assert ep.call("remove_line", {"order_id": order, "line_no": 2}).ok


def test_an_update_of_columns_no_check_reads_runs_no_rule(ep: Episode):
    order = ep.query("SELECT DISTINCT order_id FROM shipments ORDER BY 1 LIMIT 1")[0]["order_id"]
    noted = ep.call("update_order", {"order_id": order, "note": "Leave at the door"})
    assert noted.ok and noted.rules_checked == []  # orders changed, but only a column no check mentions
    assert ep.call("update_order", {"order_id": order, "status": "shipped"}).rules_checked == [SHIPPED]


def test_rules_know_the_columns_they_read():
    config = DomainConfig.model_validate(
        {
            "name": "x",
            "rules": [
                {
                    "name": "a",
                    "check": "SELECT o.order_id FROM orders o JOIN shipments s USING (order_id) "
                    "WHERE o.status = 'shipped' AND count(*) > 0",
                },
                {"name": "b", "check": "SELECT * FROM orders WHERE status = 'x'"},
                {"name": "c", "check": "WITH s AS (SELECT order_id FROM shipments) SELECT * FROM s"},
                {"name": "d", "check": "SELECT o.order_id FROM orders AS o WHERE o::VARCHAR LIKE '%x%'"},
            ],
        }
    )
    a, b, c, d = compile_rules(config.rules, shop_schema())
    assert d.columns is None  # a whole row read by its alias: every column may matter
    assert a.columns == {"order_id", "status"} and c.columns == {"order_id"}
    assert b.columns is None  # a star over a table: every column may matter
    assert not a.applies({"orders"}, {"orders": frozenset({"note"})})
    assert a.applies({"orders"}, {"orders": frozenset({"note", "status"})})
    assert a.applies({"orders"}, {"orders": None})  # rows inserted or deleted
    assert b.applies({"orders"}, {"orders": frozenset({"note"})})
    assert not c.applies({"orders"}, {"orders": None})
