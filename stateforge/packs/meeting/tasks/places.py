"""Recipes about rooms and desks: book the smallest free room that fits a meeting, take rooms out of service,
install equipment where it is missing, and book a desk for a run of days."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Call, RecipeContext, recipe
from stateforge.tasks.wording import render

from ..tools.common import DESK_DAYS_AHEAD
from .common import (
    ACTIVE,
    FACILITIES,
    PERSON,
    article,
    find_meeting_read,
    headcount,
    introduce,
    named_ref,
    refer,
    refer_meeting,
    room_ref,
    scaled_difficulty,
    speak_for,
    unique_meeting_sql,
    upcoming,
    workdays,
)

ROOM_TYPES = {
    "meeting_room": "meeting room",
    "phone_booth": "phone booth",
    "boardroom": "boardroom",
    "training_room": "training room",
    "auditorium": "auditorium",
}


@recipe(capabilities=("cross_step_dependency", "multi_condition_filtering"), difficulty="hard")
def book_smallest_room(ctx: RecipeContext) -> None:
    """An organizer books, for an upcoming meeting without a room, the smallest room of a building that is
    free then, seats everyone who has not declined and (often) has a piece of equipment: find_rooms feeds
    book_room. Variants: a named room that is too small, or one whose building is closed by then."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND {upcoming()} AND e.home_building_id IS NOT NULL")
        + " AND NOT EXISTS (SELECT 1 FROM room_bookings AS b WHERE b.meeting_id = m.meeting_id AND b.status "
        "= 'confirmed')",
        [ctx.now],
        what="upcoming meeting without a room",
    )
    building = ctx.one(
        "SELECT b.building_id, b.name FROM buildings AS b JOIN employees AS e ON e.home_building_id = "
        "b.building_id WHERE e.employee_id = ?",
        [row["employee_id"]],
    )
    assert building is not None
    seats = headcount(ctx, row["meeting_id"], row["employee_id"])
    arguments: dict = {
        "building": building["name"],
        "start_at": row["start_at"].isoformat(),
        "end_at": row["end_at"].isoformat(),
        "min_capacity": seats,
    }
    values: dict = {"title": row["title"], "when": row["start_at"], "building": building["name"]}
    kit = ctx.sql(
        "SELECT DISTINCT q.name FROM room_equipment AS x JOIN equipment AS q ON q.equipment_id = "
        "x.equipment_id "
        "JOIN rooms AS r ON r.room_id = x.room_id WHERE r.building_id = ? AND r.capacity >= ? ORDER BY 1",
        [building["building_id"], seats],
    )
    equipment = ctx.choice([k["name"] for k in kit]) if kit and ctx.rng.random() < 0.7 else None
    if equipment:
        arguments["equipment"] = [equipment]
        values["equipment"] = equipment
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    opening = ctx.instruction
    need = f" with {article(equipment)} {{equipment}}" if equipment else ""
    ctx.say(
        ctx.choice(
            [
                "Please book a room in {building} for my {title:q} on {when}: the smallest one"
                + need
                + " that is "
                "free then and seats me and everyone who hasn't declined (of equally small rooms, the first "
                "by name).",
                "My {title:q} ({when}) needs a room in {building}. Take the smallest free room"
                + need
                + " with "
                "enough seats for me and all invitees who haven't declined (the first by name if several "
                "are as small), and book it.",
            ]
        ),
        **values,
    )
    find_meeting_read(ctx, row, row)
    ctx.read("get_meeting", {"meeting": row["meeting_id"]}, step="Count the people who have not declined")
    found = ctx.read("find_rooms", arguments, step=f"Find free rooms for {seats} people, smallest first")
    rooms = found["rows"]
    if not rooms:
        ctx.skip("no free room fits")
    ctx.derived(seats, "the organizer and the invitees who have not declined")
    ctx.call(
        "book_room",
        {
            "meeting": row["meeting_id"],
            "organizer": row["email"],
            "room": rooms[0]["name"],
            "building": building["name"],
        },
        step=f"Book {rooms[0]['name']} ({rooms[0]['capacity']} seats)",
    )
    ctx.goal(
        "the meeting has the room booked",
        "SELECT list(r.name ORDER BY r.name) AS rooms FROM room_bookings AS b JOIN rooms AS r ON r.room_id = "
        "b.room_id WHERE b.meeting_id = ? AND b.status = 'confirmed'",
        [row["meeting_id"]],
    )
    late = ctx.sql(
        "SELECT r.name, b.name AS building, h.closes_at FROM rooms AS r JOIN buildings AS b ON "
        "b.building_id = "
        "r.building_id LEFT JOIN building_hours AS h ON h.building_id = r.building_id AND h.weekday = ? "
        "WHERE r.is_bookable AND NOT r.requires_approval AND r.capacity >= ? "
        "AND (h.building_id IS NULL OR h.closes_at < ? OR h.opens_at > ?) "
        "AND (SELECT count(*) FROM rooms AS o WHERE lower(o.name) = lower(r.name)) = 1 ORDER BY r.room_id "
        "LIMIT 5",
        [row["start_at"].isoweekday(), seats, row["end_at"].time(), row["start_at"].time()],
    )
    small = ctx.sql(
        "SELECT r.name, b.name AS building, r.capacity FROM rooms AS r JOIN buildings AS b ON b.building_id "
        "= "
        "r.building_id WHERE r.building_id = ? AND r.is_bookable AND NOT r.requires_approval AND r.capacity "
        "< ? "
        "AND (SELECT count(*) FROM rooms AS o WHERE lower(o.name) = lower(r.name)) = 1 ORDER BY r.room_id "
        "LIMIT 5",
        [building["building_id"], seats],
    )
    if late or small:
        kind, pick = ("hours", ctx.choice(late)) if late else ("capacity", ctx.choice(small))
        because = (
            f"{pick['building']} is closed at that time"
            if kind == "hours"
            else f"{pick['name']} seats {pick['capacity']}, fewer than the {seats} people of the meeting"
        )
        text = render(
            "Please book {room} in {building} for my {title:q} on {when}.",
            {**values, "room": pick["name"], "building": pick["building"]},
            ctx.style,
        )
        ctx.infeasible(
            kind,
            instruction=f"{opening} {text}",
            calls=[
                Call(
                    "book_room",
                    {
                        "meeting": row["meeting_id"],
                        "organizer": row["email"],
                        "room": pick["name"],
                        "building": pick["building"],
                    },
                )
            ],
            because=because,
            proof=room_ref(pick["name"], pick["building"]),
        )


