"""Date-times with a time zone (issue 20 item 5): the meeting pack's tools over MCP with the SDK's client.

A zone (`Z`, `+08:00`) converts to the zone the value is stored in (the meeting pack: the organizer's or the
person's building; the generic toolkit: the domain's time, UTC); without one the value is that local time
as is; the schema's pattern admits both (no `"format": "date-time"`, which would require a zone).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import anyio
import duckdb
from mcp import Client

from stateforge.episode import Episode
from stateforge.mcp import serve_mcp
from stateforge.tools.times import PATTERN

MONDAY = "2026-07-13"  # after every built meeting and absence (tests/packs/meeting/conftest.py)


def _based_in(db: Path) -> dict[str, dict[str, Any]]:
    """One active employee (no unit head) per zone their times are stored in, with their building: based in
    an office of +08:00 all year (Shanghai or Singapore, one with rooms), in London (+01:00 in July), in New
    York (-04:00 in July), and (key "none") one with no home building and a profile zone other than UTC."""
    found: dict[str, dict[str, Any]] = {}
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT e.email, b.timezone, e.timezone, b.name, (SELECT count(*) FROM rooms AS r WHERE "
            "r.building_id = b.building_id AND r.is_bookable AND NOT r.requires_approval) FROM employees "
            "AS e LEFT JOIN buildings AS b ON b.building_id = e.home_building_id WHERE e.is_active AND NOT "
            "EXISTS (SELECT 1 FROM org_units AS u WHERE u.head_employee_id = e.employee_id) "
            "ORDER BY e.employee_id"
        ).fetchall()
    for email, building_zone, own_zone, building, rooms in rows:
        if building_zone in ("Asia/Shanghai", "Asia/Singapore"):
            key = "+08:00" if rooms else None
        elif building_zone is None:
            key = "none" if own_zone != "UTC" else None
        else:
            key = building_zone
        if key is not None:
            found.setdefault(key, {"email": email, "zone": building_zone or own_zone, "building": building})
    return found


def test_meeting_tools_convert_a_zone_to_where_the_time_is_stored(meeting_db: Path, tmp_path: Path):
    """A meeting's time is its organizer's building's local time, an absence its person's: a zone converts
    to that zone (the profile's when the person has no home building); without a zone the value is that
    local time as is. Searches compare a zoned bound with each meeting in its organizer's zone, and the room
    finder with each room in its building's."""
    people = _based_in(meeting_db)
    shanghai, london, new_york, nowhere = (
        people[k] for k in ("+08:00", "Europe/London", "America/New_York", "none")
    )
    meet = {"title": "Zoned", "duration_minutes": 30}

    async def session(url: str) -> dict[str, Any]:
        async with Client(url) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            call = client.call_tool
            got: dict[str, Any] = {
                "schema": tools["schedule_meeting"].input_schema["properties"]["start_at"],
                "shanghai": await call("schedule_meeting", {**meet, "organizer": shanghai["email"],
                                                            "start_at": f"{MONDAY}T02:00:00Z"}),
                "london": await call("schedule_meeting", {**meet, "organizer": london["email"],
                                                          "start_at": f"{MONDAY}T17:00:00+08:00"}),
                "nowhere": await call("schedule_meeting", {**meet, "organizer": nowhere["email"],
                                                           "start_at": f"{MONDAY}T12:00:00Z"}),
                "naive": await call("schedule_meeting", {**meet, "title": "Plain",
                                                         "organizer": london["email"],
                                                         "start_at": f"{MONDAY}T14:00:00"}),
                "away": await call("set_out_of_office", {"person": new_york["email"], "reason": "vacation",
                                                         "starts_at": "2026-07-20T13:00:00Z",
                                                         "ends_at": "2026-07-21T04:00:00Z"}),
                "bad": await call("schedule_meeting", {**meet, "organizer": london["email"],
                                                       "start_at": "13 July 2026, 10 am"}),
            }
            # 10:00 at +08:00 is 02:00 UTC: a zoned window around it finds the meeting, a naive one does not
            window = {"organizer": shanghai["email"], "starts_from": f"{MONDAY}T01:59:00Z",
                      "starts_before": f"{MONDAY}T02:01:00Z"}
            got["found"] = await call("search_meetings", window)
            naive = {"starts_from": f"{MONDAY}T01:59:00", "starts_before": f"{MONDAY}T02:01:00"}
            got["naive_window"] = await call("search_meetings", {**window, **naive})
            rooms = {"start_at": f"{MONDAY}T02:00:00Z", "end_at": f"{MONDAY}T03:00:00Z", "limit": 50}
            got["rooms_zoned"] = await call("find_rooms", {**rooms, "building": shanghai["building"]})
            got["rooms_local"] = await call("find_rooms", {"building": shanghai["building"], "limit": 50,
                                                           "start_at": f"{MONDAY}T10:00",
                                                           "end_at": f"{MONDAY}T11:00"})
            got["rooms_all"] = await call("find_rooms", rooms)
            got["rooms_london"] = await call("find_rooms", {"building": london["building"], "limit": 50,
                                                            "start_at": f"{MONDAY}T03:00",
                                                            "end_at": f"{MONDAY}T04:00"})
            return got

    with Episode.open(meeting_db, workdir=tmp_path) as ep:
        with serve_mcp(ep, port=0) as handle:
            got = anyio.run(session, handle.url)
        stored = {
            (r["email"], r["title"]): r["start_at"].isoformat()
            for r in ep.query("SELECT e.email, m.title, m.start_at FROM meetings AS m JOIN employees AS e ON "
                              "e.employee_id = m.organizer_id WHERE m.title IN ('Zoned', 'Plain')")
        }
        absence = ep.query("SELECT starts_at, ends_at FROM out_of_office ORDER BY ooo_id DESC LIMIT 1")[0]
    for name in ("shanghai", "london", "nowhere", "naive", "away", "found", "rooms_zoned", "rooms_all"):
        assert got[name].is_error is False, (name, got[name].content[0].text)
    at_noon_utc = dt.datetime(2026, 7, 13, 12, tzinfo=dt.UTC).astimezone(ZoneInfo(nowhere["zone"]))
    assert stored == {
        (shanghai["email"], "Zoned"): f"{MONDAY}T10:00:00",
        (london["email"], "Zoned"): f"{MONDAY}T10:00:00",  # 09:00 UTC, British summer time
        (nowhere["email"], "Zoned"): at_noon_utc.replace(tzinfo=None).isoformat(),
        (london["email"], "Plain"): f"{MONDAY}T14:00:00",
    }
    assert [absence["starts_at"].isoformat(), absence["ends_at"].isoformat()] == [
        "2026-07-20T09:00:00",  # New York, daylight time
        "2026-07-21T00:00:00",
    ]
    assert [r["title"] for r in got["found"].structured_content["rows"]] == ["Zoned"]
    assert got["naive_window"].structured_content["rows"] == []
    local = got["rooms_local"].structured_content["rows"]
    assert got["rooms_zoned"].structured_content["rows"] == local
    # every building at once: each room is free in its own building's local hour (10:00 at +08:00; London's
    # 03:00 is before it opens, so no London room)
    everywhere = got["rooms_all"].structured_content["rows"]
    assert [r for r in everywhere if r["building"] == shanghai["building"]] == local
    assert not [r for r in everywhere if r["building"] == london["building"]]
    assert got["rooms_london"].structured_content["rows"] == []
    schema = got["schema"]
    assert schema["type"] == "string" and "format" not in schema and schema["pattern"] == PATTERN
    assert "organizer's local time" in schema["description"]
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
