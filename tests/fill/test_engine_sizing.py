"""Sizing: rows per table from domain.yaml x scale, or fan-out from the roots, capped by key capacity."""

from __future__ import annotations

from stateforge.domain.config import DomainConfig
from stateforge.fill.sizing import plan_rows
from stateforge.graph import plan_fill
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from tests.fill.test_engine import game


def _int(name: str, nullable: bool = False) -> Column:
    return Column(name, "INTEGER", nullable=nullable)


def shop() -> Schema:
    return Schema([
        Table("users", [_int("id")], primary_key=("id",)),
        Table("products", [_int("id")], primary_key=("id",)),
        Table("orders", [_int("id"), _int("user_id")], primary_key=("id",),
              foreign_keys=[ForeignKey(("user_id",), "users", ("id",))]),
        Table("favourites", [_int("user_id"), _int("product_id")], primary_key=("user_id", "product_id"),
              foreign_keys=[ForeignKey(("user_id",), "users", ("id",)),
                            ForeignKey(("product_id",), "products", ("id",))]),
        Table("profiles", [_int("user_id")], primary_key=("user_id",),
              foreign_keys=[ForeignKey(("user_id",), "users", ("id",))]),
        Table("ratings", [_int("user_id"), Column("liked", "BOOLEAN", nullable=False)],
              unique=[("user_id", "liked")], foreign_keys=[ForeignKey(("user_id",), "users", ("id",))]),
        Table("lines", [_int("order_id"), _int("n")],
              foreign_keys=[ForeignKey(("order_id",), "orders", ("id",))]),
        Table("notes", [_int("line_id")], foreign_keys=[ForeignKey(("line_id",), "lines", ("n",))]),
    ])


def sizes(config: DomainConfig | None = None, **kw) -> dict[str, int]:
    schema = shop()
    return plan_rows(schema, plan_fill(schema), config or DomainConfig(name="shop"), **kw)


def test_fan_out_from_the_roots():
    got = sizes(rows=10)
    assert got["users"] == got["products"] == 10
    assert got["orders"] == 30  # a child: 3 x its parent
    assert got["favourites"] == 50  # a link table: min(5 N, 10 x 10)
    assert got["profiles"] == 10  # a UNIQUE foreign key holds one row per parent
    assert got["ratings"] == 10  # (user_id, liked): 10 users x 2 values, halved
    assert got["lines"] == 90 and got["notes"] == 270


def test_link_tables_are_capped_by_their_parents_and_chains_by_the_root():
    assert sizes(rows=2)["favourites"] == 4  # only 2 x 2 pairs exist
    assert sizes(rows=100, scale=0.5)["users"] == 50
    deep = sizes(rows=1)
    assert deep["notes"] == 27 and max(deep.values()) <= 30


def test_domain_sizes_times_scale_and_per_parent():
    config = DomainConfig.model_validate({"name": "shop", "tables": {
        "users": {"rows": 40}, "products": {"rows": 7},
        "orders": {"per_parent": {"fk": "user_id", "exactly": 2}},
        "lines": {"per_parent": {"fk": "order_id", "min": 1, "max": 3}, "rows": 1000},
        "profiles": {"rows": 500},
    }})
    got = sizes(config, scale=2.0)
    assert (got["users"], got["products"], got["orders"]) == (80, 14, 160)
    assert got["lines"] == 480  # the target, kept within parents x max
    assert got["profiles"] == 80  # capped: one profile per user
    assert sizes(config, scale=0.001)["products"] == 1  # at least one row
    assert sizes(config, rows=5)["users"] == 5  # --rows overrides domain sizes, per_parent still holds
    assert sizes(config, rows=5)["orders"] == 10


def test_sizing_is_deterministic_and_covers_the_plan():
    schema, plan, config = game()
    first = plan_rows(schema, plan, config)
    assert first == plan_rows(schema, plan, config) and list(first) == plan.order


def test_fixed_tables_keep_their_rows_at_any_scale_and_with_rows():
    config = DomainConfig.model_validate({"name": "shop", "tables": {
        "users": {"rows": 40}, "products": {"rows": 7, "scale": False},
        "lines": {"per_parent": {"fk": "order_id", "min": 0, "max": 5}, "rows": 100, "scale": False},
        "orders": {"rows": 60},
    }})
    for kw in ({"scale": 0.02}, {"scale": 10.0}, {"rows": 3}, {"rows": 3, "scale": 4.0}):
        got = sizes(config, **kw)
        assert got["products"] == 7 and got["lines"] == min(100, 5 * got["orders"]), kw
    assert sizes(config, scale=10.0)["users"] == 400  # the others scale as before
    assert sizes(config, rows=3)["users"] == 3
    assert sizes(config, scale=0.02)["lines"] == 5  # a fixed target still fits inside parents x max
    assert sizes(config, scale=10.0)["favourites"] <= 400 * 7  # children of a fixed table: capped by it
