"""Changes: the change list and form, the CAB's approvals and meetings, change tasks, and the change's UI
actions one state at a time (assess, request approval, approve/reject, schedule, implement, review, close,
cancel)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import (
    CHANGE_VIEWERS,
    PEOPLE,
    Actor,
    Limit,
    Offset,
    active_person,
    actor,
    ci,
    group,
    is_member,
    record,
    require_itil,
    require_view,
)

READS = (
    *PEOPLE,
    "changes",
    "change_approvals",
    "change_tasks",
    "cab_meetings",
    "cab_agenda_items",
    "configuration_items",
    "problems",
    "locations",
)
WRITES = ("changes", "change_approvals", "change_tasks", "cab_agenda_items")
VIEW = (
    "SELECT c.number, c.short_description, c.change_type, c.risk, c.impact, c.state, g.name AS "
    "assignment_group, "
    "a.user_name AS assigned_to, r.user_name AS requested_by, c.requested_at, ci.name AS ci, "
    "c.planned_start, c.planned_end, c.actual_start, c.actual_end, c.close_code, p.number AS problem "
    "FROM changes AS c JOIN assignment_groups AS g ON g.group_id = c.assignment_group_id "
    "LEFT JOIN users AS a ON a.user_id = c.assigned_to JOIN users AS r ON r.user_id = c.requested_by "
    "LEFT JOIN configuration_items AS ci ON ci.ci_id = c.ci_id LEFT JOIN problems AS p ON p.problem_id = "
    "c.problem_id"
)
STATES = Literal[
    "new", "assess", "authorize", "scheduled", "implement", "review", "closed", "canceled", "open", "any"
]
Words = Annotated[str, Field(min_length=1, max_length=300)]


def step_change(env: Env, number: str, states: tuple[str, ...], what: str) -> dict[str, Any]:
    """The change, refused (change_state_flow) unless it is in one of `states`."""
    chg = record(env, "changes", number)
    if chg["state"] in ("closed", "canceled") or chg["state"] not in states:
        raise refuse(
            "change_state_flow", f"{chg['number']} is {chg['state']}: cannot {what}", argument="number"
        )
    return chg


def change_manager(me: Actor, what: str) -> None:
    require_itil(me, what)
    if not me.has("change_manager"):
        raise refuse(
            "change_state_flow", f"{me.name} is not a change manager and cannot {what}"
        )


def works_change(env: Env, me: Actor, chg: dict[str, Any], what: str) -> None:
    """The change's group members and change managers work it."""
    require_itil(me, what)
    if not (me.has("change_manager") or is_member(env, chg["assignment_group_id"], me.id)):
        raise refuse(
            "itil_role_required",
            f"{me.name} is not in the change's group and cannot {what}"
        )


