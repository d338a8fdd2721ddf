"""Keeping people's records: profile, working hours, and recording that someone left the company."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change
from stateforge.tools.policies import refuse

from .common import WEEKDAYS, find_building, find_person, who


@change(reads=("employees", "buildings"), writes=("employees",))
def update_profile(
    env: Env,
    person: str,
    phone: Annotated[str, Field(max_length=32)] | None = None,
    timezone: str | None = None,
    home_building: str | None = None,
    job_title: Annotated[str, Field(min_length=1, max_length=80)] | None = None,
) -> dict:
    """Change someone's profile: phone number, time zone, home building or job title. Only the fields given
    change.

    Args:
        person: Whose profile: an email address, an employee number (E and seven digits) or a full name.
        phone: The new phone number; an empty string removes it.
        timezone: An IANA time zone such as Europe/Berlin or America/New_York.
        home_building: The building they usually work from (name or code).
        job_title: The new job title.
    """
    p = find_person(env, person)
    changes: dict = {}
    if phone is not None:
        changes["phone"] = phone.strip() or None
    if timezone is not None:
        known = env.scalar("SELECT count(*) FROM pg_timezone_names() WHERE name = ?", [timezone.strip()])
        if not known or "/" not in timezone and timezone.strip() != "UTC":
            raise ToolError(f"{timezone!r} is not a time zone; use an IANA name such as Europe/Berlin.")
        changes["timezone"] = timezone.strip()
    if home_building is not None:
        changes["home_building_id"] = find_building(env, home_building)["building_id"]
    if job_title is not None:
        changes["job_title"] = job_title.strip()
    if not changes:
        raise ToolError("give at least one of phone, timezone, home_building or job_title to change.")
    env.update("employees", p["employee_id"], changes)
    return {"person": who(p), "changed": sorted(changes)}


class WorkDay(BaseModel):
    """Working hours on one weekday."""

    model_config = ConfigDict(extra="forbid")

    weekday: Annotated[int, Field(ge=1, le=7, description="ISO weekday: 1 = Monday ... 7 = Sunday.")]
    starts_at: dt.time = Field(description="Start of the working day, HH:MM.")
    ends_at: dt.time = Field(description="End of the working day, HH:MM (after starts_at).")
    is_remote: bool = Field(default=False, description="Working from home that day.")


@change(reads=("employees", "working_hours"), writes=("working_hours",))
def set_working_hours(
    env: Env,
    person: str,
    days: Annotated[list[WorkDay], Field(max_length=7)] = [],  # noqa: B006 - a pydantic default, copied
    days_off: Annotated[list[Annotated[int, Field(ge=1, le=7)]], Field(max_length=7)] = [],  # noqa: B006
) -> dict:
    """Set someone's working hours for some weekdays, or mark weekdays as days off. Weekdays not named keep
    their hours. Invitees outside their working hours still get invitations, with a warning to the organizer.

    Args:
        person: Whose hours: an email address, an employee number (E and seven digits) or a full name.
        days: The new hours, one entry per weekday (replaces that day's hours).
        days_off: ISO weekdays (1 = Monday ... 7 = Sunday) on which they do not work.
    """
    p = find_person(env, person)
    named = [d.weekday for d in days] + list(days_off)
    if not named:
        raise ToolError("give days (hours per weekday) or days_off.")
    if len(set(named)) != len(named):
        raise ToolError("each weekday may appear once across days and days_off.")
    for d in days:
        if d.ends_at <= d.starts_at:
            raise ToolError(f"{WEEKDAYS[d.weekday - 1]}: the day must end after it starts.")
    env.delete_where(
        "working_hours", "employee_id = ? AND weekday IN (SELECT unnest(?))", [p["employee_id"], named]
    )
    env.insert_many(
        "working_hours",
        [
            {
                "employee_id": p["employee_id"],
                "weekday": d.weekday,
                "starts_at": d.starts_at,
                "ends_at": d.ends_at,
                "is_remote": d.is_remote,
            }
            for d in days
        ],
    )
    week = env.query(
        "SELECT weekday, starts_at, ends_at, is_remote FROM working_hours WHERE employee_id = ? "
        "ORDER BY weekday",
        [p["employee_id"]],
    )
    return {"person": who(p), "working_hours": [{"day": WEEKDAYS[w["weekday"] - 1], **w} for w in week]}


_OFFBOARDING = tuple(
    "employees org_units meetings meeting_attendees room_bookings desk_bookings desks out_of_office".split()
)
"""What offboarding reads and changes: the person, their unit, meetings, bookings, desks and absences."""


@tool(
    kind="write",
    reads=_OFFBOARDING,
    writes=_OFFBOARDING,
    destructive=True,
)
def offboard_employee(env: Env, person: str, last_day: dt.date, new_unit_head: str | None = None) -> dict:
    """Record that someone has left the company, and tidy up after them: their upcoming meetings are
    cancelled (rooms released), they are removed from upcoming meetings' invitations, their desk bookings
    from today on are cancelled, their assigned desk becomes a hot desk, their direct reports move to their
    manager, and they stop being anyone's out-of-office delegate.

    Args:
        person: Who left: an email address, an employee number (E and seven digits) or a full name.
        last_day: Their last day of work: after their hiring date, today at the latest.
        new_unit_head: Required when they head an org unit: the active member of that unit who takes over.
    """
    p = find_person(env, person)
    if last_day <= p["hired_on"] or last_day > env.today:
        raise refuse(
            "leaving_is_recorded",
            f"{who(p)} was hired on {p['hired_on']}: the last day must be after that and not after today "
            f"({env.today})."
        )
    pid = p["employee_id"]
    headed = env.query(
        "SELECT org_unit_id, name FROM org_units WHERE head_employee_id = ? ORDER BY org_unit_id", [pid]
    )
    for unit in headed:
        if new_unit_head is None:
            raise ToolError(
                f"{who(p)} heads {unit['name']}; give new_unit_head, an active member of {unit['name']}."
            )
        head = find_person(env, new_unit_head, role="new_unit_head")
        if head["org_unit_id"] != unit["org_unit_id"] or head["employee_id"] == pid:
            raise ToolError(f"new_unit_head: {who(head)} is not another member of {unit['name']}.")
        env.update("org_units", unit["org_unit_id"], {"head_employee_id": head["employee_id"]})
    if new_unit_head is not None and not headed:
        raise ToolError(f"{who(p)} heads no org unit; leave new_unit_head out.")
    env.update("employees", pid, {"left_on": last_day, "is_active": False})
    moved = env.update_where("employees", "manager_id = ?", [pid], {"manager_id": p["manager_id"]})
    upcoming = "status = 'scheduled' AND start_at > ?"
    cancelled = env.update_where(
        "meetings", f"organizer_id = ? AND {upcoming}", [pid, env.now], {"status": "cancelled"}
    )
    env.update_where(
        "room_bookings",
        "status = 'confirmed' AND meeting_id IN (SELECT meeting_id FROM meetings WHERE organizer_id = ? "
        "AND status = 'cancelled' AND start_at > ?)",
        [pid, env.now],
        {"status": "cancelled"},
    )
    uninvited = env.delete_where(
        "meeting_attendees",
        f"employee_id = ? AND meeting_id IN (SELECT meeting_id FROM meetings WHERE {upcoming})",
        [pid, env.now],
    )
    desks = env.update_where(
        "desk_bookings",
        "employee_id = ? AND booking_date >= ? AND status = 'booked'",
        [pid, env.today],
        {"status": "cancelled"},
    )
    freed = env.update_where(
        "desks", "assigned_employee_id = ?", [pid], {"assigned_employee_id": None, "desk_type": "hot_desk"}
    )
    delegations = env.update_where(
        "out_of_office", "delegate_id = ? AND ends_at > ?", [pid, env.now], {"delegate_id": None}
    )
    return {
        "person": who(p),
        "left_on": last_day,
        "reports_moved_to_their_manager": moved,
        "meetings_cancelled": cancelled,
        "invitations_removed": uninvited,
        "desk_bookings_cancelled": desks,
        "assigned_desks_released": freed,
        "delegations_removed": delegations,
        "units_with_new_head": [u["name"] for u in headed],
    }

