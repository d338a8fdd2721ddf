"""The shop's tools: a customer's orders (paged, by date range), the catalogue, cancelling, ordering and
notes."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

Limit = Annotated[int, Field(ge=1, le=10, description="Items per page (at most 10).")]
Offset = Annotated[int, Field(ge=0, le=1_000_000, description="Items to skip.")]


def customer(env: Env, email: str) -> dict[str, Any]:
    row = env.one("SELECT * FROM customers WHERE lower(email) = lower(?)", [email.strip()])
    if row is None:
        raise ToolError(f"no customer has the email {email!r}.")
    return row


@tool(reads=("customers", "orders", "products"))
def list_orders(
    env: Env,
    email: str,
    placed_from: dt.date | None = None,
    placed_until: dt.date | None = None,
    limit: Limit = 10,
    offset: Offset = 0,
) -> dict:
    """A customer's orders, oldest first, a page at a time.

    Args:
        email: The customer's email.
        placed_from: First day of the range (included).
        placed_until: Last day of the range (included).
        limit: Orders per page.
        offset: Orders to skip.
    """
    who = customer(env, email)
    sql = (
        "SELECT o.order_id, o.placed_at, o.status, p.name AS product, p.brand, o.quantity "
        "FROM orders AS o JOIN products AS p USING (product_id) WHERE o.customer_id = $c "
        "AND ($start IS NULL OR CAST(o.placed_at AS DATE) >= $start) "
        "AND ($until IS NULL OR CAST(o.placed_at AS DATE) <= $until)"
    )
    params = {"c": who["customer_id"], "start": placed_from, "until": placed_until}
    return env.page(sql, params, order_by="placed_at, order_id", limit=limit, offset=offset)


@tool(reads=("products",))
def search_products(env: Env, query: str, limit: Limit = 10, offset: Offset = 0) -> dict:
    """Products whose name contains `query`, a page at a time.

    Args:
        query: Words of the product's name.
        limit: Products per page.
        offset: Products to skip.
    """
    sql = "SELECT product_id, name, brand, price FROM products WHERE lower(name) LIKE lower(?)"
    return env.page(sql, [f"%{query.strip()}%"], order_by="name, brand, product_id", limit=limit,
                    offset=offset)


@tool(kind="write", reads=("customers", "orders"), writes=("orders",), idempotent=True)
def cancel_orders(env: Env, email: str, order_ids: Annotated[list[int], Field(min_length=1)]) -> dict:
    """Cancel pending orders of the customer.

    Args:
        email: The customer's email.
        order_ids: The orders to cancel (from list_orders).
    """
    who = customer(env, email)
    rows = env.query("SELECT order_id, status FROM orders WHERE customer_id = ? "
                     "AND list_contains(?, order_id)",
                     [who["customer_id"], order_ids])
    found = {r["order_id"]: r["status"] for r in rows}
    missing = sorted(set(order_ids) - set(found))
    if missing:
        raise ToolError(f"no order {missing[0]} of {who['email']}; list_orders shows theirs.", )
    done = sorted(i for i, s in found.items() if s != "pending")
    if done:
        raise refuse("only_pending_cancels", f"order {done[0]} is {found[done[0]]}", argument="order_ids")
    for order_id in sorted(found):
        env.update("orders", order_id, {"status": "cancelled"})
    return {"cancelled": sorted(found)}


@tool(kind="write", reads=("customers", "products"), writes=("orders",), idempotent=False)
def place_order(env: Env, email: str, product_id: int,
                quantity: Annotated[int, Field(ge=1, le=10)] = 1) -> dict:
    """Order a product.

    Args:
        email: The customer's email.
        product_id: The product (from search_products).
        quantity: How many.
    """
    who = customer(env, email)
    if env.one("SELECT product_id FROM products WHERE product_id = ?", [product_id]) is None:
        raise ToolError(f"no product {product_id}; find it with search_products.", argument="product_id")
    row = env.insert("orders", {"customer_id": who["customer_id"], "placed_at": env.now, "status": "pending",
                                "product_id": product_id, "quantity": quantity})
    return {"order_id": row["order_id"]}


@tool(kind="write", reads=("customers",), writes=("notes",), idempotent=False)
def add_note(env: Env, email: str, text: Annotated[str, Field(min_length=1, max_length=200)]) -> dict:
    """Leave a note for the shop on the customer's account.

    Args:
        email: The customer's email.
        text: The note.
    """
    who = customer(env, email)
    env.insert("notes", {"customer_id": who["customer_id"], "body": text, "created_at": env.now})
    return {"noted": True}


TOOLS = [list_orders, search_products, cancel_orders, place_order, add_note]
