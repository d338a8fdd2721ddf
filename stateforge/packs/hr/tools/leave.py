"""Time off: plans, balances, requests (self-service), and the manager's approvals."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, Expr, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Number, Offset, actor, require, worker, working_days

LEAVE = ("leave_types", "leave_balances", "leave_requests", "holidays", *PEOPLE)
REQUEST = (
    "SELECT r.request_id, w.employee_number AS employee, w.first_name || ' ' || w.last_name AS name, "
    "t.name AS leave_type, r.start_date, r.end_date, r.days, r.status, r.requested_at, "
    "a.employee_number AS approver, r.decided_at, r.comment FROM leave_requests AS r "
    "JOIN employees AS w ON w.employee_id = r.employee_id JOIN leave_types AS t ON t.leave_type_id = "
    "r.leave_type_id "
    "LEFT JOIN employees AS a ON a.employee_id = r.approver_id"
)
Status = Literal["pending", "approved", "rejected", "cancelled", "all"]


def leave_type_named(env: Env, name: str) -> dict:
    row = env.one(
        "SELECT * FROM leave_types WHERE lower(name) = lower(?) OR lower(code) = lower(?)", [name.strip()] * 2
    )
    if row is None:
        raise ToolError(
            f"no leave type is called {name!r}; list_leave_types shows them.", argument="leave_type"
        )
    return row


def balance_key(request: dict) -> dict:
    return {
        "employee_id": request["employee_id"],
        "leave_type_id": request["leave_type_id"],
        "year": request["start_date"].year,
    }


def move_days(env: Env, request: dict, pending: float = 0, used: float = 0) -> None:
    """Add days to the pending and used days of the request's balance."""
    env.update(
        "leave_balances",
        balance_key(request),
        {"pending_days": Expr("pending_days + ?", [pending]), "used_days": Expr("used_days + ?", [used])},
    )


def the_request(env: Env, request_id: int) -> dict:
    row = env.get("leave_requests", request_id)
    if row is None:
        raise ToolError(
            f"no leave request {request_id}; list_leave_requests shows them.", argument="request_id"
        )
    return row


@tool(reads=LEAVE)
def list_leave_types(env: Env) -> dict:
    """The time-off plans: days a year, carry-over into the next year, whether a manager approves them."""
    actor(env)
    return {
        "leave_types": env.query(
            "SELECT code, name, annual_days, max_carryover, paid, needs_approval FROM leave_types ORDER BY "
            "leave_type_id"
        )
    }


@tool(reads=LEAVE)
def get_leave_balances(env: Env, employee: Number | None = None, year: int = 2026) -> dict:
    """Leave balances per type for a year: entitled, carried over, used, pending and available days. Your
    own, or (managers, HR partners) a report's.

    Args:
        employee: Their employee number; leave out for your own.
        year: The year (2025 or 2026).
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, {"self", "manager", "partner"}, "manager_scope", "see the leave balances")
    rows = env.query(
        "SELECT t.name AS leave_type, b.entitled_days, b.carried_over, b.used_days, b.pending_days, "
        "b.entitled_days + b.carried_over - b.used_days - b.pending_days AS available_days "
        "FROM leave_balances AS b JOIN leave_types AS t USING (leave_type_id) WHERE b.employee_id = ? AND "
        "b.year = ? "
        "ORDER BY t.leave_type_id",
        [who["employee_id"], year],
    )
    return {"employee": who["employee_number"], "year": year, "balances": rows}


@tool(reads=LEAVE)
def list_leave_requests(
    env: Env,
    scope: Literal["mine", "team", "employee"] = "mine",
    employee: Number | None = None,
    status: Status = "all",
    starts_after: dt.date | None = None,
    starts_before: dt.date | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Leave requests, newest start first, a page at a time: yours, your direct reports' (team), or one
    worker's (their manager or HR partner).

    Args:
        scope: mine, team (your direct reports), or employee (give `employee`).
        employee: The worker, for scope employee.
        status: pending, approved, rejected, cancelled or all.
        starts_after: Only requests starting on or after this day.
        starts_before: Only requests starting on or before this day.
        limit: Requests per page.
        offset: Requests to skip.
    """
    me = actor(env)
    if scope == "employee":
        if not employee:
            raise ToolError("scope employee needs `employee`: their employee number.", argument="employee")
        who = worker(env, employee)
        require(env, me, who, {"self", "manager", "partner"}, "manager_scope", "see the leave requests")
        where, params = ["r.employee_id = ?"], [who["employee_id"]]
    elif scope == "team":
        where, params = ["w.manager_id = ?", "w.status <> 'terminated'"], [me.id]
    else:
        where, params = ["r.employee_id = ?"], [me.id]
    if status != "all":
        where.append("r.status = ?")
        params.append(status)
    if starts_after:
        where.append("r.start_date >= ?")
        params.append(starts_after)
    if starts_before:
        where.append("r.start_date <= ?")
        params.append(starts_before)
    sql = f"{REQUEST} WHERE {' AND '.join(where)}"
    return env.page(sql, params, order_by="start_date DESC, request_id", limit=limit, offset=offset)


