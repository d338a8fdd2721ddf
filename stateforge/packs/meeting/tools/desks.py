"""Desks: find a free desk for a day, book and cancel desks, see bookings, and assign a desk to a person."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change, create
from stateforge.tools.policies import refuse
from stateforge.tools.where import Where

from .common import (
    DESK_DAYS_AHEAD,
    WEEKDAYS,
    Limit,
    Offset,
    find_building,
    find_person,
    last_day,
    person_id,
    who,
)

DeskType = Literal["hot_desk", "standing", "accessible"]
_TAKEN = "status IN ('booked', 'checked_in')"


def _desk(env: Env, code: str) -> dict:
    row = env.one(
        "SELECT d.*, b.name AS building FROM desks AS d JOIN buildings AS b ON b.building_id = d.building_id "
        "WHERE upper(d.code) = upper(?)",
        [code.strip()],
    )
    if row is None:
        raise ToolError(f"no desk {code!r}; desk codes look like D3-2-00017 (find_desks lists free desks).")
    return row


def _free_desk(building: dict, day: dt.date) -> Where:
    """Desks (alias `d`) of the building that nobody has booked that day."""
    return Where().add("d.building_id = ?", building["building_id"]).add(
        f"NOT EXISTS (SELECT 1 FROM desk_bookings AS k WHERE k.desk_id = d.desk_id AND k.booking_date = ? "
        f"AND k.{_TAKEN})",
        day,
    )


def _open_on(env: Env, building: dict, day: dt.date) -> None:
    hours = env.scalar(
        "SELECT count(*) FROM building_hours WHERE building_id = ? AND weekday = ?",
        [building["building_id"], day.isoweekday()],
    )
    if not hours:
        raise refuse(
            "desk_booking",
            f"{building['name']} is closed on {WEEKDAYS[day.weekday()]}s ({day}); pick another day.",
        )


@tool(reads=("buildings", "building_hours", "desks", "desk_bookings"))
def find_desks(
    env: Env,
    building: str,
    date: dt.date,
    floor: int | None = None,
    desk_type: DeskType | None = None,
    has_monitor: bool | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Desks free on a day in a building (hot desks, standing and accessible desks; assigned desks belong to
    their owner), by floor, desk type and monitor.

    Args:
        building: The building (name or code).
        date: The day.
        floor: Only desks on this floor number.
        desk_type: Only desks of this type.
        has_monitor: Only desks with (true) or without (false) a monitor.
    """
    b = find_building(env, building)
    _open_on(env, b, date)
    where = _free_desk(b, date).add("d.desk_type <> 'assigned'")
    where.when(floor, "d.floor_number = ?").when(desk_type, "d.desk_type = ?")
    where.when(has_monitor, "d.has_monitor = ?")
    sql = "SELECT d.code, d.floor_number AS floor, d.desk_type, d.has_monitor "
    sql += f"FROM desks AS d WHERE {where.sql}"
    page = env.page(sql, where.params, order_by="floor, code", limit=limit, offset=offset)
    page["building"], page["date"] = b["name"], date
    return page


