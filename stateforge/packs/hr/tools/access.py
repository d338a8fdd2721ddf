"""Access to business systems: requests (self-service or for a report), the manager's approval, IT's
grants and revocations."""

from __future__ import annotations

from typing import Literal

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Number, Offset, actor, require, require_active, require_role, worker

ACCESS = ("systems", "system_access", "access_requests", *PEOPLE)
Level = Literal["read", "user", "admin"]


def system_row(env: Env, name: str) -> dict:
    row = env.one("SELECT * FROM systems WHERE lower(name) = lower(?)", [name.strip()])
    if row is None:
        raise ToolError(f"no system is called {name!r}; list_systems shows them.", argument="system")
    return row


@tool(reads=ACCESS)
def list_systems(env: Env) -> dict:
    """The business systems: whether access needs the manager's approval, whether they are sensitive."""
    actor(env)
    return {"systems": env.query("SELECT name, needs_approval, sensitive FROM systems ORDER BY name")}


@tool(reads=ACCESS)
def list_system_access(env: Env, employee: Number | None = None, include_revoked: bool = False) -> dict:
    """The systems a worker has access to (yours, a report's, a partnered worker's; IT admins anyone's).

    Args:
        employee: Their employee number; leave out for your own.
        include_revoked: Also list access that was revoked.
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, {"self", "manager", "partner", "it"}, "manager_scope", "see the access")
    rows = env.query(
        "SELECT s.name AS system, a.access_level, a.granted_at, a.revoked_at, g.employee_number AS "
        "granted_by "
        "FROM system_access AS a JOIN systems AS s USING (system_id) LEFT JOIN employees AS g ON "
        "g.employee_id = a.granted_by "
        f"WHERE a.employee_id = ? {'' if include_revoked else 'AND a.revoked_at IS NULL'} ORDER BY s.name, "
        "a.granted_at",
        [who["employee_id"]],
    )
    return {"employee": who["employee_number"], "access": rows}


@tool(kind="write", reads=ACCESS, writes=("access_requests",), idempotent=False)
def request_access(
    env: Env, system: str, access_level: Level = "user", employee: Number | None = None
) -> dict:
    """Ask for access to a system, for yourself or (managers) a direct report.

    Args:
        system: The system's name.
        access_level: read, user or admin.
        employee: The report's employee number; leave out for yourself.
    """
    me = actor(env)
    who = worker(env, employee) if employee else me.row
    require(env, me, who, {"self", "manager"}, "manager_scope", "request access")
    require_active(who, "get access")
    s = system_row(env, system)
    row = env.insert(
        "access_requests",
        {
            "employee_id": who["employee_id"],
            "system_id": s["system_id"],
            "access_level": access_level,
            "requested_by": me.id,
            "requested_at": env.now,
            "status": "pending",
            "approver_id": None,
            "decided_at": None,
        },
    )
    return {"request_id": row["request_id"], "status": "pending", "needs_approval": s["needs_approval"]}


@tool(reads=ACCESS)
def list_access_requests(
    env: Env,
    scope: Literal["mine", "to_approve", "to_grant"] = "mine",
    status: Literal["pending", "approved", "rejected", "granted", "all"] = "pending",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Access requests, oldest first: yours, your direct reports' (to_approve), or, for IT admins, every
    request ready to grant (approved, or pending on a system that needs no approval).

    Args:
        scope: mine, to_approve or to_grant.
        status: Filter by status (to_grant ignores it).
        limit: Requests per page.
        offset: Requests to skip.
    """
    me = actor(env)
    where, params = [], []
    if scope == "mine":
        where.append("q.employee_id = ?")
        params.append(me.id)
    elif scope == "to_approve":
        where.append("w.manager_id = ?")
        params.append(me.id)
    else:
        require_role(me, "it_admin", "it_admins_grant_access", "see the grant queue")
        where.append("(q.status = 'approved' OR (q.status = 'pending' AND NOT s.needs_approval))")
    if status != "all" and scope != "to_grant":
        where.append("q.status = ?")
        params.append(status)
    sql = (
        "SELECT q.request_id, w.employee_number AS employee, s.name AS system, q.access_level, q.status, "
        "q.requested_at, a.employee_number AS approver FROM access_requests AS q JOIN employees AS w ON "
        "w.employee_id = q.employee_id JOIN systems AS s ON s.system_id = q.system_id LEFT JOIN employees "
        "AS a ON "
        f"a.employee_id = q.approver_id WHERE {' AND '.join(where)}"
    )
    return env.page(sql, params, order_by="requested_at, request_id", limit=limit, offset=offset)


