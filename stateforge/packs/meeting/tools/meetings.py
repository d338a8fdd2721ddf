"""The organizer's side of a meeting: schedule it, change its details, move it to another time, cancel it,
or cancel many at once."""

from __future__ import annotations

import hashlib
from typing import Annotated

from pydantic import Field

from stateforge.tools import Env, ToolError
from stateforge.tools.errors import PolicyRefusal
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse

from .checks import (
    availability_warnings,
    check_meeting_time,
    check_room,
    confirm_booking,
    join_url,
    meeting_end,
    new_meeting,
)
from .common import (
    Meeting,
    People,
    RoomBuilding,
    check_invitee_limit,
    find_people,
    find_person,
    find_room,
    invitations,
    own_meeting,
    span,
    title_of,
    who,
)
from .zones import MeetingTime, at_person

Title = Annotated[str, Field(min_length=1, max_length=200)]
Agenda = Annotated[str, Field(max_length=2000)]
Passcode = Annotated[str, Field(pattern=r"^(\d{6})?$")]
_MEETING_READS = (
    "meetings",
    "employees",
    "meeting_attendees",
    "out_of_office",
    "working_hours",
    "rooms",
    "buildings",
    "building_hours",
    "room_bookings",
)


def meeting_code(env: Env, *seed: object, taken: set[str] | None = None) -> str:
    """A free 9-digit meeting code, as 123-456-789, derived from the meeting's content (deterministic); not
    in use and not in `taken` (codes handed out earlier in the same call)."""
    for attempt in range(1000):
        digest = hashlib.sha256("|".join(map(str, (*seed, attempt))).encode()).hexdigest()
        number = f"{int(digest, 16) % 1_000_000_000:09d}"
        code = f"{number[:3]}-{number[3:6]}-{number[6:]}"
        if code in (taken or ()):
            continue
        if not env.scalar("SELECT count(*) FROM meetings WHERE meeting_code = ?", [code]):
            return code
    raise ToolError("no free meeting code found; try again with another title or time.")  # pragma: no cover


def invitee_lists(
    env: Env, organizer: dict, required: list[str], optional: list[str]
) -> tuple[list, list, list]:
    """The required and optional invitees resolved (organizer and repeats left out) and the names skipped."""
    must = find_people(env, required, role="invitees")
    may = find_people(env, optional, role="optional_invitees")
    skipped = (
        [f"{who(organizer)} organises the meeting"]
        if organizer["employee_id"] in {p["employee_id"] for p in must + may}
        else []
    )
    must = [p for p in must if p["employee_id"] != organizer["employee_id"]]
    taken = {p["employee_id"] for p in must}
    skipped += [f"{who(p)} is already a required invitee" for p in may if p["employee_id"] in taken]
    may = [p for p in may if p["employee_id"] not in taken and p["employee_id"] != organizer["employee_id"]]
    return must, may, skipped


@create(reads=_MEETING_READS, writes=("meetings", "meeting_attendees", "room_bookings"))
def schedule_meeting(
    env: Env,
    organizer: str,
    title: Title,
    start_at: MeetingTime,
    end_at: MeetingTime | None = None,
    duration_minutes: Annotated[int, Field(ge=5, le=480)] | None = None,
    invitees: People = [],  # noqa: B006 - a pydantic default, copied per call
    optional_invitees: People = [],  # noqa: B006
    agenda: Agenda | None = None,
    is_online: bool = True,
    room: str | None = None,
    building: RoomBuilding = None,
    passcode: Passcode | None = None,
    waiting_room_enabled: bool = False,
) -> dict:
    """Schedule a meeting: invite people (their answers start as pending), optionally book a room, and get
    the meeting id, its 9-digit code and (online) its join link. The time is local, in the future, on one
    day, 5 minutes to 8 hours long. The result warns about invitees who are busy, away or off work then.

    Args:
        organizer: Who organises it: an email address, an employee number (E and seven digits) or a full name.
        title: The meeting's title.
        start_at: Start, the organizer's local time (YYYY-MM-DDTHH:MM); a time with a zone (Z, +08:00) is
            converted to it.
        end_at: End, as start_at; or give duration_minutes instead.
        duration_minutes: Length in minutes; or give end_at instead.
        invitees: Required invitees (the organizer is never invited to their own meeting).
        optional_invitees: Optional invitees.
        agenda: What the meeting is about.
        is_online: Whether it has a video link (true) or is in person only.
        room: A room to book for it (its name), e.g. "Everest 1.001".
        passcode: A 6-digit passcode to join online.
        waiting_room_enabled: Hold participants in a waiting room until admitted.
    """
    org = find_person(env, organizer, role="organizer")
    start_at, end_at = (at_person(env, t, org["employee_id"]) for t in (start_at, end_at))
    end = meeting_end(start_at, end_at, duration_minutes)
    check_meeting_time(env, start_at, end)
    must, may, skipped = invitee_lists(env, org, invitees, optional_invitees)
    check_invitee_limit(must, may)
    booked = find_room(env, room, building) if room else None
    if booked:
        check_room(env, booked, start_at, end, 1 + len(must) + len(may))
    code = meeting_code(env, org["employee_id"], start_at, title)
    meeting = env.insert(
        "meetings",
        new_meeting(
            org["employee_id"], title, agenda, code, start_at, end, is_online,
            passcode=passcode or None, waiting_room_enabled=waiting_room_enabled,
        ),
    )
    env.insert_many("meeting_attendees", invitations([meeting["meeting_id"]], ((must, False), (may, True))))
    if booked:
        confirm_booking(env, meeting, booked, org["employee_id"])
    ids = [p["employee_id"] for p in must + may]
    return {
        "meeting_id": meeting["meeting_id"],
        "meeting_code": code,
        "join_url": meeting["join_url"],
        "title": meeting["title"],
        "start_at": start_at,
        "end_at": end,
        "organizer": who(org),
        "invited": len(ids),
        "room": f"{booked['name']} ({booked['building']})" if booked else None,
        "skipped": skipped,
        "warnings": availability_warnings(
            env, [org["employee_id"], *ids], start_at, end, meeting["meeting_id"]
        ),
    }