@tool(reads=("employees", "buildings", "desks", "desk_bookings"))
def list_desk_bookings(
    env: Env,
    person: str | None = None,
    desk: str | None = None,
    building: str | None = None,
    from_date: dt.date | None = None,
    to_date: dt.date | None = None,
    status: Literal["booked", "checked_in", "cancelled", "no_show"] | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Desk bookings by person, desk, building, date range and status, by date.

    Args:
        person: Only this person's bookings: an email address, an employee number (E and seven digits) or a
            full name.
        desk: Only bookings of this desk (its code).
        building: Only desks in this building (name or code).
        from_date: Only bookings on or after this day.
        to_date: Only bookings on or before this day.
        status: Only bookings in this state.
    """
    where = Where()
    if person:
        where.add("k.employee_id = ?", person_id(env, person))
    if desk:
        where.add("k.desk_id = ?", _desk(env, desk)["desk_id"])
    if building:
        where.add("d.building_id = ?", find_building(env, building)["building_id"])
    where.when(from_date, "k.booking_date >= ?").when(to_date, "k.booking_date <= ?")
    where.when(status, "k.status = ?")
    sql = f"""
        SELECT k.booking_date, d.code AS desk, b.name AS building, d.floor_number AS floor, k.status,
               e.first_name || ' ' || e.last_name AS person, e.email
        FROM desk_bookings AS k JOIN desks AS d ON d.desk_id = k.desk_id
        JOIN buildings AS b ON b.building_id = d.building_id JOIN employees AS e ON e.employee_id =
            k.employee_id
        WHERE {where.sql}
    """
    return env.page(sql, where.params, order_by="booking_date, desk", limit=limit, offset=offset)


@create(
    reads=("employees", "buildings", "building_hours", "desks", "desk_bookings"),
    writes=("desk_bookings",),
)
def book_desk(
    env: Env,
    person: str,
    date: dt.date,
    desk: str | None = None,
    building: str | None = None,
    floor: int | None = None,
    desk_type: DeskType | None = None,
) -> dict:
    """Book a desk for someone for one day: a given desk, or the first free one (lowest floor, then code) in
    a building, on a floor, of a type. Their own assigned desk is taken first when it is in that building.
    Desks are booked from today up to 30 days ahead, on days the building is open, one desk per person a day.

    Args:
        person: Who sits there: an email address, an employee number (E and seven digits) or a full name.
        date: The day.
        desk: A desk's code (e.g. D3-2-00017); without it one is chosen.
        building: Where to choose a desk (name or code); default: the person's home building.
        floor: Choose on this floor.
        desk_type: Choose a desk of this type.
    """
    p = find_person(env, person)
    if not env.today <= date <= env.today + dt.timedelta(days=DESK_DAYS_AHEAD):
        raise refuse(
            "desk_booking",
            f"desks are booked from today ({env.today}) up to {DESK_DAYS_AHEAD} days ahead "
            f"({env.today + dt.timedelta(days=DESK_DAYS_AHEAD)}); {date} is outside.",
        )
    mine = env.one(
        f"SELECT d.code FROM desk_bookings AS k JOIN desks AS d ON d.desk_id = k.desk_id "
        f"WHERE k.employee_id = ? AND k.booking_date = ? AND k.{_TAKEN}",
        [p["employee_id"], date],
    )
    if mine:
        raise refuse(
            "desk_booking", f"{who(p)} already has desk {mine['code']} on {date}; cancel that booking first."
        )
    if desk is not None:
        chosen = _desk(env, desk)
        b = {"building_id": chosen["building_id"], "name": chosen["building"]}
        _open_on(env, b, date)
        if chosen["desk_type"] == "assigned" and chosen["assigned_employee_id"] != p["employee_id"]:
            raise refuse(
                "desk_booking", f"desk {chosen['code']} is assigned to someone else; only its owner books it."
            )
        holder = env.one(
            f"SELECT e.first_name || ' ' || e.last_name AS name FROM desk_bookings AS k "
            f"JOIN employees AS e ON e.employee_id = k.employee_id "
            f"WHERE k.desk_id = ? AND k.booking_date = ? AND k.{_TAKEN}",
            [chosen["desk_id"], date],
        )
        if holder:
            raise ToolError(
                f"desk {chosen['code']} is booked by {holder['name']} on {date}; find_desks lists free ones."
            )
    else:
        if building is None and p["home_building_id"] is None:
            raise ToolError(f"{who(p)} has no home building; say in which building to book.")
        b = (
            find_building(env, building)
            if building
            else env.one(
                "SELECT building_id, name FROM buildings WHERE building_id = ?", [p["home_building_id"]]
            )
        )
        assert b is not None
        _open_on(env, b, date)
        where = _free_desk(b, date).add(
            "d.desk_type <> 'assigned' OR d.assigned_employee_id = ?", p["employee_id"]
        )
        where.when(floor, "d.floor_number = ?").when(desk_type, "d.desk_type = ?")
        free = env.query(
            f"SELECT d.* FROM desks AS d WHERE {where.sql} "
            "ORDER BY d.assigned_employee_id IS NULL, d.floor_number, d.code LIMIT 1",
            where.params,
        )
        if not free:
            raise ToolError(f"no free desk in {b['name']} on {date} with those conditions.")
        chosen = {**free[0], "building": b["name"]}
    # cancelled bookings of that desk or that person on that day are history a new booking replaces
    env.delete_where(
        "desk_bookings",
        "booking_date = ? AND status = 'cancelled' AND (desk_id = ? OR employee_id = ?)",
        [date, chosen["desk_id"], p["employee_id"]],
    )
    env.insert(
        "desk_bookings",
        {
            "desk_id": chosen["desk_id"],
            "booking_date": date,
            "employee_id": p["employee_id"],
            "status": "booked",
        },
    )
    return {
        "person": who(p),
        "date": date,
        "desk": chosen["code"],
        "building": chosen["building"],
        "floor": chosen["floor_number"],
        "desk_type": chosen["desk_type"],
    }


@change(reads=("employees", "desks", "desk_bookings"), writes=("desk_bookings",))
def cancel_desk_bookings(env: Env, person: str, from_date: dt.date, to_date: dt.date | None = None) -> dict:
    """Cancel someone's desk bookings on a day or every day of a date range (today or later; days already
    checked in stay).

    Args:
        person: Whose bookings: an email address, an employee number (E and seven digits) or a full name.
        from_date: The first day (or the only day, without to_date).
        to_date: The last day of the range, inclusive.
    """
    p = find_person(env, person, active=False)
    last = last_day(from_date, to_date)
    if from_date < env.today:
        raise ToolError(f"past desk bookings cannot be cancelled; start from today ({env.today}) or later.")
    rows = env.query(
        "SELECT k.booking_date, d.code FROM desk_bookings AS k JOIN desks AS d ON d.desk_id = k.desk_id "
        "WHERE k.employee_id = ? AND k.booking_date BETWEEN ? AND ? AND k.status = 'booked' "
        "ORDER BY k.booking_date",
        [p["employee_id"], from_date, last],
    )
    if not rows:
        raise ToolError(f"{who(p)} has no open desk booking from {from_date} to {last}.")
    env.update_where(
        "desk_bookings",
        "employee_id = ? AND booking_date BETWEEN ? AND ? AND status = 'booked'",
        [p["employee_id"], from_date, last],
        {"status": "cancelled"},
    )
    return {"person": who(p), "cancelled": [{"date": r["booking_date"], "desk": r["code"]} for r in rows]}


@change(reads=("employees", "desks", "desk_bookings", "buildings"), writes=("desks", "desk_bookings"))
def assign_desk(
    env: Env, desk: str, person: str | None = None, free_desk_type: DeskType = "hot_desk"
) -> dict:
    """Facilities: assign a desk to one person (it becomes theirs; other people's upcoming bookings of it are
    cancelled), or, without a person, free an assigned desk so that anyone can book it. A person has at most
    one assigned desk.

    Args:
        desk: The desk's code.
        person: The new owner: an email address, an employee number (E and seven digits) or a full name.
            Leave out to free the desk.
        free_desk_type: The type a freed desk becomes.
    """
    d = _desk(env, desk)
    if person is None:
        if d["desk_type"] != "assigned":
            raise ToolError(f"desk {d['code']} is not assigned to anyone.")
        env.update("desks", d["desk_id"], {"assigned_employee_id": None, "desk_type": free_desk_type})
        return {"desk": d["code"], "assigned_to": None, "desk_type": free_desk_type}
    p = find_person(env, person)
    if d["assigned_employee_id"] == p["employee_id"]:
        raise ToolError(f"desk {d['code']} is already assigned to {who(p)}.")
    if d["assigned_employee_id"] is not None:
        raise ToolError(
            f"desk {d['code']} is assigned to someone else; free it first (assign_desk without a person)."
        )
    other = env.scalar("SELECT code FROM desks WHERE assigned_employee_id = ?", [p["employee_id"]])
    if other:
        raise refuse(
            "desk_booking",
            f"{who(p)} already has desk {other}; free it first (a person has one assigned desk).",
        )
    env.update("desks", d["desk_id"], {"assigned_employee_id": p["employee_id"], "desk_type": "assigned"})
    cancelled = env.update_where(
        "desk_bookings",
        "desk_id = ? AND booking_date >= ? AND status = 'booked' AND employee_id <> ?",
        [d["desk_id"], env.today, p["employee_id"]],
        {"status": "cancelled"},
    )
    return {
        "desk": d["code"],
        "building": d["building"],
        "assigned_to": who(p),
        "other_bookings_cancelled": cancelled,
    }

