"""What the meeting pack's tools share: finding people, meetings, rooms and units by what a user knows,
and the small types and limits of their parameters (the checks are in `checks`).

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

from stateforge.tools import Env, ToolError
from stateforge.tools.policies import refuse
from stateforge.tools.where import Where

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
Meeting = Annotated[
    MeetingRef, Field(description="The meeting's id (a number) or its 9-digit meeting code, as 123-456-789.")
]
"""A meeting named in a tool's arguments."""
RoomBuilding = Annotated[
    str | None,
    Field(description="The room's building (name or code), when two buildings have a room of that name."),
]

UNIT_TREE = (
    "WITH RECURSIVE tree (org_unit_id, depth) AS (SELECT ?, 0 UNION ALL SELECT u.org_unit_id, t.depth + 1 "
    "FROM org_units AS u JOIN tree AS t ON u.parent_id = t.org_unit_id WHERE ? AND t.depth < 50) "
)
"""SQL naming `tree` the org unit given (first parameter) and, when the second is true, the units below."""
_CODE = re.compile(r"^\d{3}-?\d{3}-?\d{3}$")
_PERSON_SQL = """
    SELECT e.employee_id, e.first_name || ' ' || e.last_name AS name, e.first_name, e.last_name, e.email,
           e.employee_no, e.job_title,
           e.is_active, e.left_on, e.org_unit_id, e.manager_id, e.home_building_id, e.hired_on, e.timezone
    FROM employees AS e
"""


# --- invitations ----------------------------------------------------------------------------------------


def invitations(meeting_ids: Sequence[int], groups: Sequence[tuple[Sequence[dict], bool]]) -> list[dict]:
    """New `meeting_attendees` rows, answer pending: each person of each `(people, optional)` group invited
    to each meeting, meeting by meeting in order."""
    return [
        {"meeting_id": m, "employee_id": p["employee_id"], "response": "pending", "is_optional": optional,
         "responded_at": None}
        for m in meeting_ids
        for people, optional in groups
        for p in people
    ]


def check_invitee_limit(must: Sequence[dict], may: Sequence[dict]) -> None:
    """Refuse (policy invitee_limit) a new meeting with more than `MAX_INVITEES` invitees."""
    if len(must) + len(may) > MAX_INVITEES:
        raise refuse(
            "invitee_limit",
            f"a meeting has at most {MAX_INVITEES} invitees; {len(must) + len(may)} were given.",
        )


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
    problems, people, left = [], [], 0
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
            left += 1
        else:
            people.append(matches[0])
    if problems and left == len(problems):  # everyone named exists, and someone has left
        raise refuse("active_employees_only", f"{role}: " + "; ".join(problems) + ".", argument=role)
    if problems:
        raise ToolError(f"{role}: " + "; ".join(problems) + ".", argument=role)
    return list({p["employee_id"]: p for p in people}.values())


def person_id(env: Env, ref: str, *, role: str = "person") -> int:
    """The employee id of the person `ref` names, who may have left (a search filter)."""
    return find_person(env, ref, role=role, active=False)["employee_id"]


def like(text: str) -> str:
    """A LIKE pattern: `text` anywhere, in any letter case (compare with `lower(column)`)."""
    return f"%{text.strip().lower()}%"


def last_day(from_date: dt.date, to_date: dt.date | None) -> dt.date:
    """The last day of a range given by its first day and an optional last one (default: the first)."""
    last = to_date or from_date
    if last < from_date:
        raise ToolError("to_date must not be before from_date.")
    return last


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


def upcoming_in(
    env: Env,
    first: dt.date,
    last: dt.date,
    from_time: dt.time | None,
    before_time: dt.time | None,
    title: str | None,
    alias: str = "",
) -> Where:
    """The filters of a bulk change of upcoming meetings (`alias`: the meetings' table alias and a dot):
    scheduled, not started, starting from `first` through `last`, in a time-of-day window, by title."""
    at = f"{alias}start_at"
    where = Where().add(f"{alias}status = 'scheduled' AND {at} > ?", env.now)
    where.add(f"{at} >= ? AND {at} < ?", first, last + dt.timedelta(days=1))
    where.when(from_time, f"CAST({at} AS TIME) >= ?").when(before_time, f"CAST({at} AS TIME) < ?")
    return where.when(like(title) if title else None, f"lower({alias}title) LIKE ?")


def cancel_all(env: Env, ids: Sequence[int]) -> int:
    """Cancel the meetings `ids` and release their rooms; how many room bookings were released."""
    env.update_where("meetings", "meeting_id IN (SELECT unnest(?))", [list(ids)], {"status": "cancelled"})
    return env.update_where(
        "room_bookings", "meeting_id IN (SELECT unnest(?)) AND status = 'confirmed'", [list(ids)],
        {"status": "cancelled"},
    )


def listed(rows: Sequence[dict]) -> list[dict]:
    """Meetings as a result lists them: id, title and when."""
    return [{"meeting_id": r["meeting_id"], "title": r["title"], "when": span(r["start_at"], r["end_at"])}
            for r in rows]


def title_of(meeting: dict) -> str:
    """A meeting as the product names it: 'Design Review' (meeting 42, 2026-04-07 15:00-16:00)."""
    when = span(meeting["start_at"], meeting["end_at"])
    return f"'{meeting['title']}' (meeting {meeting['meeting_id']}, {when})"


def own_meeting(env: Env, ref: MeetingRef, organizer: str, *, action: str = "change") -> tuple[dict, dict]:
    """The meeting and its organizer, after checking that `organizer` organises it and that it is upcoming."""
    meeting = find_meeting(env, ref)
    person = find_person(env, organizer, role="organizer")
    if person["employee_id"] != meeting["organizer_id"]:
        raise refuse(
            "organizer_manages_meeting",
            f"only the organizer of {title_of(meeting)}, {meeting['organizer_name']} "
            f"({meeting['organizer_email']}), can {action} it; {who(person)} is not its organizer.",
        )
    require_upcoming(env, meeting, action)
    return meeting, person


def require_upcoming(env: Env, meeting: dict, action: str) -> None:
    """`ToolError` unless the meeting is scheduled and has not started yet (policy
    only_upcoming_meetings_change)."""
    if meeting["status"] == "cancelled":
        raise refuse(
            "only_upcoming_meetings_change",
            f"{title_of(meeting)} was cancelled; it cannot {_passive(action)} any more.",
        )
    if meeting["status"] != "scheduled" or meeting["start_at"] <= env.now:
        state = "is in progress" if meeting["end_at"] > env.now else "has already taken place"
        raise refuse(
            "only_upcoming_meetings_change",
            f"{title_of(meeting)} {state} (now is {env.now:%Y-%m-%d %H:%M}); only upcoming meetings "
            f"can {_passive(action)}.",
        )


def _passive(action: str) -> str:
    return {"change": "be changed", "cancel": "be cancelled", "answer": "be answered"}.get(
        action, f"be {action}"
    )