def decide(env: Env, request_id: int, approve: bool) -> dict:
    me = actor(env)
    q = env.get("access_requests", request_id)
    if q is None:
        raise ToolError(f"no access request {request_id}.", argument="request_id")
    require(
        env,
        me,
        env.get("employees", q["employee_id"]),
        {"manager"},
        "manager_scope",
        "decide access",
        argument="request_id",
    )
    if q["status"] != "pending":
        raise refuse(
            "it_admins_grant_access", f"request {request_id} is {q['status']}", argument="request_id"
        )
    status = "approved" if approve else "rejected"
    env.update("access_requests", request_id, {"status": status, "approver_id": me.id, "decided_at": env.now})
    return {"request_id": request_id, "status": status}


@tool(kind="write", reads=ACCESS, writes=("access_requests",), idempotent=True)
def approve_access_request(env: Env, request_id: int) -> dict:
    """Approve a direct report's pending access request (managers); IT then grants it.

    Args:
        request_id: The request (from list_access_requests with scope to_approve).
    """
    return decide(env, request_id, True)


@tool(kind="write", reads=ACCESS, writes=("access_requests",), idempotent=True)
def reject_access_request(env: Env, request_id: int) -> dict:
    """Reject a direct report's pending access request (managers).

    Args:
        request_id: The request.
    """
    return decide(env, request_id, False)


@tool(kind="write", reads=ACCESS, writes=("access_requests", "system_access"), idempotent=False)
def grant_access(env: Env, request_id: int) -> dict:
    """Grant what an access request asks (IT admins): approved, or pending on a system that needs no approval.

    Args:
        request_id: The request (from list_access_requests with scope to_grant).
    """
    me = actor(env)
    require_role(me, "it_admin", "it_admins_grant_access", "grant access")
    q = env.get("access_requests", request_id)
    if q is None:
        raise ToolError(f"no access request {request_id}.", argument="request_id")
    s = env.get("systems", q["system_id"])
    if not (q["status"] == "approved" or (q["status"] == "pending" and not s["needs_approval"])):
        raise refuse(
            "it_admins_grant_access",
            f"request {request_id} is {q['status']}"
            + (" and needs the manager's approval" if s["needs_approval"] else ""),
            argument="request_id",
        )
    require_active(env.get("employees", q["employee_id"]), "get access", argument="request_id")
    if env.scalar(
        "SELECT count(*) FROM system_access WHERE employee_id = ? AND system_id = ? AND revoked_at IS NULL",
        [q["employee_id"], q["system_id"]],
    ):
        raise ToolError(f"they already have {s['name']} access: revoke it first to change the level.")
    env.insert(
        "system_access",
        {
            "employee_id": q["employee_id"],
            "system_id": q["system_id"],
            "access_level": q["access_level"],
            "granted_by": me.id,
            "granted_at": env.now,
            "revoked_at": None,
        },
    )
    env.update(
        "access_requests",
        request_id,
        {
            "status": "granted",
            **({"approver_id": me.id, "decided_at": env.now} if q["approver_id"] is None else {}),
        },
    )
    return {"request_id": request_id, "status": "granted"}


@tool(kind="write", reads=ACCESS, writes=("system_access",), idempotent=True)
def revoke_access(env: Env, employee: Number, system: str) -> dict:
    """Revoke a worker's access to a system, now (IT admins, or the worker's HR partner when offboarding).

    Args:
        employee: Their employee number.
        system: The system's name.
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"it", "partner"}, "it_admins_grant_access", "revoke access")
    s = system_row(env, system)
    row = env.one(
        "SELECT access_id FROM system_access WHERE employee_id = ? AND system_id = ? AND revoked_at IS NULL",
        [who["employee_id"], s["system_id"]],
    )
    if row is None:
        raise ToolError(f"{employee} has no active {s['name']} access; list_system_access shows theirs.")
    env.update("system_access", row["access_id"], {"revoked_at": env.now})
    return {"employee": who["employee_number"], "system": s["name"], "revoked": True}


ACCESS_TOOLS = [
    list_systems,
    list_system_access,
    request_access,
    list_access_requests,
    approve_access_request,
    reject_access_request,
    grant_access,
    revoke_access,
]
