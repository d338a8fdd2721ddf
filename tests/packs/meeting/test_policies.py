"""Each policy of the meeting pack (domain.yaml `policies:`) is refused by the tools that could break it, with
a message that says what is wrong and what to do."""

from __future__ import annotations

import pytest

from stateforge.domain.loader import schemas_dir
from stateforge.domain.modules import import_pack_part
from stateforge.episode import Episode
from stateforge.tools.errors import ToolDefinitionError
from tests.packs.meeting.conftest import FREE_MONDAY, ok, people, refused, room, schedule

pytestmark = pytest.mark.xdist_group("meeting-pack")
DAY = f"{FREE_MONDAY}T"
TESTED = set()


def policy(name: str):
    """Mark a test as the one for policy `name` (all policies must have one)."""
    TESTED.add(name)
    return lambda fn: fn


def test_every_policy_has_a_test(ep: Episode) -> None:
    assert {p.name for p in ep.config.policies} == TESTED


@policy("organizer_manages_meeting")
def test_only_the_organizer_changes_a_meeting(ep: Episode) -> None:
    org, a = people(ep, 2)
    made = schedule(ep, org, f"{DAY}10:00:00", 30, invitees=[a])
    mid = made["meeting_id"]
    for tool, extra in [
        ("cancel_meeting", {}),
        ("reschedule_meeting", {"start_at": f"{DAY}11:00:00"}),
        ("update_meeting", {"title": "Mine now"}),
        ("invite_attendees", {"people": [org]}),
        ("book_room", {"room": room(ep)["name"]}),
    ]:
        refused(ep, tool, {"meeting": mid, "organizer": a, **extra}, "only the organizer", org)
    series = ok(
        ep,
        "create_meeting_series",
        {
            "organizer": org,
            "title": "W",
            "frequency": "weekly",
            "first_date": FREE_MONDAY,
            "start_time": "08:00",
            "duration_minutes": 30,
            "occurrences": 3,
        },
    )
    refused(ep, "cancel_series", {"series_id": series["series_id"], "organizer": a}, "only the organizer")


@policy("only_upcoming_meetings_change")
def test_past_and_running_meetings_are_frozen(ep: Episode) -> None:
    ended = ep.query(
        "SELECT m.meeting_id, o.email, e.email AS invitee FROM meetings AS m "
        "JOIN employees AS o ON o.employee_id = m.organizer_id JOIN meeting_attendees AS a USING "
        "(meeting_id) "
        "JOIN employees AS e ON e.employee_id = a.employee_id WHERE m.status = 'ended' AND o.is_active "
        "AND e.is_active ORDER BY m.meeting_id, e.employee_id LIMIT 1"
    )[0]
    refused(
        ep,
        "reschedule_meeting",
        {"meeting": ended["meeting_id"], "organizer": ended["email"], "start_at": f"{DAY}10:00:00"},
        "already taken place",
        "only upcoming",
    )
    refused(
        ep,
        "respond_to_invitation",
        {"meeting": ended["meeting_id"], "person": ended["invitee"], "response": "declined"},
        "already taken place",
    )
    [org] = people(ep, 1)
    refused(
        ep,
        "schedule_meeting",
        {"organizer": org, "title": "Late", "start_at": "2026-03-31T09:00:00", "duration_minutes": 30},
        "not in the future",
    )


@policy("meeting_shape")
def test_a_meeting_is_one_day_and_five_minutes_to_eight_hours(ep: Episode) -> None:
    [org] = people(ep, 1)
    base = {"organizer": org, "title": "Shape", "start_at": f"{DAY}09:00:00"}
    refused(ep, "schedule_meeting", {**base, "end_at": f"{DAY}17:30:00"}, "5 minutes to 8 hours")
    refused(
        ep, "schedule_meeting", {**base, "start_at": f"{DAY}23:00:00", "duration_minutes": 120}, "same day"
    )
    made = schedule(ep, org, f"{DAY}09:00:00", 480)  # exactly eight hours is allowed
    ok(ep, "update_meeting", {"meeting": made["meeting_id"], "organizer": org, "is_online": False})
    ok(ep, "update_meeting", {"meeting": made["meeting_id"], "organizer": org, "is_online": True})
    refused(
        ep,
        "reschedule_meeting",
        {
            "meeting": made["meeting_id"],
            "organizer": org,
            "start_at": f"{DAY}09:00:00",
            "duration_minutes": 4,
        },
        "at least 5",
        kind="arguments",
    )
    check = next(p.check for p in ep.config.policies if p.name == "meeting_shape")
    assert ep.query(check) == []


