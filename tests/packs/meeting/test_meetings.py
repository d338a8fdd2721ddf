"""Meetings, invitations, rooms and series through the tools: state after each call, bulk operations,
foreign-key actions, pagination, lookups and bad arguments."""

from __future__ import annotations

import pytest

from stateforge.episode import Episode
from tests.packs.meeting.conftest import FREE_MONDAY, ok, people, refused, room, schedule

pytestmark = pytest.mark.xdist_group("meeting-pack")
DAY = f"{FREE_MONDAY}T"


def _answers(ep: Episode, meeting_id: int) -> dict[str, str]:
    rows = ep.query(
        "SELECT e.email, a.response FROM meeting_attendees AS a JOIN employees AS e USING (employee_id) "
        f"WHERE a.meeting_id = {meeting_id}"
    )
    return {r["email"]: r["response"] for r in rows}


def _booking(ep: Episode, meeting_id: int) -> list[dict]:
    return ep.query(
        "SELECT r.name, b.status, b.start_at, b.end_at FROM room_bookings AS b JOIN rooms AS r "
        "USING (room_id) "
        f"WHERE b.meeting_id = {meeting_id} ORDER BY b.booking_id"
    )


def test_a_meeting_from_scheduling_to_cancellation(ep: Episode) -> None:
    org, a, b = people(ep, 3)
    big = room(ep, min_capacity=4)
    made = schedule(ep, org, f"{DAY}10:00:00", 45, invitees=[a, b, org], room=big["name"], agenda="Plan")
    mid = made["meeting_id"]
    assert made["skipped"] == [
        ep.query(f"SELECT first_name || ' ' || last_name AS n FROM employees WHERE email = '{org}'")[0]["n"]
        + f" ({org}) organises the meeting"
    ]
    assert len(made["meeting_code"]) == 11 and made["join_url"].endswith(
        made["meeting_code"].replace("-", "")
    )
    assert _answers(ep, mid) == {a: "pending", b: "pending"}
    assert [(r["name"], r["status"]) for r in _booking(ep, mid)] == [(big["name"], "confirmed")]

    ok(ep, "respond_to_invitation", {"meeting": mid, "person": a, "response": "accepted"})
    ok(ep, "respond_to_invitation", {"meeting": made["meeting_code"], "person": b, "response": "declined"})
    assert _answers(ep, mid) == {a: "accepted", b: "declined"}

    moved = ok(ep, "reschedule_meeting", {"meeting": mid, "organizer": org, "start_at": f"{DAY}14:00:00"})
    assert moved["to"] == f"{FREE_MONDAY} 14:00-14:45" and moved["answers_reset"] == 2
    assert _answers(ep, mid) == {a: "pending", b: "pending"}
    [booking] = _booking(ep, mid)
    assert (booking["start_at"].hour, booking["end_at"].minute) == (14, 45)

    ok(ep, "cancel_meeting", {"meeting": mid, "organizer": org})
    assert ep.query(f"SELECT status FROM meetings WHERE meeting_id = {mid}") == [{"status": "cancelled"}]
    assert [r["status"] for r in _booking(ep, mid)] == ["cancelled"]
    refused(ep, "invite_attendees", {"meeting": mid, "organizer": org, "people": [a]}, "was cancelled")
    refused(
        ep, "respond_to_invitation", {"meeting": mid, "person": a, "response": "accepted"}, "was cancelled"
    )


def test_a_room_follows_its_meeting_or_the_move_is_refused(ep: Episode) -> None:
    org, other_org, a = people(ep, 3)
    big = room(ep, min_capacity=2)
    first = schedule(ep, org, f"{DAY}09:00:00", 60, room=big["name"], invitees=[a])
    schedule(ep, other_org, f"{DAY}11:00:00", 60, room=big["name"])
    error = refused(
        ep,
        "reschedule_meeting",
        {"meeting": first["meeting_id"], "organizer": org, "start_at": f"{DAY}11:30:00"},
        "already booked",
        "not moved",
    )
    assert "Test" in error
    # a free time moves both; a time outside opening hours is refused
    ok(
        ep,
        "reschedule_meeting",
        {"meeting": first["meeting_id"], "organizer": org, "start_at": f"{DAY}13:00:00"},
    )
    refused(
        ep,
        "reschedule_meeting",
        {"meeting": first["meeting_id"], "organizer": org, "start_at": f"{DAY}06:00:00"},
        "is open",
    )
    ok(
        ep,
        "change_room",
        {
            "meeting": first["meeting_id"],
            "organizer": org,
            "new_room": room(ep, min_capacity=2, skip=1)["name"],
        },
    )
    assert [r["status"] for r in _booking(ep, first["meeting_id"])] == ["cancelled", "confirmed"]


