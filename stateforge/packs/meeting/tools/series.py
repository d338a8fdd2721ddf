"""Recurring meetings: create a series (all its occurrences at once), see it, cancel it from a day on, and
invite or remove people for all its upcoming occurrences."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .checks import booking_row, check_meeting_time, check_room, new_meeting
from .common import (
    MAX_INVITEES,
    Limit,
    Offset,
    People,
    RoomBuilding,
    cancel_all,
    check_invitee_limit,
    find_people,
    find_person,
    find_room,
    invitations,
    span,
    who,
)
from .meetings import Agenda, Title, invitee_lists, meeting_code

Frequency = Literal["daily", "weekly", "biweekly", "monthly"]
RRULES = {
    "daily": "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
    "weekly": "FREQ=WEEKLY",
    "biweekly": "FREQ=WEEKLY;INTERVAL=2",
    "monthly": "FREQ=MONTHLY",
}
MAX_OCCURRENCES = 120


def occurrence_dates(
    frequency: str, first: dt.date, until: dt.date | None, count: int | None
) -> list[dt.date]:
    """The days of a series: weekdays (daily), every 7 or 14 days, or the same day of each month (months
    without that day are skipped), from `first` until `until` (inclusive) or for `count` occurrences; at
    most one more than MAX_OCCURRENCES (so that a caller can tell the series is too long)."""
    days: list[dt.date] = []
    for step in range(3 * 366):
        day = _nth(frequency, first, step)
        if day is None or (frequency == "daily" and day.weekday() >= 5):
            continue
        if until is not None and day > until:
            break
        days.append(day)
        if len(days) == count or len(days) > MAX_OCCURRENCES:
            break
    return days


def _nth(frequency: str, first: dt.date, step: int) -> dt.date | None:
    if frequency == "monthly":
        month = first.month - 1 + step
        try:
            return first.replace(year=first.year + month // 12, month=month % 12 + 1)
        except ValueError:  # no such day in that month (the 31st, February 30th)
            return None
    return first + dt.timedelta(days=step * {"daily": 1, "weekly": 7, "biweekly": 14}[frequency])


def _series(env: Env, series_id: int) -> dict:
    row = env.one(
        "SELECT s.*, e.first_name || ' ' || e.last_name AS organizer_name, e.email AS organizer_email "
        "FROM meeting_series AS s JOIN employees AS e ON e.employee_id = s.organizer_id WHERE "
        "s.series_id = ?",
        [series_id],
    )
    if row is None:
        raise ToolError(f"no meeting series {series_id}; get_meeting shows the series of an occurrence.")
    return row


def _own_series(env: Env, series_id: int, organizer: str) -> tuple[dict, dict]:
    s = _series(env, series_id)
    p = find_person(env, organizer, role="organizer")
    if p["employee_id"] != s["organizer_id"]:
        raise refuse(
            "organizer_manages_meeting",
            f"only the organizer of series {series_id} ({s['title']!r}), {s['organizer_name']} "
            f"({s['organizer_email']}), can change it; {who(p)} is not its organizer.",
        )
    return s, p


@create(
    reads=("employees", "meetings", "meeting_attendees", "rooms", "buildings", "building_hours",
           "room_bookings", "meeting_series"),
    writes=("meeting_series", "meetings", "meeting_attendees", "room_bookings"),
)
def create_meeting_series(
    env: Env,
    organizer: str,
    title: Title,
    frequency: Frequency,
    first_date: dt.date,
    start_time: dt.time,
    duration_minutes: Annotated[int, Field(ge=5, le=480)],
    ends_on: dt.date | None = None,
    occurrences: Annotated[int, Field(ge=2, le=MAX_OCCURRENCES)] | None = None,
    invitees: People = [],  # noqa: B006 - a pydantic default, copied per call
    optional_invitees: People = [],  # noqa: B006
    agenda: Agenda | None = None,
    is_online: bool = True,
    room: str | None = None,
    building: RoomBuilding = None,
) -> dict:
    """Create a recurring meeting and all its occurrences (2 to 120): daily on weekdays, weekly, every two
    weeks, or monthly on the same day of the month, until an end date or for a number of occurrences.
    Every occurrence invites the same people and, with a room, books it; the call fails (listing the days)
    when the room is taken or closed on any of them.

    Args:
        organizer: Who organises it: an email address, an employee number (E and seven digits) or a full name.
        title: The title of every occurrence.
        frequency: daily (Monday to Friday), weekly, biweekly or monthly.
        first_date: The day of the first occurrence (in the future).
        start_time: Start time of day of each occurrence, local time.
        duration_minutes: Length of each occurrence in minutes.
        ends_on: The last possible day (inclusive); or give occurrences.
        occurrences: How many occurrences; or give ends_on.
        invitees: Required invitees, each an email address, employee number or full name.
        optional_invitees: Optional invitees.
        agenda: What the meetings are about.
        is_online: Whether the occurrences have a video link.
        room: A room to book for every occurrence (its name).
    """
    org = find_person(env, organizer, role="organizer")
    if (ends_on is None) == (occurrences is None):
        raise ToolError("give either ends_on (the last day) or occurrences (how many), not both or neither.")
    days = occurrence_dates(frequency, first_date, ends_on, occurrences)
    if len(days) > MAX_OCCURRENCES:
        raise ToolError(f"a series has at most {MAX_OCCURRENCES} occurrences; end it earlier.")
    if len(days) < 2:
        raise ToolError(
            f"a series needs at least two occurrences; {frequency} from {first_date} to {ends_on} has "
            f"{len(days)}. Use schedule_meeting for a single meeting."
        )
    length = dt.timedelta(minutes=duration_minutes)
    times = [(dt.datetime.combine(d, start_time), dt.datetime.combine(d, start_time) + length) for d in days]
    check_meeting_time(env, *times[0])
    must, may, skipped = invitee_lists(env, org, invitees, optional_invitees)
    check_invitee_limit(must, may)
    booked = find_room(env, room, building) if room else None
    if booked:
        problems = []
        for start, end in times:
            try:
                check_room(env, booked, start, end, 1 + len(must) + len(may))
            except ToolError as exc:
                problems.append(f"{start:%Y-%m-%d}: {exc}")
        if problems:
            more = f" (and {len(problems) - 5} more days)" if len(problems) > 5 else ""
            raise refuse(
                "room_fits_meeting",
                f"cannot book {booked['name']} for every occurrence: " + " | ".join(problems[:5]) + more
            )
    series = env.insert(
        "meeting_series",
        {
            "organizer_id": org["employee_id"],
            "title": title.strip(),
            "frequency": frequency,
            "rrule": RRULES[frequency],
            "starts_on": days[0],
            "ends_on": days[-1],
        },
    )
    codes: list[str] = []
    for start, _ in times:
        codes.append(meeting_code(env, org["employee_id"], start, title, taken=set(codes)))
    meetings = env.insert_many(
        "meetings",
        [
            new_meeting(
                org["employee_id"], title, agenda, code, start, end, is_online, series_id=series["series_id"]
            )
            for code, (start, end) in zip(codes, times, strict=True)
        ],
    )
    env.insert_many(
        "meeting_attendees", invitations([m["meeting_id"] for m in meetings], ((must, False), (may, True)))
    )
    if booked:
        rows = [booking_row(m, booked["room_id"], org["employee_id"]) for m in meetings]
        env.insert_many("room_bookings", rows)
    return {
        "series_id": series["series_id"],
        "title": series["title"],
        "frequency": frequency,
        "occurrences": len(meetings),
        "first": span(*times[0]),
        "last": span(*times[-1]),
        "meeting_ids": [m["meeting_id"] for m in meetings],
        "invited": len(must) + len(may),
        "room": booked["name"] if booked else None,
        "skipped": skipped,
    }


@tool(reads=("meeting_series", "employees", "meetings", "meeting_attendees"))
def get_series(
    env: Env, series_id: int, include_past: bool = False, limit: Limit = 20, offset: Offset = 0
) -> dict:
    """A recurring series: title, organizer, pattern, first and last day, and its occurrences by time (the
    upcoming ones by default) with their status and number of invitees.

    Args:
        series_id: The series' id (get_meeting and search_meetings show it for an occurrence).
        include_past: Also occurrences that have started or ended.
    """
    s = _series(env, series_id)
    sql = """
        SELECT m.meeting_id, m.meeting_code, m.title, m.start_at, m.end_at, m.status,
               (SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id) AS invitees
        FROM meetings AS m WHERE m.series_id = ? AND (? OR m.start_at > ?)
    """
    page = env.page(
        sql, [series_id, include_past, env.now], order_by="start_at, meeting_id", limit=limit, offset=offset
    )
    page["series"] = {"series_id": series_id, "title": s["title"], "organizer": s["organizer_name"],
                      **{k: s[k] for k in ("organizer_email", "frequency", "rrule", "starts_on", "ends_on")}}
    return page


@change(
    reads=("meeting_series", "employees", "meetings", "room_bookings"),
    writes=("meeting_series", "meetings", "room_bookings"),
)
def cancel_series(env: Env, series_id: int, organizer: str, from_date: dt.date | None = None) -> dict:
    """Cancel every upcoming occurrence of a recurring series from a day on (default: today), releasing
    their rooms; the series then ends the day before (past occurrences stay as they were).

    Args:
        series_id: The series' id.
        organizer: The series' organizer (email, employee number or full name).
        from_date: Cancel the occurrences on and after this day.
    """
    s, _ = _own_series(env, series_id, organizer)
    start = max(from_date or env.today, env.today)
    found = env.query(
        "SELECT meeting_id, start_at, end_at FROM meetings WHERE series_id = ? AND status = 'scheduled' "
        "AND start_at > ? AND start_at >= ? ORDER BY start_at, meeting_id",
        [series_id, env.now, start],
    )
    if not found:
        raise ToolError(f"series {series_id} ({s['title']!r}) has no upcoming occurrence from {start} on.")
    ids = [f["meeting_id"] for f in found]
    released = cancel_all(env, ids)
    last = start - dt.timedelta(days=1)
    ends = s["ends_on"]
    if last > s["starts_on"] and (ends is None or ends > last):
        env.update("meeting_series", series_id, {"ends_on": last})
        ends = last
    return {
        "series_id": series_id,
        "title": s["title"],
        "cancelled": len(ids),
        "first_cancelled": span(found[0]["start_at"], found[0]["end_at"]),
        "rooms_released": released,
        "series_ends_on": ends,
    }


@change(reads=("meeting_series", "employees", "meetings", "meeting_attendees"), writes=("meeting_attendees",))
def update_series_attendees(
    env: Env,
    series_id: int,
    organizer: str,
    add: People = [],  # noqa: B006 - a pydantic default, copied per call
    remove: People = [],  # noqa: B006
    optional: bool = False,
    from_date: dt.date | None = None,
) -> dict:
    """Invite people to, or remove people from, every upcoming occurrence of a series (from a day on).
    People already invited to an occurrence keep their answer there.

    Args:
        series_id: The series' id.
        organizer: The series' organizer (email, employee number or full name).
        add: People to invite to every upcoming occurrence.
        remove: People to remove from every upcoming occurrence.
        optional: Invite the added people as optional attendees.
        from_date: Only occurrences on and after this day (default: every upcoming one).
    """
    s, org = _own_series(env, series_id, organizer)
    adding = [p for p in find_people(env, add, role="add") if p["employee_id"] != org["employee_id"]]
    removing = find_people(env, remove, role="remove", active=False)
    if not adding and not removing:
        raise ToolError("name people to add or to remove (the organizer is never an invitee).")
    both = {p["employee_id"] for p in adding} & {p["employee_id"] for p in removing}
    if both:
        raise ToolError("a person cannot be both added and removed.")
    occ = env.query(
        "SELECT meeting_id FROM meetings WHERE series_id = ? AND status = 'scheduled' AND start_at > ? "
        "AND start_at >= ? ORDER BY start_at, meeting_id",
        [series_id, env.now, from_date or env.today],
    )
    if not occ:
        raise ToolError(f"series {series_id} ({s['title']!r}) has no upcoming occurrence to change.")
    ids = [o["meeting_id"] for o in occ]
    have = {
        (a["meeting_id"], a["employee_id"])
        for a in env.query(
            "SELECT meeting_id, employee_id FROM meeting_attendees WHERE meeting_id IN (SELECT unnest(?))",
            [ids],
        )
    }
    counts = {i: sum(1 for (m, _) in have if m == i) for i in ids}
    new = invitations(ids, ((adding, optional),))
    rows = [r for r in new if (r["meeting_id"], r["employee_id"]) not in have]
    for i in ids:
        if counts[i] + sum(1 for r in rows if r["meeting_id"] == i) > MAX_INVITEES:
            raise ToolError(f"occurrence {i} would have more than {MAX_INVITEES} invitees.")
    env.insert_many("meeting_attendees", rows)
    removed = env.delete_where(
        "meeting_attendees",
        "meeting_id IN (SELECT unnest(?)) AND employee_id IN (SELECT unnest(?))",
        [ids, [p["employee_id"] for p in removing]],
    )
    return {
        "series_id": series_id,
        "occurrences": len(ids),
        "invitations_added": len(rows),
        "invitations_removed": removed,
    }

