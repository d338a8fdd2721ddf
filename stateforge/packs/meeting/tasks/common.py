"""What the meeting recipes share: speaking as an employee, naming colleagues, meetings and rooms the way the
app shows them (uniquely, checked with SQL), choosing how big a bulk change is, the days around the frozen
"now", and the checks a room booking must pass (so that recipes pick situations the tools accept).

People are named by full name when nobody else has that name, else by name and email; a meeting by its
title and start ("my 'Design Review' on April 7, 2026 at 3 pm"), with its organizer when it is someone
else's; a room by its name and building; a series, a recording or a note by the id the read tools show.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping, Sequence
from typing import Any

from stateforge.tasks import RecipeContext, Skip, picks

from ..tools.checks import headcount  # noqa: F401 - recipes count seats as the tools do

ACTIVE = "e.is_active"
"""Only people who have not left act in the app (policy active_employees_only)."""

PERSON = "e.employee_id, e.first_name || ' ' || e.last_name AS name, e.email"
"""The columns of a person a recipe needs to speak as them or name them (alias `e` for employees)."""

FULL_NAME = "lower(first_name || ' ' || last_name)"

BANDS: tuple[tuple[int, int], ...] = ((1, 9), (10, 49), (50, 300))
"""Sizes of a bulk change, in rows it changes: a few, dozens, hundreds."""
BAND_WEIGHTS: tuple[float, ...] = (0.3, 0.35, 0.35)

LAST_DAY = dt.date(2026, 6, 26)
"""The last day with built meetings (a Friday): requests about upcoming days stay up to it."""

FACILITIES = ("Facilities", "Workplace", "Maintenance", "Real Estate")
"""Org units whose members speak for facilities (room and equipment changes)."""

UNIT_TREE = """
    WITH RECURSIVE tree (root_id, org_unit_id) AS (
        SELECT org_unit_id, org_unit_id FROM org_units
        UNION ALL
        SELECT t.root_id, u.org_unit_id FROM org_units AS u JOIN tree AS t ON u.parent_id = t.org_unit_id)
