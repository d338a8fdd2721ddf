"""Staffing (HR partners): hire into an open position, transfer, promote, change a manager, terminate."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Annotated

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Number, actor, require, require_active, worker

STAFF = (
    *PEOPLE,
    "access_requests",
    "pay_grades",
    "compensation",
    "employment_events",
    "leave_types",
    "leave_balances",
    "leave_requests",
    "checklists",
    "checklist_tasks",
    "template_tasks",
    "checklist_templates",
)
WRITES = ("employees", "positions", "employment_events")


def open_position(env: Env, code: str) -> dict:
    row = env.one(
        "SELECT p.*, j.pay_grade_id FROM positions AS p JOIN job_profiles AS j USING (job_profile_id) "
        "WHERE p.code = ?",
        [code.strip().upper()],
    )
    if row is None:
        raise ToolError(
            f"no position has the code {code!r}; list_positions shows the open ones.", argument="position"
        )
    if row["status"] != "open":
        raise ToolError(f"position {row['code']} is {row['status']}, not open.", argument="position")
    return row


def grade_of(env: Env, position_id: int) -> int:
    return int(
        env.scalar(
            "SELECT j.pay_grade_id FROM positions AS p JOIN job_profiles AS j USING (job_profile_id) "
            "WHERE p.position_id = ?",
            [position_id],
        )
    )


def no_reports(env: Env, who: dict, what: str) -> None:
    """Refuse (reports_reassigned_first) while `who` has reports or heads a unit."""
    n = env.scalar(
        "SELECT count(*) FROM employees WHERE manager_id = ? AND status <> 'terminated'", [who["employee_id"]]
    )
    if n or env.scalar("SELECT count(*) FROM org_units WHERE head_id = ?", [who["employee_id"]]):
        raise refuse(
            "reports_reassigned_first",
            f"{who['employee_number']} still has {n} direct report(s) or heads "
            f"a unit: give them a new manager before you {what}",
        )


def line_manager(env: Env, number: str | None, org_unit: dict) -> dict:
    """The named manager (in the unit, still here), else the unit's head."""
    m = worker(env, number, argument="manager") if number else env.get("employees", org_unit["head_id"])
    if m["status"] == "terminated" or m["org_unit_id"] != org_unit["org_unit_id"]:
        raise refuse(
            "reports_reassigned_first",
            f"{m['employee_number']} is not a current worker of {org_unit['name']}",
            argument="manager",
        )
    if m["security_role"] == "employee":
        env.update("employees", m["employee_id"], {"security_role": "manager"})
    return m


def event(
    env: Env, who: dict, kind: str, day: dt.date, src: int, dst: int, me_id: int, note: str | None
) -> None:
    env.insert(
        "employment_events",
        {
            "employee_id": who["employee_id"],
            "event_type": kind,
            "effective_date": day,
            "from_unit_id": src,
            "to_unit_id": dst,
            "recorded_by": me_id,
            "note": note,
        },
    )


@tool(kind="write", reads=STAFF, writes=(*WRITES, "compensation", "leave_balances"), idempotent=False)
def hire_worker(
    env: Env,
    first_name: Annotated[str, Field(min_length=1, max_length=40)],
    last_name: Annotated[str, Field(min_length=1, max_length=40)],
    position: str,
    start_date: dt.date,
    base_salary: Annotated[Decimal, Field(gt=0, max_digits=10, decimal_places=2)],
    manager: Number | None = None,
) -> dict:
    """Hire someone into an open position of a unit you partner (HR partners): they are a pre-hire until
    their start date, with their salary, their manager (the unit's head unless named) and this year's
    leave balances. Onboarding is started separately (start_checklist).

    Args:
        first_name: Their first name.
        last_name: Their last name.
        position: The open position's code (from list_positions).
        start_date: Their first day (after today).
        base_salary: Their annual base salary, inside the position's pay grade.
        manager: Their manager's employee number, a worker of the position's unit.
    """
    me = actor(env)
    pos = open_position(env, position)
    ou = env.get("org_units", pos["org_unit_id"])
    if ou["hr_partner_id"] != me.id:
        raise refuse("hr_partner_scope", f"{me.number} does not partner {ou['name']}", argument="position")
    if start_date <= env.today or start_date.year > 2026:
        raise ToolError("start_date must be after today and in 2026.", argument="start_date")
    g = env.get("pay_grades", pos["pay_grade_id"])
    if not g["min_salary"] <= base_salary <= g["max_salary"]:
        raise refuse(
            "salary_within_grade",
            f"{base_salary} is outside grade {g['code']} ({g['min_salary']} to {g['max_salary']})",
            argument="base_salary",
        )
    boss = line_manager(env, manager, ou)
    new_id = int(env.scalar("SELECT max(employee_id) + 1 FROM employees"))
    number = f"E{new_id + 10000:07d}"
    email = (
        f"{first_name}.{last_name}".lower().replace(" ", "").replace("'", "")
        + f".{new_id}@people.example.com"
    )
    env.insert(
        "employees",
        {
            "employee_id": new_id,
            "employee_number": number,
            "first_name": first_name,
            "last_name": last_name,
            "work_email": email,
            "hire_date": start_date,
            "termination_date": None,
            "status": "pre_hire",
            "position_id": pos["position_id"],
            "org_unit_id": ou["org_unit_id"],
            "manager_id": boss["employee_id"],
            "location_id": pos["location_id"],
            "security_role": "employee",
        },
    )
    env.update("positions", pos["position_id"], {"status": "filled"})
    env.insert(
        "compensation",
        {
            "employee_id": new_id,
            "pay_grade_id": g["pay_grade_id"],
            "base_salary": base_salary,
            "effective_date": start_date,
            "updated_by": me.id,
        },
    )
    types = env.query("SELECT leave_type_id, annual_days FROM leave_types ORDER BY leave_type_id")
    env.insert_many(
        "leave_balances",
        [
            {
                "employee_id": new_id,
                "leave_type_id": t["leave_type_id"],
                "year": 2026,
                "entitled_days": t["annual_days"],
                "carried_over": 0,
                "used_days": 0,
                "pending_days": 0,
            }
            for t in types
        ],
    )
    event(env, {"employee_id": new_id}, "hire", start_date, ou["org_unit_id"], ou["org_unit_id"], me.id, None)
    return {
        "employee_number": number,
        "work_email": email,
        "manager": boss["employee_number"],
        "status": "pre_hire",
    }


