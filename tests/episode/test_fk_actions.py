"""The model's foreign keys, enforced by the write path with their ON DELETE / ON UPDATE actions."""

from __future__ import annotations

from decimal import Decimal

from stateforge.episode import Episode


def count(ep: Episode, sql: str, params: list | None = None) -> int:
    return ep.query(f"SELECT count(*) AS n FROM ({sql})", params)[0]["n"]


def test_restrict_refuses_and_names_the_blocking_rows(ep: Episode):
    product = ep.query(
        "SELECT product_id, count(*) AS n FROM order_lines GROUP BY ALL ORDER BY n DESC LIMIT 1"
    )[0]
    result = ep.call("delete_product", {"product_id": product["product_id"]})
    assert not result.ok and result.error_kind == "constraint"
    assert result.error.startswith(
        f"cannot delete products {product['product_id']}: {product['n']} rows of order_lines reference it "
        "(product_id; ON DELETE RESTRICT): order_lines (order_id "
    )
    assert result.error.endswith("Delete or change those rows first.")
    assert count(ep, "SELECT * FROM products WHERE product_id = ?", [product["product_id"]]) == 1


def test_restrict_behind_a_cascade_names_the_path(ep: Episode):
    row = ep.query(
        "SELECT o.customer_id, i.invoice_id FROM orders o JOIN invoices i USING (order_id) ORDER BY 1 LIMIT 1"
    )[0]
    result = ep.call("delete_customer", {"customer_id": row["customer_id"]})
    assert f"cannot delete customers {row['customer_id']}: it would also delete " in result.error
    assert "rows of orders (customer_id; ON DELETE CASCADE), and " in result.error
    assert "of invoices reference those (order_id; ON DELETE RESTRICT): invoices " in result.error


DELETABLE = (
    "SELECT c.customer_id FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o JOIN invoices i "
    "USING (order_id) WHERE o.customer_id = c.customer_id) AND EXISTS (SELECT 1 FROM orders o JOIN "
    "order_lines l USING (order_id) WHERE o.customer_id = c.customer_id)"
)


def test_cascade_is_recursive_and_set_null_clears(ep: Episode):
    # one customer with reviews and referrals (SET NULL), one with shipments and a newsletter (CASCADE)
    first = ep.query(
        DELETABLE + " AND EXISTS (SELECT 1 FROM reviews r WHERE r.customer_id = c.customer_id) "
        "ORDER BY EXISTS (SELECT 1 FROM customers x WHERE x.referred_by = c.customer_id) DESC, 1"
    )
    if first and not count(ep, "SELECT * FROM customers WHERE referred_by = ?", [first[0]["customer_id"]]):
        # a referrer is often a popular customer, whose orders are invoiced: give this one a referral
        other = ep.query("SELECT min(customer_id) AS c FROM customers WHERE customer_id <> ?",
                         [first[0]["customer_id"]])[0]["c"]
        made = ep.call("update_customer", {"customer_id": other, "referred_by": first[0]["customer_id"]})
        assert made.ok, made.error
    second = ep.query(
        DELETABLE + " AND EXISTS (SELECT 1 FROM newsletter n WHERE n.email = c.email) AND EXISTS "
        "(SELECT 1 FROM orders o JOIN shipments s USING (order_id) WHERE o.customer_id = "
        "c.customer_id) ORDER BY 1"
    )
    assert first and second
    for customer in (first[0]["customer_id"], second[0]["customer_id"]):
        expected = {
            "orders": count(ep, "SELECT * FROM orders WHERE customer_id = ?", [customer]),
            "order_lines": count(
                ep, "SELECT * FROM order_lines JOIN orders USING (order_id) WHERE customer_id = ?", [customer]
            ),
            "shipments": count(
                ep, "SELECT * FROM shipments JOIN orders USING (order_id) WHERE customer_id = ?", [customer]
            ),
            "wishlist": count(ep, "SELECT * FROM wishlist WHERE customer_id = ?", [customer]),
            "newsletter": count(
                ep, "SELECT * FROM newsletter JOIN customers USING (email) WHERE customer_id = ?", [customer]
            ),
        }
        reviews = count(ep, "SELECT * FROM reviews WHERE customer_id = ?", [customer])
        referred = count(ep, "SELECT * FROM customers WHERE referred_by = ?", [customer])
        orders = [
            r["order_id"] for r in ep.query("SELECT order_id FROM orders WHERE customer_id = ?", [customer])
        ]
        result = ep.call("delete_customer", {"customer_id": customer})
        assert result.ok, result.error
        deleted = {t: c for t, c in expected.items() if c}
        assert {t: result.changes[t]["deleted"] for t in deleted} == deleted
        assert result.changes.get("reviews", {}).get("updated", 0) == reviews
        assert result.changes["customers"] == {"deleted": 1, **({"updated": referred} if referred else {})}
        for sql in (
            "SELECT * FROM orders WHERE customer_id = ?",
            "SELECT * FROM reviews WHERE customer_id = ?",
            "SELECT * FROM wishlist WHERE customer_id = ?",
            "SELECT * FROM customers WHERE referred_by = ?",
        ):
            assert count(ep, sql, [customer]) == 0
        for table in ("order_lines", "shipments"):
            assert count(ep, f"SELECT * FROM {table} WHERE order_id IN (SELECT unnest(?))", [orders]) == 0


