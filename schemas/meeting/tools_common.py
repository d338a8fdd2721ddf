"""What the meeting pack's tools share: finding people, meetings, rooms and units by what a user knows,
the checks a booking or an acceptance must pass, and the small types of their parameters.

Lookups accept what a person would type: an email, an employee number or a full name for a person; a meeting
id or its 123-456-789 code for a meeting; a room's name (with its building when names repeat). A lookup that
finds nothing suggests close matches; one that finds several lists them and asks which one. Every check
raises a `ToolError` that names the conflicting meeting, room or period and says what to do instead.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import Field

from pipeline.tools import Env, ToolError

PERSON = "an email address, an employee number (E and seven digits) or a full name"
"""How a person is named in arguments (a lone first or last name works too when only one person has it)."""
MEETING = "the meeting's id (a number) or its 9-digit meeting code, as 123-456-789"
MAX_INVITEES = 300
"""Invitees of one meeting at most (policy invitee_limit)."""
DESK_DAYS_AHEAD = 30
"""Desks are booked from today up to this many days ahead (policy desk_booking)."""
RETENTION_DAYS = 30
"""A recording is kept at least this many days after it was made (policy recording_retention)."""
MIN_MINUTES, MAX_MINUTES = 5, 8 * 60
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")

Limit = Annotated[int, Field(ge=1, le=50, description="Rows per page, 1 to 50.")]
Offset = Annotated[int, Field(ge=0, description="Rows to skip: 0 for the first page, then offset + limit.")]
People = Annotated[list[str], Field(max_length=MAX_INVITEES, description=f"People, each as {PERSON}.")]
MeetingRef = int | str

_CODE = re.compile(r"^\d{3}-?\d{3}-?\d{3}$")
_PERSON_SQL = """
    SELECT e.employee_id, e.first_name || ' ' || e.last_name AS name, e.first_name, e.last_name, e.email,
           e.employee_no, e.job_title,
           e.is_active, e.left_on, e.org_unit_id, e.manager_id, e.home_building_id, e.hired_on, e.timezone
    FROM employees AS e