"""
"""Every org unit (`root_id`) with each unit at or below it (`org_unit_id`)."""

WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


# --- days ---------------------------------------------------------------------------------------------


def next_monday(day: dt.date) -> dt.date:
    """The first Monday after `day`."""
    return day + dt.timedelta(days=7 - day.weekday())


def workdays(first: dt.date, last: dt.date) -> list[dt.date]:
    """Monday to Friday days from `first` to `last`, inclusive."""
    days, day = [], first
    while day <= last:
        if day.weekday() < 5:
            days.append(day)
        day += dt.timedelta(days=1)
    return days


def at(day: dt.date, time: dt.time) -> dt.datetime:
    """The moment `time` on `day`."""
    return dt.datetime.combine(day, time)


def article(noun: str) -> str:
    """'a' or 'an' before `noun` as it is spoken ("an 85-inch Display", "an HDMI Cable", "a Projector")."""
    if noun[:2].isupper():  # an acronym: its first letter as spoken ("an HDMI", "a PTZ")
        return "an" if noun[0] in "AEFHILMNORSX8" else "a"
    return "an" if noun[:1].lower() in "aeiou8" else "a"


# --- people -------------------------------------------------------------------------------------------


def introduce(ctx: RecipeContext, person: Mapping[str, Any]) -> None:
    """Open the instruction as `person` speaking ("I'm Ana Lopez (ana.lopez@example.com).") and record that
    their email names one employee."""
    picks.introduce(ctx, "employee", "employees", {"email": person["email"]}, person["name"], person["email"])


def colleague(ctx: RecipeContext, employee_id: int, *, record: bool = True) -> dict[str, Any]:
    """How the instruction names a colleague: `text` is their full name when nobody else has it, else the
    name with the email; `arg` what the reference calls pass (the name when it is unique, else the email:
    what `text` states). Records the reference unless
    `record` is false (a name only a variant uses)."""
    row = ctx.one(
        "SELECT e.first_name || ' ' || e.last_name AS name, e.email, e.is_active, "
        "(SELECT count(*) FROM employees AS o WHERE lower(o.first_name || ' ' || o.last_name) "
        "= lower(e.first_name || ' ' || e.last_name)) AS same "
        "FROM employees AS e WHERE e.employee_id = ?",
        [employee_id],
    )
    if row is None:
        raise Skip("no such colleague")
    if row["same"] == 1:
        if record:
            ctx.refer(
                f"colleague {row['name']}",
                f"SELECT count(*) FROM employees WHERE {FULL_NAME} = lower(?)",
                [row["name"]],
            )
        text = row["name"]
    else:
        if record:
            ctx.unique(f"colleague {row['email']}", "employees", email=row["email"])
        text = f"{row['name']} ({row['email']})"
    return {
        "employee_id": employee_id,
        "name": row["name"],
        "email": row["email"],
        "text": text,
        # as the instruction names them (the tools take a full name, an email or an employee number), so
        # the reference passes only what the request states
        "arg": row["name"] if text == row["name"] else row["email"],
    }


def unit_colleagues(ctx: RecipeContext, person: Mapping[str, Any], k: int) -> list[dict[str, Any]]:
    """`k` active members of `person`'s org unit other than them, sampled with the seeded rng and named as
    `colleague` names them."""
    picked = ctx.sample(
        f"SELECT e.employee_id FROM employees AS e WHERE {ACTIVE} AND e.employee_id <> ? AND e.org_unit_id "
        "= ?",
        [person["employee_id"], person["org_unit_id"]],
        k=k,
        what="colleague",
    )
    return [colleague(ctx, p["employee_id"]) for p in picked]

def unknown_name(ctx: RecipeContext, like: str) -> str:
    """A plausible full name nobody in the company has: `like`'s first name with another last name (for
    variants that name a colleague who does not exist)."""
    first = like.split(" ")[0]
    for row in ctx.sql(
        "SELECT DISTINCT last_name FROM employees ORDER BY last_name LIMIT 200",
    ):
        candidate = f"{first} {row['last_name']}"
        taken = ctx.scalar(f"SELECT count(*) FROM employees WHERE {FULL_NAME} = lower(?)", [candidate])
        if not taken and ctx.rng.random() < 0.3:
            return candidate
    raise Skip("no unused name")


# --- meetings -----------------------------------------------------------------------------------------


def upcoming(alias: str = "m") -> str:
    """The condition of a meeting that can still change: scheduled and not started (`?` = now)."""
    return f"{alias}.status = 'scheduled' AND {alias}.start_at > ?"


Ref = tuple[str, str, list[Any], int]
"""A reference as `ctx.infeasible(proof=...)` takes it: entity, count SQL, parameters, expected count."""


def meeting_ref(meeting: Mapping[str, Any], email: str) -> Ref:
    """The meeting of the organizer `email` with its title and start: one row."""
    return (
        f"meeting {meeting['title']!r} of {email} at {meeting['start_at']}",
        "SELECT count(*) FROM meetings AS m JOIN employees AS e ON e.employee_id = m.organizer_id "
        "WHERE e.email = ? AND m.title = ? AND m.start_at = ?",
        [email, meeting["title"], meeting["start_at"]],
        1,
    )


def named_ref(entity: str, table: str, name: str) -> Ref:
    """The one row of `table` called `name` (any letter case): an org unit, a building, equipment."""
    return f"{entity} {name}", f"SELECT count(*) FROM {table} WHERE lower(name) = lower(?)", [name], 1


def room_ref(name: str, building: str) -> Ref:
    """The room called `name` in the building called `building` (any letter case)."""
    return (
        f"room {name} in {building}",
        "SELECT count(*) FROM rooms AS r JOIN buildings AS b ON b.building_id = r.building_id "
        "WHERE lower(r.name) = lower(?) AND lower(b.name) = lower(?)",
        [name, building],
        1,
    )


def refer(ctx: RecipeContext, ref: Ref) -> None:
    """Record the reference `ref` (see `meeting_ref`, `named_ref`, `room_ref`)."""
    entity, sql, params, expected = ref
    ctx.refer(entity, sql, params, expected=expected)


def refer_meeting(ctx: RecipeContext, meeting: Mapping[str, Any], organizer: Mapping[str, Any]) -> None:
    """Record that the meeting is the only one of its organizer with that title and start."""
    refer(ctx, meeting_ref(meeting, organizer["email"]))


def speak_for(ctx: RecipeContext, units: Sequence[str]) -> None:
    """Open as an active member of one of the org units `units` (facilities, HR) when the company has one
    (the tools do not ask who acts)."""
    rows = ctx.sql(
        f"SELECT {PERSON} FROM employees AS e JOIN org_units AS u ON u.org_unit_id = e.org_unit_id "
        f"WHERE {ACTIVE} AND u.name IN (SELECT unnest(?)) ORDER BY e.employee_id",
        [list(units)],
    )
    if rows:
        introduce(ctx, ctx.choice(rows))


_UNIQUE_MEETING = picks.unique_within("m", "meetings", ["organizer_id"], ["title", "start_at"], case=True)


def unique_meeting_sql(where: str = "TRUE") -> str:
    """Meetings (alias `m`) with their organizer's name and email (`e`), that no other meeting of the same
    organizer shares title and start with; `where` narrows them."""
    return f"""
        SELECT m.meeting_id, m.title, m.start_at, m.end_at, m.status, m.series_id, m.is_online,
               {PERSON}
        FROM meetings AS m JOIN employees AS e ON e.employee_id = m.organizer_id
        WHERE {where} AND {_UNIQUE_MEETING}
    """


def find_meeting_read(ctx: RecipeContext, meeting: Mapping[str, Any], organizer: Mapping[str, Any]) -> None:
    """The read a solver makes to find a meeting named by title and day (it feeds the write's meeting id)."""
    ctx.read(
        "search_meetings",
        {
            "organizer": organizer["email"],
            "on_date": meeting["start_at"].date().isoformat(),
            "text": meeting["title"],
        },
        step=f"Find {organizer['name']}'s {meeting['title']!r} on {meeting['start_at']:%Y-%m-%d %H:%M}",
    )


# --- rooms --------------------------------------------------------------------------------------------


def room_free(
    ctx: RecipeContext, room_id: int, start: dt.datetime, end: dt.datetime, exclude: int | None = None
) -> bool:
    """Whether the room has no confirmed booking overlapping `start`-`end` (other than meeting `exclude`'s)
    and its building is open then (the checks of book_room, reschedule_meeting and series)."""
    row = ctx.one(
        """
        SELECT (SELECT count(*) FROM room_bookings AS b WHERE b.room_id = r.room_id AND b.status = 'confirmed'
                  AND b.start_at < ? AND ? < b.end_at AND b.meeting_id IS DISTINCT FROM ?) AS taken,
               (SELECT count(*) FROM building_hours AS h WHERE h.building_id = r.building_id AND h.weekday = ?
                  AND h.opens_at <= ? AND h.closes_at >= ?) AS open
        FROM rooms AS r WHERE r.room_id = ?
        """,
        [end, start, exclude, start.isoweekday(), start.time(), end.time(), room_id],
    )
    return bool(row) and row["taken"] == 0 and row["open"] == 1 and start.date() == end.date()


# --- sizes --------------------------------------------------------------------------------------------


sized = functools.partial(picks.sized, bands=BANDS, weights=BAND_WEIGHTS)
"""`stateforge.tasks.picks.sized` with the meeting bands."""


def scaled_difficulty(ctx: RecipeContext, rows: int, *, medium: int = 10, hard: int = 50) -> None:
    """Raise the draft's difficulty with the size of the change (never lower it)."""
    order = ("easy", "medium", "hard")
    level = 2 if rows >= hard else 1 if rows >= medium else 0
    if level > order.index(ctx.difficulty):
        ctx.difficulty = order[level]
