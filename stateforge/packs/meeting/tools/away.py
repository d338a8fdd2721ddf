"""Out of office: set a period (declining the invitations it covers), change or cancel it, and see who is
away."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change
from stateforge.tools.policies import refuse
from stateforge.tools.where import Where

from .common import UNIT_TREE, Limit, Offset, cancel_all, find_person, find_unit, listed, person_id, span, who
from .zones import PersonTime, at_person

Reason = Literal["vacation", "sick", "travel", "training", "parental", "other"]
AutoReply = Annotated[str, Field(max_length=500)]
MAX_DAYS = 366
_READS = (
    "employees", "buildings", "out_of_office", "meetings", "meeting_attendees", "room_bookings",
    "desk_bookings",
)
_WRITES = ("out_of_office", "meeting_attendees", "meetings", "room_bookings", "desk_bookings")


def _check_period(
    env: Env, person: dict, start: dt.datetime, end: dt.datetime, skip: int | None = None
) -> None:
    if end <= start:
        raise ToolError(f"the period must end after it starts ({span(start, end)}).")
    if (end - start).days > MAX_DAYS:
        raise refuse(
            "out_of_office_periods",
            f"an out-of-office period lasts at most {MAX_DAYS} days; split longer leave.",
        )
    clash = env.query(
        "SELECT ooo_id, starts_at, ends_at, reason FROM out_of_office WHERE employee_id = ? AND "
        "starts_at < ? "
        "AND ? < ends_at AND ooo_id IS DISTINCT FROM ? ORDER BY starts_at",
        [person["employee_id"], end, start, skip],
    )
    if clash:
        c = clash[0]
        raise refuse(
            "out_of_office_periods",
            f"{who(person)} is already out of office ({c['reason']}) {span(c['starts_at'], c['ends_at'])} "
            f"(period {c['ooo_id']}); change that period instead of adding an overlapping one."
        )


def _delegate(env: Env, person: dict, delegate: str | None) -> int | None:
    if delegate is None:
        return None
    d = find_person(env, delegate, role="delegate")
    if d["employee_id"] == person["employee_id"]:
        raise refuse("out_of_office_periods", "the delegate must be someone else.")
    return d["employee_id"]


def _clear_calendar(
    env: Env, person: dict, start: dt.datetime, end: dt.datetime, cancel_own: bool, cancel_desks: bool
) -> dict:
    """Decline the person's open invitations in the period; cancel their own meetings and desk bookings in
    it when asked. What was done, for the result."""
    pid = person["employee_id"]
    overlapping = (
        "SELECT meeting_id FROM meetings WHERE status <> 'cancelled' AND start_at < ? AND ? < end_at "
        "AND end_at > ?"
    )  # meetings over by now keep their answers
    declined = env.update_where(
        "meeting_attendees",
        f"employee_id = ? AND response <> 'declined' AND meeting_id IN ({overlapping})",
        [pid, end, start, env.now],
        {"response": "declined", "responded_at": env.now},
    )
    own = env.query(
        "SELECT meeting_id, title, start_at, end_at FROM meetings WHERE organizer_id = ? AND "
        "status = 'scheduled' "
        "AND start_at > ? AND start_at < ? AND ? < end_at ORDER BY start_at, meeting_id",
        [pid, env.now, end, start],
    )
    if cancel_own and own:
        cancel_all(env, [m["meeting_id"] for m in own])
    desks = 0
    if cancel_desks:
        # a day counts as away when the period covers its core hours, 09:00 to 17:00
        desks = env.update_where(
            "desk_bookings",
            "employee_id = ? AND status = 'booked' AND booking_date >= ? "
            "AND CAST(booking_date AS TIMESTAMP) + INTERVAL 9 HOUR >= ? "
            "AND CAST(booking_date AS TIMESTAMP) + INTERVAL 17 HOUR <= ?",
            [pid, env.today, start, end],
            {"status": "cancelled"},
        )
    return {
        "invitations_declined": declined,
        "own_meetings_cancelled" if cancel_own else "own_meetings_in_period": listed(own),
        "desk_bookings_cancelled": desks,
    }


@tool(kind="write", reads=_READS, writes=_WRITES, idempotent=False, destructive=True)
def set_out_of_office(
    env: Env,
    person: str,
    starts_at: PersonTime,
    ends_at: PersonTime,
    reason: Reason,
    auto_reply: AutoReply | None = None,
    delegate: str | None = None,
    cancel_own_meetings: bool = False,
    cancel_desk_bookings: bool = True,
) -> dict:
    """Set an out-of-office period (from now on; periods of one person never overlap). Every invitation of
    theirs to a meeting in the period that is not declined yet is declined; with cancel_own_meetings the
    upcoming meetings they organise in it are cancelled too (otherwise they are listed); their desk bookings
    on days the period covers from 09:00 to 17:00 are cancelled unless cancel_desk_bookings is false.

    Args:
        person: Who is away: an email address, an employee number (E and seven digits) or a full name.
        starts_at: Start, the person's local time (now or later); a time with a zone (Z, +08:00) is converted
            to it.
        ends_at: End, as starts_at.
        reason: vacation, sick, travel, training, parental or other.
        auto_reply: The automatic reply people get meanwhile.
        delegate: A colleague who handles requests meanwhile (email, employee number or full name).
        cancel_own_meetings: Also cancel the upcoming meetings they organise in the period.
        cancel_desk_bookings: Cancel their desk bookings on the days they are away.
    """
    p = find_person(env, person)
    starts_at, ends_at = (at_person(env, t, p["employee_id"]) for t in (starts_at, ends_at))
    if starts_at < env.now:
        raise refuse(
            "out_of_office_periods",
            f"an out-of-office period starts now or later (now is {env.now:%Y-%m-%d %H:%M}).",
        )
    _check_period(env, p, starts_at, ends_at)
    row = env.insert(
        "out_of_office",
        {
            "employee_id": p["employee_id"],
            "starts_at": starts_at,
            "ends_at": ends_at,
            "reason": reason,
            "auto_reply_message": auto_reply or None,
            "delegate_id": _delegate(env, p, delegate),
        },
    )
    done = _clear_calendar(env, p, starts_at, ends_at, cancel_own_meetings, cancel_desk_bookings)
    return {"period_id": row["ooo_id"], "person": who(p), "from": starts_at, "until": ends_at, **done}


@change(reads=_READS, writes=_WRITES)
def change_out_of_office(
    env: Env,
    person: str,
    period_id: int,
    starts_at: PersonTime | None = None,
    ends_at: PersonTime | None = None,
    reason: Reason | None = None,
    auto_reply: AutoReply | None = None,
    delegate: str | None = None,
) -> dict:
    """Change an out-of-office period that has not ended: its times, reason, automatic reply or delegate.
    A longer period declines the invitations it now covers (as set_out_of_office does).

    Args:
        person: Whose period: an email address, an employee number (E and seven digits) or a full name.
        period_id: The period's id (get_person and list_out_of_office show it).
        starts_at: A new start (only for a period that has not started; now or later), the person's local
            time; a time with a zone (Z, +08:00) is converted to it.
        ends_at: A new end (after now), as starts_at.
        reason: A new reason.
        auto_reply: A new automatic reply; an empty string removes it.
        delegate: A new delegate (email, employee number or full name); an empty string removes it.
    """
    p = find_person(env, person, active=False)
    row = env.one(
        "SELECT * FROM out_of_office WHERE ooo_id = ? AND employee_id = ?", [period_id, p["employee_id"]]
    )
    if row is None:
        raise ToolError(f"{who(p)} has no out-of-office period {period_id}; list_out_of_office shows theirs.")
    starts_at, ends_at = (at_person(env, t, p["employee_id"]) for t in (starts_at, ends_at))
    if row["ends_at"] <= env.now:
        raise ToolError(
            f"period {period_id} ended {row['ends_at']:%Y-%m-%d %H:%M}; past periods cannot change."
        )
    changes: dict = {}
    if starts_at is not None and starts_at != row["starts_at"]:
        if row["starts_at"] <= env.now or starts_at < env.now:
            raise refuse(
                "out_of_office_periods",
                "only a period that has not started can get a new start, and not before now.",
            )
        changes["starts_at"] = starts_at
    if ends_at is not None and ends_at != row["ends_at"]:
        if ends_at <= env.now:
            raise ToolError("the new end must be after now; cancel_out_of_office ends a period now.")
        changes["ends_at"] = ends_at
    if reason is not None:
        changes["reason"] = reason
    if auto_reply is not None:
        changes["auto_reply_message"] = auto_reply or None
    if delegate is not None:
        changes["delegate_id"] = _delegate(env, p, delegate or None)
    if not changes:
        raise ToolError("give something to change (starts_at, ends_at, reason, auto_reply or delegate).")
    start, end = changes.get("starts_at", row["starts_at"]), changes.get("ends_at", row["ends_at"])
    _check_period(env, p, start, end, skip=period_id)
    env.update("out_of_office", period_id, changes)
    done = (
        _clear_calendar(env, p, start, end, False, False) if {"starts_at", "ends_at"} & set(changes) else {}
    )
    return {
        "period_id": period_id,
        "person": who(p),
        "from": start,
        "until": end,
        "changed": sorted(changes),
        **{k: v for k, v in done.items() if k == "invitations_declined"},
    }


@change(reads=("employees", "out_of_office"), writes=("out_of_office",))
def cancel_out_of_office(env: Env, person: str, period_id: int) -> dict:
    """Cancel an out-of-office period: one that has not started is deleted, a current one ends now. Declined
    invitations stay declined (answer them again with respond_to_invitation).

    Args:
        person: Whose period: an email address, an employee number (E and seven digits) or a full name.
        period_id: The period's id (get_person and list_out_of_office show it).
    """
    p = find_person(env, person, active=False)
    row = env.one(
        "SELECT * FROM out_of_office WHERE ooo_id = ? AND employee_id = ?", [period_id, p["employee_id"]]
    )
    if row is None:
        raise ToolError(f"{who(p)} has no out-of-office period {period_id}; list_out_of_office shows theirs.")
    if row["ends_at"] <= env.now:
        raise ToolError(f"period {period_id} already ended {row['ends_at']:%Y-%m-%d %H:%M}.")
    if row["starts_at"] > env.now:
        env.delete("out_of_office", period_id)
        return {"period_id": period_id, "person": who(p), "deleted": True}
    env.update("out_of_office", period_id, {"ends_at": env.now})
    return {"period_id": period_id, "person": who(p), "deleted": False, "ended_at": env.now}


@tool(reads=("employees", "out_of_office", "org_units"))
def list_out_of_office(
    env: Env,
    person: str | None = None,
    on_date: dt.date | None = None,
    from_date: dt.date | None = None,
    to_date: dt.date | None = None,
    org_unit: str | None = None,
    include_subunits: bool = False,
    reason: Reason | None = None,
    include_past: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Out-of-office periods: one person's, or who is away on a day or in a date range, in an org unit, for a
    reason; by start. Without dates, only periods that have not ended (unless include_past).

    Args:
        person: Only this person's periods (email, employee number or full name).
        on_date: Only periods covering part of this day.
        from_date: Only periods that end on or after this day.
        to_date: Only periods that start on or before this day.
        org_unit: Only people in this org unit (name or code).
        include_subunits: With org_unit, also the units below it.
        reason: Only periods with this reason.
        include_past: Also periods that have ended.
    """
    where, tree = Where(), []
    if person:
        where.add("o.employee_id = ?", person_id(env, person))
    first = on_date or from_date
    last = on_date or to_date
    where.when(first and dt.datetime.combine(first, dt.time(0)), "o.ends_at > ?")
    where.when(last and dt.datetime.combine(last, dt.time(0)) + dt.timedelta(days=1), "o.starts_at < ?")
    if not (first or last or include_past):
        where.add("o.ends_at > ?", env.now)
    where.when(reason, "o.reason = ?")
    if org_unit:
        where.add("e.org_unit_id IN (SELECT org_unit_id FROM tree)")
        tree = [find_unit(env, org_unit)["org_unit_id"], include_subunits]
    sql = f"""
        SELECT o.ooo_id AS period_id, e.first_name || ' ' || e.last_name AS person, e.email, o.starts_at,
               o.ends_at, o.reason, o.auto_reply_message AS auto_reply,
               d.first_name || ' ' || d.last_name AS delegate, d.email AS delegate_email, e.org_unit_id
        FROM out_of_office AS o JOIN employees AS e ON e.employee_id = o.employee_id
        LEFT JOIN employees AS d ON d.employee_id = o.delegate_id
        WHERE {where.sql}
    """
    if tree:
        sql = UNIT_TREE + sql
    sql = f"SELECT * EXCLUDE (org_unit_id) FROM ({sql})"
    return env.page(sql, [*tree, *where.params], order_by="starts_at, period_id", limit=limit, offset=offset)