"""


# --- people ---------------------------------------------------------------------------------------------


def who(person: dict[str, Any]) -> str:
    """A person as the product shows them: "Ana Lopez (ana.lopez@example.com)"."""
    return f"{person['name']} ({person['email']})"


def find_people(env: Env, refs: Sequence[str], *, role: str = "person", active: bool = True) -> list[dict]:
    """The employees named by `refs` (emails, employee numbers, full names, or a single first or last name
    when only one person has it), in order, duplicates dropped.

    Every reference that matches nobody, or several people, is reported in one `ToolError`; with `active`,
    so is anyone who has left the company (policy active_employees_only).
    """
    wanted = list(dict.fromkeys(r.strip() for r in refs if r.strip()))
    if not wanted:
        return []
    lowered = [r.lower() for r in wanted]
    rows = env.query(
        f"""
        SELECT * FROM ({_PERSON_SQL}) AS p
        WHERE list_contains($refs, lower(email)) OR list_contains($refs, lower(employee_no))
           OR list_contains($refs, lower(name)) OR list_contains($refs, lower(first_name))
           OR list_contains($refs, lower(last_name))
        ORDER BY employee_id
        """,
        {"refs": lowered},
    )
    found: dict[str, list[dict]] = {}
    for ref, low in zip(wanted, lowered, strict=True):
        single = " " not in low
        found[ref] = [
            row
            for row in rows
            if low in (row["email"].lower(), row["employee_no"].lower(), row["name"].lower())
            or (single and low in (row["first_name"].lower(), row["last_name"].lower()))
        ]
    problems, people = [], []
    for ref in wanted:
        matches = found[ref]
        if active and len(matches) > 1 and any(m["is_active"] for m in matches):
            matches = [m for m in matches if m["is_active"]]  # people who left are not meant
        if not matches:
            problems.append(f"no employee is {ref!r}{_close_names(env, ref)}")
        elif len(matches) > 1:
            listed = "; ".join(f"{who(m)}, {m['job_title']}" for m in matches[:6])
            problems.append(
                f"{len(matches)} employees are named {ref!r}: {listed}. Say which one by email or "
                "employee number"
            )
        elif active and not matches[0]["is_active"]:
            problems.append(f"{who(matches[0])} left the company on {matches[0]['left_on']}")
        else:
            people.append(matches[0])
    if problems:
        raise ToolError(f"{role}: " + "; ".join(problems) + ".")
    return list({p["employee_id"]: p for p in people}.values())


def find_person(env: Env, ref: str, *, role: str = "person", active: bool = True) -> dict:
    """The one employee `ref` names (see `find_people`)."""
    if not ref.strip():
        raise ToolError(f"{role}: give {PERSON}.")
    return find_people(env, [ref], role=role, active=active)[0]


def _close_names(env: Env, ref: str) -> str:
    if "@" in ref or ref.strip().upper().startswith("E") and ref.strip()[1:].isdigit():
        return "; check the spelling or search_people"
    close = env.query(
        f"""
        SELECT name, email FROM ({_PERSON_SQL}) AS p
        WHERE jaro_winkler_similarity(lower(name), lower(?)) >= 0.85
        ORDER BY jaro_winkler_similarity(lower(name), lower(?)) DESC, employee_id LIMIT 3
        """,
        [ref, ref],
    )
    if not close:
        return "; search_people finds people by part of a name"
    return " (did you mean " + " or ".join(who(c) for c in close) + "?)"


# --- places ---------------------------------------------------------------------------------------------


def find_building(env: Env, ref: str) -> dict:
    """A building by name, code (BLD-001) or city when the city has one building."""
    rows = env.query(
        """
        SELECT building_id, code, name, city, timezone, is_active FROM buildings
        WHERE lower(name) = lower($ref) OR lower(code) = lower($ref)
           OR (lower(city) = lower($ref) AND NOT EXISTS (
                 SELECT 1 FROM buildings AS b WHERE lower(b.name) = lower($ref) OR lower(b.code) =
                     lower($ref)))
        ORDER BY building_id
        """,
        {"ref": ref.strip()},
    )
    if len(rows) == 1:
        return rows[0]
    names = [r["name"] for r in env.query("SELECT name FROM buildings ORDER BY name")]
    if rows:
        raise ToolError(
            f"{ref!r} has {len(rows)} buildings: {', '.join(r['name'] for r in rows)}; name one of them."
        )
    raise ToolError(f"no building {ref!r}; the buildings are: {', '.join(names)}.")


def find_room(env: Env, ref: str, building: str | None = None) -> dict:
    """A room by name (case-insensitive), within `building` when given; lists candidates when several
    match."""
    params: list[Any] = [ref.strip()]
    sql = """
        SELECT r.room_id, r.name, r.room_type, r.capacity, r.video_conferencing, r.is_bookable,
               r.requires_approval, r.building_id, r.floor_number, b.name AS building
        FROM rooms AS r JOIN buildings AS b ON b.building_id = r.building_id
        WHERE lower(r.name) = lower(?)
    """
    if building is not None:
        sql += " AND r.building_id = ?"
        params.append(find_building(env, building)["building_id"])
    rows = env.query(sql + " ORDER BY r.room_id", params)
    if len(rows) == 1:
        return rows[0]
    if rows:
        where = "; ".join(f"{r['name']} in {r['building']}" for r in rows)
        raise ToolError(f"{len(rows)} rooms are called {ref!r} ({where}); give the building too.")
    close = env.query(
        "SELECT name FROM rooms WHERE lower(name) LIKE '%' || lower(?) || '%' ORDER BY name LIMIT 5",
        [ref.strip().split(" ")[0]],
    )
    hint = f" Rooms with a similar name: {', '.join(r['name'] for r in close)}." if close else ""
    raise ToolError(
        f"no room called {ref!r}{' in ' + building if building else ''}; find_rooms lists rooms.{hint}"
    )


def find_unit(env: Env, ref: str) -> dict:
    """An org unit by name or code (OU-0001)."""
    rows = env.query(
        "SELECT org_unit_id, code, name, kind FROM org_units WHERE lower(name) = lower(?) OR "
        "lower(code) = lower(?) "
        "ORDER BY org_unit_id",
        [ref.strip(), ref.strip()],
    )
    if len(rows) == 1:
        return rows[0]
    if rows:
        listed = ", ".join(f"{r['name']} ({r['code']}, {r['kind']})" for r in rows)
        raise ToolError(f"{len(rows)} org units are called {ref!r}: {listed}; give the code.")
    close = env.query(
        "SELECT name, code FROM org_units WHERE lower(name) LIKE '%' || lower(?) || '%' ORDER BY "
        "org_unit_id LIMIT 5",
        [ref.strip()],
    )
    hint = f" Similar: {', '.join(c['name'] + ' (' + c['code'] + ')' for c in close)}." if close else ""
    raise ToolError(f"no org unit called {ref!r}; search_org_units lists them.{hint}")


def opening_problem(env: Env, building_id: int, start: dt.datetime, end: dt.datetime) -> str | None:
    """Why a booking from `start` to `end` is outside the building's opening hours, or None."""
    hours = env.one(
        "SELECT b.name, h.opens_at, h.closes_at FROM buildings AS b "
        "LEFT JOIN building_hours AS h ON h.building_id = b.building_id AND h.weekday = ? "
        "WHERE b.building_id = ?",
        [start.isoweekday(), building_id],
    )
    assert hours is not None
    day = WEEKDAYS[start.weekday()]
    if hours["opens_at"] is None:
        return f"{hours['name']} is closed on {day}s"
    if end.date() != start.date() or start.time() < hours["opens_at"] or end.time() > hours["closes_at"]:
        return (
            f"{hours['name']} is open {hours['opens_at']:%H:%M}-{hours['closes_at']:%H:%M} on {day}s "
            f"({span(start, end)} is outside)"
        )
    return None