@tool(kind="write", reads=STAFF, writes=WRITES, idempotent=False)
def transfer_worker(
    env: Env, employee: Number, position: str, manager: Number | None = None, note: str | None = None
) -> dict:
    """Move a worker of a unit you partner into an open position of the same pay grade in another unit
    (HR partners), today; their new manager is the new unit's head unless named.

    Args:
        employee: Their employee number.
        position: The open position's code.
        manager: Their new manager's employee number (a worker of the new unit).
        note: Why, for the job history.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"partner"}, "hr_partner_scope", "transfer")
    require_active(who, "be transferred")
    pos = open_position(env, position)
    if pos["org_unit_id"] == who["org_unit_id"]:
        raise ToolError("that position is in their own unit: use promote_worker for a new role there.")
    if who["position_id"] is not None and grade_of(env, who["position_id"]) != pos["pay_grade_id"]:
        raise refuse(
            "lateral_moves_keep_the_grade",
            f"position {pos['code']} is of another pay grade",
            argument="position",
        )
    no_reports(env, who, "transfer them")
    ou = env.get("org_units", pos["org_unit_id"])
    boss = line_manager(env, manager, ou)
    if who["position_id"] is not None:
        env.update("positions", who["position_id"], {"status": "open"})
    env.update("employees", who["employee_id"], {"position_id": None})
    env.update("positions", pos["position_id"], {"status": "filled"})
    env.update(
        "employees",
        who["employee_id"],
        {
            "position_id": pos["position_id"],
            "org_unit_id": ou["org_unit_id"],
            "location_id": pos["location_id"],
            "manager_id": boss["employee_id"],
        },
    )
    event(env, who, "transfer", env.today, who["org_unit_id"], ou["org_unit_id"], me.id, note)
    return {"employee": who["employee_number"], "org_unit": ou["name"], "manager": boss["employee_number"]}


@tool(kind="write", reads=STAFF, writes=(*WRITES, "compensation"), idempotent=False)
def promote_worker(env: Env, employee: Number, position: str, note: str | None = None) -> dict:
    """Move a worker of a unit you partner into another open position of their own unit (HR partners), today:
    a promotion (or a new role); their pay grade becomes the position's, and their current salary must fit it
    (a raise is proposed by their manager or payroll first).

    Args:
        employee: Their employee number.
        position: The open position's code, in their unit.
        note: Why, for the job history.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"partner"}, "hr_partner_scope", "promote")
    require_active(who, "be promoted")
    pos = open_position(env, position)
    if pos["org_unit_id"] != who["org_unit_id"]:
        raise ToolError("that position is in another unit: use transfer_worker.", argument="position")
    g = env.get("pay_grades", pos["pay_grade_id"])
    salary = env.scalar("SELECT base_salary FROM compensation WHERE employee_id = ?", [who["employee_id"]])
    if not g["min_salary"] <= salary <= g["max_salary"]:
        raise refuse(
            "salary_within_grade",
            f"their salary {salary} is outside grade {g['code']} ({g['min_salary']} to {g['max_salary']})",
            argument="position",
        )
    if who["position_id"] is not None:
        env.update("positions", who["position_id"], {"status": "open"})
    env.update("employees", who["employee_id"], {"position_id": None})
    env.update("positions", pos["position_id"], {"status": "filled", "location_id": who["location_id"]})
    env.update("employees", who["employee_id"], {"position_id": pos["position_id"]})
    env.update("compensation", who["employee_id"], {"pay_grade_id": g["pay_grade_id"], "updated_by": me.id})
    event(env, who, "promotion", env.today, who["org_unit_id"], who["org_unit_id"], me.id, note)
    return {"employee": who["employee_number"], "position": pos["code"], "pay_grade": g["code"]}


