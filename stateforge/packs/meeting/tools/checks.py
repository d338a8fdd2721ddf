"""The checks a meeting, a booking or an acceptance must pass, and the availability notes shown to
organizers: opening hours, meeting times, clashes with accepted meetings and absences, room seats and room
conflicts. Each check raises a `ToolError` naming the conflicting meeting, room or period and what to do."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from stateforge.tools import Env, ToolError
from stateforge.tools.policies import refuse

from .common import MAX_MINUTES, MIN_MINUTES, WEEKDAYS, span, title_of


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
        raise refuse(
            "only_upcoming_meetings_change",
            f"{span(start, end)} is not in the future (now is {env.now:%Y-%m-%d %H:%M}); pick a later time."
        )
    if end <= start:
        raise refuse("meeting_shape", f"the meeting must end after it starts ({span(start, end)}).")
    if end.date() != start.date():
        raise refuse(
            "meeting_shape",
            f"a meeting starts and ends on the same day ({span(start, end)}); split it in two.",
        )
    minutes = (end - start).total_seconds() / 60
    if not MIN_MINUTES <= minutes <= MAX_MINUTES:
        raise refuse(
            "meeting_shape",
            f"a meeting lasts 5 minutes to 8 hours; {span(start, end)} is {minutes:g} minutes.",
        )


def join_url(code: str) -> str:
    """The link an online meeting is joined by."""
    return "https://meeting.example.com/j/" + code.replace("-", "")


def new_meeting(
    organizer_id: int, title: str, agenda: str | None, code: str, start: dt.datetime, end: dt.datetime,
    is_online: bool, **more: Any,
) -> dict:
    """A scheduled `meetings` row to insert, with its join link when online (`more`: other columns)."""
    return {
        "organizer_id": organizer_id, "title": title.strip(), "agenda": agenda or None, "meeting_code": code,
        "start_at": start, "end_at": end, "is_online": is_online,
        "join_url": join_url(code) if is_online else None, "status": "scheduled", **more,
    }


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


def headcount(env: Env | Any, meeting_id: int, organizer_id: int) -> int:
    """People a room must seat: the organizer and every invitee who has not declined. `env`: anything with
    `scalar(sql, params)` (a tool's `Env`, a recipe's context), so tools and recipes count alike."""
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
    """A refusal (policy room_fits_meeting) unless the room can be booked then for `seats` people (and the
    rules booking_within_opening_hours and room_not_double_booked). `seats=None` checks only the time (a
    booking that moves with its meeting)."""
    name = f"{room['name']} ({room['building']})"
    if seats is None:
        pass
    elif not room["is_bookable"]:
        raise refuse(
            "room_fits_meeting",
            f"{name} is not bookable (out of service); find_rooms lists rooms free at that time.",
        )
    elif room["requires_approval"]:
        raise refuse(
            "room_fits_meeting",
            f"{name} is a {room['room_type'].replace('_', ' ')}: its bookings need approval by "
            "facilities and "
            "cannot be made in the app; choose another room (find_rooms)."
        )
    elif room["capacity"] < seats:
        raise refuse(
            "room_fits_meeting",
            f"{name} seats {room['capacity']}, and the meeting has {seats} people (the organizer and every "
            "invitee who has not declined); choose a larger room (find_rooms with min_capacity)."
        )
    closed = opening_problem(env, room["building_id"], start, end)
    if closed:
        raise refuse("room_fits_meeting", f"cannot book {name}: {closed}.")
    taken = room_conflicts(env, room["room_id"], start, end, exclude)
    if taken:
        t = taken[0]
        raise refuse(
            "room_fits_meeting",
            f"{name} is already booked {span(t['start_at'], t['end_at'])} for {t['title']!r} "
            f"(meeting {t['meeting_id']}); choose another room or time (find_rooms lists free rooms)."
        )


def confirm_booking(env: Env, meeting: dict, room: dict, booked_by: int) -> dict:
    """Book `room` for the meeting's time (re-using a cancelled booking of the same pair); the booking row."""
    old = env.one(
        "SELECT booking_id, status FROM room_bookings WHERE meeting_id = ? AND room_id = ?",
        [meeting["meeting_id"], room["room_id"]],
    )
    row = booking_row(meeting, room["room_id"], booked_by)
    if old is None:
        return env.insert("room_bookings", row)
    if old["status"] == "confirmed":
        raise ToolError(f"{room['name']} is already booked for {title_of(meeting)}.")
    values = {k: v for k, v in row.items() if k not in ("room_id", "meeting_id")}
    env.update("room_bookings", old["booking_id"], values)
    return {"booking_id": old["booking_id"], "room_id": room["room_id"], **values}


def booking_row(meeting: dict, room_id: int, booked_by: int) -> dict:
    """A confirmed `room_bookings` row of the room for the meeting's whole time."""
    return {
        "room_id": room_id, "meeting_id": meeting["meeting_id"], "start_at": meeting["start_at"],
        "end_at": meeting["end_at"], "status": "confirmed", "booked_by": booked_by, "checked_in": False,
    }