def test_accepting_refuses_clashes_and_absences_before_the_rules_do(ep: Episode) -> None:
    org, a = people(ep, 2)
    one = schedule(ep, org, f"{DAY}10:00:00", 60, invitees=[a], title="One")
    two = schedule(ep, org, f"{DAY}10:30:00", 60, invitees=[a], title="Two")
    ok(ep, "respond_to_invitation", {"meeting": one["meeting_id"], "person": a, "response": "accepted"})
    refused(
        ep,
        "respond_to_invitation",
        {"meeting": two["meeting_id"], "person": a, "response": "accepted"},
        "cannot accept",
        "overlaps 'One'",
    )
    ok(ep, "respond_to_invitation", {"meeting": two["meeting_id"], "person": a, "response": "tentative"})
    ok(
        ep,
        "set_out_of_office",
        {"person": a, "starts_at": "2026-07-14T00:00:00", "ends_at": "2026-07-15T00:00:00", "reason": "sick"},
    )
    three = schedule(ep, org, "2026-07-14T10:00:00", 30, invitees=[a], title="Three")
    refused(
        ep,
        "respond_to_invitation",
        {"meeting": three["meeting_id"], "person": a, "response": "accepted"},
        "out of office",
    )
    # setting a period declines what it covers
    ok(
        ep,
        "set_out_of_office",
        {"person": a, "starts_at": f"{DAY}09:00:00", "ends_at": f"{DAY}12:00:00", "reason": "other"},
    )
    assert _answers(ep, one["meeting_id"]) == {a: "declined"}
    assert _answers(ep, two["meeting_id"]) == {a: "declined"}


def test_bulk_answers_fail_on_clashes_unless_skipped(ep: Episode) -> None:
    org, a = people(ep, 2)
    ids = [
        schedule(ep, org, f"{DAY}{h:02d}:00:00", 90, invitees=[a], title=f"M{h}")["meeting_id"]
        for h in (9, 10, 13)
    ]
    args = {"person": a, "response": "accepted", "from_date": FREE_MONDAY}
    refused(ep, "respond_to_invitations", args, "overlaps", "Nothing was answered")
    done = ok(ep, "respond_to_invitations", {**args, "skip_conflicts": True})
    assert [m["meeting_id"] for m in done["answered"]] == [ids[0], ids[2]]
    assert [m["meeting_id"] for m in done["skipped"]] == [ids[1]]
    # "decline everything after noon": the time window is a boundary, 13:00 included
    ok(
        ep,
        "respond_to_invitations",
        {"person": a, "response": "declined", "from_date": FREE_MONDAY, "starts_from_time": "13:00"},
    )
    assert [_answers(ep, i)[a] for i in ids] == ["accepted", "pending", "declined"]


def test_cancel_my_meetings_after_three_pm(ep: Episode) -> None:
    org, a = people(ep, 2)
    ids = {
        t: schedule(ep, org, f"{DAY}{t}:00", 30, invitees=[a])["meeting_id"]
        for t in ("14:30", "15:00", "16:15")
    }
    other_day = schedule(ep, org, "2026-07-14T16:00:00", 30)["meeting_id"]
    done = ok(
        ep, "cancel_meetings", {"organizer": org, "from_date": FREE_MONDAY, "starts_from_time": "15:00"}
    )
    assert sorted(m["meeting_id"] for m in done["cancelled"]) == [ids["15:00"], ids["16:15"]]
    status = {r["meeting_id"]: r["status"] for r in ep.query("SELECT meeting_id, status FROM meetings")}
    assert status[ids["14:30"]] == "scheduled" and status[other_day] == "scheduled"
    refused(
        ep,
        "cancel_meetings",
        {"organizer": org, "from_date": FREE_MONDAY, "starts_from_time": "15:00"},
        "no upcoming meeting",
    )