@tool(kind="write", reads=STAFF, writes=("employees",), idempotent=True)
def change_manager(env: Env, employee: Number, manager: Number) -> dict:
    """Give a worker of a unit you partner a new manager (HR partners): a worker of their unit (or, for a
    unit's head, of the parent unit) who has not left.

    Args:
        employee: The worker's employee number.
        manager: The new manager's employee number.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"partner"}, "hr_partner_scope", "change the manager")
    boss = worker(env, manager, argument="manager")
    ou = env.get("org_units", who["org_unit_id"])
    home = ou["parent_unit_id"] if ou["head_id"] == who["employee_id"] else ou["org_unit_id"]
    if (
        boss["status"] == "terminated"
        or boss["org_unit_id"] != home
        or boss["employee_id"] == who["employee_id"]
    ):
        raise refuse(
            "reports_reassigned_first",
            f"{boss['employee_number']} cannot manage {who['employee_number']} "
            "(a current worker of their unit is needed)",
            argument="manager",
        )
    if boss["security_role"] == "employee":
        env.update("employees", boss["employee_id"], {"security_role": "manager"})
    env.update("employees", who["employee_id"], {"manager_id": boss["employee_id"]})
    return {"employee": who["employee_number"], "manager": boss["employee_number"]}


@tool(
    kind="write",
    reads=STAFF,
    writes=(*WRITES, "leave_requests", "leave_balances", "checklists", "checklist_tasks", "access_requests"),
    idempotent=False,
)
def terminate_worker(
    env: Env, employee: Number, last_day: dt.date, involuntary: bool = False, note: str | None = None
) -> dict:
    """Record a worker's termination (HR partners, for the units they partner): their last day (today or
    later); leave after it is cancelled and the offboarding checklist starts. On their last day they leave and
    their position reopens. System access is not touched: IT revokes it (revoke_access).

    Args:
        employee: Their employee number.
        last_day: Their last working day.
        involuntary: A dismissal (the involuntary offboarding checklist) rather than a resignation.
        note: The reason, for the job history.
    """
    from .checklists import open_checklist

    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"partner"}, "hr_partner_scope", "terminate")
    require_active(who, "be terminated")
    if last_day < env.today or last_day.year > 2026:
        raise ToolError("last_day must be today or later in 2026.", argument="last_day")
    no_reports(env, who, "terminate them")
    later = env.query(
        "SELECT * FROM leave_requests WHERE employee_id = ? AND status IN ('pending', 'approved') "
        "AND end_date > ?",
        [who["employee_id"], last_day],
    )
    for req in later:
        col = "pending_days" if req["status"] == "pending" else "used_days"
        env.update(
            "leave_balances",
            {
                "employee_id": req["employee_id"],
                "leave_type_id": req["leave_type_id"],
                "year": req["start_date"].year,
            },
            {
                col: env.scalar(
                    f"SELECT {col} - ? FROM leave_balances WHERE employee_id = ? AND leave_type_id = ? AND "
                    "year = ?",
                    [req["days"], req["employee_id"], req["leave_type_id"], req["start_date"].year],
                )
            },
        )
        env.update("leave_requests", req["request_id"], {"status": "cancelled"})
    # the leaver's access requests still waiting are turned down with the termination
    env.update_where(
        "access_requests",
        "employee_id = ? AND status IN ('pending', 'approved')",
        [who["employee_id"]],
        {"status": "rejected", "approver_id": me.id, "decided_at": env.now},
    )
    gone = last_day == env.today
    changes = {
        "termination_date": last_day,
        **({"status": "terminated", "position_id": None} if gone else {}),
    }
    if gone and who["position_id"] is not None:
        env.update("positions", who["position_id"], {"status": "open"})
    env.update("employees", who["employee_id"], changes)
    event(env, who, "termination", last_day, who["org_unit_id"], who["org_unit_id"], me.id, note)
    template = "Involuntary offboarding" if involuntary else "Standard offboarding"
    checklist = open_checklist(env, me, worker(env, employee), template, last_day)
    return {
        "employee": who["employee_number"],
        "last_day": last_day,
        "status": "terminated" if gone else who["status"],
        "leave_cancelled": len(later),
        "checklist_id": checklist,
    }


STAFFING_TOOLS = [hire_worker, transfer_worker, promote_worker, change_manager, terminate_worker]
