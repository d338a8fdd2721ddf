"""A tiny shop schema built in Python (not parsed), covering every constraint the store and audit know.

customers (identity PK, UNIQUE email, allowed tier, self-referencing nullable FK)
warehouses (composite PK)
products (text PK, CHECK on price)
orders (identity PK, FK to customers, nullable composite FK to warehouses, composite UNIQUE with a
        nullable column, status with allowed values that a CHECK already states, CHECK on quantity)
"""

from __future__ import annotations

from collections import Counter

from stateforge.graph import FillPlan, plan_fill
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table


def shop_schema() -> Schema:
    """A fresh copy of the shop schema."""
    customers = Table(
        name="customers",
        description="People who buy.",
        columns=[
            Column("id", "BIGINT", nullable=False, identity=True),
            Column("email", "VARCHAR(120)", nullable=False, length=120, description="Login, unique."),
            Column("name", "VARCHAR", nullable=False),
            Column("tier", "VARCHAR", default="'free'", allowed_values=["free", "pro"]),
            Column("referred_by", "BIGINT"),
        ],
        primary_key=("id",),
        unique=[("email",)],
        foreign_keys=[ForeignKey(("referred_by",), "customers", ("id",), on_delete="SET NULL")],
    )
    warehouses = Table(
        name="warehouses",
        columns=[
            Column("region", "VARCHAR", nullable=False),
            Column("code", "INTEGER", nullable=False),
            Column("city", "VARCHAR"),
        ],
        primary_key=("region", "code"),
    )
    products = Table(
        name="Products",
        columns=[
            Column("sku", "VARCHAR", nullable=False),
            Column("price", "DECIMAL(10,2)", nullable=False, precision=10, scale=2),
        ],
        primary_key=("sku",),
        checks=[Check("price >= 0", ("price",), name="price_not_negative")],
    )
    orders = Table(
        name="orders",
        columns=[
            Column("id", "BIGINT", nullable=False, identity=True),
            Column("customer_id", "BIGINT", nullable=False),
            Column("region", "VARCHAR"),
            Column("code", "INTEGER"),
            Column("external_ref", "VARCHAR"),
            Column("status", "VARCHAR", nullable=False, allowed_values=["new", "paid"]),
            Column("quantity", "INTEGER"),
            Column("sku", "VARCHAR"),
        ],
        primary_key=("id",),
        unique=[("customer_id", "external_ref")],
        foreign_keys=[
            ForeignKey(
                ("customer_id",), "customers", ("id",), on_delete="CASCADE", name="fk_orders_customer"
            ),
            ForeignKey(("region", "code"), "warehouses", ("region", "code")),
            ForeignKey(("sku",), "products", ("sku",)),
        ],
        checks=[
            Check("status IN ('new', 'paid')", ("status",)),
            Check("quantity > 0", ("quantity",)),
        ],
    )
    return Schema(
        tables=[customers, warehouses, products, orders],
        dialect="postgres",
        source="stateforge/packs/shop/schema.sql",
        skipped=Counter({"function": 2, "view": 1}),
    )


def shop() -> tuple[Schema, FillPlan]:
    """The shop schema and its fill plan."""
    schema = shop_schema()
    return schema, plan_fill(schema)
