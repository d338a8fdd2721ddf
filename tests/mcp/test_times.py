"""Date-times with a time zone (issue 20 item 5): the meeting pack's tools over MCP with the SDK's client.

A zone (`Z`, `+08:00`) converts to the domain's time; without one the value is the domain's time as is;
the schema's pattern admits both (no `"format": "date-time"`, which would require a zone).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import anyio
import duckdb
from mcp import Client

from stateforge.episode import Episode
from stateforge.mcp import serve_mcp
from stateforge.tools.times import PATTERN

MONDAY = "2026-07-13"  # after every built meeting and absence (tests/packs/meeting/conftest.py)


def _people(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT email FROM employees AS e WHERE is_active AND NOT EXISTS (SELECT 1 FROM org_units AS u "
            "WHERE u.head_employee_id = e.employee_id) ORDER BY employee_id LIMIT 3"
        ).fetchall()
    return [r[0] for r in rows]


def test_meeting_tools_accept_date_times_with_a_zone(meeting_db: Path, tmp_path: Path):
    organizer, other, away = _people(meeting_db)

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            meet = {"organizer": organizer, "title": "Zoned", "duration_minutes": 30}
            return {
                "schema": tools["schedule_meeting"].input_schema["properties"]["start_at"],
                "utc": await client.call_tool(
                    "schedule_meeting", {**meet, "start_at": f"{MONDAY}T10:00:00Z"}
                ),
                "offset": await client.call_tool(
                    "schedule_meeting",
                    {**meet, "organizer": other, "start_at": f"{MONDAY}T19:00:00+08:00"},
                ),
                "naive": await client.call_tool(
                    "schedule_meeting", {**meet, "title": "Plain", "start_at": f"{MONDAY}T14:00:00"}
                ),
                "away": await client.call_tool(
                    "set_out_of_office",
                    {
                        "person": away,
                        "starts_at": "2026-07-20T09:00:00+02:00",
                        "ends_at": "2026-07-21T00:00:00Z",
                        "reason": "vacation",
                    },
                ),
                "bad": await client.call_tool(
                    "schedule_meeting", {**meet, "start_at": "13 July 2026, 10 am"}
                ),
            }

    with Episode.open(meeting_db, workdir=tmp_path) as ep:
        with serve_mcp(ep, port=0) as handle:
            got = anyio.run(session, handle.url)
        stored = ep.query(
            "SELECT title, start_at FROM meetings WHERE title IN ('Zoned', 'Plain') ORDER BY start_at"
        )
        absence = ep.query("SELECT starts_at, ends_at FROM out_of_office ORDER BY ooo_id DESC LIMIT 1")
    for name in ("utc", "offset", "naive", "away"):
        assert got[name].is_error is False, (name, got[name].content[0].text)
    assert [(m["title"], m["start_at"].isoformat()) for m in stored] == [
        ("Zoned", f"{MONDAY}T10:00:00"),
        ("Zoned", f"{MONDAY}T11:00:00"),
        ("Plain", f"{MONDAY}T14:00:00"),
    ]
    assert [absence[0]["starts_at"].isoformat(), absence[0]["ends_at"].isoformat()] == [
        "2026-07-20T07:00:00",
        "2026-07-21T00:00:00",
    ]
    schema = got["schema"]
    assert schema["type"] == "string" and "format" not in schema and schema["pattern"] == PATTERN
    for accepted in ("T10:00:00", "T10:00:00Z", "T10:00:00+08:00", "T10:00", " 10:00:00.5-05:00"):
        accepted = MONDAY + accepted
        assert re.match(schema["pattern"], accepted), accepted
    assert got["bad"].is_error is True and got["bad"].structured_content["argument"] == "start_at"
    assert "with a zone (Z, +08:00) it is converted" in got["bad"].content[0].text


def test_generic_tools_take_timestamp_columns_with_a_zone(shop_db: Path, tmp_path: Path):
    """The generic toolkit's TIMESTAMP columns: the same conversion, and the same schema."""

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            changed = await client.call_tool(
                "update_customer", {"customer_id": 1, "created_at": "2025-01-01T10:00:00+02:00"}
            )
            return {
                "schema": tools["update_customer"].input_schema["properties"]["created_at"],
                "changed": changed,
                "read": await client.call_tool("get_customer", {"customer_id": 1}),
            }

    with serve_mcp(shop_db, port=0, workdir=tmp_path) as handle:
        got = anyio.run(session, handle.url)
    assert got["changed"].is_error is False, got["changed"].content[0].text
    assert got["read"].structured_content["created_at"] == "2025-01-01T08:00:00"
    zoned = next(s for s in got["schema"].get("anyOf", [got["schema"]]) if s.get("type") == "string")
    assert zoned["pattern"] == PATTERN and "format" not in zoned
