"""Reading calendars: search meetings, one meeting in full, a person's calendar for a day or a range, and
the times a group of people are all free."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.where import Where

from .common import (
    Limit,
    Meeting,
    Offset,
    People,
    find_building,
    find_meeting,
    find_people,
    find_person,
    find_room,
    last_day,
    like,
    person_id,
    who,
)
from .zones import PERSON_ZONE, SearchTime, per_zone

Status = Literal["scheduled", "in_progress", "ended", "cancelled"]
_MEETINGS = """
    SELECT m.meeting_id, m.meeting_code, m.title, m.start_at, m.end_at, m.status, m.is_online, m.series_id,
           o.first_name || ' ' || o.last_name AS organizer, o.email AS organizer_email,
           (SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id) AS invitees,
           (SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id
              AND a.response = 'accepted') AS accepted,
           coalesce((SELECT list(r.name ORDER BY r.name) FROM room_bookings AS b JOIN rooms AS r ON
               r.room_id = b.room_id
                     WHERE b.meeting_id = m.meeting_id AND b.status = 'confirmed'), []) AS rooms,
           m.organizer_id, m.agenda
    FROM meetings AS m JOIN employees AS o ON o.employee_id = m.organizer_id
"""
_READS = ("meetings", "employees", "meeting_attendees", "room_bookings", "rooms")
_ORGANIZER_ZONE = (
    f"(SELECT {PERSON_ZONE.format(e='zo')} FROM employees AS zo WHERE zo.employee_id = x.organizer_id)"
)
"""The zone of a row of `_MEETINGS` (as `x`): its organizer's."""