# --- meetings -------------------------------------------------------------------------------------------


def span(start: dt.datetime, end: dt.datetime) -> str:
    """A time range as people write it: "2026-04-07 15:00-16:00"."""
    if start.date() == end.date():
        return f"{start:%Y-%m-%d %H:%M}-{end:%H:%M}"
    return f"{start:%Y-%m-%d %H:%M} to {end:%Y-%m-%d %H:%M}"


def find_meeting(env: Env, ref: MeetingRef) -> dict:
    """A meeting by id or meeting code, with its organizer's name and email."""
    sql = """
        SELECT m.*, o.first_name || ' ' || o.last_name AS organizer_name, o.email AS organizer_email
        FROM meetings AS m JOIN employees AS o ON o.employee_id = m.organizer_id
    """
    if isinstance(ref, int):
        row = env.one(sql + " WHERE m.meeting_id = ?", [ref])
    elif _CODE.match(ref.strip()):
        digits = re.sub(r"\D", "", ref)
        row = env.one(sql + " WHERE m.meeting_code = ?", [f"{digits[:3]}-{digits[3:6]}-{digits[6:]}"])
    elif ref.strip().isdigit():
        row = env.one(sql + " WHERE m.meeting_id = ?", [int(ref.strip())])
    else:
        raise ToolError(
            f"meeting {ref!r}: give {MEETING}; search_meetings or get_calendar find a meeting by "
            "title and date."
        )
    if row is None:
        raise ToolError(
            f"no meeting {ref!r}; search_meetings or get_calendar find meetings by title and date."
        )
    return row


def title_of(meeting: dict) -> str:
    """A meeting as the product names it: 'Design Review' (meeting 42, 2026-04-07 15:00-16:00)."""
    when = span(meeting["start_at"], meeting["end_at"])
    return f"'{meeting['title']}' (meeting {meeting['meeting_id']}, {when})"


def own_meeting(env: Env, ref: MeetingRef, organizer: str, *, action: str = "change") -> tuple[dict, dict]:
    """The meeting and its organizer, after checking that `organizer` organises it and that it is upcoming."""
    meeting = find_meeting(env, ref)
    person = find_person(env, organizer, role="organizer")
    if person["employee_id"] != meeting["organizer_id"]:
        raise ToolError(
            f"only the organizer of {title_of(meeting)}, {meeting['organizer_name']} "
            f"({meeting['organizer_email']}), can {action} it; {who(person)} is not its organizer."
        )
    require_upcoming(env, meeting, action)
    return meeting, person


def require_upcoming(env: Env, meeting: dict, action: str) -> None:
    """`ToolError` unless the meeting is scheduled and has not started yet (policy
    only_upcoming_meetings_change)."""
    if meeting["status"] == "cancelled":
        raise ToolError(f"{title_of(meeting)} was cancelled; it cannot {_passive(action)} any more.")
    if meeting["status"] != "scheduled" or meeting["start_at"] <= env.now:
        state = "is in progress" if meeting["end_at"] > env.now else "has already taken place"
        raise ToolError(
            f"{title_of(meeting)} {state} (now is {env.now:%Y-%m-%d %H:%M}); only upcoming meetings "
            f"can {_passive(action)}."
        )


