"""The write log a grader trusts: every public write path records exactly the rows it changed (cascades
included), a query cannot write, and a call that recorded nothing keeps nothing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from stateforge.episode import Episode
from stateforge.tools import Env, Expr, Toolkit, tool
from tests.episode.fixture import full_toolkit, shop_schema
from tests.episode.test_fk_actions import DELETABLE


@tool(kind="write", writes=("carriers",))
def path_insert(env: Env) -> dict:
    """env.insert."""
    return {"result": env.insert("carriers", {"name": "Inserted"})}


@tool(kind="write", writes=("carriers",))
def path_insert_many(env: Env) -> list:
    """env.insert_many."""
    return {"result": env.insert_many("carriers", [{"name": "One"}, {"name": "Two"}])}


@tool(kind="write", writes=("customers",))
def path_update(env: Env, customer_id: int) -> int:
    """env.update of a referenced key (ON UPDATE CASCADE / SET NULL in four tables).

    Args:
        customer_id: A customer.
    """
    return {"result": env.update("customers", customer_id, {"customer_id": 990_000 + customer_id})}


@tool(kind="write", writes=("products",))
def path_update_where(env: Env) -> int:
    """env.update_where with an expression."""
    return {"result": env.update_where("products", "product_id <= ?", [3], {"price": Expr("price + 1")})}


@tool(kind="write", writes=("customers",))
def path_delete(env: Env, customer_id: int) -> int:
    """env.delete (ON DELETE CASCADE / SET NULL through several tables).

    Args:
        customer_id: A customer.
    """
    return {"result": env.delete("customers", customer_id)}


@tool(kind="write", writes=("wishlist",))
def path_delete_where(env: Env) -> int:
    """env.delete_where."""
    return {"result": env.delete_where("wishlist", "product_id <= ?", [5])}


@tool(reads=("wishlist",))
def cte_write(env: Env) -> Any:
    """A read whose CTE deletes rows."""
    return {"result": env.scalar("WITH gone AS (DELETE FROM wishlist RETURNING *) SELECT count(*) FROM gone")}


@tool
def sequence_write(env: Env) -> Any:
    """A read that advances a sequence."""
    return {"result": env.scalar("SELECT nextval('orders_seq')")}


@tool(reads=("wishlist",))
def raw_write(env: Env) -> int:
    """A read tool that writes around the helpers, on the connection they use."""
    env._ctx.con.execute("DELETE FROM wishlist")  # noqa: SLF001 - the bypass under test
    return {"result": 0}


@tool(kind="write", writes=("wishlist",))
def wish(env: Env, customer_id: int, product_ids: list[int]) -> list:
    """env.insert_many of wishlist rows (each must find its customer and product).

    Args:
        customer_id: The customer.
        product_ids: The products.
    """
    rows = [{"customer_id": customer_id, "product_id": p, "added_at": env.now} for p in product_ids]
    return {"result": env.insert_many("wishlist", rows)}


PATHS = [path_insert, path_insert_many, path_update, path_update_where, path_delete, path_delete_where]


@pytest.fixture
def wep(shop_db: Path, tmp_path: Path):
    kit = Toolkit([*PATHS, wish, cte_write, sequence_write, raw_write, *full_toolkit(shop_schema())])
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as episode:
        yield episode


def snapshot(ep: Episode) -> dict[str, dict[tuple, tuple]]:
    """Every row of every table, by primary key (a table without one: by the whole row and its rank among
    equal rows)."""
    out = {}
    for table in ep.schema.tables:
        rows = [tuple(r.values()) for r in ep.query(f'SELECT * FROM "{table.name}"')]
        if table.primary_key:
            at = [table.column_names.index(c) for c in table.primary_key]
            out[table.name] = {tuple(r[i] for i in at): r for r in rows}
        else:
            seen: Counter[tuple] = Counter()
            keyed = {}
            for row in rows:
                seen[row] += 1
                keyed[(*row, seen[row])] = row
            out[table.name] = keyed
    return out


def real_changes(before: dict[str, dict[tuple, tuple]], after: dict[str, dict[tuple, tuple]]) -> dict:
    """What a diff of the two states finds, in the write log's form (a key change: a delete + an insert)."""
    out: dict[str, dict[str, int]] = {}
    for table, old in before.items():
        new = after[table]
        counts = {
            "inserted": len(new.keys() - old.keys()),
            "updated": sum(1 for k in old.keys() & new.keys() if old[k] != new[k]),
            "deleted": len(old.keys() - new.keys()),
        }
        counts = {k: v for k, v in counts.items() if v}
        if counts:
            out[table] = counts
    return out