@tool(reads=(*_READS, "buildings"))
def search_meetings(
    env: Env,
    text: str | None = None,
    organizer: str | None = None,
    attendee: str | None = None,
    on_date: dt.date | None = None,
    starts_from: SearchTime | None = None,
    starts_before: SearchTime | None = None,
    status: Status | None = None,
    series_id: int | None = None,
    room: str | None = None,
    building: str | None = None,
    is_online: bool | None = None,
    sort_by: Literal["start_at", "title"] = "start_at",
    descending: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search meetings by title or agenda text, organizer, invitee, day or time range, status, series, room,
    building, online or not; every condition given must hold. Rows show the meeting id and code, title,
    time, status, organizer, number of invitees and acceptances, and booked rooms.

    Args:
        text: Text anywhere in the title or agenda (case-insensitive).
        organizer: Only meetings this person organises (email, employee number or full name).
        attendee: Only meetings this person is invited to (email, employee number or full name).
        on_date: Only meetings starting on this day.
        starts_from: Only meetings starting at or after this time (local; a time with a zone is compared with
            each meeting in its organizer's local time).
        starts_before: Only meetings starting strictly before this time (as starts_from).
        status: Only meetings in this state.
        series_id: Only occurrences of this recurring series.
        room: Only meetings with a confirmed booking of this room (its name).
        building: Only meetings with a confirmed room in this building (name or code).
        is_online: Only online (true) or only not-online (false) meetings.
        sort_by: Order by start time or title.
        descending: Reverse the order (e.g. latest first).
    """
    where = Where()
    if text:
        where.add("lower(title) LIKE ? OR lower(coalesce(agenda, '')) LIKE ?", like(text), like(text))
    if organizer:
        where.add("organizer_id = ?", person_id(env, organizer, role="organizer"))
    if attendee:
        where.add(
            "meeting_id IN (SELECT meeting_id FROM meeting_attendees WHERE employee_id = ?)",
            person_id(env, attendee, role="attendee"),
        )
    where.when(on_date, "CAST(start_at AS DATE) = ?")
    for bound, op in ((starts_from, ">="), (starts_before, "<")):
        if bound:
            value, bound_params = per_zone(env, bound, _ORGANIZER_ZONE)
            where.add(f"start_at {op} {value}", *bound_params)
    where.when(status, "status = ?").when(series_id, "series_id = ?")
    if room:
        where.add(
            "meeting_id IN (SELECT meeting_id FROM room_bookings WHERE room_id = ? AND status = 'confirmed')",
            find_room(env, room, building)["room_id"],
        )
    elif building:
        where.add(
            "meeting_id IN (SELECT b.meeting_id FROM room_bookings AS b JOIN rooms AS r "
            "ON r.room_id = b.room_id WHERE r.building_id = ? AND b.status = 'confirmed')",
            find_building(env, building)["building_id"],
        )
    where.when(is_online, "is_online = ?")
    sql = f"SELECT * EXCLUDE (organizer_id, agenda) FROM ({_MEETINGS}) AS x WHERE {where.sql}"
    way = " DESC" if descending else ""
    order = {
        "start_at": f"start_at{way}",
        "title": f"title{way}, start_at",
    }
    return env.page(sql, where.params, order_by=f"{order[sort_by]}, meeting_id", limit=limit, offset=offset)


_DETAILS = (
    "meeting_id", "meeting_code", "title", "agenda", "start_at", "end_at", "status", "is_online", "join_url",
    "passcode", "waiting_room_enabled",
)
"""The columns of a meeting `get_meeting` shows as they are."""


@tool(reads=(*_READS, "buildings", "meeting_series", "recordings", "meeting_notes"))
def get_meeting(env: Env, meeting: Meeting) -> dict:
    """One meeting in full: title, agenda, time, status, code, join link, organizer, every invitee with their
    answer, rooms (with building and booking state), its series, and how many recordings and notes it has.

    Args:
    """
    m = find_meeting(env, meeting)
    attendees = env.query(
        """
        SELECT e.first_name || ' ' || e.last_name AS name, e.email, a.response, a.is_optional AS optional,
               a.responded_at
        FROM meeting_attendees AS a JOIN employees AS e ON e.employee_id = a.employee_id
        WHERE a.meeting_id = ? ORDER BY name, e.email
        """,
        [m["meeting_id"]],
    )
    rooms = env.query(
        """
        SELECT r.name AS room, bl.name AS building, r.capacity, b.status, b.checked_in
        FROM room_bookings AS b JOIN rooms AS r ON r.room_id = b.room_id
        JOIN buildings AS bl ON bl.building_id = r.building_id
        WHERE b.meeting_id = ? ORDER BY b.status = 'confirmed' DESC, r.name
        """,
        [m["meeting_id"]],
    )
    series = None
    if m["series_id"] is not None:
        series = env.one(
            "SELECT series_id, title, frequency, starts_on, ends_on FROM meeting_series WHERE series_id = ?",
            [m["series_id"]],
        )
    counts = (
        env.one(
            "SELECT (SELECT count(*) FROM recordings WHERE meeting_id = ?) AS recordings, "
            "(SELECT count(*) FROM meeting_notes WHERE meeting_id = ?) AS notes",
            [m["meeting_id"], m["meeting_id"]],
        )
        or {}
    )
    return {
        **{k: m[k] for k in _DETAILS},
        "organizer": m["organizer_name"],
        "organizer_email": m["organizer_email"],
        "attendees": attendees,
        "rooms": rooms,
        "series": series,
        **counts,
    }


@tool(reads=(*_READS, "out_of_office"))
def get_calendar(
    env: Env,
    person: str,
    from_date: dt.date,
    to_date: dt.date | None = None,
    role: Literal["any", "organizer", "invitee"] = "any",
    response: Literal["pending", "accepted", "tentative", "declined"] | None = None,
    include_cancelled: bool = False,
    include_declined: bool = False,
    limit: Limit = 50,
    offset: Offset = 0,
) -> dict:
    """A person's calendar for a day or a date range: the meetings they organise or are invited to (with
    their own answer), by start time, and their out-of-office periods in that range. Use response="pending"
    for the invitations they have not answered yet.

    Args:
        person: Whose calendar: an email address, an employee number (E and seven digits) or a full name.
        from_date: The first day.
        to_date: The last day, inclusive (default: from_date only).
        role: Only meetings they organise, only those they are invited to, or both.
        response: Only invitations they answered this way (implies role invitee).
        include_cancelled: Also cancelled meetings.
        include_declined: Also invitations they declined.
    """
    p = find_person(env, person, active=False)
    last = last_day(from_date, to_date)
    sql = f"""
        SELECT x.meeting_id, x.meeting_code, x.title, x.start_at, x.end_at, x.status, x.is_online, x.rooms,
               x.organizer, x.organizer_email, x.invitees,
               CASE WHEN x.organizer_id = $who THEN 'organizer' ELSE 'invitee' END AS role,
               a.response AS my_response, a.is_optional AS optional
        FROM ({_MEETINGS}) AS x
        LEFT JOIN meeting_attendees AS a ON a.meeting_id = x.meeting_id AND a.employee_id = $who
        WHERE (x.organizer_id = $who OR a.employee_id IS NOT NULL)
          AND x.start_at >= $first AND x.start_at < $after
    """
    params = {"who": p["employee_id"], "first": from_date, "after": last + dt.timedelta(days=1)}
    if role == "organizer":
        sql += " AND x.organizer_id = $who"
    elif role == "invitee" or response:
        sql += " AND x.organizer_id <> $who AND a.employee_id IS NOT NULL"
    if response:
        sql += " AND a.response = $response"
        params["response"] = response
    elif not include_declined:
        sql += " AND (a.response IS NULL OR a.response <> 'declined' OR x.organizer_id = $who)"
    if not include_cancelled:
        sql += " AND x.status <> 'cancelled'"
    page = env.page(sql, params, order_by="start_at, meeting_id", limit=limit, offset=offset)
    page["person"] = who(p)
    page["out_of_office"] = env.query(
        "SELECT ooo_id AS period_id, starts_at, ends_at, reason FROM out_of_office "
        "WHERE employee_id = ? AND starts_at < ? AND ends_at > ? ORDER BY starts_at, ooo_id",
        [p["employee_id"], last + dt.timedelta(days=1), from_date],
    )
    return page


@tool(reads=("employees", "meetings", "meeting_attendees", "out_of_office", "working_hours"))
def find_meeting_times(
    env: Env,
    people: People,
    date: dt.date,
    duration_minutes: Annotated[int, Field(ge=5, le=480)],
    earliest: dt.time | None = None,
    latest: dt.time | None = None,
    step_minutes: Literal[15, 30, 60] = 30,
) -> dict:
    """Times on a day when everyone named is free for the whole length: inside all of their working hours,
    outside meetings they organise or have accepted (not cancelled), outside their out-of-office periods,
    and after now. Lists up to 20 start times and the free windows they come from.

    Args:
        people: The people who must all be free, each an email address, employee number or full name.
        date: The day.
        duration_minutes: The meeting's length in minutes.
        earliest: Start no earlier than this time of day.
        latest: End no later than this time of day.
        step_minutes: Candidate start times fall on this grid (from the start of the hour).
    """
    group = find_people(env, people, role="people")
    if not group:
        raise ToolError("name at least one person.")
    ids = [g["employee_id"] for g in group]
    hours = env.query(
        "SELECT employee_id, starts_at, ends_at FROM working_hours WHERE weekday = ? AND employee_id IN "
        "(SELECT unnest(?))",
        [date.isoweekday(), ids],
    )
    off = [who(g) for g in group if g["employee_id"] not in {h["employee_id"] for h in hours}]
    if off:
        return {"date": date, "slots": [], "windows": [], "reason": f"not working that day: {', '.join(off)}"}
    day = dt.datetime.combine(date, dt.time(0))
    lo = max(
        [day + _since_midnight(h["starts_at"]) for h in hours]
        + ([day + _since_midnight(earliest)] if earliest else [])
    )
    hi = min(
        [day + _since_midnight(h["ends_at"]) for h in hours]
        + ([day + _since_midnight(latest)] if latest else [])
    )
    lo = max(lo, env.now)
    busy = env.query(
        """
        SELECT m.start_at, m.end_at FROM meetings AS m
        WHERE m.status <> 'cancelled' AND m.start_at < ? AND ? < m.end_at
          AND (m.organizer_id IN (SELECT unnest(?)) OR m.meeting_id IN (
               SELECT meeting_id FROM meeting_attendees WHERE response = 'accepted' AND employee_id IN
                   (SELECT unnest(?))))
        UNION ALL
        SELECT starts_at, ends_at FROM out_of_office
        WHERE employee_id IN (SELECT unnest(?)) AND starts_at < ? AND ? < ends_at
        ORDER BY 1, 2
        """,
        [hi, lo, ids, ids, ids, hi, lo],
    )
    windows, cursor = [], lo
    for b in busy:
        if b["start_at"] > cursor:
            windows.append((cursor, min(b["start_at"], hi)))
        cursor = max(cursor, b["end_at"])
    if cursor < hi:
        windows.append((cursor, hi))
    length = dt.timedelta(minutes=duration_minutes)
    windows = [(a, b) for a, b in windows if b - a >= length]
    slots = []
    for a, b in windows:
        start = _ceil(a, step_minutes)
        while start + length <= b and len(slots) < 20:
            slots.append({"start_at": start, "end_at": start + length})
            start += dt.timedelta(minutes=step_minutes)
    return {
        "date": date,
        "people": [who(g) for g in group],
        "slots": slots,
        "windows": [{"from": a, "until": b} for a, b in windows],
        "reason": None if slots else "no common free time of that length",
    }


def _since_midnight(t: dt.time) -> dt.timedelta:
    return dt.timedelta(hours=t.hour, minutes=t.minute, seconds=t.second)


def _ceil(moment: dt.datetime, step: int) -> dt.datetime:
    base = moment.replace(minute=0, second=0, microsecond=0)
    while base < moment:
        base += dt.timedelta(minutes=step)
    return base

