"""Offices: buildings and their opening hours, rooms and their equipment, finding a free room, and the
facilities operations (taking a room out of service, installing or removing equipment)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change
from stateforge.tools.times import in_zone
from stateforge.tools.where import Where

from .common import WEEKDAYS, Limit, Offset, RoomBuilding, find_building, find_room, like, listed, span
from .zones import RoomTime, aware

RoomType = Literal["meeting_room", "phone_booth", "boardroom", "training_room", "auditorium"]


@tool(reads=("buildings", "building_hours", "floors", "rooms", "desks"))
def list_buildings(env: Env, city: str | None = None) -> dict:
    """The company's office buildings: code, name, address, city, time zone, opening hours per weekday
    (a weekday not listed is a closed day), and how many floors, rooms and desks each has.

    Args:
        city: Only buildings in this city.
    """
    sql = """
        SELECT b.building_id, b.code, b.name, b.street_address, b.city, b.country_code, b.timezone,
            b.is_active,
               (SELECT count(*) FROM floors AS f WHERE f.building_id = b.building_id) AS floors,
               (SELECT count(*) FROM rooms AS r WHERE r.building_id = b.building_id) AS rooms,
               (SELECT count(*) FROM desks AS d WHERE d.building_id = b.building_id) AS desks
        FROM buildings AS b WHERE lower(b.city) = lower(?) OR ? IS NULL ORDER BY b.name
    """
    buildings = env.query(sql, [city, city])
    if city and not buildings:
        raise ToolError(f"no building in {city!r}; list_buildings without a city lists them all.")
    hours = env.query("SELECT building_id, weekday, opens_at, closes_at FROM building_hours ORDER BY ALL")
    for b in buildings:
        bid = b.pop("building_id")
        b["opening_hours"] = {
            WEEKDAYS[h["weekday"] - 1]: f"{h['opens_at']:%H:%M}-{h['closes_at']:%H:%M}"
            for h in hours
            if h["building_id"] == bid
        }
    return {"buildings": buildings}


_ROOMS = """
    SELECT r.room_id, r.building_id, r.name, b.name AS building, b.code AS building_code,
        r.floor_number AS floor, r.room_type,
           r.capacity, r.video_conferencing, r.is_bookable, r.requires_approval,
           coalesce((SELECT list(e.name ORDER BY e.name) FROM room_equipment AS q
                     JOIN equipment AS e ON e.equipment_id = q.equipment_id WHERE q.room_id =
                         r.room_id), []) AS equipment
    FROM rooms AS r JOIN buildings AS b ON b.building_id = r.building_id
"""
_FREE = """
    NOT EXISTS (SELECT 1 FROM room_bookings AS k WHERE k.room_id = x.room_id AND k.status = 'confirmed'
                AND k.start_at < ? AND ? < k.end_at)
    AND EXISTS (SELECT 1 FROM building_hours AS h JOIN rooms AS r2 ON r2.building_id = h.building_id
                WHERE r2.room_id = x.room_id AND h.weekday = ? AND h.opens_at <= ? AND h.closes_at >= ?
                  AND CAST(? AS DATE) = CAST(? AS DATE))
