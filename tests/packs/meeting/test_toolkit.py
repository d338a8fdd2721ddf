"""The meeting toolkit as a whole: its shape, what it covers of the schema, its policies, and a tour that
calls every tool once successfully (which also proves each tool's declared reads and writes)."""

from __future__ import annotations

import pytest

from stateforge.episode import Episode
from tests.packs.meeting.conftest import FREE_MONDAY, ok, people, room, schedule

pytestmark = pytest.mark.xdist_group("meeting-pack")

READ_ONLY = {"buildings", "building_hours", "floors", "equipment"}


def test_the_pack_has_its_own_toolkit(ep: Episode) -> None:
    kit = ep.toolkit
    assert kit.name == "meeting"
    assert 40 <= len(kit) <= 55
    # people, rooms, desks, buildings and units are named as users know them, never by internal id
    internal = {
        "employee_id",
        "room_id",
        "desk_id",
        "building_id",
        "org_unit_id",
        "organizer_id",
        "booking_id",
    }
    assert not any(internal & set(t.parameters["properties"]) for t in kit)
    for item in kit:
        assert item.description and item.parameters["additionalProperties"] is False
        for name, schema in item.parameters["properties"].items():
            assert schema.get("description"), f"{item.name}.{name} has no description"
    writes = [t for t in kit if t.kind == "write"]
    assert len(writes) >= 25
    assert all(t.mcp()["annotations"]["readOnlyHint"] is False for t in writes)


def test_every_table_a_task_may_change_is_writable(ep: Episode) -> None:
    coverage = ep.toolkit.coverage(ep.schema)
    assert set(coverage.unwritable) == READ_ONLY
    assert coverage.unread == []


def test_policies_are_declared_and_hold_on_the_built_data(ep: Episode) -> None:
    policies = ep.config.policies
    assert 5 <= len(policies) <= 14  # a product's handful, not a rulebook
    checked = [p for p in policies if p.check]
    assert len(checked) >= 3
    for policy in checked:
        assert ep.query(policy.check) == [], policy.name