@policy("invitee_limit")
def test_no_more_than_three_hundred_invitees(ep: Episode, monkeypatch: pytest.MonkeyPatch) -> None:
    org, *rest = people(ep, 7)
    made = schedule(ep, org, f"{DAY}10:00:00", 30, invitees=rest[:3])
    refused(
        ep,
        "invite_attendees",
        {"meeting": made["meeting_id"], "organizer": org, "people": rest * 51},
        "'people' may hold at most 300 items",
        kind="arguments",
    )
    # the limit counts those already invited (lowered here: the small pack has only 150 employees)
    invites = import_pack_part(
        schemas_dir() / "meeting", "tools.invites", what="tools", error=ToolDefinitionError
    )
    monkeypatch.setattr(invites, "MAX_INVITEES", 5)
    refused(
        ep,
        "invite_attendees",
        {"meeting": made["meeting_id"], "organizer": org, "people": rest[3:]},
        "at most 5 invitees",
        "has 3 and this adds 3",
    )
    ok(ep, "invite_attendees", {"meeting": made["meeting_id"], "organizer": org, "people": rest[3:5]})


@policy("active_employees_only")
def test_people_who_left_take_no_part(ep: Episode) -> None:
    [org] = people(ep, 1)
    gone = ep.query("SELECT email, left_on FROM employees WHERE NOT is_active ORDER BY employee_id LIMIT 1")[
        0
    ]
    refused(
        ep,
        "schedule_meeting",
        {
            "organizer": org,
            "title": "X",
            "start_at": f"{DAY}10:00:00",
            "duration_minutes": 30,
            "invitees": [gone["email"]],
        },
        "left the company",
    )
    refused(
        ep,
        "schedule_meeting",
        {"organizer": gone["email"], "title": "X", "start_at": f"{DAY}10:00:00", "duration_minutes": 30},
        "left the company",
    )
    refused(ep, "book_desk", {"person": gone["email"], "date": "2026-04-02"}, "left the company")
    refused(
        ep,
        "set_out_of_office",
        {
            "person": org,
            "starts_at": f"{DAY}00:00:00",
            "ends_at": f"{DAY}23:00:00",
            "reason": "travel",
            "delegate": gone["email"],
        },
        "delegate",
        "left the company",
    )
    ok(ep, "get_person", {"person": gone["email"]})  # still found by lookups


@policy("room_fits_meeting")
def test_rooms_must_fit_be_bookable_and_open(ep: Episode) -> None:
    org, a, b, *rest = people(ep, 6)
    booth = ep.query(
        "SELECT name, capacity FROM rooms WHERE is_bookable AND NOT requires_approval AND capacity < 3 "
        "ORDER BY capacity DESC, room_id LIMIT 1"
    )[0]
    assert booth["capacity"] == 2
    made = schedule(ep, org, f"{DAY}10:00:00", 30, invitees=[a, b])
    refused(
        ep,
        "book_room",
        {"meeting": made["meeting_id"], "organizer": org, "room": booth["name"]},
        "seats 2",
        "3 people",
        policy="room_fits_meeting",
    )
    # declined invitees need no seat
    ok(ep, "respond_to_invitation", {"meeting": made["meeting_id"], "person": b, "response": "declined"})
    ok(ep, "book_room", {"meeting": made["meeting_id"], "organizer": org, "room": booth["name"]})
    crowd = schedule(ep, org, f"{DAY}10:15:00", 30, invitees=rest)
    fancy = ep.query("SELECT name FROM rooms WHERE requires_approval ORDER BY room_id LIMIT 1")[0]
    refused(
        ep,
        "book_room",
        {"meeting": crowd["meeting_id"], "organizer": org, "room": fancy["name"]},
        "approval by facilities",
    )
    big = room(ep, min_capacity=6)
    ok(ep, "set_room_bookable", {"room": big["name"], "bookable": False})
    refused(
        ep,
        "book_room",
        {"meeting": crowd["meeting_id"], "organizer": org, "room": big["name"]},
        "not bookable",
    )
    ok(ep, "set_room_bookable", {"room": big["name"], "bookable": True})
    weekend = schedule(ep, org, "2026-07-18T10:00:00", 30)  # a Saturday
    refused(
        ep,
        "book_room",
        {"meeting": weekend["meeting_id"], "organizer": org, "room": big["name"]},
        "closed on Saturdays",
        policy="room_fits_meeting",
    )
    ok(ep, "book_room", {"meeting": crowd["meeting_id"], "organizer": org, "room": big["name"]})
    refused(
        ep,
        "book_room",
        {"meeting": made["meeting_id"], "organizer": org, "room": big["name"], "additional": True},
        "already booked",
        "for 'Test'",
    )