def test_set_default_and_a_default_without_parent(ep: Episode):
    moved = count(ep, "SELECT * FROM shipments WHERE carrier_id = 2")
    result = ep.call("delete_carrier", {"carrier_id": 2})
    assert result.ok and result.changes["shipments"] == {"updated": moved}
    assert count(ep, "SELECT * FROM shipments WHERE carrier_id = 2") == 0
    refused = ep.call("delete_carrier", {"carrier_id": 1})
    assert refused.error.startswith(
        "cannot delete carriers 1: the rows of shipments that reference it are set "
        "by ON DELETE SET DEFAULT, and then: table shipments: carrier_id = 1 refers "
        "to no row of carriers(carrier_id)"
    )


def test_on_update_cascade_from_a_key_and_from_a_unique_column(ep: Episode):
    code = ep.query(
        "SELECT category_code AS c, count(*) AS n FROM products GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    )[0]
    result = ep.call("rename_category", {"code": code["c"], "new_code": "RENAMED"})
    assert result.changes == {"categories": {"updated": 1}, "products": {"updated": code["n"]}}
    assert count(ep, "SELECT * FROM products WHERE category_code = 'RENAMED'") == code["n"]
    email = ep.query("SELECT email FROM newsletter ORDER BY 1 LIMIT 1")[0]["email"]
    customer = ep.query("SELECT customer_id FROM customers WHERE email = ?", [email])[0]["customer_id"]
    changed = ep.call("update_customer", {"customer_id": customer, "email": "moved@shop.test"})
    assert changed.changes == {"customers": {"updated": 1}, "newsletter": {"updated": 1}}
    assert count(ep, "SELECT * FROM newsletter WHERE email = 'moved@shop.test'") == 1


def test_on_update_cascade_and_set_null_together(ep: Episode):
    # a customer with orders (CASCADE), reviews (SET NULL) and referrals (CASCADE onto the same table)
    customer = ep.query(
        "SELECT customer_id FROM reviews r WHERE customer_id IS NOT NULL AND EXISTS (SELECT 1 FROM "
        "orders o WHERE o.customer_id = r.customer_id) AND EXISTS (SELECT 1 FROM customers c WHERE "
        "c.referred_by = r.customer_id) ORDER BY 1 LIMIT 1"
    )[0]["customer_id"]
    orders = count(ep, "SELECT * FROM orders WHERE customer_id = ?", [customer])
    reviews = count(ep, "SELECT * FROM reviews WHERE customer_id = ?", [customer])
    referred = count(ep, "SELECT * FROM customers WHERE referred_by = ?", [customer])
    result = ep.call("renumber_customer", {"customer_id": customer, "new_id": 5000})
    assert result.ok, result.error
    assert result.changes["orders"] == {"updated": orders} and result.changes["reviews"] == {
        "updated": reviews
    }
    assert result.changes["customers"] == {"updated": 1 + referred}
    assert count(ep, "SELECT * FROM customers WHERE referred_by = 5000") == referred > 0
    assert count(ep, "SELECT * FROM orders WHERE customer_id = 5000") == orders
    assert count(ep, "SELECT * FROM reviews WHERE customer_id = ?", [customer]) == 0
    assert count(ep, "SELECT * FROM reviews WHERE customer_id = 5000") == 0  # SET NULL, not followed


def test_on_update_no_action_refuses(ep: Episode):
    order = ep.query("SELECT order_id, count(*) AS n FROM order_lines GROUP BY 1 ORDER BY 1 LIMIT 1")[0]
    result = ep.call("renumber_order", {"order_id": order["order_id"], "new_id": 9000})
    assert result.error.startswith(f"cannot change orders {order['order_id']}: {order['n']} row")
    assert "of order_lines reference it (order_id; ON UPDATE NO ACTION)" in result.error
    assert count(ep, "SELECT * FROM orders WHERE order_id = 9000") == 0


def test_a_write_must_point_at_an_existing_parent(ep: Episode):
    made = ep.call("create_order", {"customer_id": 999, "placed_at": "2025-01-01T00:00:00"})
    assert made.error == (
        "table orders: customer_id = 999 refers to no row of customers(customer_id); use an existing one."
    )
    moved = ep.call("update_order", {"order_id": 1, "customer_id": 999})
    assert moved.error_kind == "constraint" and "customer_id = 999 refers to no row" in moved.error
    fine = ep.call("create_order", {"customer_id": 2, "placed_at": "2025-01-01T00:00:00"})
    assert fine.ok and fine.value["status"] == "new"


def test_bulk_updates_and_deletes_are_set_based(ep: Episode):
    code = ep.query(
        "SELECT category_code AS c, count(*) AS n FROM products GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    )[0]
    before = {
        r["product_id"]: r["price"]
        for r in ep.query("SELECT product_id, price FROM products WHERE category_code = ?", [code["c"]])
    }
    result = ep.call("reprice", {"category_code": code["c"], "percent": "10"})
    assert result.value == {"changed": code["n"]}
    after = {
        r["product_id"]: r["price"]
        for r in ep.query("SELECT product_id, price FROM products WHERE category_code = ?", [code["c"]])
    }
    assert all(after[k] == round(v * Decimal("1.1"), 2) for k, v in before.items())
    owner = ep.query(
        "SELECT c.email, count(*) AS n FROM wishlist w JOIN customers c USING (customer_id) "
        "GROUP BY 1 ORDER BY 2 DESC LIMIT 1"
    )[0]
    cleared = ep.call("clear_wishlist", {"email": owner["email"]})
    assert cleared.value == {"removed": owner["n"]} and cleared.changes == {
        "wishlist": {"deleted": owner["n"]}
    }


def test_expression_updates_keep_lines_numbered(ep: Episode):
    order = ep.query("SELECT order_id FROM order_lines GROUP BY 1 HAVING count(*) >= 3 ORDER BY 1 LIMIT 1")[
        0
    ]["order_id"]
    result = ep.call("remove_line", {"order_id": order, "line_no": 1})
    assert result.ok, result.error
    numbers = [
        r["line_no"]
        for r in ep.query("SELECT line_no FROM order_lines WHERE order_id = ? ORDER BY 1", [order])
    ]
    assert numbers == list(range(1, len(numbers) + 1))