def logged(changes: dict[str, dict[str, int]]) -> dict:
    """The write log with an update of a key counted as the diff sees it."""
    return {t: {k: v for k, v in c.items() if v} for t, c in changes.items()}


def test_every_public_write_path_records_what_a_diff_finds(wep: Episode):
    deletable = wep.query(
        DELETABLE + " AND EXISTS (SELECT 1 FROM reviews r WHERE r.customer_id = c.customer_id) ORDER BY 1"
    )[0]["customer_id"]
    movable = wep.query(
        "SELECT c.customer_id FROM customers c WHERE EXISTS (SELECT 1 FROM wishlist w WHERE w.customer_id = "
        "c.customer_id) AND NOT EXISTS (SELECT 1 FROM invoices i JOIN orders o USING (order_id) WHERE "
        "o.customer_id = c.customer_id) AND c.customer_id <> ? ORDER BY 1",
        [deletable],
    )[0]["customer_id"]
    calls = [
        ("path_insert", {}),
        ("path_insert_many", {}),
        ("path_update", {"customer_id": movable}),
        ("path_update_where", {}),
        ("path_delete", {"customer_id": deletable}),
        ("path_delete_where", {}),
    ]
    for name, arguments in calls:
        before = snapshot(wep)
        result = wep.call(name, arguments)
        assert result.ok, result.error
        found = real_changes(before, snapshot(wep))
        assert found, name
        if name == "path_update":  # the key moved: the diff by key sees each moved row as deleted + inserted
            assert set(result.changes) == set(found)
            for table, counts in result.changes.items():
                moved = found[table].get("inserted", 0)
                assert moved == found[table].get("deleted", 0)
                assert counts["updated"] == moved + found[table].get("updated", 0), table
        else:
            assert logged(result.changes) == found, name
        if name in ("path_update", "path_delete"):
            assert len(result.changes) > 1, "the cascades are in the log"


def test_a_query_that_writes_is_refused_and_changes_nothing(wep: Episode):
    before = snapshot(wep)
    for name, word in (("cte_write", "DELETE"), ("sequence_write", "nextval")):
        result = wep.call(name, {})
        assert not result.ok and result.error_kind == "definition", name
        assert word in result.error and "write" in result.error
    assert snapshot(wep) == before


def test_a_call_that_recorded_no_change_keeps_none(wep: Episode):
    before = snapshot(wep)
    assert before["wishlist"]
    result = wep.call("raw_write", {})
    assert result.ok and result.changes == {}
    assert snapshot(wep) == before, "the unrecorded delete was rolled back with the call"


def test_a_write_names_exactly_the_foreign_keys_that_find_no_parent(wep: Episode):
    before = snapshot(wep)
    customer = next(iter(before["customers"]))[0]
    products = sorted(k[0] for k in before["products"])
    for given, missing in (
        ([products[0], 99_991, products[1], 99_992], "99991; 99992"),  # several values, one query
        ([99_993, 99_993, products[2]], "99993"),
        ([99_994], "99994"),  # one value
        ([products[0], products[1], products[2]], None),
        ([*products[:4], *range(99_995, 99_999), 99_999], "99995; 99996; 99997; 99998; 99999"),  # > 8
    ):
        result = wep.call("wish", {"customer_id": customer, "product_ids": given})
        if missing is None:
            assert result.ok, result.error
            continue
        assert result.error_kind == "constraint"
        assert f"product_id = {missing} refers to no row of products(product_id)" in result.error
    after = snapshot(wep)
    assert len(after["wishlist"]) == len(before["wishlist"]) + 3