def test_every_tool_once(ep: Episode) -> None:
    """A day in the app, touching every tool; each call must succeed."""
    org, a, b, c, d, e = people(ep, 6)
    big = room(ep, min_capacity=6)
    other = room(ep, min_capacity=6, skip=1)
    day = f"{FREE_MONDAY}T"
    ceo = ep.query("SELECT employee_no FROM employees WHERE manager_id IS NULL ORDER BY employee_id")[0][
        "employee_no"
    ]
    called = []

    def call(tool: str, args: dict) -> object:
        called.append(tool)
        return ok(ep, tool, args)

    # people and places
    call("search_people", {"query": a.split("@")[0][:4], "limit": 5})
    call("get_person", {"person": org})
    call("list_direct_reports", {"person": ceo, "all_levels": True})
    call("search_org_units", {"kind": "division"})
    call("list_buildings", {})
    call("find_rooms", {"start_at": f"{day}10:00:00", "end_at": f"{day}11:00:00", "min_capacity": 4})
    call("get_room", {"room": big["name"], "date": FREE_MONDAY})
    call("find_meeting_times", {"people": [org, a, b], "date": FREE_MONDAY, "duration_minutes": 45})
    # a meeting's life
    meeting = schedule(ep, org, f"{day}10:00:00", 60, invitees=[a, b], room=big["name"])
    mid = meeting["meeting_id"]
    call(
        "schedule_meeting",
        {"organizer": org, "title": "Sync", "start_at": f"{day}16:00:00", "end_at": f"{day}16:30:00"},
    )
    call("get_meeting", {"meeting": meeting["meeting_code"]})
    call("search_meetings", {"organizer": org, "starts_from": f"{day}00:00:00"})
    call("get_calendar", {"person": org, "from_date": FREE_MONDAY})
    call("update_meeting", {"meeting": mid, "organizer": org, "agenda": "Budget", "passcode": "246810"})
    call("invite_attendees", {"meeting": mid, "organizer": org, "people": [c, d]})
    call("remove_attendees", {"meeting": mid, "organizer": org, "people": [d]})
    call("respond_to_invitation", {"meeting": mid, "person": a, "response": "accepted"})
    call("reschedule_meeting", {"meeting": mid, "organizer": org, "start_at": f"{day}11:00:00"})
    call("change_room", {"meeting": mid, "organizer": org, "new_room": other["name"]})
    call("release_room", {"meeting": mid, "organizer": org})
    call("book_room", {"meeting": mid, "organizer": org, "room": big["name"]})
    call("cancel_meeting", {"meeting": mid, "organizer": org})
    call("cancel_meetings", {"organizer": org, "from_date": FREE_MONDAY, "starts_from_time": "15:00"})
    call("delete_cancelled_meetings", {"organizer": org, "meeting_ids": [mid]})
    # a series
    series = call(
        "create_meeting_series",
        {
            "organizer": org,
            "title": "Standup",
            "frequency": "weekly",
            "first_date": FREE_MONDAY,
            "start_time": "09:00",
            "duration_minutes": 15,
            "occurrences": 4,
            "invitees": [a],
        },
    )
    call("get_series", {"series_id": series["series_id"]})
    call("update_series_attendees", {"series_id": series["series_id"], "organizer": org, "add": [b]})
    call(
        "respond_to_invitations",
        {"person": b, "response": "tentative", "from_date": FREE_MONDAY, "to_date": "2026-08-31"},
    )
    call("cancel_series", {"series_id": series["series_id"], "organizer": org, "from_date": "2026-07-27"})
    # desks, out of office, profile
    desk_building = ep.query(
        "SELECT b.name FROM desks AS d JOIN buildings AS b USING (building_id) "
        "WHERE d.desk_type = 'hot_desk' ORDER BY d.desk_id LIMIT 1"
    )[0]["name"]
    call("find_desks", {"building": desk_building, "date": "2026-04-02"})
    call("book_desk", {"person": c, "date": "2026-04-02", "building": desk_building})
    call("list_desk_bookings", {"person": c, "from_date": "2026-04-01"})
    call("cancel_desk_bookings", {"person": c, "from_date": "2026-04-02"})
    free = ep.query("SELECT code FROM desks WHERE desk_type = 'hot_desk' ORDER BY desk_id LIMIT 1")[0]["code"]
    call("assign_desk", {"desk": free, "person": e})
    ooo = call(
        "set_out_of_office",
        {
            "person": e,
            "starts_at": "2026-07-20T00:00:00",
            "ends_at": "2026-07-24T23:00:00",
            "reason": "vacation",
            "delegate": c,
        },
    )
    call(
        "change_out_of_office",
        {"person": e, "period_id": ooo["period_id"], "auto_reply": "Back on the 27th."},
    )
    call("list_out_of_office", {"on_date": "2026-07-21"})
    call("cancel_out_of_office", {"person": e, "period_id": ooo["period_id"]})
    call("update_profile", {"person": e, "phone": "+44 20 7946 0000"})
    call(
        "set_working_hours", {"person": e, "days": [{"weekday": 5, "starts_at": "08:00", "ends_at": "14:00"}]}
    )
    # facilities
    call("update_room_equipment", {"room": other["name"], "install": [{"name": "Flip Chart"}]})
    call("set_room_bookable", {"room": other["name"], "bookable": False})
    # recordings and notes
    rec = ep.query(
        "SELECT r.recording_id, e.email FROM recordings AS r JOIN meetings AS m USING (meeting_id) "
        "JOIN employees AS e ON e.employee_id = m.organizer_id WHERE r.created_at < TIMESTAMP '2026-02-01' "
        "ORDER BY r.recording_id LIMIT 2"
    )
    call("list_recordings", {"person": rec[0]["email"]})
    call(
        "set_recording_retention",
        {
            "person": rec[0]["email"],
            "recording_ids": [rec[0]["recording_id"]],
            "retention_until": "2027-12-31",
        },
    )
    call("delete_recordings", {"person": rec[1]["email"], "recording_ids": [rec[1]["recording_id"]]})
    held = ep.query(
        "SELECT m.meeting_id, e.email FROM meetings AS m JOIN employees AS e ON e.employee_id = "
        "m.organizer_id "
        "WHERE m.status = 'ended' AND e.is_active ORDER BY m.meeting_id LIMIT 1"
    )[0]
    note = call(
        "add_meeting_note", {"meeting": held["meeting_id"], "author": held["email"], "body": "Ship it."}
    )
    call("list_meeting_notes", {"meeting": held["meeting_id"], "viewer": held["email"]})
    call(
        "edit_meeting_note", {"note_id": note["note_id"], "author": held["email"], "body": "Ship it Friday."}
    )
    call("delete_meeting_note", {"note_id": note["note_id"], "author": held["email"]})
    call("offboard_employee", {"person": d, "last_day": "2026-03-31"})
    call("cannot_complete", {"reason": "the tour is over"})

    assert set(called) == set(ep.toolkit.names)
    policies = ep.config.policies
    for policy in policies:
        if policy.check:
            assert ep.query(policy.check) == [], policy.name
