"""Rooms for meetings: book a room, move a meeting to another room, release a room."""

from __future__ import annotations

from stateforge.tools import Env, ToolError
from stateforge.tools.kinds import change, create

from .checks import check_room, confirm_booking, headcount
from .common import Meeting, RoomBuilding, find_room, own_meeting, title_of

_READS = (
    "meetings",
    "employees",
    "meeting_attendees",
    "rooms",
    "buildings",
    "building_hours",
    "room_bookings",
)


def _booked(env: Env, meeting_id: int) -> list[dict]:
    return env.query(
        "SELECT b.booking_id, r.room_id, r.name, bl.name AS building FROM room_bookings AS b "
        "JOIN rooms AS r ON r.room_id = b.room_id JOIN buildings AS bl ON bl.building_id = r.building_id "
        "WHERE b.meeting_id = ? AND b.status = 'confirmed' ORDER BY r.name, b.booking_id",
        [meeting_id],
    )


@create(reads=_READS, writes=("room_bookings",))
def book_room(
    env: Env,
    meeting: Meeting,
    organizer: str,
    room: str,
    building: RoomBuilding = None,
    additional: bool = False,
) -> dict:
    """Book a room for an upcoming meeting, for the meeting's whole time. The room must be bookable in the app
    (not out of service, no facilities approval needed), seat the organizer and every invitee who has not
    declined, be free then, and its building open. A meeting that already has a room needs additional=true
    for a second one (e.g. another office joining); change_room moves it instead.

    Args:
        organizer: The meeting's organizer, who books (email, employee number or full name).
        room: The room's name, e.g. "Everest 1.001".
        additional: Book this room as well as the one the meeting already has.
    """
    m, org = own_meeting(env, meeting, organizer)
    r = find_room(env, room, building)
    current = _booked(env, m["meeting_id"])
    if any(c["room_id"] == r["room_id"] for c in current):
        raise ToolError(f"{r['name']} is already booked for {title_of(m)}.")
    if current and not additional:
        raise ToolError(
            f"{title_of(m)} already has {current[0]['name']} ({current[0]['building']}); use "
            "change_room to move "
            "it, or additional=true to book a second room."
        )
    check_room(env, r, m["start_at"], m["end_at"], headcount(env, m["meeting_id"], org["employee_id"]))
    booking = confirm_booking(env, m, r, org["employee_id"])
    return {
        "meeting_id": m["meeting_id"],
        "room": r["name"],
        "building": r["building"],
        "booking_id": booking["booking_id"],
        "start_at": m["start_at"],
        "end_at": m["end_at"],
    }


@change(reads=_READS, writes=("room_bookings",))
def change_room(
    env: Env,
    meeting: Meeting,
    organizer: str,
    new_room: str,
    building: str | None = None,
    current_room: str | None = None,
) -> dict:
    """Move an upcoming meeting to another room: the current booking is cancelled and the new room booked
    (same checks as book_room).

    Args:
        organizer: The meeting's organizer, who makes the change (email, employee number or full name).
        new_room: The room to move to (its name).
        building: The new room's building (name or code), when two buildings have a room of that name.
        current_room: Which booked room to give up, when the meeting has more than one.
    """
    m, org = own_meeting(env, meeting, organizer)
    current = _booked(env, m["meeting_id"])
    if current_room is not None:
        current = [c for c in current if c["name"].lower() == current_room.strip().lower()]
        if not current:
            raise ToolError(f"{title_of(m)} has no booking of {current_room!r}.")
    if not current:
        raise ToolError(f"{title_of(m)} has no room booked; use book_room.")
    if len(current) > 1:
        raise ToolError(
            f"{title_of(m)} has {len(current)} rooms ({', '.join(c['name'] for c in current)}); "
            "say which one to give up (current_room)."
        )
    r = find_room(env, new_room, building)
    if r["room_id"] == current[0]["room_id"]:
        raise ToolError(f"{title_of(m)} is already in {r['name']}.")
    env.update("room_bookings", current[0]["booking_id"], {"status": "cancelled"})
    check_room(env, r, m["start_at"], m["end_at"], headcount(env, m["meeting_id"], org["employee_id"]))
    confirm_booking(env, m, r, org["employee_id"])
    return {
        "meeting_id": m["meeting_id"],
        "from_room": current[0]["name"],
        "to_room": r["name"],
        "building": r["building"],
    }


@change(reads=_READS, writes=("room_bookings",))
def release_room(env: Env, meeting: Meeting, organizer: str, room: str | None = None) -> dict:
    """Give up the room(s) booked for an upcoming meeting (the meeting itself stays, e.g. online only).

    Args:
        organizer: The meeting's organizer (email, employee number or full name).
        room: Only this booked room (its name); default: every room of the meeting.
    """
    m, _ = own_meeting(env, meeting, organizer)
    current = _booked(env, m["meeting_id"])
    if room is not None:
        current = [c for c in current if c["name"].lower() == room.strip().lower()]
    if not current:
        raise ToolError(f"{title_of(m)} has no {'booking of ' + repr(room) if room else 'room booked'}.")
    env.update_where(
        "room_bookings",
        "booking_id IN (SELECT unnest(?))",
        [[c["booking_id"] for c in current]],
        {"status": "cancelled"},
    )
    return {"meeting_id": m["meeting_id"], "released": [c["name"] for c in current]}