@policy("desk_booking")
def test_desk_bookings_follow_the_rules(ep: Episode) -> None:
    a, b = people(ep, 2)
    assigned = ep.query(
        "SELECT d.code, e.email FROM desks AS d JOIN employees AS e "
        "ON e.employee_id = d.assigned_employee_id WHERE e.is_active AND e.email NOT IN (?, ?) "
        "ORDER BY d.desk_id LIMIT 1",
        [a, b],
    )[0]
    hot = ep.query(
        "SELECT d.code, b.name FROM desks AS d JOIN buildings AS b USING (building_id) "
        "WHERE d.desk_type = 'hot_desk' ORDER BY d.desk_id LIMIT 1"
    )[0]
    refused(ep, "book_desk", {"person": a, "date": "2026-05-01"}, "30 days ahead")
    refused(ep, "book_desk", {"person": a, "date": "2026-03-30"}, "30 days ahead")
    refused(ep, "book_desk", {"person": a, "date": "2026-04-04", "desk": hot["code"]}, "closed on Saturdays")
    refused(ep, "book_desk", {"person": a, "date": "2026-04-02", "desk": assigned["code"]}, "only its owner")
    ok(ep, "book_desk", {"person": assigned["email"], "date": "2026-04-02", "desk": assigned["code"]})
    ok(ep, "book_desk", {"person": a, "date": "2026-04-02", "desk": hot["code"]})
    refused(ep, "book_desk", {"person": a, "date": "2026-04-02", "building": hot["name"]}, "already has desk")
    refused(ep, "book_desk", {"person": b, "date": "2026-04-02", "desk": hot["code"]}, "is booked by")
    refused(ep, "assign_desk", {"desk": hot["code"], "person": assigned["email"]}, "already has desk")


@policy("out_of_office_periods")
def test_out_of_office_periods_do_not_overlap(ep: Episode) -> None:
    a, b = people(ep, 2)
    args = {
        "person": a,
        "starts_at": f"{DAY}00:00:00",
        "ends_at": "2026-07-17T23:00:00",
        "reason": "vacation",
    }
    made = ok(ep, "set_out_of_office", args)
    refused(
        ep,
        "set_out_of_office",
        {**args, "starts_at": "2026-07-17T09:00:00", "ends_at": "2026-07-20T09:00:00"},
        "already out of office",
        f"period {made['period_id']}",
        policy="out_of_office_periods",
    )
    refused(
        ep,
        "set_out_of_office",
        {**args, "starts_at": "2026-03-30T09:00:00", "ends_at": "2026-04-01T09:00:00"},
        "starts now or later",
    )
    refused(
        ep,
        "set_out_of_office",
        {**args, "person": b, "delegate": b},
        "someone else",
        policy="out_of_office_periods",
    )
    refused(
        ep, "set_out_of_office", {**args, "person": b, "ends_at": "2027-08-01T00:00:00"}, "at most 366 days"
    )
    ok(
        ep,
        "change_out_of_office",
        {"person": a, "period_id": made["period_id"], "ends_at": "2026-07-20T23:00:00"},
    )