@tool(kind="write", reads=LEAVE, writes=("leave_requests", "leave_balances"), idempotent=False)
def request_leave(
    env: Env, leave_type: str, start_date: dt.date, end_date: dt.date, comment: str | None = None
) -> dict:
    """Request time off for the signed-in worker: the working days between two dates (inclusive) come off
    the balance as pending until the manager decides. Sick leave needs no approval and is approved at once.

    Args:
        leave_type: The leave type's name or code (Vacation, Sick Leave, ...).
        start_date: The first day off.
        end_date: The last day off.
        comment: A note for the manager.
    """
    me = actor(env)
    kind = leave_type_named(env, leave_type)
    earliest = env.today - dt.timedelta(days=14 if not kind["needs_approval"] else 0)
    if (
        start_date < earliest
        or end_date < start_date
        or end_date.year != start_date.year
        or end_date.year > 2026
    ):
        raise refuse(
            "leave_request_rules",
            f"leave from {start_date} to {end_date} is not a range that can be "
            "requested (from today to the end of 2026, in one year)",
            argument="start_date",
        )
    days = working_days(env, me.id, start_date, end_date)
    if days == 0:
        raise refuse(
            "leave_request_rules", f"{start_date} to {end_date} holds no working day", argument="start_date"
        )
    clash = env.one(
        "SELECT min(request_id) AS id FROM leave_requests WHERE employee_id = ? AND status IN ('pending', "
        "'approved') "
        "AND start_date <= ? AND end_date >= ?",
        [me.id, end_date, start_date],
    )
    if clash and clash["id"] is not None:
        raise refuse("no_overlapping_leave", f"it overlaps your request {clash['id']}", argument="start_date")
    bal = env.one(
        "SELECT * FROM leave_balances WHERE employee_id = ? AND leave_type_id = ? AND year = ?",
        [me.id, kind["leave_type_id"], start_date.year],
    )
    if bal is None:
        raise ToolError(f"you have no {kind['name']} balance for {start_date.year}.")
    left = bal["entitled_days"] + bal["carried_over"] - bal["used_days"] - bal["pending_days"]
    if days > left:
        raise refuse("leave_within_balance", f"{days} working days asked, {left} {kind['name']} days left")
    auto = not kind["needs_approval"]
    row = env.insert(
        "leave_requests",
        {
            "employee_id": me.id,
            "leave_type_id": kind["leave_type_id"],
            "start_date": start_date,
            "end_date": end_date,
            "days": days,
            "status": "approved" if auto else "pending",
            "requested_at": env.now,
            "approver_id": (me.row["manager_id"] or None) if auto else None,
            "decided_at": env.now if auto else None,
            "comment": comment,
        },
    )
    if auto and row["approver_id"] is None:
        raise ToolError("you have no manager to record the sick leave with; ask HR.")
    move_days(env, row, used=days if auto else 0, pending=0 if auto else days)
    return {"request_id": row["request_id"], "days": days, "status": row["status"]}