def test_deleting_a_cancelled_meeting_cascades_to_its_rows(ep: Episode) -> None:
    org, a, b = people(ep, 3)
    made = schedule(ep, org, f"{DAY}10:00:00", 30, invitees=[a, b], room=room(ep, min_capacity=3)["name"])
    mid = made["meeting_id"]
    ok(ep, "add_meeting_note", {"meeting": mid, "author": a, "body": "Prep: read the brief."})
    refused(ep, "delete_cancelled_meetings", {"organizer": org, "meeting_ids": [mid]}, "not cancelled")
    ok(ep, "cancel_meeting", {"meeting": mid, "organizer": org})
    refused(ep, "delete_cancelled_meetings", {"organizer": a, "meeting_ids": [mid]}, "does not organise")
    result = ep.call("delete_cancelled_meetings", {"organizer": org, "meeting_ids": [mid]})
    assert result.ok, result.error
    assert result.changes == {
        "meeting_attendees": {"deleted": 2},
        "meeting_notes": {"deleted": 1},
        "meetings": {"deleted": 1},
        "room_bookings": {"deleted": 1},
    }
    for table in ("meetings", "meeting_attendees", "room_bookings", "meeting_notes"):
        assert ep.query(f"SELECT * FROM {table} WHERE meeting_id = {mid}") == [], table


def test_a_series_changes_hundreds_of_rows(ep: Episode) -> None:
    org, a, b, c = people(ep, 4)
    big = room(ep, min_capacity=4)
    result = ep.call(
        "create_meeting_series",
        {
            "organizer": org,
            "title": "Daily standup",
            "frequency": "daily",
            "first_date": FREE_MONDAY,
            "start_time": "09:15",
            "duration_minutes": 15,
            "occurrences": 60,
            "invitees": [a, b],
            "room": big["name"],
        },
    )
    assert result.ok, result.error
    assert result.changes == {
        "meeting_attendees": {"inserted": 120},
        "meeting_series": {"inserted": 1},
        "meetings": {"inserted": 60},
        "room_bookings": {"inserted": 60},
    }
    series = result.value["series_id"]
    days = ep.query(
        f"SELECT DISTINCT isodow(start_at) AS d FROM meetings WHERE series_id = {series} ORDER BY d"
    )
    assert [d["d"] for d in days] == [1, 2, 3, 4, 5]
    added = ep.call(
        "update_series_attendees", {"series_id": series, "organizer": org, "add": [c], "remove": [a]}
    )
    assert added.changes == {"meeting_attendees": {"inserted": 60, "deleted": 60}}
    accepted = ok(
        ep,
        "respond_to_invitations",
        {
            "person": c,
            "response": "accepted",
            "from_date": FREE_MONDAY,
            "to_date": "2026-12-31",
            "title_contains": "STANDUP",
        },
    )
    assert len(accepted["answered"]) == 60
    # paging through the occurrences
    seen = []
    for offset in range(0, 60, 25):
        page = ok(ep, "get_series", {"series_id": series, "limit": 25, "offset": offset})
        seen += [r["meeting_id"] for r in page["rows"]]
    assert len(seen) == len(set(seen)) == page["total"] == 60
    cancelled = ep.call("cancel_series", {"series_id": series, "organizer": org, "from_date": "2026-08-03"})
    assert cancelled.ok and cancelled.value["cancelled"] == 45 and cancelled.value["rooms_released"] == 45
    assert cancelled.value["series_ends_on"] == "2026-08-02"
    assert cancelled.changes == {
        "meeting_series": {"updated": 1},
        "meetings": {"updated": 45},
        "room_bookings": {"updated": 45},
    }


def test_a_series_is_refused_as_a_whole_when_its_room_is_taken_once(ep: Episode) -> None:
    org, other = people(ep, 2)
    big = room(ep, min_capacity=2)
    schedule(ep, other, "2026-07-27T09:00:00", 60, room=big["name"])
    refused(
        ep,
        "create_meeting_series",
        {
            "organizer": org,
            "title": "Weekly",
            "frequency": "weekly",
            "first_date": FREE_MONDAY,
            "start_time": "09:30",
            "duration_minutes": 30,
            "occurrences": 4,
            "room": big["name"],
        },
        "every occurrence",
        "2026-07-27",
    )
    assert ep.query("SELECT * FROM meeting_series WHERE title = 'Weekly'") == []