@change(reads=("meetings", "employees"), writes=("meetings",))
def update_meeting(
    env: Env,
    meeting: Meeting,
    organizer: str,
    title: Title | None = None,
    agenda: Agenda | None = None,
    is_online: bool | None = None,
    passcode: Passcode | None = None,
    waiting_room_enabled: bool | None = None,
) -> dict:
    """Change an upcoming meeting's details (not its time: reschedule_meeting does that). Only the fields
    given change; only its organizer may change it.

    Args:
        organizer: The meeting's organizer, who makes the change (email, employee number or full name).
        title: A new title.
        agenda: A new agenda; an empty string removes it.
        is_online: Give it a video link (true) or make it in person only (false).
        passcode: A new 6-digit passcode; an empty string removes it.
        waiting_room_enabled: Turn the waiting room on or off.
    """
    m, _ = own_meeting(env, meeting, organizer)
    changes: dict = {}
    if title is not None:
        changes["title"] = title.strip()
    if agenda is not None:
        changes["agenda"] = agenda or None
    if is_online is not None:
        changes["is_online"] = is_online
        if is_online and not m["join_url"]:
            changes["join_url"] = join_url(m["meeting_code"])
    if passcode is not None:
        changes["passcode"] = passcode or None
    if waiting_room_enabled is not None:
        changes["waiting_room_enabled"] = waiting_room_enabled
    if not changes:
        raise ToolError(
            "give at least one detail to change (title, agenda, is_online, passcode, waiting_room_enabled)."
        )
    env.update("meetings", m["meeting_id"], changes)
    return {"meeting_id": m["meeting_id"], "changed": sorted(changes)}


@change(reads=_MEETING_READS, writes=("meetings", "meeting_attendees", "room_bookings"))
def reschedule_meeting(
    env: Env,
    meeting: Meeting,
    organizer: str,
    start_at: MeetingTime,
    end_at: MeetingTime | None = None,
    duration_minutes: Annotated[int, Field(ge=5, le=480)] | None = None,
) -> dict:
    """Move an upcoming meeting to a new time (by default it keeps its length). Its booked rooms move with it
    when they are free and open then (otherwise change or release the room first); every invitee's answer
    goes back to pending, as they must confirm the new time.

    Args:
        organizer: The meeting's organizer, who makes the change (email, employee number or full name).
        start_at: The new start, the organizer's local time; a time with a zone (Z, +08:00) is converted
            to it.
        end_at: The new end, as start_at; or give duration_minutes; or neither to keep the length.
        duration_minutes: The new length in minutes.
    """
    m, org = own_meeting(env, meeting, organizer)
    start_at, end_at = (at_person(env, t, org["employee_id"]) for t in (start_at, end_at))
    if end_at is None and duration_minutes is None:
        end = start_at + (m["end_at"] - m["start_at"])
    else:
        end = meeting_end(start_at, end_at, duration_minutes)
    check_meeting_time(env, start_at, end)
    if (start_at, end) == (m["start_at"], m["end_at"]):
        raise ToolError(f"{title_of(m)} is already at that time.")
    rooms = env.query(
        "SELECT b.booking_id, r.room_id, r.name, r.building_id, bl.name AS building FROM room_bookings AS b "
        "JOIN rooms AS r ON r.room_id = b.room_id JOIN buildings AS bl ON bl.building_id = r.building_id "
        "WHERE b.meeting_id = ? AND b.status = 'confirmed' ORDER BY r.name",
        [m["meeting_id"]],
    )
    for r in rooms:
        try:
            check_room(env, r, start_at, end, None, exclude=m["meeting_id"])
        except PolicyRefusal as exc:
            raise refuse(
                "room_fits_meeting",
                f"{exc.text}. The meeting was not moved: change_room or release_room first.",
            ) from None
    env.update("meetings", m["meeting_id"], {"start_at": start_at, "end_at": end})
    env.update_where(
        "room_bookings",
        "meeting_id = ? AND status = 'confirmed'",
        [m["meeting_id"]],
        {"start_at": start_at, "end_at": end},
    )
    reset = env.update_where(
        "meeting_attendees",
        "meeting_id = ? AND response <> 'pending'",
        [m["meeting_id"]],
        {"response": "pending", "responded_at": None},
    )
    ids = [
        a["employee_id"]
        for a in env.query(
            "SELECT employee_id FROM meeting_attendees WHERE meeting_id = ? ORDER BY employee_id",
            [m["meeting_id"]],
        )
    ]
    return {
        "meeting_id": m["meeting_id"],
        "title": m["title"],
        "from": span(m["start_at"], m["end_at"]),
        "to": span(start_at, end),
        "rooms_moved": [r["name"] for r in rooms],
        "answers_reset": reset,
        "warnings": availability_warnings(env, [org["employee_id"], *ids], start_at, end, m["meeting_id"]),
    }