@tool(kind="write", reads=LEAVE, writes=("leave_requests", "leave_balances"), idempotent=True)
def cancel_leave_request(env: Env, request_id: int) -> dict:
    """Cancel one of your own requests: a pending one, or an approved one that has not started; its days go
    back to the balance.

    Args:
        request_id: The request (from list_leave_requests).
    """
    me = actor(env)
    req = the_request(env, request_id)
    if req["employee_id"] != me.id:
        raise refuse("manager_scope", f"request {request_id} is not yours to cancel", argument="request_id")
    if req["status"] == "pending":
        move_days(env, req, pending=-req["days"])
    elif req["status"] == "approved" and req["start_date"] > env.today:
        move_days(env, req, used=-req["days"])
    else:
        raise refuse(
            "leave_request_rules",
            f"request {request_id} is {req['status']} and cannot be cancelled",
            argument="request_id",
        )
    env.update("leave_requests", request_id, {"status": "cancelled"})
    return {"request_id": request_id, "status": "cancelled"}


def decide(env: Env, request_id: int, approve: bool, comment: str | None) -> dict:
    me = actor(env)
    req = the_request(env, request_id)
    who = worker(
        env,
        str(env.scalar("SELECT employee_number FROM employees WHERE employee_id = ?", [req["employee_id"]])),
    )
    if who["employee_id"] == me.id:
        raise refuse("leave_request_rules", "nobody decides their own leave", argument="request_id")
    require(env, me, who, {"manager"}, "manager_scope", "decide the leave", argument="request_id")
    if req["status"] != "pending":
        raise refuse(
            "leave_request_rules",
            f"request {request_id} is {req['status']}, not pending",
            argument="request_id",
        )
    move_days(env, req, pending=-req["days"], used=req["days"] if approve else 0)
    status = "approved" if approve else "rejected"
    env.update(
        "leave_requests",
        request_id,
        {
            "status": status,
            "approver_id": me.id,
            "decided_at": env.now,
            **({"comment": comment} if comment else {}),
        },
    )
    return {"request_id": request_id, "status": status}


@tool(kind="write", reads=LEAVE, writes=("leave_requests", "leave_balances"), idempotent=True)
def approve_leave_request(env: Env, request_id: int) -> dict:
    """Approve a direct report's pending request (managers): its days move from pending to used.

    Args:
        request_id: The request (from list_leave_requests with scope team).
    """
    return decide(env, request_id, True, None)


@tool(kind="write", reads=LEAVE, writes=("leave_requests", "leave_balances"), idempotent=True)
def reject_leave_request(env: Env, request_id: int, reason: str | None = None) -> dict:
    """Reject a direct report's pending request (managers): its days go back to the balance.

    Args:
        request_id: The request (from list_leave_requests with scope team).
        reason: Why, shown to the worker.
    """
    return decide(env, request_id, False, reason)


@tool(reads=LEAVE)
def list_team_absences(env: Env, start: dt.date, end: dt.date) -> dict:
    """Who of your direct reports is off (approved or pending leave) between two days, and when.

    Args:
        start: The first day of the period.
        end: The last day of the period.
    """
    me = actor(env)
    if end < start:
        raise ToolError("end is before start.", argument="end")
    rows = env.query(
        f"{REQUEST} WHERE w.manager_id = ? AND r.status IN ('pending', 'approved') "
        "AND r.start_date <= ? AND r.end_date >= ? ORDER BY r.start_date, r.request_id",
        [me.id, end, start],
    )
    return {"absences": rows}


LEAVE_TOOLS = [
    list_leave_types,
    get_leave_balances,
    list_leave_requests,
    request_leave,
    cancel_leave_request,
    approve_leave_request,
    reject_leave_request,
    list_team_absences,
]