def _passive(action: str) -> str:
    return {"change": "be changed", "cancel": "be cancelled", "answer": "be answered"}.get(
        action, f"be {action}"
    )


def meeting_end(start: dt.datetime, end: dt.datetime | None, minutes: int | None) -> dt.datetime:
    """The end of a meeting given either its end or its length in minutes (exactly one of them)."""
    if (end is None) == (minutes is None):
        raise ToolError(
            "give either the end time (end_at) or the length (duration_minutes), not both or neither."
        )
    return end if end is not None else start + dt.timedelta(minutes=minutes or 0)


def check_meeting_time(env: Env, start: dt.datetime, end: dt.datetime) -> None:
    """A new meeting time: in the future, on one day, 5 minutes to 8 hours long (policy meeting_shape)."""
    if start <= env.now:
        raise ToolError(
            f"{span(start, end)} is not in the future (now is {env.now:%Y-%m-%d %H:%M}); pick a later time."
        )
    if end <= start:
        raise ToolError(f"the meeting must end after it starts ({span(start, end)}).")
    if end.date() != start.date():
        raise ToolError(f"a meeting starts and ends on the same day ({span(start, end)}); split it in two.")
    minutes = (end - start).total_seconds() / 60
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise ToolError(f"a meeting lasts 5 minutes to 8 hours; {span(start, end)} is {minutes:g} minutes.")


def join_url(code: str) -> str:
    """The link an online meeting is joined by."""
    return "https://meeting.example.com/j/" + code.replace("-", "")


# --- availability -----------------------------------------------------------------------------------------


def accepted_conflicts(
    env: Env, ids: Sequence[int], start: dt.datetime, end: dt.datetime, exclude: int | None = None
) -> list[dict]:
    """Meetings (not cancelled) that these people accepted and that overlap `start`-`end`."""
    if not ids:
        return []
    return env.query(
        """
        SELECT a.employee_id, e.first_name || ' ' || e.last_name AS name, e.email,
               m.meeting_id, m.title, m.start_at, m.end_at
        FROM meeting_attendees AS a
        JOIN meetings AS m ON m.meeting_id = a.meeting_id
        JOIN employees AS e ON e.employee_id = a.employee_id
        WHERE a.employee_id IN (SELECT unnest(?)) AND a.response = 'accepted' AND m.status <> 'cancelled'
          AND m.start_at < ? AND ? < m.end_at AND m.meeting_id IS DISTINCT FROM ?
        ORDER BY m.start_at, m.meeting_id, a.employee_id
        """,
        [list(ids), end, start, exclude],
    )


def away_conflicts(env: Env, ids: Sequence[int], start: dt.datetime, end: dt.datetime) -> list[dict]:
    """Out-of-office periods of these people that overlap `start`-`end`."""
    if not ids:
        return []
    return env.query(
        """
        SELECT o.ooo_id, o.employee_id, e.first_name || ' ' || e.last_name AS name, e.email,
               o.starts_at, o.ends_at, o.reason
        FROM out_of_office AS o JOIN employees AS e ON e.employee_id = o.employee_id
        WHERE o.employee_id IN (SELECT unnest(?)) AND o.starts_at < ? AND ? < o.ends_at
        ORDER BY o.starts_at, o.ooo_id
        """,
        [list(ids), end, start],
    )


def availability_warnings(
    env: Env, ids: Sequence[int], start: dt.datetime, end: dt.datetime, exclude: int | None = None
) -> list[str]:
    """Notes for the organizer: invitees who are busy, away or off work at that time (nothing is refused)."""
    notes = [
        f"{c['name']} ({c['email']}) has accepted {c['title']!r} (meeting {c['meeting_id']}, "
        f"{span(c['start_at'], c['end_at'])})"
        for c in accepted_conflicts(env, ids, start, end, exclude)
    ]
    notes += [
        f"{a['name']} ({a['email']}) is out of office ({a['reason']}) {span(a['starts_at'], a['ends_at'])}"
        for a in away_conflicts(env, ids, start, end)
    ]
    if ids:
        off = env.query(
            """
            SELECT e.first_name || ' ' || e.last_name AS name, e.email, w.starts_at, w.ends_at
            FROM employees AS e
            LEFT JOIN working_hours AS w ON w.employee_id = e.employee_id AND w.weekday = ?
            WHERE e.employee_id IN (SELECT unnest(?))
              AND (w.employee_id IS NULL OR w.starts_at > ? OR w.ends_at < ?)
            ORDER BY e.employee_id
            """,
            [start.isoweekday(), list(ids), start.time(), end.time()],
        )
        for o in off:
            hours = (
                "does not work that day"
                if o["starts_at"] is None
                else (f"works {o['starts_at']:%H:%M}-{o['ends_at']:%H:%M}")
            )
            notes.append(f"{o['name']} ({o['email']}) {hours}")
    return notes


