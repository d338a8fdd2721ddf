"""Incidents, write side: the form's UI actions (create, assign, reassign, hold, resolve, close, reopen,
cancel), the activity stream (work notes, comments, attachments) and the major-incident actions. Every
change keeps the SLA clocks and the audit trail in step, as the product does."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import (
    PEOPLE,
    Actor,
    Text,
    active_person,
    actor,
    audit,
    category,
    ci,
    group,
    is_member,
    journal,
    record,
    require_itil,
)
from .incidents import READS

WRITES = ("incidents", "task_slas", "incident_journal", "incident_history", "attachments", "notifications")
Level = Annotated[int, Field(ge=1, le=3, description="1 high, 2 medium, 3 low.")]
CLOSE_CODES = Literal["solved", "workaround", "not_reproducible", "duplicate", "user_error"]
HOLD = Literal["awaiting_caller", "awaiting_change", "awaiting_vendor", "awaiting_problem"]
OPEN = ("new", "in_progress", "on_hold")


def sync_slas(env: Env, incident_id: int) -> None:
    """Bring an incident's two SLA clocks in line with it: the definitions of its priority, due from its
    opening, stopped by its assignment (response) and resolution, breached when stopped late or past due."""
    inc = env.one("SELECT * FROM incidents WHERE incident_id = ?", [incident_id])
    clocks = env.query(
        "SELECT t.task_sla_id, d.target FROM task_slas AS t JOIN sla_definitions AS d USING (sla_id) "
        "WHERE t.incident_id = ? ORDER BY t.task_sla_id",
        [incident_id],
    )
    for clock in clocks:
        definition = env.one(
            "SELECT sla_id, duration_minutes FROM sla_definitions WHERE target = ? AND priority = ?",
            [clock["target"], inc["priority"]],
        )
        due = inc["opened_at"] + dt.timedelta(minutes=definition["duration_minutes"])
        stop = (
            None
            if inc["state"] == "canceled"
            else (inc["assigned_at"] if clock["target"] == "response" else inc["resolved_at"])
        )
        if inc["state"] == "canceled":
            stage = "cancelled"
        elif stop is not None:
            stage = "achieved" if stop <= due else "breached"
        else:
            stage = "breached" if due < env.now else "in_progress"
        env.update(
            "task_slas",
            clock["task_sla_id"],
            {
                "sla_id": definition["sla_id"],
                "start_time": inc["opened_at"],
                "due_at": due,
                "stop_time": stop,
                "stage": stage,
                "has_breached": stage == "breached",
                "breached_at": due if stage == "breached" else None,
            },
        )


def open_incident(env: Env, number: str, what: str, states: tuple[str, ...] = OPEN) -> dict[str, Any]:
    """The incident, refused (incident_state_flow) unless its state is one of `states`."""
    inc = record(env, "incidents", number)
    if inc["state"] not in states:
        raise refuse(
            "incident_state_flow",
            f"{inc['number']} is {inc['state'].replace('_', ' ')}: cannot {what}",
            argument="number",
        )
    return inc


def may_touch(env: Env, me: Actor, inc: dict[str, Any], what: str) -> None:
    """The caller may comment on their own incident; everything else needs the itil role."""
    if inc["caller_id"] != me.id:
        require_itil(me, what)


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def create_incident(
    env: Env,
    short_description: Annotated[str, Field(min_length=3, max_length=120)],
    category_name: str,
    subcategory: str,
    impact: Level = 3,
    urgency: Level = 3,
    caller: str | None = None,
    ci_name: str | None = None,
    description: Annotated[str, Field(max_length=1000)] | None = None,
    contact_type: Literal["phone", "email", "self_service", "walk_in", "monitoring"] = "self_service",
) -> dict:
    """Open an incident; it goes to its category's default group, with priority from impact and urgency and
    its response and resolution SLA clocks started.

    Args:
        short_description: One line saying what is wrong.
        category_name: The category (Network, Hardware, Software, Access, Database, Inquiry, Security).
        subcategory: The subcategory (VPN, Laptop, Email, Password reset, ...; list_categories).
        impact: 1 high (many users or a service), 2 medium, 3 low (one person).
        urgency: 1 high (work stopped), 2 medium, 3 low.
        caller: The user name of the person affected (default: you); only the service desk opens for others.
        ci_name: The configuration item affected, if known.
        description: More detail.
        contact_type: How it was reported.
    """
    me = actor(env)
    caller_row = me.user
    if caller and caller.strip().lower() != me.name.lower():
        require_itil(me, "open incidents for someone else")
        caller_row = active_person(env, caller, argument="caller", role="report an incident")
    cat = category(env, category_name, subcategory)
    item = None
    if ci_name:
        item = ci(env, ci_name, argument="ci_name")
        if item["operational_status"] == "retired":
            raise refuse(
                "cmdb_changes", f"{item['name']} is retired: no new incidents on it", argument="ci_name"
            )
    last = env.scalar("SELECT max(number) FROM incidents")
    number = f"INC{int(last[3:]) + 1:07d}" if last else "INC0010001"
    inc = env.insert(
        "incidents",
        {
            "number": number,
            "short_description": short_description,
            "description": description,
            "caller_id": caller_row["user_id"],
            "opened_by": me.id,
            "opened_at": env.now,
            "contact_type": contact_type,
            "category_id": cat["category_id"],
            "ci_id": item["ci_id"] if item else None,
            "impact": impact,
            "urgency": urgency,
            "priority": impact + urgency - 1,
            "state": "new",
            "assignment_group_id": cat["default_group_id"],
            "major_incident": False,
            "reopen_count": 0,
        },
    )
    for target in ("response", "resolution"):
        sla = env.one(
            "SELECT sla_id, duration_minutes FROM sla_definitions WHERE target = ? AND priority = ?",
            [target, inc["priority"]],
        )
        env.insert(
            "task_slas",
            {
                "incident_id": inc["incident_id"],
                "sla_id": sla["sla_id"],
                "start_time": env.now,
                "due_at": env.now + dt.timedelta(minutes=sla["duration_minutes"]),
                "stage": "in_progress",
                "has_breached": False,
            },
        )
    name = env.scalar("SELECT name FROM assignment_groups WHERE group_id = ?", [cat["default_group_id"]])
    return {"number": number, "priority": inc["priority"], "assignment_group": name, "state": "new"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def assign_incident(env: Env, number: str, assignee: str) -> dict:
    """Assign an open incident to a member of its assignment group; a new incident moves to in progress and
    its response clock stops.

    Args:
        number: The incident number.
        assignee: The user name of a member of the incident's assignment group.
    """
    me = actor(env)
    require_itil(me, "assign incidents")
    inc = open_incident(env, number, "be assigned")
    who = active_person(env, assignee, argument="assignee")
    if not is_member(env, inc["assignment_group_id"], who["user_id"]):
        gname = env.scalar(
            "SELECT name FROM assignment_groups WHERE group_id = ?", [inc["assignment_group_id"]]
        )
        raise refuse(
            "assignee_in_assignment_group",
            f"{who['user_name']} is not a member of {gname}",
            argument="assignee",
        )
    changes: dict[str, Any] = {"assigned_to": who["user_id"]}
    if inc["assigned_at"] is None:
        changes["assigned_at"] = env.now
    if inc["state"] == "new":
        changes["state"] = "in_progress"
        audit(env, inc["incident_id"], "state", "new", "in_progress", me)
    audit(env, inc["incident_id"], "assigned_to", None, who["user_name"], me)
    env.update("incidents", inc["incident_id"], changes)
    sync_slas(env, inc["incident_id"])
    return {
        "number": inc["number"],
        "assigned_to": who["user_name"],
        "state": changes.get("state", inc["state"]),
    }


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def reassign_incident(
    env: Env,
    number: str,
    assignment_group: str,
    reason: str | None = None,
    assignee: str | None = None,
) -> dict:
    """Move an open incident to another assignment group, with a work note saying why; the assignee is
    cleared unless a member of the new group is named.

    Args:
        number: The incident number.
        assignment_group: The new group's name.
        reason: Why it moves (written as a work note; required by procedure).
        assignee: Optionally, a member of the new group to assign it to.
    """
    me = actor(env)
    require_itil(me, "reassign incidents")
    inc = open_incident(env, number, "be reassigned")
    new = group(env, assignment_group, argument="assignment_group")
    if new["group_id"] == inc["assignment_group_id"]:
        raise ToolError(
            f"{inc['number']} is already with {new['name']}; use assign_incident to pick a member.",
            argument="assignment_group",
        )
    if not reason or not reason.strip():
        raise refuse(
            "reassignment_work_note",
            f"moving {inc['number']} to {new['name']} needs a reason",
            argument="reason",
        )
    changes: dict[str, Any] = {"assignment_group_id": new["group_id"], "assigned_to": None}
    if assignee:
        who = active_person(env, assignee, argument="assignee")
        if not is_member(env, new["group_id"], who["user_id"]):
            raise refuse(
                "assignee_in_assignment_group",
                f"{who['user_name']} is not a member of {new['name']}",
                argument="assignee",
            )
        changes["assigned_to"] = who["user_id"]
        if inc["assigned_at"] is None:
            changes["assigned_at"] = env.now
        if inc["state"] == "new":
            changes["state"] = "in_progress"
    old = env.scalar("SELECT name FROM assignment_groups WHERE group_id = ?", [inc["assignment_group_id"]])
    audit(env, inc["incident_id"], "assignment_group", old, new["name"], me)
    journal(
        env, inc["incident_id"], me, "work_note", f"Reassigned from {old} to {new['name']}: {reason.strip()}"
    )
    env.update("incidents", inc["incident_id"], changes)
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "assignment_group": new["name"], "assigned_to": assignee}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def set_impact_urgency(env: Env, number: str, impact: Level, urgency: Level) -> dict:
    """Change an open incident's impact and urgency; its priority (impact + urgency - 1) and SLA clocks
    follow.

    Args:
        number: The incident number.
        impact: 1 high, 2 medium, 3 low.
        urgency: 1 high, 2 medium, 3 low.
    """
    me = actor(env)
    require_itil(me, "change priorities")
    inc = open_incident(env, number, "change priority")
    priority = impact + urgency - 1
    if inc["major_incident"] and priority != 1:
        raise refuse(
            "major_incident_declaration",
            f"{inc['number']} is a major incident and must stay P1",
            argument="impact",
        )
    if priority != inc["priority"]:
        audit(env, inc["incident_id"], "priority", inc["priority"], priority, me)
    env.update("incidents", inc["incident_id"], {"impact": impact, "urgency": urgency, "priority": priority})
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "priority": priority}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def put_incident_on_hold(env: Env, number: str, hold_reason: HOLD) -> dict:
    """Put an incident in progress on hold, with the reason it waits.

    Args:
        number: The incident number.
        hold_reason: awaiting_caller, awaiting_change, awaiting_vendor or awaiting_problem.
    """
    me = actor(env)
    require_itil(me, "put incidents on hold")
    inc = open_incident(env, number, "go on hold", ("in_progress",))
    audit(env, inc["incident_id"], "state", "in_progress", "on_hold", me)
    env.update("incidents", inc["incident_id"], {"state": "on_hold", "hold_reason": hold_reason})
    return {"number": inc["number"], "state": "on_hold", "hold_reason": hold_reason}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def resume_incident(env: Env, number: str) -> dict:
    """Take an incident off hold: back to in progress.

    Args:
        number: The incident number.
    """
    me = actor(env)
    require_itil(me, "resume incidents")
    inc = open_incident(env, number, "be resumed", ("on_hold",))
    audit(env, inc["incident_id"], "state", "on_hold", "in_progress", me)
    env.update("incidents", inc["incident_id"], {"state": "in_progress", "hold_reason": None})
    return {"number": inc["number"], "state": "in_progress"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def resolve_incident(
    env: Env,
    number: str,
    close_code: CLOSE_CODES,
    close_notes: Annotated[str, Field(min_length=3, max_length=400)],
) -> dict:
    """Resolve an incident you are assigned: it records the close code and notes, stops the resolution clock
    and waits for the caller's confirmation (it closes later).

    Args:
        number: The incident number.
        close_code: solved, workaround, not_reproducible, duplicate or user_error.
        close_notes: What was done.
    """
    me = actor(env)
    require_itil(me, "resolve incidents")
    inc = open_incident(env, number, "be resolved", ("in_progress", "on_hold"))
    if inc["assigned_to"] != me.id:
        raise refuse(
            "incident_state_flow",
            f"only the assignee of {inc['number']} resolves it; assign it first"
        )
    # a P1 resolved with no major-incident manager informed is allowed: the procedure
    # major_incident_procedure is the agent's to follow, checked by a policy verifier
    audit(env, inc["incident_id"], "state", inc["state"], "resolved", me)
    env.update(
        "incidents",
        inc["incident_id"],
        {
            "state": "resolved",
            "hold_reason": None,
            "resolved_at": env.now,
            "resolved_by": me.id,
            "close_code": close_code,
            "close_notes": close_notes,
        },
    )
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "state": "resolved"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def close_incident(env: Env, number: str) -> dict:
    """Close a resolved incident (the caller confirmed the fix).

    Args:
        number: The incident number.
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    may_touch(env, me, inc, "close incidents")
    inc = open_incident(env, number, "be closed (only resolved incidents close)", ("resolved",))
    audit(env, inc["incident_id"], "state", "resolved", "closed", me)
    env.update("incidents", inc["incident_id"], {"state": "closed", "closed_at": env.now})
    return {"number": inc["number"], "state": "closed"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def reopen_incident(env: Env, number: str, reason: Text) -> dict:
    """Reopen a resolved incident that is not fixed after all: back to in progress with its assignee, the
    resolution cleared, a comment saying why.

    Args:
        number: The incident number.
        reason: Why it is reopened (written as a comment).
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    may_touch(env, me, inc, "reopen incidents")
    inc = open_incident(env, number, "be reopened (only resolved incidents reopen)", ("resolved",))
    audit(env, inc["incident_id"], "state", "resolved", "in_progress", me)
    journal(env, inc["incident_id"], me, "comment", reason)
    env.update(
        "incidents",
        inc["incident_id"],
        {
            "state": "in_progress",
            "resolved_at": None,
            "resolved_by": None,
            "close_code": None,
            "close_notes": None,
            "reopen_count": inc["reopen_count"] + 1,
        },
    )
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "state": "in_progress", "reopen_count": inc["reopen_count"] + 1}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def cancel_incident(env: Env, number: str, reason: Text) -> dict:
    """Cancel a new incident opened in error (nobody has taken it yet); its SLA clocks are cancelled.

    Args:
        number: The incident number.
        reason: Why (written as a work note).
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    may_touch(env, me, inc, "cancel incidents")
    inc = open_incident(env, number, "be canceled (only new incidents are)", ("new",))
    journal(env, inc["incident_id"], me, "work_note", f"Canceled: {reason}")
    audit(env, inc["incident_id"], "state", "new", "canceled", me)
    env.update("incidents", inc["incident_id"], {"state": "canceled", "close_code": "canceled"})
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "state": "canceled"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def add_work_note(env: Env, number: str, text: Text) -> dict:
    """Add an internal work note to an incident that is not closed or canceled.

    Args:
        number: The incident number.
        text: The note.
    """
    me = actor(env)
    require_itil(me, "write work notes")
    inc = open_incident(env, number, "take notes", ("new", "in_progress", "on_hold", "resolved"))
    journal(env, inc["incident_id"], me, "work_note", text)
    return {"number": inc["number"], "kind": "work_note"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def add_comment(env: Env, number: str, text: Text) -> dict:
    """Add a comment the caller sees (the caller may comment on their own incident too).

    Args:
        number: The incident number.
        text: The comment.
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    may_touch(env, me, inc, "comment on others' incidents")
    inc = open_incident(env, number, "take comments", ("new", "in_progress", "on_hold", "resolved"))
    journal(env, inc["incident_id"], me, "comment", text)
    return {"number": inc["number"], "kind": "comment"}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def add_attachment(
    env: Env,
    number: str,
    file_name: Annotated[str, Field(min_length=1, max_length=120)],
    content_type: Annotated[str, Field(min_length=3, max_length=60)],
    size_bytes: Annotated[int, Field(ge=1, le=26_214_400)],
) -> dict:
    """Attach a file (its metadata) to an incident that is not closed; at most 25 MB.

    Args:
        number: The incident number.
        file_name: The file's name.
        content_type: Its MIME type (image/png, text/plain, ...).
        size_bytes: Its size in bytes.
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    may_touch(env, me, inc, "attach files to others' incidents")
    inc = open_incident(env, number, "take attachments", ("new", "in_progress", "on_hold", "resolved"))
    env.insert(
        "attachments",
        {
            "incident_id": inc["incident_id"],
            "file_name": file_name,
            "content_type": content_type,
            "size_bytes": size_bytes,
            "uploaded_by": me.id,
            "uploaded_at": env.now,
        },
    )
    return {"number": inc["number"], "file_name": file_name}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def set_incident_category(
    env: Env, number: str, category_name: str, subcategory: str
) -> dict:
    """Recategorise an open incident (its group stays; reassign it if the new category belongs elsewhere).

    Args:
        number: The incident number.
        category_name: The category.
        subcategory: The subcategory.
    """
    me = actor(env)
    require_itil(me, "recategorise incidents")
    inc = open_incident(env, number, "be recategorised")
    cat = category(env, category_name, subcategory)
    old = env.one("SELECT name, subcategory FROM categories WHERE category_id = ?", [inc["category_id"]])
    audit(
        env,
        inc["incident_id"],
        "category",
        f"{old['name']} / {old['subcategory']}",
        f"{cat['name']} / {cat['subcategory']}",
        me,
    )
    env.update("incidents", inc["incident_id"], {"category_id": cat["category_id"]})
    return {"number": inc["number"], "category": cat["name"], "subcategory": cat["subcategory"]}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def set_incident_ci(env: Env, number: str, ci_name: str) -> dict:
    """Record which configuration item an open incident affects.

    Args:
        number: The incident number.
        ci_name: The configuration item's name.
    """
    me = actor(env)
    require_itil(me, "edit incidents")
    inc = open_incident(env, number, "be edited")
    item = ci(env, ci_name, argument="ci_name")
    if item["operational_status"] == "retired":
        raise refuse("cmdb_changes", f"{item['name']} is retired: no new incidents on it", argument="ci_name")
    env.update("incidents", inc["incident_id"], {"ci_id": item["ci_id"]})
    return {"number": inc["number"], "ci": item["name"]}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=False)
def notify_major_incident_manager(env: Env, number: str, manager: str) -> dict:
    """Inform a major-incident manager of an incident (an SMS), as the major-incident procedure asks for P1s.

    Args:
        number: The incident number.
        manager: The user name of a user holding major_incident_manager.
    """
    me = actor(env)
    require_itil(me, "send notifications")
    inc = open_incident(env, number, "send notifications", ("new", "in_progress", "on_hold"))
    who = active_person(env, manager, argument="manager", role="be notified")
    if not env.scalar(
        "SELECT count(*) FROM user_roles AS ur JOIN roles AS r USING (role_id) WHERE ur.user_id = ? "
        "AND r.name = 'major_incident_manager'",
        [who["user_id"]],
    ):
        raise ToolError(
            f"{who['user_name']} is not a major-incident manager; get_group 'Major Incident "
            "Management' lists them.",
            argument="manager",
        )
    env.insert(
        "notifications",
        {
            "incident_id": inc["incident_id"],
            "recipient_id": who["user_id"],
            "channel": "sms",
            "subject": f"P1 incident {inc['number']} needs a major-incident manager",
            "sent_at": env.now,
        },
    )
    return {"number": inc["number"], "notified": who["user_name"]}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def declare_major_incident(env: Env, number: str) -> dict:
    """Declare an open P1 incident a major incident: it moves to Major Incident Management with you (a
    major-incident manager) as its assignee.

    Args:
        number: The incident number.
    """
    me = actor(env)
    require_itil(me, "declare major incidents")
    if not me.has("major_incident_manager"):
        raise refuse(
            "major_incident_declaration", f"{me.name} is not a major-incident manager"
        )
    inc = open_incident(env, number, "become a major incident")
    if inc["priority"] != 1:
        raise refuse(
            "major_incident_declaration",
            f"{inc['number']} is P{inc['priority']}: only P1 incidents become major incidents",
            argument="number",
        )
    mim = env.scalar("SELECT group_id FROM assignment_groups WHERE name = 'Major Incident Management'")
    changes: dict[str, Any] = {"major_incident": True, "assignment_group_id": mim, "assigned_to": me.id}
    if inc["assigned_at"] is None:
        changes["assigned_at"] = env.now
    if inc["state"] == "new":
        changes["state"] = "in_progress"
    if inc["assignment_group_id"] != mim:
        old = env.scalar(
            "SELECT name FROM assignment_groups WHERE group_id = ?", [inc["assignment_group_id"]]
        )
        audit(env, inc["incident_id"], "assignment_group", old, "Major Incident Management", me)
        journal(env, inc["incident_id"], me, "work_note", f"Declared a major incident; moved from {old}.")
    env.update("incidents", inc["incident_id"], changes)
    sync_slas(env, inc["incident_id"])
    return {"number": inc["number"], "major_incident": True, "assigned_to": me.name}


@tool(kind="write", reads=READS, writes=WRITES, idempotent=True)
def link_child_incident(env: Env, number: str, parent: str) -> dict:
    """Make an open incident a child of a major incident (the same outage reported again).

    Args:
        number: The child incident's number.
        parent: The major incident's number.
    """
    me = actor(env)
    require_itil(me, "link incidents")
    inc = open_incident(env, number, "be linked")
    par = record(env, "incidents", parent, argument="parent")
    if par["incident_id"] == inc["incident_id"] or not par["major_incident"]:
        raise ToolError(
            f"{par['number']} is not a major incident; children go under a major incident.", argument="parent"
        )
    env.update("incidents", inc["incident_id"], {"parent_incident_id": par["incident_id"]})
    return {"number": inc["number"], "parent": par["number"]}


INCIDENT_WRITES = [
    create_incident,
    assign_incident,
    reassign_incident,
    set_impact_urgency,
    put_incident_on_hold,
    resume_incident,
    resolve_incident,
    close_incident,
    reopen_incident,
    cancel_incident,
    add_work_note,
    add_comment,
    add_attachment,
    set_incident_category,
    set_incident_ci,
    notify_major_incident_manager,
    declare_major_incident,
    link_child_incident,
]
__all__ = ["INCIDENT_WRITES", "PEOPLE"]