@policy("notes_privacy")
def test_notes_are_read_and_changed_by_whom_they_are_for(ep: Episode) -> None:
    org, a, outsider = people(ep, 3)
    made = schedule(ep, org, f"{DAY}10:00:00", 30, invitees=[a])
    private = ok(
        ep,
        "add_meeting_note",
        {"meeting": made["meeting_id"], "author": a, "body": "mine", "visibility": "private"},
    )
    ok(ep, "add_meeting_note", {"meeting": made["meeting_id"], "author": org, "body": "for us"})
    ok(
        ep,
        "add_meeting_note",
        {"meeting": made["meeting_id"], "author": org, "body": "for all", "visibility": "organization"},
    )

    def bodies(viewer: str) -> list[str]:
        notes = ok(ep, "list_meeting_notes", {"meeting": made["meeting_id"], "viewer": viewer})["notes"]
        return sorted(n["body"] for n in notes)

    assert bodies(a) == ["for all", "for us", "mine"]
    assert bodies(org) == ["for all", "for us"]
    assert bodies(outsider) == ["for all"]
    refused(
        ep,
        "edit_meeting_note",
        {"note_id": private["note_id"], "author": org, "body": "x"},
        "only its author",
    )
    refused(ep, "delete_meeting_note", {"note_id": private["note_id"], "author": org}, "only its author")
    refused(
        ep,
        "add_meeting_note",
        {"meeting": made["meeting_id"], "author": outsider, "body": "hi"},
        "neither the organizer nor invited",
    )


@policy("recording_retention")
def test_recordings_are_kept_thirty_days_and_managed_by_their_owners(ep: Episode) -> None:
    rec = ep.query(
        "SELECT r.recording_id, r.created_at, e.email FROM recordings AS r JOIN meetings AS m "
        "USING (meeting_id) "
        "JOIN employees AS e ON e.employee_id = m.organizer_id WHERE e.is_active "
        "AND r.created_at >= TIMESTAMP '2026-03-05' ORDER BY r.recording_id LIMIT 1"
    )[0]
    [stranger] = people(ep, 1, skip=40)
    refused(
        ep,
        "delete_recordings",
        {"person": rec["email"], "recording_ids": [rec["recording_id"]]},
        "less than 30 days old",
    )
    refused(
        ep,
        "delete_recordings",
        {"person": stranger, "recording_ids": [rec["recording_id"]]},
        "only they may manage them",
    )
    refused(
        ep,
        "set_recording_retention",
        {"person": rec["email"], "recording_ids": [rec["recording_id"]], "retention_until": "2026-04-01"},
        "at least 30 days",
    )
    refused(
        ep,
        "set_recording_retention",
        {"person": rec["email"], "recording_ids": [rec["recording_id"]], "retention_until": "2026-03-01"},
        "after today",
    )
    ok(ep, "set_recording_retention", {"person": rec["email"], "recording_ids": [rec["recording_id"]]})
    assert ep.query(f"SELECT retention_until FROM recordings WHERE recording_id = {rec['recording_id']}") == [
        {"retention_until": None}
    ]


@policy("one_meeting_at_a_time")
def test_nobody_accepts_two_meetings_at_once(ep: Episode) -> None:
    org, a = people(ep, 2)
    first = schedule(ep, org, f"{DAY}10:00:00", 60, invitees=[a])
    second = schedule(ep, org, f"{DAY}10:30:00", 30, invitees=[a])
    ok(ep, "respond_to_invitation", {"meeting": first["meeting_id"], "person": a, "response": "accepted"})
    refused(
        ep,
        "respond_to_invitation",
        {"meeting": second["meeting_id"], "person": a, "response": "accepted"},
        "cannot accept",
        "Decline or move the other one first",
        policy="one_meeting_at_a_time",
    )
    refused(
        ep,
        "respond_to_invitations",
        {"person": a, "response": "accepted", "from_date": FREE_MONDAY},
        "cannot accept",
        policy="one_meeting_at_a_time",
    )
    # the detour: decline the other one first, then the acceptance goes through
    ok(ep, "respond_to_invitation", {"meeting": first["meeting_id"], "person": a, "response": "declined"})
    ok(ep, "respond_to_invitation", {"meeting": second["meeting_id"], "person": a, "response": "accepted"})


@policy("leaving_is_recorded")
def test_leaving_is_recorded_on_or_after_the_last_day(ep: Episode) -> None:
    [a] = people(ep, 1)
    refused(
        ep,
        "offboard_employee",
        {"person": a, "last_day": "2026-04-15"},
        "not after today",
        policy="leaving_is_recorded",
    )

