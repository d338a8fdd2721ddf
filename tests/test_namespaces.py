"""Namespaces end to end: the golden fixture with three PostgreSQL schemas (an `orders` table in two of
them, foreign keys across them) builds clean into DuckDB schemas of the same names, serves the generic
tools over MCP (a real server on loopback, the SDK's client), and the diff of what the tools changed names
each table by its identity."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import anyio
import duckdb
import pytest
from mcp import Client

from stateforge.build import build_domain
from stateforge.diff import diff_files
from stateforge.mcp import serve_mcp
from stateforge.store import read_model
from tests.conftest import FIXTURES

DDL = FIXTURES / "ddl" / "pg_namespaces.sql"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("namespaces")
    report = build_domain(str(DDL), rows=12, out=out)
    assert report["totals"]["violations"] == 0
    return out / "pg_namespaces.duckdb"


def test_each_namespace_is_a_duckdb_schema_with_its_tables_and_sequences(built: Path):
    with duckdb.connect(str(built), read_only=True) as con:
        tables = set(con.sql("SELECT schema_name, table_name FROM duckdb_tables() "
                             "WHERE schema_name <> 'stateforge'").fetchall())
        sequences = set(con.sql("SELECT schema_name, sequence_name FROM duckdb_sequences()").fetchall())
        recorded = con.sql("SELECT table_name, schema_name, local_name FROM stateforge.tables "
                           "ORDER BY ordinal").fetchall()
        schema, _ = read_model(con)
    assert tables == {
        ("main", "customers"), ("main", "orders"), ("main", "audit.log"), ("sales", "orders"),
        ("sales", "order_lines"), ("sales", "reps"), ("billing", "invoices"), ("billing", "payments"),
    }
    wanted = {("sales", "orders_id_seq"), ("billing", "invoices_id_seq"), ("main", "orders_id_seq")}
    assert wanted <= sequences
    assert recorded[:3] == [("customers", "main", "customers"), ("orders", "main", "orders"),
                            ("sales.orders", "sales", "orders")]
    assert ("main.audit.log", "main", "audit.log") in recorded
    assert schema.table("sales.orders").description == "Orders negotiated by the sales team."


def test_generic_tools_over_mcp_and_the_diff_of_what_they_changed(built: Path, tmp_path: Path):
    base = tmp_path / "base.duckdb"
    after = tmp_path / "after.duckdb"
    shutil.copy(built, base)
    shutil.copy(built, after)

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            deal = await client.call_tool("get_sales_order", {"id": 1})
            stage = "lost" if deal.structured_content["stage"] == "won" else "won"
            won = await client.call_tool("update_sales_order", {"id": 1, "stage": stage})
            web = await client.call_tool("get_order", {"id": 10_000})
            invoice = await client.call_tool(
                "create_billing_invoice",
                {"sales_order_id": 1, "amount": "12.50", "issued_on": "2026-01-05"},
            )
            orphan = await client.call_tool(
                "create_billing_invoice",
                {"sales_order_id": 10_000, "amount": "1.00", "issued_on": "2026-01-05"},
            )
            return {"tools": tools, "deal": deal, "stage": stage, "won": won, "web": web,
                    "invoice": invoice, "orphan": orphan}

    with serve_mcp(after, port=0, persist=True) as handle:
        got = anyio.run(session, handle.url)
    tools = got["tools"]
    assert {"search_orders", "search_sales_orders", "get_sales_order_line", "create_billing_invoice",
            "search_audit_log"} <= set(tools)
    assert all(len(name) <= 64 for name in tools)
    assert "main.orders" in tools["search_orders"].description, "ambiguous: the namespace is shown"
    assert "sales.orders" in tools["search_sales_orders"].description
    assert got["deal"].is_error is False and got["deal"].structured_content["id"] == 1
    assert got["won"].is_error is False
    assert got["web"].is_error is True and "no main.orders row with id 10000" in got["web"].content[0].text
    assert got["invoice"].is_error is False
    assert got["orphan"].is_error is True and "sales.orders" in got["orphan"].content[0].text

    diff = diff_files(base, after).to_dict()
    assert set(diff["tables"]) == {"billing.invoices", "sales.orders"}, "main.orders is untouched"
    assert diff["tables"]["sales.orders"]["updated"] == [
        {"key": {"id": 1}, "changes": {"stage": [got["deal"].structured_content["stage"], got["stage"]]}}
    ]
    assert diff["tables"]["billing.invoices"]["inserted"][0]["amount"] == "12.50"