"""
"""A room of `_ROOMS` (as `x`) is free and its building open from a start to an end (`_free_params`)."""


def _free_params(start: dt.datetime, end: dt.datetime) -> list:
    return [end, start, start.isoweekday(), start.time(), end.time(), start, end]


def _equipment_ids(env: Env, names: list[str]) -> list[int]:
    known = env.query("SELECT equipment_id, name FROM equipment ORDER BY name")
    by_name = {k["name"].lower(): k["equipment_id"] for k in known}
    missing = [n for n in names if n.strip().lower() not in by_name]
    if missing:
        raise ToolError(
            f"unknown equipment {', '.join(repr(m) for m in missing)}; the kinds are: "
            f"{', '.join(k['name'] for k in known)}."
        )
    return [by_name[n.strip().lower()] for n in names]


@tool(reads=("rooms", "buildings", "building_hours", "room_equipment", "equipment", "room_bookings"))
def find_rooms(
    env: Env,
    building: str | None = None,
    floor: int | None = None,
    start_at: RoomTime | None = None,
    end_at: RoomTime | None = None,
    min_capacity: Annotated[int, Field(ge=1, le=500)] | None = None,
    room_type: RoomType | None = None,
    equipment: Annotated[list[str], Field(max_length=10)] = [],  # noqa: B006 - a pydantic default, copied
    video_conferencing: bool | None = None,
    name_contains: str | None = None,
    include_unbookable: bool = False,
    sort_by: Literal["capacity", "name", "building"] = "capacity",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Find rooms by building, floor, seats, type, equipment and video conferencing; with start_at and end_at,
    only rooms free for that whole time in a building open then. By default only rooms the app can book
    (bookable, no facilities approval needed).

    Args:
        building: Only rooms in this building (name or code).
        floor: Only rooms on this floor number.
        start_at: Free from this time, the room's building's local time (give end_at too); a time with a
            zone (Z, +08:00) is converted to each building's local time.
        end_at: Free until this time (local, or with a zone as start_at).
        min_capacity: At least this many seats.
        room_type: Only rooms of this type.
        equipment: Names of equipment the room must all have, e.g. ["Projector", "Whiteboard"].
        video_conferencing: Only rooms with (true) or without (false) video conferencing.
        name_contains: Text anywhere in the room's name (case-insensitive).
        include_unbookable: Also rooms out of service or needing facilities approval.
        sort_by: Smallest rooms first (capacity), by name, or by building then name.
    """
    where = Where()
    if building:
        where.add("building = ?", find_building(env, building)["name"])
    where.when(floor, "floor = ?").when(min_capacity, "capacity >= ?").when(room_type, "room_type = ?")
    for eid in _equipment_ids(env, equipment):
        has = "EXISTS (SELECT 1 FROM room_equipment AS q WHERE q.room_id = x.room_id AND q.equipment_id = ?)"
        where.add(has, eid)
    where.when(video_conferencing, "video_conferencing = ?")
    where.when(like(name_contains) if name_contains else None, "lower(name) LIKE ?")
    if not include_unbookable:
        where.add("is_bookable AND NOT requires_approval")
    if (start_at is None) != (end_at is None):
        raise ToolError("give both start_at and end_at to find rooms free at a time, or neither.")
    if start_at is not None and end_at is not None:
        # a time with a zone is another local time in each building (zones.py); one without is local
        places = [find_building(env, building)] if building else env.query(
            "SELECT building_id, timezone FROM buildings ORDER BY building_id"
        )
        if not (aware(start_at) or aware(end_at)):
            places = [{"building_id": None, "timezone": None}]
        clauses, free_params = [], []
        for b in places:
            start, end = in_zone(start_at, b["timezone"]), in_zone(end_at, b["timezone"])
            if end <= start:
                raise ToolError(f"end_at must be after start_at ({span(start, end)}).")
            if b["building_id"] is None:
                clauses.append(_FREE)
            else:
                clauses.append(f"x.building_id = ? AND {_FREE}")
                free_params.append(b["building_id"])
            free_params += _free_params(start, end)
        where.add(f"({') OR ('.join(clauses)})", *free_params)
    order = {"capacity": "capacity, name", "name": "name", "building": "building, name"}[sort_by]
    sql = f"SELECT * FROM ({_ROOMS}) AS x WHERE {where.sql}"
    page = env.page(sql, where.params, order_by=f"{order}, room_id", limit=limit, offset=offset)
    for row in page["rows"]:
        row.pop("room_id")
        row.pop("building_id")
    return page


@tool(
    reads=(
        "rooms",
        "buildings",
        "building_hours",
        "room_equipment",
        "equipment",
        "room_bookings",
        "meetings",
        "employees",
    )
)
def get_room(env: Env, room: str, building: str | None = None, date: dt.date | None = None) -> dict:
    """A room's details and equipment; with a date, the building's hours that day and the room's confirmed
    bookings (meeting, organizer, time) that day.

    Args:
        room: The room's name, e.g. "Everest 1.001".
        building: The room's building (name or code), needed only when two buildings have a room of that name.
        date: A day to show the room's schedule for.
    """
    r = find_room(env, room, building)
    details = env.one(
        f"SELECT * EXCLUDE (room_id, building_id, equipment) FROM ({_ROOMS}) AS x WHERE room_id = ?",
        [r["room_id"]],
    )
    assert details is not None
    details["equipment"] = env.query(
        "SELECT e.name, e.category, q.quantity, q.installed_on, q.last_serviced_on FROM room_equipment AS q "
        "JOIN equipment AS e ON e.equipment_id = q.equipment_id WHERE q.room_id = ? ORDER BY e.name",
        [r["room_id"]],
    )
    if date is not None:
        hours = env.one(
            "SELECT opens_at, closes_at FROM building_hours WHERE building_id = ? AND weekday = ?",
            [r["building_id"], date.isoweekday()],
        )
        details["date"] = date
        details["building_hours"] = (
            f"{hours['opens_at']:%H:%M}-{hours['closes_at']:%H:%M}"
            if hours
            else f"closed on {WEEKDAYS[date.weekday()]}s"
        )
        details["bookings"] = env.query(
            """
            SELECT b.start_at, b.end_at, m.meeting_id, m.title, o.first_name || ' ' || o.last_name AS
                organizer
            FROM room_bookings AS b JOIN meetings AS m ON m.meeting_id = b.meeting_id
            JOIN employees AS o ON o.employee_id = m.organizer_id
            WHERE b.room_id = ? AND b.status = 'confirmed' AND CAST(b.start_at AS DATE) = ?
            ORDER BY b.start_at, b.booking_id
            """,
            [r["room_id"], date],
        )
    return details