@tool(reads=READS)
def list_changes(
    env: Env,
    state: STATES = "open",
    risk: Literal["low", "moderate", "high", "very_high"] | None = None,
    change_type: Literal["standard", "normal", "emergency"] | None = None,
    assignment_group: str | None = None,
    ci_name: str | None = None,
    planned_after: dt.datetime | None = None,
    planned_before: dt.datetime | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Change requests matching the filters, by planned start (the change schedule).

    Args:
        state: A state; open (not closed or canceled); any.
        risk: low, moderate, high or very_high.
        change_type: standard, normal or emergency.
        assignment_group: The group's name.
        ci_name: The configuration item's name.
        planned_after: Planned to start at or after this time.
        planned_before: Planned to start before this time.
    """
    require_view(actor(env), CHANGE_VIEWERS, "changes and the CAB")
    where, params = ["TRUE"], []
    if state == "open":
        where.append("c.state NOT IN ('closed', 'canceled')")
    elif state != "any":
        where.append("c.state = ?")
        params.append(state)
    for column, value in (("c.risk", risk), ("c.change_type", change_type)):
        if value:
            where.append(f"{column} = ?")
            params.append(value)
    if assignment_group:
        where.append("c.assignment_group_id = ?")
        params.append(group(env, assignment_group, argument="assignment_group")["group_id"])
    if ci_name:
        where.append("lower(ci.name) = lower(?)")
        params.append(ci_name)
    if planned_after:
        where.append("c.planned_start >= ?")
        params.append(planned_after)
    if planned_before:
        where.append("c.planned_start < ?")
        params.append(planned_before)
    return env.page(
        f"{VIEW} WHERE {' AND '.join(where)}",
        params,
        order_by="planned_start, number",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def get_change(env: Env, number: str) -> dict:
    """One change with its approvals, its tasks and the CAB meetings it is on.

    Args:
        number: The change number (CHG0010001).
    """
    require_view(actor(env), CHANGE_VIEWERS, "changes and the CAB")
    chg = record(env, "changes", number)
    row = env.one(f"{VIEW} WHERE c.change_id = ?", [chg["change_id"]])
    row["approvals"] = env.query(
        "SELECT u.user_name AS approver, a.state, a.requested_at, a.decided_at, a.comments FROM "
        "change_approvals AS a "
        "JOIN users AS u ON u.user_id = a.approver_id WHERE a.change_id = ? ORDER BY u.user_name",
        [chg["change_id"]],
    )
    row["tasks"] = env.query(
        "SELECT t.number, t.short_description, t.state, g.name AS assignment_group, u.user_name AS "
        "assigned_to "
        "FROM change_tasks AS t JOIN assignment_groups AS g ON g.group_id = t.assignment_group_id "
        "LEFT JOIN users AS u ON u.user_id = t.assigned_to WHERE t.change_id = ? ORDER BY t.number",
        [chg["change_id"]],
    )
    row["cab"] = env.query(
        "SELECT m.name AS meeting, m.scheduled_at, a.outcome FROM cab_agenda_items AS a "
        "JOIN cab_meetings AS m USING (meeting_id) WHERE a.change_id = ? ORDER BY m.scheduled_at",
        [chg["change_id"]],
    )
    return row


@tool(reads=READS)
def list_change_conflicts(env: Env, number: str) -> dict:
    """Other open changes on the same configuration item whose planned windows overlap this change's.

    Args:
        number: The change number.
    """
    require_view(actor(env), CHANGE_VIEWERS, "changes and the CAB")
    chg = record(env, "changes", number)
    rows = env.query(
        f"{VIEW} WHERE c.change_id <> ? AND c.ci_id = ? AND c.state NOT IN ('closed', 'canceled') "
        "AND c.planned_start < ? AND c.planned_end > ? ORDER BY c.planned_start, c.number",
        [chg["change_id"], chg["ci_id"], chg["planned_end"], chg["planned_start"]],
    )
    return {"number": chg["number"], "conflicts": rows}


@tool(reads=READS)
def list_my_approvals(
    env: Env,
    state: Literal["requested", "approved", "rejected", "any"] = "requested",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The change approvals asked of you, with their change's number, risk and planned start.

    Args:
        state: requested (waiting for you), approved, rejected or any.
    """
    me = actor(env)
    where = "" if state == "any" else " AND a.state = ?"
    params = [me.id] + ([] if state == "any" else [state])
    return env.page(
        "SELECT c.number, c.short_description, c.risk, c.change_type, c.planned_start, a.state, "
        "a.requested_at, a.decided_at FROM change_approvals AS a JOIN changes AS c USING (change_id) "
        f"WHERE a.approver_id = ?{where}",
        params,
        order_by="planned_start, number",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def list_cab_meetings(
    env: Env,
    after: dt.datetime | None = None,
    before: dt.datetime | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """CAB meetings by date, with their chair and how many changes are on each agenda.

    Args:
        after: Held at or after this time.
        before: Held before this time.
    """
    require_view(actor(env), CHANGE_VIEWERS, "changes and the CAB")
    where, params = ["TRUE"], []
    if after:
        where.append("m.scheduled_at >= ?")
        params.append(after)
    if before:
        where.append("m.scheduled_at < ?")
        params.append(before)
    return env.page(
        "SELECT m.name, m.scheduled_at, u.user_name AS chair, l.name AS location, "
        "(SELECT count(*) FROM cab_agenda_items AS a WHERE a.meeting_id = m.meeting_id) AS agenda_items "
        "FROM cab_meetings AS m JOIN users AS u ON u.user_id = m.chair_id "
        f"JOIN locations AS l ON l.location_id = m.location_id WHERE {' AND '.join(where)}",
        params,
        order_by="scheduled_at, name",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def get_cab_meeting(env: Env, meeting: str) -> dict:
    """A CAB meeting's agenda: the changes on it and the board's outcome for each.

    Args:
        meeting: The meeting's name ("Weekly CAB #105").
    """
    require_view(actor(env), CHANGE_VIEWERS, "changes and the CAB")
    row = env.one(
        "SELECT meeting_id, name, scheduled_at FROM cab_meetings WHERE lower(name) = lower(?)", [meeting]
    )
    if row is None:
        raise ToolError(
            f"no CAB meeting is called {meeting!r}; list_cab_meetings shows them.", argument="meeting"
        )
    row["agenda"] = env.query(
        "SELECT c.number, c.short_description, c.risk, c.state, a.outcome FROM cab_agenda_items "
        "AS a JOIN changes AS c USING (change_id) WHERE a.meeting_id = ? ORDER BY c.number",
        [row.pop("meeting_id")],
    )
    return row


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def request_change(
    env: Env,
    short_description: Annotated[str, Field(min_length=3, max_length=120)],
    ci_name: str,
    planned_start: dt.datetime,
    planned_end: dt.datetime,
    change_type: Literal["standard", "normal", "emergency"] = "normal",
    risk: Literal["low", "moderate", "high", "very_high"] = "moderate",
    impact: Annotated[int, Field(ge=1, le=3)] = 3,
    assignment_group: str | None = None,
    problem: str | None = None,
) -> dict:
    """Raise a change request on a configuration item for a future window; it starts as new.

    Args:
        short_description: What will be done.
        ci_name: The configuration item changed.
        planned_start: When the work starts (in the future).
        planned_end: When it ends.
        change_type: standard (pre-approved, low risk), normal or emergency.
        risk: low, moderate, high or very_high.
        impact: 1 high, 2 medium, 3 low.
        assignment_group: The implementing group (default: the item's support group).
        problem: The problem number it fixes, if any.
    """
    me = actor(env)
    require_itil(me, "request changes")
    item = ci(env, ci_name, argument="ci_name")
    if item["operational_status"] == "retired":
        raise refuse("cmdb_changes", f"{item['name']} is retired: no changes on it", argument="ci_name")
    if planned_start <= env.now or planned_end <= planned_start:
        raise refuse(
            "change_authorization",
            "the planned window must start in the future and end after it starts",
            argument="planned_start",
        )
    if change_type == "standard" and risk != "low":
        raise refuse("change_authorization", "a standard change is low risk by definition", argument="risk")
    grp = (
        group(env, assignment_group, argument="assignment_group")
        if assignment_group
        else {"group_id": item["support_group_id"]}
    )
    prb = record(env, "problems", problem, argument="problem") if problem else None
    last = env.scalar("SELECT max(number) FROM changes")
    number = f"CHG{int(last[3:]) + 1:07d}" if last else "CHG0010001"
    env.insert(
        "changes",
        {
            "number": number,
            "short_description": short_description,
            "change_type": change_type,
            "risk": risk,
            "impact": impact,
            "state": "new",
            "requested_by": me.id,
            "requested_at": env.now,
            "assignment_group_id": grp["group_id"],
            "ci_id": item["ci_id"],
            "problem_id": prb["problem_id"] if prb else None,
            "planned_start": planned_start,
            "planned_end": planned_end,
        },
    )
    return {"number": number, "state": "new"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def assess_change(
    env: Env,
    number: str,
    risk: Literal["low", "moderate", "high", "very_high"],
    impact: Annotated[int, Field(ge=1, le=3)],
) -> dict:
    """Record a new change's assessed risk and impact; it moves to assessment (a standard change goes straight
    to scheduled: it is pre-approved).

    Args:
        number: The change number.
        risk: The assessed risk.
        impact: 1 high, 2 medium, 3 low.
    """
    me = actor(env)
    chg = step_change(env, number, ("new", "assess"), "be assessed")
    works_change(env, me, chg, "assess changes")
    if chg["change_type"] == "standard" and risk != "low":
        raise refuse("change_authorization", "a standard change is low risk by definition", argument="risk")
    state = "scheduled" if chg["change_type"] == "standard" else "assess"
    env.update("changes", chg["change_id"], {"risk": risk, "impact": impact, "state": state})
    return {"number": chg["number"], "state": state, "risk": risk}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def request_change_approval(
    env: Env,
    number: str,
    approvers: Annotated[list[str], Field(min_length=1, max_length=8)],
) -> dict:
    """Ask CAB members to approve an assessed change; it moves to authorize.

    Args:
        number: The change number.
        approvers: The user names of the CAB members asked (cab_member role).
    """
    me = actor(env)
    change_manager(me, "ask for change approvals")
    chg = step_change(env, number, ("assess",), "go to authorization (assess it first)")
    if chg["change_type"] == "standard":
        raise refuse(
            "change_authorization",
            "a standard change is pre-approved: it needs no approval",
            argument="number",
        )
    names = []
    for name in dict.fromkeys(a.strip().lower() for a in approvers):
        who = active_person(env, name, argument="approvers", role="approve changes")
        if not env.scalar(
            "SELECT count(*) FROM user_roles AS ur JOIN roles AS r USING (role_id) WHERE ur.user_id = ? "
            "AND r.name = 'cab_member'",
            [who["user_id"]],
        ):
            raise refuse(
                "cab_approvers_only", f"{who['user_name']} is not a CAB member", argument="approvers"
            )
        env.insert(
            "change_approvals",
            {
                "change_id": chg["change_id"],
                "approver_id": who["user_id"],
                "state": "requested",
                "requested_at": env.now,
            },
        )
        names.append(who["user_name"])
    env.update("changes", chg["change_id"], {"state": "authorize"})
    return {"number": chg["number"], "state": "authorize", "approvers": names}


def my_approval(env: Env, me: Actor, chg: dict[str, Any]) -> dict[str, Any]:
    row = env.one(
        "SELECT * FROM change_approvals WHERE change_id = ? AND approver_id = ?", [chg["change_id"], me.id]
    )
    if row is None or row["state"] != "requested":
        state = "no approval was asked of you" if row is None else f"your approval is already {row['state']}"
        raise refuse("cab_approvers_only", f"{chg['number']}: {state}", argument="number")
    return row


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def approve_change(env: Env, number: str, comments: Words | None = None) -> dict:
    """Approve a change awaiting authorization, as the CAB member the approval was asked of.

    Args:
        number: The change number.
        comments: Why, or conditions.
    """
    me = actor(env)
    chg = step_change(env, number, ("authorize",), "be approved")
    row = my_approval(env, me, chg)
    env.update(
        "change_approvals",
        row["approval_id"],
        {"state": "approved", "decided_at": env.now, "comments": comments},
    )
    waiting = env.scalar(
        "SELECT count(*) FROM change_approvals WHERE change_id = ? AND state = 'requested'",
        [chg["change_id"]],
    )
    return {"number": chg["number"], "approval": "approved", "approvals_waiting": waiting}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def reject_change(env: Env, number: str, comments: Words) -> dict:
    """Reject a change awaiting authorization, as the CAB member asked: the change is canceled, the other
    approvals and its tasks with it.

    Args:
        number: The change number.
        comments: Why it is rejected.
    """
    me = actor(env)
    chg = step_change(env, number, ("authorize",), "be rejected")
    row = my_approval(env, me, chg)
    env.update(
        "change_approvals",
        row["approval_id"],
        {"state": "rejected", "decided_at": env.now, "comments": comments},
    )
    cancel_rest(env, chg)
    return {"number": chg["number"], "approval": "rejected", "state": "canceled"}


def cancel_rest(env: Env, chg: dict[str, Any]) -> None:
    env.update_where(
        "change_approvals",
        "change_id = ? AND state = 'requested'",
        [chg["change_id"]],
        {"state": "cancelled"},
    )
    env.update_where(
        "change_tasks",
        "change_id = ? AND state IN ('open', 'in_progress')",
        [chg["change_id"]],
        {"state": "canceled"},
    )
    env.update_where(
        "cab_agenda_items",
        "change_id = ? AND outcome <> 'rejected'",
        [chg["change_id"]],
        {"outcome": "rejected"},
    )
    env.update("changes", chg["change_id"], {"state": "canceled"})


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def schedule_change(env: Env, number: str) -> dict:
    """Schedule an authorized change: every approval asked for it must be approved.

    Args:
        number: The change number.
    """
    me = actor(env)
    change_manager(me, "schedule changes")
    chg = step_change(env, number, ("authorize",), "be scheduled")
    pending = env.query(
        "SELECT u.user_name, a.state FROM change_approvals AS a JOIN users AS u ON u.user_id = "
        "a.approver_id WHERE a.change_id = ? AND a.state <> 'approved' ORDER BY u.user_name",
        [chg["change_id"]],
    )
    if pending:
        who = ", ".join(f"{p['user_name']} ({p['state']})" for p in pending)
        raise refuse(
            "change_authorization",
            f"{chg['number']} is not approved by everyone yet: {who}",
            argument="number",
        )
    env.update("changes", chg["change_id"], {"state": "scheduled"})
    return {"number": chg["number"], "state": "scheduled"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def start_change_implementation(env: Env, number: str) -> dict:
    """Start implementing a scheduled change; its open tasks move to in progress.

    Args:
        number: The change number.
    """
    me = actor(env)
    chg = step_change(env, number, ("scheduled",), "start implementation (it must be scheduled)")
    works_change(env, me, chg, "implement changes")
    # a high-risk change without an approved CAB review starts too: the procedure high_risk_cab_review is the
    # agent's to follow, checked by a policy verifier
    env.update_where(
        "change_tasks", "change_id = ? AND state = 'open'", [chg["change_id"]], {"state": "in_progress"}
    )
    env.update("changes", chg["change_id"], {"state": "implement", "actual_start": env.now})
    return {"number": chg["number"], "state": "implement"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def complete_change_implementation(env: Env, number: str) -> dict:
    """Finish implementing a change: it moves to review (every task must be closed or canceled).

    Args:
        number: The change number.
    """
    me = actor(env)
    chg = step_change(env, number, ("implement",), "complete implementation")
    works_change(env, me, chg, "implement changes")
    open_tasks = env.query(
        "SELECT number FROM change_tasks WHERE change_id = ? AND state IN ('open', 'in_progress') "
        "ORDER BY number",
        [chg["change_id"]],
    )
    if open_tasks:
        raise refuse(
            "change_state_flow",
            f"{chg['number']} has open tasks: {', '.join(t['number'] for t in open_tasks)}; close them first",
            argument="number",
        )
    env.update("changes", chg["change_id"], {"state": "review", "actual_end": env.now})
    return {"number": chg["number"], "state": "review"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def close_change(
    env: Env,
    number: str,
    close_code: Literal["successful", "successful_with_issues", "unsuccessful"],
) -> dict:
    """Close a reviewed change with its outcome.

    Args:
        number: The change number.
        close_code: successful, successful_with_issues or unsuccessful.
    """
    me = actor(env)
    chg = step_change(env, number, ("review",), "be closed (it must be in review)")
    works_change(env, me, chg, "close changes")
    env.update(
        "changes", chg["change_id"], {"state": "closed", "close_code": close_code, "closed_at": env.now}
    )
    return {"number": chg["number"], "state": "closed"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def cancel_change(env: Env, number: str) -> dict:
    """Cancel a change before its implementation starts; waiting approvals and open tasks are canceled too.

    Args:
        number: The change number.
    """
    me = actor(env)
    chg = step_change(env, number, ("new", "assess", "authorize", "scheduled"), "be canceled")
    if chg["requested_by"] != me.id:
        works_change(env, me, chg, "cancel changes")
    cancel_rest(env, chg)
    return {"number": chg["number"], "state": "canceled"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def add_change_task(
    env: Env,
    number: str,
    short_description: Annotated[str, Field(min_length=3, max_length=120)],
    assignment_group: str | None = None,
    assignee: str | None = None,
) -> dict:
    """Add a task to a change's implementation plan (before implementation ends).

    Args:
        number: The change number.
        short_description: What the task does.
        assignment_group: Its group (default: the change's).
        assignee: A member of that group.
    """
    me = actor(env)
    chg = step_change(env, number, ("new", "assess", "authorize", "scheduled", "implement"), "take new tasks")
    works_change(env, me, chg, "plan changes")
    gid = (
        group(env, assignment_group, argument="assignment_group")["group_id"]
        if assignment_group
        else chg["assignment_group_id"]
    )
    uid = None
    if assignee:
        who = active_person(env, assignee, argument="assignee")
        if not is_member(env, gid, who["user_id"]):
            raise refuse(
                "assignee_in_assignment_group",
                f"{who['user_name']} is not in the task's group",
                argument="assignee",
            )
        uid = who["user_id"]
    last = env.scalar("SELECT max(number) FROM change_tasks")
    num = f"CTASK{int(last[5:]) + 1:06d}" if last else "CTASK010001"
    env.insert(
        "change_tasks",
        {
            "number": num,
            "change_id": chg["change_id"],
            "short_description": short_description,
            "state": "in_progress" if chg["state"] == "implement" else "open",
            "assignment_group_id": gid,
            "assigned_to": uid,
            "opened_at": env.now,
        },
    )
    return {"number": num, "change": chg["number"]}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def close_change_task(env: Env, task: str) -> dict:
    """Close a change task that is done.

    Args:
        task: The task number (CTASK010001).
    """
    me = actor(env)
    require_itil(me, "close change tasks")
    row = record(env, "change_tasks", task, argument="task")
    if row["state"] in ("closed", "canceled"):
        raise refuse("change_state_flow", f"{row['number']} is {row['state']} already", argument="task")
    if not (me.has("change_manager") or is_member(env, row["assignment_group_id"], me.id)):
        raise refuse("itil_role_required", f"{me.name} is not in the task's group")
    env.update("change_tasks", row["task_id"], {"state": "closed", "closed_at": env.now})
    return {"number": row["number"], "state": "closed"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def add_change_to_cab_agenda(env: Env, number: str, meeting: str) -> dict:
    """Put a change awaiting authorization (or scheduled) on a CAB meeting held before its planned start.

    Args:
        number: The change number.
        meeting: The meeting's name ("Weekly CAB #105").
    """
    me = actor(env)
    change_manager(me, "set CAB agendas")
    chg = step_change(env, number, ("authorize", "scheduled"), "go to the CAB (ask for approval first)")
    row = env.one("SELECT * FROM cab_meetings WHERE lower(name) = lower(?)", [meeting])
    if row is None:
        raise ToolError(
            f"no CAB meeting is called {meeting!r}; list_cab_meetings shows them.", argument="meeting"
        )
    if row["scheduled_at"] < env.now or row["scheduled_at"] > chg["planned_start"]:
        raise ToolError(
            f"{row['name']} ({row['scheduled_at']}) is not between now and the change's planned start "
            f"({chg['planned_start']}); pick another meeting.",
            argument="meeting",
        )
    env.insert(
        "cab_agenda_items",
        {"meeting_id": row["meeting_id"], "change_id": chg["change_id"], "outcome": "pending"},
    )
    return {"number": chg["number"], "meeting": row["name"], "outcome": "pending"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def record_cab_outcome(
    env: Env, number: str, meeting: str, outcome: Literal["approved", "rejected", "deferred"]
) -> dict:
    """Record the CAB's decision on a change on a meeting's agenda (rejected cancels the change).

    Args:
        number: The change number.
        meeting: The meeting's name.
        outcome: approved, rejected or deferred.
    """
    me = actor(env)
    change_manager(me, "record CAB decisions")
    chg = step_change(env, number, ("authorize", "scheduled"), "be reviewed")
    row = env.one(
        "SELECT a.meeting_id FROM cab_agenda_items AS a JOIN cab_meetings AS m USING (meeting_id) "
        "WHERE a.change_id = ? AND lower(m.name) = lower(?)",
        [chg["change_id"], meeting],
    )
    if row is None:
        raise ToolError(
            f"{chg['number']} is not on the agenda of {meeting!r}; add it first.", argument="meeting"
        )
    env.update(
        "cab_agenda_items",
        {"meeting_id": row["meeting_id"], "change_id": chg["change_id"]},
        {"outcome": outcome},
    )
    if outcome == "rejected":
        cancel_rest(env, chg)
    return {"number": chg["number"], "outcome": outcome}


CHANGE_TOOLS = [
    list_changes,
    get_change,
    list_change_conflicts,
    list_my_approvals,
    list_cab_meetings,
    get_cab_meeting,
    request_change,
    assess_change,
    request_change_approval,
    approve_change,
    reject_change,
    schedule_change,
    start_change_implementation,
    complete_change_implementation,
    close_change,
    cancel_change,
    add_change_task,
    close_change_task,
    add_change_to_cab_agenda,
    record_cab_outcome,
]
