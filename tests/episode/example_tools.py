"""Example business tools over the shop fixture, written as a pack author would (not a pack).

They exercise what the generic toolkit does not: lookups by what a user knows, several writes in one call,
set-based updates with expressions, key updates (ON UPDATE actions), and a tool that breaks its declaration.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, Expr, ToolError, Toolkit, tool


class Item(BaseModel):
    """One product and how many of it."""

    model_config = ConfigDict(extra="forbid")

    sku: str = Field(description="The product's SKU.")
    quantity: Annotated[int, Field(ge=1, le=99)] = 1


@tool(reads=("customers", "orders"))
def find_orders(
    env: Env,
    email: str,
    status: Literal["new", "paid", "shipped"] | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    offset: Annotated[int, Field(ge=0)] = 0,
) -> dict:
    """List a customer's orders, newest first, a page at a time.

    Args:
        email: The customer's login address.
        status: Only orders in this state.
        limit: Orders per page.
        offset: Orders to skip.
    """
    customer = env.one("SELECT customer_id FROM customers WHERE email = ?", [email])
    if customer is None:
        raise ToolError(f"no customer with email {email!r}")
    sql = "SELECT order_id, status, placed_at FROM orders WHERE customer_id = $customer"
    params = {"customer": customer["customer_id"]}
    if status is not None:
        sql += " AND status = $status"
        params["status"] = status
    return env.page(sql, params, order_by="placed_at DESC, order_id", limit=limit, offset=offset)


@tool(kind="write", reads=("customers", "products"), writes=("orders", "order_lines"), idempotent=False)
def place_order(env: Env, email: str, items: list[Item], note: str | None = None) -> dict:
    """Place an order for a customer, with its lines numbered from 1.

    Args:
        email: The customer's login address.
        items: The products to order (at least one).
        note: A note for the shop.
    """
    if not items:
        raise ToolError("an order needs at least one item")
    customer = env.one("SELECT customer_id FROM customers WHERE email = ?", [email])
    if customer is None:
        raise ToolError(f"no customer with email {email!r}")
    order = env.insert("orders", {"customer_id": customer["customer_id"], "placed_at": env.now, "note": note})
    lines = []
    for number, item in enumerate(items, start=1):
        product = env.one("SELECT product_id, in_stock FROM products WHERE sku = ?", [item.sku])
        if product is None:
            raise ToolError(f"no product with SKU {item.sku!r}")
        lines.append(
            {
                "order_id": order["order_id"],
                "line_no": number,
                "product_id": product["product_id"],
                "quantity": item.quantity,
            }
        )
    env.insert_many("order_lines", lines)
    return {"order_id": order["order_id"], "lines": len(lines)}


@tool(kind="write", reads=("order_lines",), writes=("order_lines",), destructive=True)
def remove_line(env: Env, order_id: int, line_no: int) -> dict:
    """Remove a line from an order and renumber the lines after it.

    Args:
        order_id: The order.
        line_no: The line to remove.
    """
    if env.delete("order_lines", {"order_id": order_id, "line_no": line_no}) == 0:
        raise ToolError(f"order {order_id} has no line {line_no}")
    moved = env.update_where(
        "order_lines", "order_id = ? AND line_no > ?", [order_id, line_no], {"line_no": Expr("line_no - 1")}
    )
    return {"renumbered": moved}


@tool(kind="write", writes=("categories",), idempotent=True, destructive=True)
def rename_category(
    env: Env, code: str, new_code: Annotated[str, Field(min_length=1, max_length=10)]
) -> dict:
    """Give a category a new code (its products follow: ON UPDATE CASCADE).

    Args:
        code: The current code.
        new_code: The new code.
    """
    if env.update("categories", code, {"code": new_code}) == 0:
        raise ToolError(f"no category {code!r}")
    return {"code": new_code}


@tool(kind="write", writes=("customers",), idempotent=True, destructive=True)
def renumber_customer(env: Env, customer_id: int, new_id: int) -> dict:
    """Move a customer to a new id (orders and wishlists follow, reviews lose their author).

    Args:
        customer_id: The current id.
        new_id: The new id.
    """
    return {"changed": env.update("customers", customer_id, {"customer_id": new_id})}


@tool(kind="write", writes=("orders",), destructive=True)
def renumber_order(env: Env, order_id: int, new_id: int) -> dict:
    """Move an order to a new id (refused when lines or an invoice point at it).

    Args:
        order_id: The current id.
        new_id: The new id.
    """
    return {"changed": env.update("orders", order_id, {"order_id": new_id})}


@tool(kind="write", reads=("products",), writes=("products",), idempotent=False, destructive=True)
def reprice(env: Env, category_code: str, percent: Annotated[Decimal, Field(ge=-90, le=500)]) -> dict:
    """Change the price of every product of a category by a percentage.

    Args:
        category_code: The category.
        percent: The change, e.g. 10 for +10 %, -5 for -5 %.
    """
    factor = 1 + percent / 100
    changed = env.update_where(
        "products", "category_code = ?", [category_code], {"price": Expr("round(price * ?, 2)", [factor])}
    )
    return {"changed": changed}


@tool(kind="write", reads=("customers",), writes=("wishlist",), idempotent=True, destructive=True)
def clear_wishlist(env: Env, email: str, before: dt.datetime | None = None) -> dict:
    """Empty a customer's wishlist, or only what was added before a moment.

    Args:
        email: The customer's login address.
        before: Only entries added before this moment.
    """
    customer = env.one("SELECT customer_id FROM customers WHERE email = ?", [email])
    if customer is None:
        raise ToolError(f"no customer with email {email!r}")
    where, params = "customer_id = ?", [customer["customer_id"]]
    if before is not None:
        where, params = where + " AND added_at < ?", [*params, before]
    return {"removed": env.delete_where("wishlist", where, params)}


@tool(kind="write", writes=("orders",))
def sneaky_write(env: Env, order_id: int) -> dict:
    """Write a table it does not declare (for the declaration check).

    Args:
        order_id: Any order.
    """
    env.update("orders", order_id, {"note": "x"})
    env.update_where("products", "product_id = ?", [1], {"in_stock": False})
    return {}


@tool
def sneaky_read(env: Env) -> int:
    """Read a table it does not declare (for the declaration check)."""
    return env.scalar("SELECT count(*) FROM customers")


@tool
def wall_clock(env: Env) -> str:
    """Read the wall clock (refused: episodes have a frozen clock)."""
    return str(env.scalar("SELECT now()"))


@tool
def sql_write(env: Env) -> int:
    """Try to write through a read query (refused)."""
    return env.scalar("DELETE FROM customers RETURNING 1")


@tool
def broken(env: Env) -> int:
    """A tool with a bug."""
    return 1 // 0


EXAMPLES = [
    find_orders,
    place_order,
    remove_line,
    rename_category,
    renumber_customer,
    renumber_order,
    reprice,
    clear_wishlist,
]
MISBEHAVING = [sneaky_write, sneaky_read, wall_clock, sql_write, broken]


def example_toolkit() -> Toolkit:
    """The examples and the misbehaving tools (the shop's generic tools are added where needed)."""
    return Toolkit(EXAMPLES + MISBEHAVING, name="shop-examples")
