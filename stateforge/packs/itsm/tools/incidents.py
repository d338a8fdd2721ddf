"""Incidents, read side: the list with the filters the product's list view has, one incident with its SLA
clocks, its activity stream and its audit trail, breached SLAs, categories and SLA definitions."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, tool
from stateforge.tools.policies import refuse

from .common import (
    PEOPLE,
    Limit,
    Offset,
    actor,
    group,
    incident_scope,
    person,
    record,
    require_itil,
    sees_all,
    visible_incident,
)

READS = (
    *PEOPLE,
    "incidents",
    "categories",
    "configuration_items",
    "problems",
    "changes",
    "task_slas",
    "sla_definitions",
    "incident_journal",
    "incident_history",
    "attachments",
    "notifications",
)

VIEW = (
    "SELECT i.number, i.short_description, i.state, i.priority, i.impact, i.urgency, c.name AS category, "
    "c.subcategory, g.name AS assignment_group, a.user_name AS assigned_to, cl.user_name AS caller, "
    "cl.vip AS vip_caller, i.opened_at, i.assigned_at, i.resolved_at, i.closed_at, ci.name AS ci, "
    "i.major_incident, i.hold_reason, p.number AS problem "
    "FROM incidents AS i JOIN categories AS c ON c.category_id = i.category_id "
    "JOIN assignment_groups AS g ON g.group_id = i.assignment_group_id "
    "LEFT JOIN users AS a ON a.user_id = i.assigned_to JOIN users AS cl ON cl.user_id = i.caller_id "
    "LEFT JOIN configuration_items AS ci ON ci.ci_id = i.ci_id LEFT JOIN problems AS p ON p.problem_id = "
    "i.problem_id"
)
STATES = Literal["new", "in_progress", "on_hold", "resolved", "closed", "canceled", "open", "any"]
OPEN = ("new", "in_progress", "on_hold")


@tool(reads=READS)
def list_incidents(
    env: Env,
    state: STATES = "open",
    priority: int | None = None,
    max_priority: int | None = None,
    assignment_group: str | None = None,
    assigned_to: str | None = None,
    unassigned: bool = False,
    caller: str | None = None,
    category: str | None = None,
    ci: str | None = None,
    opened_after: dt.datetime | None = None,
    opened_before: dt.datetime | None = None,
    major_only: bool = False,
    sort: Literal["opened_at", "-opened_at", "priority", "number"] = "-opened_at",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Incidents matching every filter given, a page at a time (the incident list view).

    Args:
        state: new, in_progress, on_hold, resolved, closed, canceled; open (new, in progress or on hold); any.
        priority: Only this priority (1 critical .. 5 planning).
        max_priority: Only priorities up to this number (2 gives P1 and P2).
        assignment_group: The assignment group's name.
        assigned_to: The assignee's user name.
        unassigned: Only incidents nobody is assigned to.
        caller: The caller's user name.
        category: The category's name (Network, Hardware, Software, Access, Database, Inquiry, Security).
        ci: The configuration item's name.
        opened_after: Opened at or after this time.
        opened_before: Opened before this time.
        major_only: Only major incidents.
        sort: opened_at (oldest first), -opened_at (newest first), priority (most urgent first), number.

    Employees without the itil role see only the incidents they called in or opened.
    """
    scope, params = incident_scope(actor(env))
    where = [scope]
    if state == "open":
        where.append("i.state IN ('new', 'in_progress', 'on_hold')")
    elif state != "any":
        where.append("i.state = ?")
        params.append(state)
    if priority is not None:
        where.append("i.priority = ?")
        params.append(priority)
    if max_priority is not None:
        where.append("i.priority <= ?")
        params.append(max_priority)
    if assignment_group:
        where.append("i.assignment_group_id = ?")
        params.append(group(env, assignment_group, argument="assignment_group")["group_id"])
    if assigned_to:
        where.append("i.assigned_to = ?")
        params.append(person(env, assigned_to, argument="assigned_to")["user_id"])
    if unassigned:
        where.append("i.assigned_to IS NULL")
    if caller:
        where.append("i.caller_id = ?")
        params.append(person(env, caller, argument="caller")["user_id"])
    if category:
        where.append("lower(c.name) = lower(?)")
        params.append(category)
    if ci:
        where.append("lower(ci.name) = lower(?)")
        params.append(ci)
    if opened_after:
        where.append("i.opened_at >= ?")
        params.append(opened_after)
    if opened_before:
        where.append("i.opened_at < ?")
        params.append(opened_before)
    if major_only:
        where.append("i.major_incident")
    order = {
        "opened_at": "opened_at, number",
        "-opened_at": "opened_at DESC, number",
        "priority": "priority, opened_at, number",
        "number": "number",
    }[sort]
    return env.page(f"{VIEW} WHERE {' AND '.join(where)}", params, order_by=order, limit=limit, offset=offset)