CLOSING_WORDS = {
    True: (
        "Please take every {kind} in {building} out of service; cancel whatever is booked in them.",
        "All the {kind}s in {building} are closing for renovation: mark each one as not bookable.",
    ),
    False: (
        "Please take every {kind} on floor {floor} of {building} out of service; cancel whatever is booked "
        "in them.",
        "The {kind}s on level {floor} of {building} are closing for renovation: mark each one as not "
        "bookable.",
    ),
}
"""How facilities ask to close the rooms of a kind in a whole building (True) or on one floor (False)."""


@recipe(capabilities=("multi_condition_filtering", "full_data_acquisition"), difficulty="medium")
def rooms_out_of_service(ctx: RecipeContext) -> None:
    """Facilities take every bookable room of a kind on a floor (or in a whole building) out of service:
    find_rooms lists them, set_room_bookable runs per room and cancels their upcoming bookings."""
    row = ctx.pick(
        """
        SELECT r.building_id, b.name AS building, r.room_type, r.floor_number,
               count(*) AS rooms,
               sum((SELECT count(*) FROM room_bookings AS k WHERE k.room_id = r.room_id AND k.status =
               'confirmed'
                    AND k.start_at > ?)) AS bookings
        FROM rooms AS r JOIN buildings AS b ON b.building_id = r.building_id
        WHERE r.is_bookable GROUP BY ALL HAVING count(*) BETWEEN 1 AND 12
        """,
        [ctx.now],
        what="rooms of a kind on a floor",
    )
    whole = ctx.rng.random() < 0.3
    where = "r.building_id = ? AND r.room_type = ? AND r.is_bookable" + (
        "" if whole else " AND r.floor_number = ?"
    )
    params = [row["building_id"], row["room_type"]] + ([] if whole else [row["floor_number"]])
    rooms = ctx.sql(
        f"SELECT r.room_id, r.name FROM rooms AS r WHERE {where} ORDER BY r.name, r.room_id", params
    )
    if not rooms or len(rooms) > 15:
        ctx.skip("too many rooms")
    kind = ROOM_TYPES[row["room_type"]]
    speak_for(ctx, FACILITIES)
    values = {"kind": kind, "building": row["building"], "floor": row["floor_number"]}
    ctx.say(CLOSING_WORDS[whole], **values)
    search = {
        "building": row["building"],
        "room_type": row["room_type"],
        "include_unbookable": True,
        "limit": 50,
    }
    if not whole:
        search["floor"] = row["floor_number"]
    ctx.read("find_rooms", search, step="List the rooms of that kind")
    ctx.derived(False, "'out of service' means is_bookable = false")
    cancelled = 0
    for room in rooms:
        result = ctx.call(
            "set_room_bookable", {"room": room["name"], "building": row["building"], "bookable": False}
        )
        cancelled += len(result["bookings_cancelled"])
    ctx.goal(
        "none of the rooms is bookable or holds an upcoming booking",
        "SELECT count(*) FILTER (WHERE r.is_bookable) AS bookable, (SELECT count(*) FROM room_bookings AS k "
        "WHERE k.room_id IN (SELECT unnest(?)) AND k.status = 'confirmed' AND k.start_at > ?) AS booked "
        "FROM rooms AS r WHERE r.room_id IN (SELECT unnest(?))",
        [[r["room_id"] for r in rooms], ctx.now, [r["room_id"] for r in rooms]],
    )
    scaled_difficulty(ctx, len(rooms) + cancelled, medium=99, hard=25)


