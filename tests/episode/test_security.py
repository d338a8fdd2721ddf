"""Injection-shaped arguments are inert; SQL in an episode cannot reach files, the network or the settings."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.episode import Episode
from stateforge.tools import Env, Toolkit, tool
from tests.episode.fixture import full_toolkit, shop_schema

INJECTIONS = [
    "'; DROP TABLE customers; --",
    "%' OR 1=1 --",
    '" OR ""="',
    "1; DELETE FROM orders",
    "Robert'); DROP TABLE orders;--",
    "x' UNION SELECT email FROM customers --",
    "%",
    "_",
    "\\' OR 1=1",
    "NULL",
]
TABLES = (
    "carriers",
    "categories",
    "customers",
    "newsletter",
    "products",
    "orders",
    "order_lines",
    "shipments",
    "invoices",
    "reviews",
    "wishlist",
)


@tool(reads=("customers",))
def read_file(env: Env, path: str) -> list:
    """Try to read a file through SQL (must fail).

    Args:
        path: A file.
    """
    return env.query("SELECT * FROM read_csv(?)", [path])


@pytest.fixture
def sep(shop_db: Path, tmp_path: Path):
    kit = Toolkit([read_file, *full_toolkit(shop_schema())])
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as episode:
        yield episode


def counts(ep: Episode) -> dict[str, int]:
    return {t: ep.query(f"SELECT count(*) AS n FROM {t}")[0]["n"] for t in TABLES}


def test_injection_shaped_text_is_stored_and_matched_literally(sep: Episode):
    before = counts(sep)
    for i, text in enumerate(INJECTIONS):
        made = sep.call(
            "create_customer", {"email": f"{i}@shop.test", "name": text, "created_at": "2025-01-01T00:00:00"}
        )
        assert made.ok, made.error
        got = sep.call("get_customer", {"customer_id": made.value["customer_id"]})
        assert got.value["name"] == text
        same = sep.call("search_customers", {"filters": [{"column": "name", "value": text}]})
        assert [r["name"] for r in same.value["rows"]] == [text]
        inside = sep.call(
            "search_customers", {"filters": [{"column": "name", "op": "contains", "value": text}]}
        )
        assert all(text.lower() in r["name"].lower() for r in inside.value["rows"])
        assert sep.call("find_orders", {"email": text}).error == f"no customer with email {text!r}"
        assert (
            sep.call("search_products", {"filters": [{"column": "sku", "value": text}]}).value["total"] == 0
        )
        key = sep.call("get_category", {"code": text[:10]})
        assert not key.ok and key.error_kind == "tool"
    assert counts(sep) == {**before, "customers": before["customers"] + len(INJECTIONS)}


def test_huge_nul_and_mistyped_arguments_are_refused_or_inert(sep: Episode):
    before = counts(sep)
    huge = "x" * 1_000_000
    long = sep.call(
        "create_customer", {"email": "h@shop.test", "name": huge, "created_at": "2025-01-01T00:00:00"}
    )
    assert long.error_kind == "arguments" and "may hold at most 60 characters, got 1000000" in long.error
    assert (
        sep.call(
            "search_customers", {"filters": [{"column": "name", "op": "contains", "value": huge}]}
        ).value["total"]
        == 0
    )
    assert sep.call("find_orders", {"email": huge}).error_kind == "tool"
    nul = sep.call(
        "create_customer", {"email": "n@shop.test", "name": "a\x00b", "created_at": "2025-01-01T00:00:00"}
    )
    assert nul.error_kind == "arguments" and "NUL character" in nul.error
    for arguments in (
        {"customer_id": "1 OR 1=1"},
        {"customer_id": [1, 2]},
        {"customer_id": {"$ne": None}},
        {"customer_id": 1.5},
        {"customer_id": None},
    ):
        wrong = sep.call("get_customer", arguments)
        assert wrong.error_kind == "arguments", arguments
    mistyped = sep.call("search_customers", {"filters": [{"column": "customer_id", "value": "1 OR 1=1"}]})
    assert mistyped.error_kind == "arguments" and "must be integer for column customer_id" in mistyped.error
    assert counts(sep) == before


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_text('/etc/hostname')",
        "SELECT * FROM glob('/etc/*')",
        "ATTACH '/tmp/other.duckdb' AS other",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SELECT * FROM read_parquet('https://example.com/x.parquet')",
        "COPY customers TO '{out}/customers.csv'",
        "EXPORT DATABASE '{out}/dump'",
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "RESET enable_external_access",
        "SET allowed_directories = ['/']",
        "SET memory_limit = '100GB'",
        "CREATE SECRET s (TYPE s3, KEY_ID 'x', SECRET 'y')",
    ],
)
def test_episode_sql_cannot_reach_files_network_or_settings(sep: Episode, tmp_path: Path, sql: str):
    out = tmp_path / "out"
    with pytest.raises(duckdb.Error):
        sep.connection.execute(sql.format(out=out)).fetchall()
    assert not out.exists()
    settings = dict(
        sep.connection.execute(
            "SELECT name, value FROM duckdb_settings() "
            "WHERE name IN ('enable_external_access', 'lock_configuration')"
        ).fetchall()
    )
    assert settings == {"enable_external_access": "false", "lock_configuration": "true"}


def test_a_tool_cannot_read_a_file(sep: Episode):
    result = sep.call("read_file", {"path": "/etc/passwd"})
    assert not result.ok and result.error_kind == "internal"
    assert "file system operations are disabled" in result.error and "root:" not in result.error
    with pytest.raises(Exception, match="run one SELECT"):
        sep.query("ATTACH '/tmp/x.duckdb' AS x")
