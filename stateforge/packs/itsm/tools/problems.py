"""Problems: the list, one problem with its incidents, and the problem manager's actions."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import (
    PEOPLE,
    PROBLEM_VIEWERS,
    Limit,
    Offset,
    active_person,
    actor,
    category,
    ci,
    group,
    is_member,
    record,
    require_itil,
    require_view,
)

READS = (*PEOPLE, "problems", "incidents", "categories", "configuration_items", "changes")
VIEW = (
    "SELECT p.number, p.short_description, p.state, p.priority, c.name AS category, c.subcategory, "
    "g.name AS assignment_group, a.user_name AS assigned_to, p.known_error, p.root_cause, p.workaround, "
    "p.opened_at, p.resolved_at, p.closed_at, ci.name AS ci, "
    "(SELECT count(*) FROM incidents AS i WHERE i.problem_id = p.problem_id) AS incidents "
    "FROM problems AS p JOIN categories AS c ON c.category_id = p.category_id "
    "JOIN assignment_groups AS g ON g.group_id = p.assignment_group_id "
    "LEFT JOIN users AS a ON a.user_id = p.assigned_to LEFT JOIN configuration_items AS ci ON ci.ci_id = "
    "p.ci_id"
)
Words = Annotated[str, Field(min_length=3, max_length=400)]


def manager_only(me, what: str) -> None:
    if not me.has("problem_manager"):
        raise refuse(
            "problem_management", f"{me.name} is not a problem manager and cannot {what}"
        )


def live_problem(env: Env, number: str, what: str) -> dict:
    prb = record(env, "problems", number)
    if prb["state"] == "closed":
        raise refuse("closed_records_frozen", f"{prb['number']} is closed: cannot {what}", argument="number")
    return prb


@tool(reads=READS)
def list_problems(
    env: Env,
    state: Literal[
        "new", "assess", "root_cause_analysis", "fix_in_progress", "resolved", "closed", "open", "any"
    ] = "open",
    known_error: bool | None = None,
    category_name: str | None = None,
    assignment_group: str | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Problems matching the filters, newest first, with how many incidents each explains.

    Args:
        state: A state; open (not resolved or closed); any.
        known_error: Only known errors (true) or only the others (false).
        category_name: The category's name.
        assignment_group: The group's name.
    """
    require_view(actor(env), PROBLEM_VIEWERS, "problems")
    where, params = ["TRUE"], []
    if state == "open":
        where.append("p.state NOT IN ('resolved', 'closed')")
    elif state != "any":
        where.append("p.state = ?")
        params.append(state)
    if known_error is not None:
        where.append("p.known_error = ?")
        params.append(known_error)
    if category_name:
        where.append("lower(c.name) = lower(?)")
        params.append(category_name)
    if assignment_group:
        where.append("p.assignment_group_id = ?")
        params.append(group(env, assignment_group, argument="assignment_group")["group_id"])
    return env.page(
        f"{VIEW} WHERE {' AND '.join(where)}",
        params,
        order_by="opened_at DESC, number",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def get_problem(env: Env, number: str) -> dict:
    """One problem with the incidents linked to it and the changes that fix it.

    Args:
        number: The problem number (PRB0010001).
    """
    require_view(actor(env), PROBLEM_VIEWERS, "problems")
    prb = record(env, "problems", number)
    row = env.one(f"{VIEW} WHERE p.problem_id = ?", [prb["problem_id"]])
    row["linked_incidents"] = env.query(
        "SELECT number, short_description, state, priority, opened_at FROM incidents "
        "WHERE problem_id = ? ORDER BY opened_at, number",
        [prb["problem_id"]],
    )
    row["changes"] = env.query(
        "SELECT number, short_description, state FROM changes WHERE problem_id = ? ORDER BY number",
        [prb["problem_id"]],
    )
    return row


@tool(kind="write", reads=READS, writes=("problems",), idempotent=False)
def create_problem(
    env: Env,
    short_description: Annotated[str, Field(min_length=3, max_length=120)],
    category_name: str,
    subcategory: str,
    priority: Annotated[int, Field(ge=1, le=5)] = 3,
    assignment_group: str = "Problem Management",
    ci_name: str | None = None,
) -> dict:
    """Open a problem to find the cause of recurring incidents.

    Args:
        short_description: What keeps happening.
        category_name: The category.
        subcategory: The subcategory.
        priority: 1 critical .. 5 planning.
        assignment_group: The investigating group (default Problem Management).
        ci_name: The configuration item involved, if known.
    """
    me = actor(env)
    require_itil(me, "open problems")
    cat = category(env, category_name, subcategory)
    grp = group(env, assignment_group, argument="assignment_group")
    item = ci(env, ci_name, argument="ci_name") if ci_name else None
    last = env.scalar("SELECT max(number) FROM problems")
    number = f"PRB{int(last[3:]) + 1:07d}" if last else "PRB0010001"
    env.insert(
        "problems",
        {
            "number": number,
            "short_description": short_description,
            "category_id": cat["category_id"],
            "ci_id": item["ci_id"] if item else None,
            "state": "new",
            "priority": priority,
            "opened_by": me.id,
            "opened_at": env.now,
            "assignment_group_id": grp["group_id"],
            "known_error": False,
        },
    )
    return {"number": number, "state": "new"}


@tool(kind="write", reads=READS, writes=("incidents", "problems"), idempotent=True)
def link_incident_to_problem(env: Env, incident: str, problem: str) -> dict:
    """Link an incident to the problem that explains it.

    Args:
        incident: The incident number.
        problem: The problem number.
    """
    me = actor(env)
    require_itil(me, "link incidents to problems")
    inc = record(env, "incidents", incident, argument="incident")
    prb = live_problem(env, problem, "take new incidents")
    if inc["state"] in ("closed", "canceled"):
        raise refuse(
            "incident_state_flow", f"{inc['number']} is {inc['state']}: cannot be linked", argument="incident"
        )
    env.update("incidents", inc["incident_id"], {"problem_id": prb["problem_id"]})
    return {"incident": inc["number"], "problem": prb["number"]}


@tool(kind="write", reads=READS, writes=("problems",), idempotent=True)
def assign_problem(env: Env, number: str, assignee: str) -> dict:
    """Assign a problem to a member of its group; a new problem moves to assessment.

    Args:
        number: The problem number.
        assignee: The member's user name.
    """
    me = actor(env)
    require_itil(me, "assign problems")
    prb = live_problem(env, number, "be assigned")
    who = active_person(env, assignee, argument="assignee")
    if not is_member(env, prb["assignment_group_id"], who["user_id"]):
        raise refuse(
            "assignee_in_assignment_group",
            f"{who['user_name']} is not in the problem's group",
            argument="assignee",
        )
    env.update(
        "problems",
        prb["problem_id"],
        {"assigned_to": who["user_id"], "state": "assess" if prb["state"] == "new" else prb["state"]},
    )
    return {"number": prb["number"], "assigned_to": who["user_name"]}


@tool(kind="write", reads=READS, writes=("problems",), idempotent=True)
def record_root_cause(
    env: Env,
    number: str,
    root_cause: Words,
    workaround: Words | None = None,
    known_error: bool = False,
) -> dict:
    """Record a problem's root cause (and workaround); a known error needs both. The problem moves to fix in
    progress.

    Args:
        number: The problem number.
        root_cause: What causes the incidents.
        workaround: How users get going meanwhile.
        known_error: Mark it a known error (needs the workaround).
    """
    me = actor(env)
    manager_only(me, "record root causes")
    prb = live_problem(env, number, "be edited")
    if prb["state"] == "resolved":
        raise ToolError(f"{prb['number']} is resolved already.", argument="number")
    if known_error and not (workaround or prb["workaround"]):
        raise refuse("known_error_documented", "a known error needs a workaround", argument="workaround")
    env.update(
        "problems",
        prb["problem_id"],
        {
            "root_cause": root_cause,
            "workaround": workaround or prb["workaround"],
            "known_error": known_error,
            "state": "fix_in_progress",
        },
    )
    return {"number": prb["number"], "state": "fix_in_progress", "known_error": known_error}


@tool(kind="write", reads=READS, writes=("problems",), idempotent=True)
def resolve_problem(env: Env, number: str) -> dict:
    """Resolve a problem whose fix is in place (it needs a recorded root cause).

    Args:
        number: The problem number.
    """
    me = actor(env)
    manager_only(me, "resolve problems")
    prb = live_problem(env, number, "be resolved")
    if prb["root_cause"] is None:
        raise refuse(
            "problem_management", f"{prb['number']} has no root cause: record it first", argument="number"
        )
    env.update("problems", prb["problem_id"], {"state": "resolved", "resolved_at": env.now})
    return {"number": prb["number"], "state": "resolved"}


@tool(kind="write", reads=READS, writes=("problems",), idempotent=True)
def close_problem(env: Env, number: str) -> dict:
    """Close a resolved problem.

    Args:
        number: The problem number.
    """
    me = actor(env)
    manager_only(me, "close problems")
    prb = live_problem(env, number, "be closed")
    if prb["state"] != "resolved":
        raise refuse(
            "problem_management",
            f"{prb['number']} is {prb['state']}: only resolved problems close",
            argument="number",
        )
    env.update("problems", prb["problem_id"], {"state": "closed", "closed_at": env.now})
    return {"number": prb["number"], "state": "closed"}


PROBLEM_TOOLS = [
    list_problems,
    get_problem,
    create_problem,
    link_incident_to_problem,
    assign_problem,
    record_root_cause,
    resolve_problem,
    close_problem,
]