@recipe(capabilities=("full_data_acquisition", "multi_condition_filtering"), difficulty="medium")
def install_missing_equipment(ctx: RecipeContext) -> None:
    """Facilities install one unit of a piece of equipment in every room of a kind on a floor (or in a
    building) that lacks it: the rooms come from find_rooms, one update_room_equipment each."""
    row = ctx.pick(
        """
        SELECT r.building_id, b.name AS building, r.room_type, r.floor_number, q.equipment_id, q.name AS
        equipment,
               count(*) FILTER (WHERE x.room_id IS NULL) AS lacking, count(*) AS rooms
        FROM rooms AS r JOIN buildings AS b ON b.building_id = r.building_id CROSS JOIN equipment AS q
        LEFT JOIN room_equipment AS x ON x.room_id = r.room_id AND x.equipment_id = q.equipment_id
        WHERE NOT q.is_portable
        GROUP BY ALL HAVING count(*) FILTER (WHERE x.room_id IS NULL) BETWEEN 1 AND 15
           AND count(*) FILTER (WHERE x.room_id IS NOT NULL) >= 1
        """,
        what="rooms lacking equipment",
    )
    rooms = ctx.sql(
        "SELECT r.room_id, r.name FROM rooms AS r WHERE r.building_id = ? AND r.room_type = ? AND "
        "r.floor_number = ? "
        "AND NOT EXISTS (SELECT 1 FROM room_equipment AS x WHERE x.room_id = r.room_id AND x.equipment_id = "
        "?) ORDER BY r.name, r.room_id",
        [row["building_id"], row["room_type"], row["floor_number"], row["equipment_id"]],
    )
    refer(ctx, named_ref("equipment", "equipment", row["equipment"]))
    speak_for(ctx, FACILITIES)
    ctx.say(
        [
            "Every {kind} on floor {floor} of {building} should have "
            + article(row["equipment"])
            + " {equipment}. "
            "Please install one {equipment} in each of them that doesn't have one yet.",
            "Please add one {equipment} to each {kind} on level {floor} in {building} that is missing it; "
            "leave the rooms that already have one alone.",
        ],
        kind=ROOM_TYPES[row["room_type"]],
        floor=row["floor_number"],
        building=row["building"],
        equipment=row["equipment"],
    )
    ctx.read(
        "find_rooms",
        {
            "building": row["building"],
            "floor": row["floor_number"],
            "room_type": row["room_type"],
            "include_unbookable": True,
            "limit": 50,
        },
        step="List the rooms and their equipment",
    )
    for room in rooms:
        ctx.call(
            "update_room_equipment",
            {
                "room": room["name"],
                "building": row["building"],
                "install": [{"name": row["equipment"], "quantity": 1}],
            },
        )
    ctx.goal(
        "every room of the kind on the floor has the equipment",
        "SELECT count(*) AS lacking FROM rooms AS r WHERE r.building_id = ? AND r.room_type = ? AND "
        "r.floor_number = ? "
        "AND NOT EXISTS (SELECT 1 FROM room_equipment AS x WHERE x.room_id = r.room_id AND x.equipment_id = "
        "?)",
        [row["building_id"], row["room_type"], row["floor_number"], row["equipment_id"]],
    )
    scaled_difficulty(ctx, len(rooms), medium=3, hard=8)


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def book_desk_for_days(ctx: RecipeContext) -> None:
    """An employee books one desk, named by its code, for every working day of a range (both ends included;
    the building is closed at weekends). Variants: a Saturday, when the building is closed, or a day more
    than 30 days ahead."""
    last_bookable = ctx.today + dt.timedelta(days=DESK_DAYS_AHEAD)
    first = ctx.today + dt.timedelta(days=ctx.rng.randint(1, 16))
    last = min(first + dt.timedelta(days=ctx.rng.randint(2, 13)), last_bookable)
    days = workdays(first, last)
    if not days:
        ctx.skip("no working day in the range")
    desk = ctx.pick(
        "SELECT d.desk_id, d.code, d.building_id, b.name AS building FROM desks AS d JOIN buildings AS b ON "
        "b.building_id = d.building_id WHERE d.desk_type <> 'assigned' AND NOT EXISTS (SELECT 1 FROM "
        "desk_bookings AS k "
        "WHERE k.desk_id = d.desk_id AND k.booking_date BETWEEN ? AND ? AND k.status IN ('booked', "
        "'checked_in')) "
        "AND (SELECT count(*) FROM building_hours AS h WHERE h.building_id = d.building_id AND h.weekday <= "
        "5) = 5",
        [first, last],
        what="desk free on those days",
    )
    me = ctx.pick(
        f"SELECT {PERSON} FROM employees AS e WHERE {ACTIVE} AND e.home_building_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM "
        "desk_bookings AS k WHERE k.employee_id = e.employee_id AND k.booking_date BETWEEN ? AND ? AND "
        "k.status IN ('booked', 'checked_in'))",
        [desk["building_id"], first, last],
        what="employee without a desk on those days",
    )
    ctx.unique(f"desk {desk['code']}", "desks", code=desk["code"])
    introduce(ctx, me)
    opening = ctx.instruction
    ctx.say(
        [
            "Please book desk {desk} for me on every working day from {first} through {last}.",
            "I'd like desk {desk} in {building} each weekday between {first} and {last}, both days included.",
            "Reserve desk {desk} for me for all the weekdays from {first} to {last} inclusive.",
        ],
        desk=desk["code"],
        building=desk["building"],
        first=first,
        last=last,
    )
    ctx.derived(days, f"the working days from {first} through {last}")
    for day in days:
        ctx.call("book_desk", {"person": me["email"], "date": day.isoformat(), "desk": desk["code"]})
    ctx.goal(
        "the desk is booked for them on each of those days",
        "SELECT list(booking_date ORDER BY booking_date) AS days FROM desk_bookings WHERE employee_id = ? "
        "AND desk_id = ? AND status = 'booked' AND booking_date BETWEEN ? AND ?",
        [me["employee_id"], desk["desk_id"], first, last],
    )
    scaled_difficulty(ctx, len(days), hard=8)
    saturday = first + dt.timedelta(days=(5 - first.weekday()) % 7)
    if ctx.rng.random() < 0.5 and saturday <= last_bookable:
        day, kind, because = saturday, "hours", f"{desk['building']} is closed on Saturdays"
    else:
        day = last_bookable + dt.timedelta(days=ctx.rng.randint(3, 20))
        while day.weekday() >= 5:
            day += dt.timedelta(days=1)
        kind, because = "forbidden", f"desks can be booked at most {DESK_DAYS_AHEAD} days ahead"
    text = render(
        ctx.choice(
            ["Please book desk {desk} for me on {day}.", "I need desk {desk} on {day}; book it for me."]
        ),
        {"desk": desk["code"], "day": day},
        ctx.style,
    )
    ctx.infeasible(
        kind,
        instruction=f"{opening} {text}",
        calls=[Call("book_desk", {"person": me["email"], "date": day.isoformat(), "desk": desk["code"]})],
        because=because,
        policy="desk_booking",
    )