def test_search_pages_through_every_match(ep: Episode) -> None:
    total = ep.query("SELECT count(*) AS n FROM meetings WHERE status = 'ended' AND NOT is_online")[0]["n"]
    assert total > 50
    seen: list[int] = []
    starts = []
    offset = 0
    while True:
        page = ok(
            ep, "search_meetings", {"status": "ended", "is_online": False, "limit": 50, "offset": offset}
        )
        assert page["total"] == total and len(page["rows"]) <= 50
        seen += [r["meeting_id"] for r in page["rows"]]
        starts += [r["start_at"] for r in page["rows"]]
        offset += 50
        if offset >= total:
            break
    assert len(seen) == len(set(seen)) == total
    assert starts == sorted(starts)
    refused(ep, "search_meetings", {"limit": 51}, "at most 50", kind="arguments")


def test_lookups_name_what_users_know(ep: Episode) -> None:
    [a] = people(ep, 1)
    target = ep.query(
        f"SELECT employee_id, first_name, last_name, employee_no FROM employees WHERE email = '{a}'"
    )[0]
    full = f"{target['first_name']} {target['last_name']}"
    assert ok(ep, "get_person", {"person": full.upper()})["email"] == a
    assert ok(ep, "get_person", {"person": target["employee_no"]})["email"] == a
    # a first name several people share: the tool lists them and asks which one
    shared = ep.query(
        "SELECT first_name FROM employees WHERE is_active GROUP BY 1 HAVING count(*) > 1 ORDER BY 1 LIMIT 1"
    )[0]["first_name"]
    error = refused(ep, "get_person", {"person": shared}, "employees are named", "Say which one")
    assert error.count("@") >= 2
    # two people with the same full name (made with the privileged connection)
    ep.connection.execute(
        "UPDATE employees SET first_name = ?, last_name = ? WHERE employee_id = "
        "(SELECT min(employee_id) FROM employees WHERE is_active AND employee_id <> ?)",
        [target["first_name"], target["last_name"], target["employee_id"]],
    )
    refused(
        ep,
        "schedule_meeting",
        {"organizer": full, "title": "X", "start_at": f"{DAY}10:00:00", "duration_minutes": 30},
        "2 employees are named",
        a,
    )
    assert ok(ep, "get_person", {"person": a})["email"] == a
    # a misspelt name gets suggestions; an unknown room lists similar ones
    refused(ep, "get_person", {"person": full[:-1] + "x"}, "no employee", "did you mean")
    refused(ep, "get_room", {"room": "Atlantis 9.999"}, "no room called")
    refused(ep, "get_meeting", {"meeting": "Budget Review"}, "meeting's id", "search_meetings")
    refused(ep, "get_meeting", {"meeting": "000-000-000"}, "no meeting")


def test_bad_arguments_name_the_parameter(ep: Episode) -> None:
    org, a = people(ep, 2)
    base = {"organizer": org, "title": "X", "start_at": f"{DAY}10:00:00", "duration_minutes": 30}
    refused(
        ep,
        "schedule_meeting",
        {**base, "titel": "Y"},
        "unknown argument 'titel'",
        'Did you mean "title"',
        kind="arguments",
    )
    refused(
        ep,
        "schedule_meeting",
        {**base, "duration_minutes": "30"},
        "duration_minutes",
        "an integer",
        kind="arguments",
    )
    refused(ep, "schedule_meeting", {**base, "duration_minutes": 600}, "at most 480", kind="arguments")
    refused(ep, "schedule_meeting", {**base, "passcode": "12ab56"}, "passcode", kind="arguments")
    refused(ep, "schedule_meeting", {**base, "invitees": [a] * 301}, "at most 300 items", kind="arguments")
    refused(
        ep,
        "respond_to_invitations",
        {"person": a, "response": "maybe", "from_date": FREE_MONDAY},
        "'accepted', 'tentative' or 'declined'",
        kind="arguments",
    )
    refused(ep, "schedule_meeting", {**base, "end_at": f"{DAY}11:00:00"}, "not both")
    refused(ep, "get_calendar", {"person": a, "from_date": "2026-04-10", "to_date": "2026-04-01"}, "to_date")
    refused(ep, "schedule_meeting", {**base, "organizer": "'; DROP TABLE meetings; --"}, "no employee")
    assert ep.query("SELECT count(*) AS n FROM meetings")[0]["n"] == 1000