# --- rooms ----------------------------------------------------------------------------------------------


def headcount(env: Env, meeting_id: int, organizer_id: int) -> int:
    """People a room must seat: the organizer and every invitee who has not declined."""
    invited = env.scalar(
        "SELECT count(*) FROM meeting_attendees WHERE meeting_id = ? AND response <> 'declined' "
        "AND employee_id <> ?",
        [meeting_id, organizer_id],
    )
    return 1 + int(invited or 0)


def room_conflicts(
    env: Env, room_id: int, start: dt.datetime, end: dt.datetime, exclude: int | None = None
) -> list[dict]:
    """Confirmed bookings of the room that overlap `start`-`end` (other than meeting `exclude`'s)."""
    return env.query(
        """
        SELECT b.booking_id, b.meeting_id, b.start_at, b.end_at, m.title
        FROM room_bookings AS b JOIN meetings AS m ON m.meeting_id = b.meeting_id
        WHERE b.room_id = ? AND b.status = 'confirmed' AND b.start_at < ? AND ? < b.end_at
          AND b.meeting_id IS DISTINCT FROM ?
        ORDER BY b.start_at, b.booking_id
        """,
        [room_id, end, start, exclude],
    )


def check_room(
    env: Env, room: dict, start: dt.datetime, end: dt.datetime, seats: int | None, exclude: int | None = None
) -> None:
    """`ToolError` unless the room can be booked then for `seats` people (policy room_fits_meeting and the
    rules booking_within_opening_hours and room_not_double_booked). `seats=None` checks only the time (a
    booking that moves with its meeting)."""
    name = f"{room['name']} ({room['building']})"
    if seats is None:
        pass
    elif not room["is_bookable"]:
        raise ToolError(f"{name} is not bookable (out of service); find_rooms lists rooms free at that time.")
    elif room["requires_approval"]:
        raise ToolError(
            f"{name} is a {room['room_type'].replace('_', ' ')}: its bookings need approval by "
            "facilities and "
            "cannot be made in the app; choose another room (find_rooms)."
        )
    elif room["capacity"] < seats:
        raise ToolError(
            f"{name} seats {room['capacity']}, and the meeting has {seats} people (the organizer and every "
            "invitee who has not declined); choose a larger room (find_rooms with min_capacity)."
        )
    closed = opening_problem(env, room["building_id"], start, end)
    if closed:
        raise ToolError(f"cannot book {name}: {closed}.")
    taken = room_conflicts(env, room["room_id"], start, end, exclude)
    if taken:
        t = taken[0]
        raise ToolError(
            f"{name} is already booked {span(t['start_at'], t['end_at'])} for {t['title']!r} "
            f"(meeting {t['meeting_id']}); choose another room or time (find_rooms lists free rooms)."
        )


def confirm_booking(env: Env, meeting: dict, room: dict, booked_by: int) -> dict:
    """Book `room` for the meeting's time (re-using a cancelled booking of the same pair); the booking row."""
    old = env.one(
        "SELECT booking_id, status FROM room_bookings WHERE meeting_id = ? AND room_id = ?",
        [meeting["meeting_id"], room["room_id"]],
    )
    values = {
        "start_at": meeting["start_at"],
        "end_at": meeting["end_at"],
        "status": "confirmed",
        "booked_by": booked_by,
        "checked_in": False,
    }
    if old is None:
        return env.insert(
            "room_bookings", {"room_id": room["room_id"], "meeting_id": meeting["meeting_id"], **values}
        )
    if old["status"] == "confirmed":
        raise ToolError(f"{room['name']} is already booked for {title_of(meeting)}.")
    env.update("room_bookings", old["booking_id"], values)
    return {"booking_id": old["booking_id"], "room_id": room["room_id"], **values}
