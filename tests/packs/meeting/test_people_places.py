"""People, the org chart, rooms, desks, out of office and offboarding through the tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.episode import Episode
from tests.packs.meeting.conftest import FREE_MONDAY, ok, people, refused, room, schedule

pytestmark = pytest.mark.xdist_group("meeting-pack")
DAY = f"{FREE_MONDAY}T"


def test_search_people_combines_filters_and_pages(ep: Episode) -> None:
    unit = ep.query("SELECT name FROM org_units WHERE kind = 'company'")[0]["name"]
    everyone = ok(ep, "search_people", {"org_unit": unit, "include_subunits": True, "limit": 50})
    active = ep.query("SELECT count(*) AS n FROM employees WHERE is_active")[0]["n"]
    assert everyone["total"] == active
    names = []
    for offset in range(0, active, 50):
        page = ok(
            ep, "search_people", {"org_unit": unit, "include_subunits": True, "limit": 50, "offset": offset}
        )
        names += [(r["name"], r["employee_no"]) for r in page["rows"]]
    assert names == sorted(names) and len(set(names)) == active
    direct = ok(ep, "search_people", {"org_unit": unit})["total"]
    assert direct < active
    recent = ok(
        ep,
        "search_people",
        {
            "hired_after": "2024-01-01",
            "employment_type": "full_time",
            "sort_by": "hired_on",
            "descending": True,
            "limit": 50,
        },
    )
    hired = [r["hired_on"] for r in recent["rows"]]
    assert hired == sorted(hired, reverse=True) and all(h >= "2024-01-01" for h in hired)
    assert {r["employment_type"] for r in recent["rows"]} == {"full_time"}
    assert ok(ep, "search_people", {"include_former": True})["total"] > active - 0


def test_org_chart_lookups(ep: Episode) -> None:
    ceo = ep.query("SELECT email FROM employees WHERE manager_id IS NULL ORDER BY employee_id")[0]["email"]
    direct = ok(ep, "list_direct_reports", {"person": ceo, "limit": 50})
    below = ok(ep, "list_direct_reports", {"person": ceo, "all_levels": True, "limit": 50})
    assert (
        direct["total"]
        == ep.query(
            f"SELECT count(*) AS n FROM employees WHERE is_active AND manager_id = "
            f"(SELECT employee_id FROM employees WHERE email = '{ceo}')"
        )[0]["n"]
    )
    assert below["total"] > direct["total"] and {r["level"] for r in below["rows"]} >= {1, 2}
    someone = below["rows"][-1]["email"]
    chain = ok(ep, "get_person", {"person": someone})["reports_to"]
    assert chain[-1]["email"] == ceo
    units = ok(ep, "search_org_units", {})
    company = next(u for u in units["rows"] if u["kind"] == "company")
    assert (
        company["members_with_subunits"]
        == ep.query("SELECT count(*) AS n FROM employees WHERE is_active")[0]["n"]
    )
    assert ok(ep, "search_org_units", {"parent": company["code"]})["total"] == units["total"] - 1


def test_profile_and_working_hours(ep: Episode) -> None:
    [a] = people(ep, 1)
    refused(ep, "update_profile", {"person": a, "timezone": "Mars/Olympus"}, "not a time zone")
    building = ep.query("SELECT name FROM buildings ORDER BY building_id DESC LIMIT 1")[0]["name"]
    ok(
        ep,
        "update_profile",
        {"person": a, "timezone": "Asia/Singapore", "home_building": building, "phone": ""},
    )
    me = ok(ep, "get_person", {"person": a})
    assert (me["timezone"], me["home_building"], me["phone"]) == ("Asia/Singapore", building, None)
    hours = ok(
        ep,
        "set_working_hours",
        {
            "person": a,
            "days_off": [1, 5],
            "days": [{"weekday": 6, "starts_at": "10:00", "ends_at": "14:00", "is_remote": True}],
        },
    )
    assert [d["weekday"] for d in hours["working_hours"]] == [2, 3, 4, 6]
    refused(
        ep,
        "set_working_hours",
        {"person": a, "days": [{"weekday": 2, "starts_at": "10:00", "ends_at": "09:00"}]},
        "end after it starts",
    )
    refused(ep, "set_working_hours", {"person": a, "days_off": [2, 2]}, "once")
    # find_meeting_times respects working hours and busy times
    org, b = people(ep, 2, skip=1)
    ok(
        ep,
        "set_working_hours",
        {"person": b, "days": [{"weekday": 1, "starts_at": "09:00", "ends_at": "12:00"}]},
    )
    ok(
        ep,
        "set_working_hours",
        {"person": org, "days": [{"weekday": 1, "starts_at": "08:00", "ends_at": "17:00"}]},
    )
    schedule(ep, org, f"{DAY}10:00:00", 60)
    free = ok(
        ep,
        "find_meeting_times",
        {"people": [org, b], "date": FREE_MONDAY, "duration_minutes": 60, "step_minutes": 30},
    )
    assert [s["start_at"][11:16] for s in free["slots"]] == ["09:00", "11:00"]
    assert (
        ok(ep, "find_meeting_times", {"people": [a, b], "date": FREE_MONDAY, "duration_minutes": 30})["slots"]
        == []
    )


def test_find_rooms_by_time_capacity_and_equipment(ep: Episode) -> None:
    [org] = people(ep, 1)
    big = room(ep, min_capacity=8)
    window = {"start_at": f"{DAY}10:00:00", "end_at": f"{DAY}11:00:00", "min_capacity": 8, "limit": 50}
    before = {r["name"] for r in ok(ep, "find_rooms", window)["rows"]}
    assert big["name"] in before
    schedule(ep, org, f"{DAY}10:30:00", 60, room=big["name"])
    after = {r["name"] for r in ok(ep, "find_rooms", window)["rows"]}
    assert after == before - {big["name"]}
    rows = ok(
        ep, "find_rooms", {**window, "start_at": "2026-07-18T10:00:00", "end_at": "2026-07-18T11:00:00"}
    )
    assert rows["total"] == 0  # every building is closed on Saturdays
    kit = ep.query(
        "SELECT e.name FROM room_equipment JOIN equipment AS e USING (equipment_id) "
        "GROUP BY e.name ORDER BY count(*) DESC, e.name LIMIT 2"
    )
    wanted = [k["name"] for k in kit]
    found = ok(ep, "find_rooms", {"equipment": wanted, "include_unbookable": True, "limit": 50})["rows"]
    assert found and all(set(wanted) <= set(r["equipment"]) for r in found)
    ok(ep, "update_room_equipment", {"room": found[0]["name"], "remove": [wanted[0]]})
    again = ok(ep, "find_rooms", {"equipment": wanted, "include_unbookable": True, "limit": 50})["rows"]
    assert found[0]["name"] not in {r["name"] for r in again}
    refused(ep, "update_room_equipment", {"room": found[0]["name"], "remove": [wanted[0]]}, "to remove")
    refused(ep, "find_rooms", {"equipment": ["Hologram"]}, "unknown equipment", "Projector")


def test_taking_a_room_out_of_service_cancels_its_upcoming_bookings(ep: Episode) -> None:
    org, other = people(ep, 2)
    big = room(ep, min_capacity=4)
    mine = schedule(ep, org, f"{DAY}10:00:00", 30, room=big["name"])
    upcoming = ep.query(
        f"SELECT count(*) AS n FROM room_bookings WHERE room_id = {big['room_id']} "
        f"AND status = 'confirmed' AND start_at > TIMESTAMP '2026-03-31 12:00:00'"
    )[0]["n"]
    done = ok(ep, "set_room_bookable", {"room": big["name"], "bookable": False})
    assert len(done["bookings_cancelled"]) == upcoming
    assert mine["meeting_id"] in {b["meeting_id"] for b in done["bookings_cancelled"]}
    past = ep.query(
        f"SELECT count(*) AS n FROM room_bookings WHERE room_id = {big['room_id']} AND status = 'confirmed'"
    )[0]["n"]
    assert (
        past
        == ep.query(
            f"SELECT count(*) AS n FROM room_bookings WHERE room_id = {big['room_id']} "
            f"AND status = 'confirmed' AND start_at <= TIMESTAMP '2026-03-31 12:00:00'"
        )[0]["n"]
    )
    refused(ep, "set_room_bookable", {"room": big["name"], "bookable": False}, "already out of service")


def test_desks_booked_chosen_cancelled_and_assigned(ep: Episode) -> None:
    a, b, c = people(ep, 3)
    building = ep.query(
        "SELECT b.name FROM desks AS d JOIN buildings AS b USING (building_id) "
        "WHERE d.desk_type <> 'assigned' GROUP BY b.name ORDER BY count(*) DESC, b.name"
    )[0]["name"]
    free = ok(ep, "find_desks", {"building": building, "date": "2026-04-06", "limit": 50})
    chosen = ok(ep, "book_desk", {"person": a, "date": "2026-04-06", "building": building})
    assert chosen["desk"] == free["rows"][0]["code"]
    assert (
        ok(ep, "find_desks", {"building": building, "date": "2026-04-06", "limit": 50})["total"]
        == free["total"] - 1
    )
    for day in ("2026-04-07", "2026-04-08", "2026-04-09"):
        ok(ep, "book_desk", {"person": a, "date": day, "desk": chosen["desk"]})
    done = ok(ep, "cancel_desk_bookings", {"person": a, "from_date": "2026-04-07", "to_date": "2026-04-08"})
    assert [d["date"] for d in done["cancelled"]] == ["2026-04-07", "2026-04-08"]
    # a cancelled day can be booked again, by someone else
    ok(ep, "book_desk", {"person": b, "date": "2026-04-07", "desk": chosen["desk"]})
    # assigning the desk to c cancels the others' upcoming bookings of it; c then gets it first
    others = ep.query(
        "SELECT count(*) AS n FROM desk_bookings AS k JOIN desks AS d USING (desk_id) JOIN employees AS e "
        "ON e.employee_id = k.employee_id WHERE d.code = ? AND k.status = 'booked' AND e.email <> ?",
        [chosen["desk"], c],
    )[0]["n"]
    assert others >= 3  # a on the 6th and 9th, b on the 7th (and whoever had it booked already)
    assigned = ok(ep, "assign_desk", {"desk": chosen["desk"], "person": c})
    assert assigned["other_bookings_cancelled"] == others
    mine = ok(ep, "book_desk", {"person": c, "date": "2026-04-10", "building": building})
    assert mine["desk"] == chosen["desk"] and mine["desk_type"] == "assigned"
    refused(ep, "cancel_desk_bookings", {"person": a, "from_date": "2026-03-30"}, "past desk bookings")


def test_out_of_office_clears_the_calendar(ep: Episode) -> None:
    org, a, delegate = people(ep, 3)
    theirs = schedule(ep, org, f"{DAY}10:00:00", 60, invitees=[a])
    own = schedule(ep, a, f"{DAY}15:00:00", 30, invitees=[org], room=room(ep, min_capacity=2)["name"])
    later = schedule(ep, org, "2026-07-21T10:00:00", 30, invitees=[a])
    ok(ep, "respond_to_invitation", {"meeting": theirs["meeting_id"], "person": a, "response": "accepted"})
    done = ok(
        ep,
        "set_out_of_office",
        {
            "person": a,
            "starts_at": f"{DAY}00:00:00",
            "ends_at": "2026-07-17T23:00:00",
            "reason": "vacation",
            "auto_reply": "Away this week.",
            "delegate": delegate,
            "cancel_own_meetings": True,
        },
    )
    assert done["invitations_declined"] == 1
    assert [m["meeting_id"] for m in done["own_meetings_cancelled"]] == [own["meeting_id"]]
    status = {r["meeting_id"]: r["status"] for r in ep.query("SELECT meeting_id, status FROM meetings")}
    assert status[own["meeting_id"]] == "cancelled"
    answers = {
        r["meeting_id"]: r["response"]
        for r in ep.query(
            "SELECT meeting_id, response FROM meeting_attendees WHERE employee_id = "
            f"(SELECT employee_id FROM employees WHERE email = '{a}')"
        )
    }
    assert answers[theirs["meeting_id"]] == "declined" and answers[later["meeting_id"]] == "pending"
    away = ok(ep, "list_out_of_office", {"on_date": "2026-07-15"})
    assert [(r["email"], r["delegate_email"]) for r in away["rows"]] == [(a, delegate)]
    # extending the period declines what it now covers
    changed = ok(
        ep,
        "change_out_of_office",
        {"person": a, "period_id": done["period_id"], "ends_at": "2026-07-21T23:00:00"},
    )
    assert changed["invitations_declined"] == 1
    ok(ep, "cancel_out_of_office", {"person": a, "period_id": done["period_id"]})
    assert ok(ep, "list_out_of_office", {"person": a})["total"] == 0


def test_offboarding_tidies_up_after_someone(ep: Episode) -> None:
    leaver = ep.query(
        "SELECT e.email, e.employee_id, e.manager_id FROM employees AS e WHERE e.is_active AND "
        "e.manager_id IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM employees AS r WHERE r.manager_id = e.employee_id) "
        "AND NOT EXISTS (SELECT 1 FROM org_units AS u WHERE u.head_employee_id = e.employee_id) "
        "ORDER BY e.employee_id LIMIT 1"
    )[0]
    org, a = people(ep, 2, skip=30)
    own = schedule(ep, leaver["email"], f"{DAY}10:00:00", 30, invitees=[a])
    invited = schedule(ep, org, f"{DAY}11:00:00", 30, invitees=[leaver["email"], a])
    ok(
        ep,
        "book_desk",
        {
            "person": leaver["email"],
            "date": "2026-04-06",
            "building": ep.query(
                "SELECT b.name FROM desks JOIN buildings AS b USING (building_id) "
                "WHERE desk_type = 'hot_desk' LIMIT 1"
            )[0]["name"],
        },
    )
    reports = ep.query(f"SELECT count(*) AS n FROM employees WHERE manager_id = {leaver['employee_id']}")[0][
        "n"
    ]
    done = ok(ep, "offboard_employee", {"person": leaver["email"], "last_day": "2026-03-31"})
    assert done["reports_moved_to_their_manager"] == reports
    assert done["meetings_cancelled"] >= 1 and done["desk_bookings_cancelled"] >= 1
    assert (
        ep.query(f"SELECT count(*) AS n FROM employees WHERE manager_id = {leaver['manager_id']}")[0]["n"]
        >= reports
    )
    assert ep.query(f"SELECT status FROM meetings WHERE meeting_id = {own['meeting_id']}") == [
        {"status": "cancelled"}
    ]
    assert (
        ep.query(
            f"SELECT * FROM meeting_attendees WHERE meeting_id = {invited['meeting_id']} "
            f"AND employee_id = {leaver['employee_id']}"
        )
        == []
    )
    refused(
        ep, "offboard_employee", {"person": leaver["email"], "last_day": "2026-03-31"}, "left the company"
    )
    head = ep.query(
        "SELECT e.email, u.name FROM org_units AS u JOIN employees AS e ON e.employee_id = "
        "u.head_employee_id ORDER BY u.org_unit_id DESC LIMIT 1"
    )[0]
    refused(
        ep, "offboard_employee", {"person": head["email"], "last_day": "2026-03-31"}, "heads", "new_unit_head"
    )
    refused(ep, "offboard_employee", {"person": a, "last_day": "2026-04-30"}, "not after today")


def test_the_same_calls_give_the_same_ids_and_codes(meeting_db: Path, tmp_path: Path) -> None:
    values = []
    for run in range(2):
        with Episode.open(meeting_db, workdir=tmp_path / str(run)) as episode:
            org, a = people(episode, 2)
            made = schedule(episode, org, f"{DAY}10:00:00", 30, invitees=[a])
            series = ok(
                episode,
                "create_meeting_series",
                {
                    "organizer": org,
                    "title": "W",
                    "frequency": "biweekly",
                    "first_date": FREE_MONDAY,
                    "start_time": "09:00",
                    "duration_minutes": 30,
                    "ends_on": "2026-09-30",
                },
            )
            codes = [
                r["meeting_code"]
                for r in ok(episode, "get_series", {"series_id": series["series_id"]})["rows"]
            ]
            values.append((made["meeting_id"], made["meeting_code"], series["meeting_ids"], codes))
    assert values[0] == values[1]
    assert len(values[0][2]) == 6 and len(set(values[0][3])) == 6