@change(reads=("rooms", "buildings", "room_bookings", "meetings"), writes=("rooms", "room_bookings"))
def set_room_bookable(env: Env, room: str, bookable: bool, building: RoomBuilding = None) -> dict:
    """Facilities: take a room out of service (its upcoming confirmed bookings are cancelled, so their
    organizers must find another room) or put it back into service.

    Args:
        room: The room's name.
        bookable: False takes it out of service, true makes it bookable again.
    """
    r = find_room(env, room, building)
    if r["is_bookable"] == bookable:
        raise ToolError(
            f"{r['name']} ({r['building']}) is already {'bookable' if bookable else 'out of service'}."
        )
    env.update("rooms", r["room_id"], {"is_bookable": bookable})
    affected = []
    if not bookable:
        affected = env.query(
            "SELECT b.booking_id, m.meeting_id, m.title, b.start_at, b.end_at FROM room_bookings AS b "
            "JOIN meetings AS m ON m.meeting_id = b.meeting_id "
            "WHERE b.room_id = ? AND b.status = 'confirmed' AND b.start_at > ? ORDER BY "
            "b.start_at, b.booking_id",
            [r["room_id"], env.now],
        )
        env.update_where(
            "room_bookings",
            "booking_id IN (SELECT unnest(?))",
            [[a["booking_id"] for a in affected]],
            {"status": "cancelled"},
        )
    return {
        "room": r["name"],
        "building": r["building"],
        "bookable": bookable,
        "bookings_cancelled": listed(affected),
    }


class EquipmentChange(BaseModel):
    """Equipment to install in a room (or a new quantity of it)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="The kind of equipment, e.g. Projector.")
    quantity: Annotated[int, Field(ge=1, le=50)] = Field(default=1, description="How many units, 1 to 50.")


@change(reads=("rooms", "buildings", "equipment", "room_equipment"), writes=("room_equipment",))
def update_room_equipment(
    env: Env,
    room: str,
    install: Annotated[list[EquipmentChange], Field(max_length=20)] = [],  # noqa: B006 - pydantic copies it
    remove: Annotated[list[str], Field(max_length=20)] = [],  # noqa: B006
    building: RoomBuilding = None,
) -> dict:
    """Facilities: install equipment in a room (or change how many units it has) and remove equipment from
    it. Installing records today as the installation date.

    Args:
        room: The room's name.
        install: Equipment to install, each with a quantity (an installed kind gets the new quantity).
        remove: Names of equipment to remove from the room.
    """
    if not install and not remove:
        raise ToolError("give equipment to install or to remove.")
    r = find_room(env, room, building)
    names = [i.name for i in install]
    if set(n.strip().lower() for n in names) & set(n.strip().lower() for n in remove):
        raise ToolError("a kind of equipment cannot be both installed and removed in one call.")
    removing = _equipment_ids(env, remove)
    present = {
        row["equipment_id"]
        for row in env.query("SELECT equipment_id FROM room_equipment WHERE room_id = ?", [r["room_id"]])
    }
    absent = [n for n, eid in zip(remove, removing, strict=True) if eid not in present]
    if absent:
        raise ToolError(f"{r['name']} has no {', '.join(absent)} to remove.")
    env.delete_where(
        "room_equipment", "room_id = ? AND equipment_id IN (SELECT unnest(?))", [r["room_id"], removing]
    )
    for item, eid in zip(install, _equipment_ids(env, names), strict=True):
        if eid in present:
            env.update(
                "room_equipment", {"room_id": r["room_id"], "equipment_id": eid}, {"quantity": item.quantity}
            )
        else:
            env.insert(
                "room_equipment",
                {
                    "room_id": r["room_id"],
                    "equipment_id": eid,
                    "quantity": item.quantity,
                    "installed_on": env.today,
                },
            )
    equipment = env.query(
        "SELECT e.name, q.quantity FROM room_equipment AS q JOIN equipment AS e ON "
        "e.equipment_id = q.equipment_id "
        "WHERE q.room_id = ? ORDER BY e.name",
        [r["room_id"]],
    )
    return {"room": r["name"], "building": r["building"], "equipment": equipment}