@tool(reads=READS)
def get_incident(env: Env, number: str) -> dict:
    """One incident: its fields, its SLA clocks (response and resolution, with due times and breaches) and
    how many work notes, comments and attachments it has.

    Args:
        number: The incident number (INC0010001).
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    visible_incident(me, inc)
    row = env.one(f"{VIEW} WHERE i.incident_id = ?", [inc["incident_id"]])
    row["description"] = inc["description"]
    row["close_code"], row["close_notes"] = inc["close_code"], inc["close_notes"]
    row["resolved_by"] = env.scalar("SELECT user_name FROM users WHERE user_id = ?", [inc["resolved_by"]])
    row["parent_incident"] = env.scalar(
        "SELECT number FROM incidents WHERE incident_id = ?", [inc["parent_incident_id"]]
    )
    row["caused_by_change"] = env.scalar(
        "SELECT number FROM changes WHERE change_id = ?", [inc["caused_by_change_id"]]
    )
    row["slas"] = env.query(
        "SELECT d.name AS sla, d.target, t.start_time, t.due_at, t.stop_time, t.stage, t.has_breached, "
        "t.breached_at FROM task_slas AS t JOIN sla_definitions AS d USING (sla_id) WHERE t.incident_id = ? "
        "ORDER BY d.target DESC",
        [inc["incident_id"]],
    )
    row["counts"] = env.one(
        "SELECT (SELECT count(*) FROM incident_journal WHERE incident_id = $i AND kind = 'work_note') AS "
        "work_notes, "
        "(SELECT count(*) FROM incident_journal WHERE incident_id = $i AND kind = 'comment') AS comments, "
        "(SELECT count(*) FROM attachments WHERE incident_id = $i) AS attachments, "
        "(SELECT count(*) FROM notifications WHERE incident_id = $i) AS notifications",
        {"i": inc["incident_id"]},
    )
    return row


@tool(reads=READS)
def list_incident_activity(
    env: Env,
    number: str,
    kind: Literal["work_note", "comment", "all"] = "all",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """An incident's activity stream, newest first: work notes (internal) and comments (seen by the caller).

    Args:
        number: The incident number.
        kind: work_note, comment or all (work notes are internal: employees see comments only).
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    visible_incident(me, inc)
    if not sees_all(me):
        if kind == "work_note":
            raise refuse(
                "ticket_visibility", f"{me.name} is not IT staff: work notes are internal", argument="kind"
            )
        kind = "comment"
    where = "" if kind == "all" else " AND j.kind = ?"
    params = [inc["incident_id"]] + ([] if kind == "all" else [kind])
    return env.page(
        "SELECT j.entry_id, j.kind, u.user_name AS author, j.body, j.created_at FROM incident_journal AS j "
        f"JOIN users AS u ON u.user_id = j.author_id WHERE j.incident_id = ?{where}",
        params,
        order_by="created_at DESC, entry_id DESC",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def list_incident_history(
    env: Env, number: str, limit: Limit = 20, offset: Offset = 0
) -> dict:
    """An incident's audit trail, oldest first: which field changed from what to what, by whom, when.

    Args:
        number: The incident number.
    """
    me = actor(env)
    require_itil(me, "read an incident's audit trail")
    inc = record(env, "incidents", number)
    return env.page(
        "SELECT h.history_id, h.field_name, h.old_value, h.new_value, u.user_name AS changed_by, "
        "h.changed_at FROM incident_history AS h JOIN users AS u ON u.user_id = h.changed_by "
        "WHERE h.incident_id = ?",
        [inc["incident_id"]],
        order_by="changed_at, history_id",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def list_attachments(env: Env, number: str) -> dict:
    """The files attached to an incident (name, type, size, who uploaded it and when).

    Args:
        number: The incident number.
    """
    me = actor(env)
    inc = record(env, "incidents", number)
    visible_incident(me, inc)
    rows = env.query(
        "SELECT a.file_name, a.content_type, a.size_bytes, u.user_name AS uploaded_by, a.uploaded_at "
        "FROM attachments AS a JOIN users AS u ON u.user_id = a.uploaded_by WHERE a.incident_id = ? "
        "ORDER BY a.uploaded_at, a.attachment_id",
        [inc["incident_id"]],
    )
    return {"number": inc["number"], "attachments": rows}


@tool(reads=READS)
def list_breached_slas(
    env: Env,
    assignment_group: str | None = None,
    target: Literal["response", "resolution", "any"] = "any",
    breached_after: dt.datetime | None = None,
    open_only: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """SLA clocks that breached, latest breach first, with their incident (the SLA breach report).

    Args:
        assignment_group: Only incidents of this group.
        target: response, resolution or any.
        breached_after: Only breaches at or after this time.
        open_only: Only clocks of incidents still open.
    """
    require_itil(actor(env), "read the SLA breach report")
    where, params = ["t.has_breached"], []
    if assignment_group:
        where.append("i.assignment_group_id = ?")
        params.append(group(env, assignment_group, argument="assignment_group")["group_id"])
    if target != "any":
        where.append("d.target = ?")
        params.append(target)
    if breached_after:
        where.append("t.breached_at >= ?")
        params.append(breached_after)
    if open_only:
        where.append("i.state IN ('new', 'in_progress', 'on_hold')")
    return env.page(
        "SELECT i.number, i.short_description, i.priority, i.state, g.name AS assignment_group, d.name AS "
        "sla, "
        "d.target, t.due_at, t.breached_at, t.stop_time FROM task_slas AS t JOIN incidents AS i USING "
        "(incident_id) "
        "JOIN sla_definitions AS d USING (sla_id) JOIN assignment_groups AS g ON g.group_id = "
        "i.assignment_group_id "
        f"WHERE {' AND '.join(where)}",
        params,
        order_by="breached_at DESC, number, target",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def list_categories(env: Env) -> dict:
    """Incident categories with their subcategories and the team each routes to by default."""
    actor(env)
    return {
        "categories": env.query(
            "SELECT c.name AS category, c.subcategory, g.name AS default_group FROM categories AS c "
            "JOIN assignment_groups AS g ON g.group_id = c.default_group_id ORDER BY c.name, c.subcategory"
        )
    }


@tool(reads=READS)
def list_sla_definitions(env: Env) -> dict:
    """The SLA targets by priority: minutes to respond (an owner assigned) and to resolve."""
    actor(env)
    return {
        "slas": env.query(
            "SELECT name, target, priority, duration_minutes FROM sla_definitions "
            "ORDER BY target DESC, priority"
        )
    }
