"""Onboarding and offboarding checklists: start one from a template, see one's tasks, complete them."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Me, Number, Offset, actor, require, worker

CHECK = ("checklists", "checklist_tasks", "template_tasks", "checklist_templates", "systems", *PEOPLE)
TASK = (
    "SELECT k.task_id, w.employee_number AS employee, w.first_name || ' ' || w.last_name AS name, c.kind, "
    "t.title, t.owner_role, a.employee_number AS assignee, k.due_date, k.status, k.completed_at "
    "FROM checklist_tasks AS k JOIN checklists AS c USING (checklist_id) JOIN employees AS w ON "
    "w.employee_id = c.employee_id "
    "JOIN template_tasks AS t ON t.template_task_id = k.template_task_id LEFT JOIN employees AS a ON "
    "a.employee_id = k.assignee_id"
)


def open_checklist(env: Env, me: Me, who: dict, template: str, anchor: dt.date) -> int:
    """Start the checklist `template` for `who`, anchored at `anchor`: its tasks, assigned by owner role."""
    tpl = env.one("SELECT * FROM checklist_templates WHERE lower(name) = lower(?)", [template.strip()])
    if tpl is None:
        raise ToolError(
            f"no checklist template is called {template!r}; list_checklist_templates shows them.",
            argument="template",
        )
    if env.scalar(
        "SELECT count(*) FROM checklists WHERE employee_id = ? AND kind = ? AND status <> 'cancelled'",
        [who["employee_id"], tpl["kind"]],
    ):
        raise ToolError(
            f"{who['employee_number']} already has an {tpl['kind']} checklist.", argument="employee"
        )
    ou = env.get("org_units", who["org_unit_id"])
    it = env.scalar(
        "SELECT min(employee_id) FROM employees WHERE security_role = 'it_admin' AND status <> 'terminated'"
    )
    row = env.insert(
        "checklists",
        {
            "employee_id": who["employee_id"],
            "template_id": tpl["template_id"],
            "kind": tpl["kind"],
            "anchor_date": anchor,
            "started_by": me.id,
            "started_at": env.now,
            "status": "open",
            "completed_at": None,
        },
    )
    owners = {
        "manager": who["manager_id"] or ou["hr_partner_id"],
        "hr_partner": ou["hr_partner_id"],
        "employee": who["employee_id"],
        "it_admin": it,
    }
    tasks = env.query(
        "SELECT * FROM template_tasks WHERE template_id = ? ORDER BY template_task_id", [tpl["template_id"]]
    )
    env.insert_many(
        "checklist_tasks",
        [
            {
                "checklist_id": row["checklist_id"],
                "template_task_id": t["template_task_id"],
                "assignee_id": owners[t["owner_role"]],
                "due_date": anchor + dt.timedelta(days=t["due_offset_days"]),
                "status": "open",
                "completed_by": None,
                "completed_at": None,
            }
            for t in tasks
        ],
    )
    return int(row["checklist_id"])


@tool(reads=CHECK)
def list_checklist_templates(env: Env) -> dict:
    """The onboarding and offboarding templates and their tasks (who does each, due how many days from the
    start or last day)."""
    actor(env)
    return {
        "templates": env.query(
            "SELECT c.name, c.kind, t.title, t.owner_role, t.due_offset_days FROM checklist_templates AS c "
            "JOIN template_tasks AS t USING (template_id) ORDER BY c.template_id, t.template_task_id"
        )
    }


@tool(kind="write", reads=CHECK, writes=("checklists", "checklist_tasks"), idempotent=False)
def start_checklist(env: Env, employee: Number, template: str) -> dict:
    """Start an onboarding checklist (anchored at the start date) or offboarding one (at the last day) for a
    worker of a unit you partner (HR partners).

    Args:
        employee: Their employee number.
        template: The template's name (Standard onboarding, Engineering onboarding, ...).
    """
    me = actor(env)
    who = worker(env, employee)
    require(env, me, who, {"partner"}, "hr_partner_scope", "start a checklist")
    anchor = who["termination_date"] if "offboarding" in template.lower() else who["hire_date"]
    if anchor is None:
        raise ToolError(f"{employee} has no last day: record the termination first.", argument="template")
    checklist = open_checklist(env, me, who, template, anchor)
    return {
        "checklist_id": checklist,
        "tasks": env.scalar("SELECT count(*) FROM checklist_tasks WHERE checklist_id = ?", [checklist]),
    }


@tool(reads=CHECK)
def list_checklist_tasks(
    env: Env,
    scope: Literal["mine", "employee"] = "mine",
    employee: Number | None = None,
    status: Literal["open", "done", "skipped", "all"] = "open",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Checklist tasks by due date, a page at a time: the ones assigned to you, or one worker's checklist
    tasks (themself, their manager, their HR partner).

    Args:
        scope: mine (assigned to you) or employee (give `employee`).
        employee: The worker whose checklists to list.
        status: open, done, skipped or all.
        limit: Tasks per page.
        offset: Tasks to skip.
    """
    me = actor(env)
    if scope == "employee":
        if not employee:
            raise ToolError("scope employee needs `employee`.", argument="employee")
        who = worker(env, employee)
        require(env, me, who, {"self", "manager", "partner"}, "manager_scope", "see the checklist")
        where, params = ["c.employee_id = ?"], [who["employee_id"]]
    else:
        where, params = ["k.assignee_id = ?"], [me.id]
    if status != "all":
        where.append("k.status = ?")
        params.append(status)
    return env.page(
        f"{TASK} WHERE {' AND '.join(where)}",
        params,
        order_by="due_date, task_id",
        limit=limit,
        offset=offset,
    )


def finish(env: Env, task_id: int, status: str) -> dict:
    me = actor(env)
    task = env.get("checklist_tasks", task_id)
    if task is None:
        raise ToolError(f"no checklist task {task_id}; list_checklist_tasks shows them.", argument="task_id")
    checklist = env.get("checklists", task["checklist_id"])
    partner = env.scalar(
        "SELECT o.hr_partner_id FROM employees AS e JOIN org_units AS o USING (org_unit_id) "
        "WHERE e.employee_id = ?",
        [checklist["employee_id"]],
    )
    if me.id not in (task["assignee_id"], partner):
        raise refuse(
            "checklist_task_owner", f"task {task_id} is assigned to someone else", argument="task_id"
        )
    if task["status"] != "open":
        raise refuse(
            "checklist_task_owner", f"task {task_id} is already {task['status']}", argument="task_id"
        )
    env.update(
        "checklist_tasks",
        task_id,
        {"status": status, **({"completed_by": me.id, "completed_at": env.now} if status == "done" else {})},
    )
    if not env.scalar(
        "SELECT count(*) FROM checklist_tasks WHERE checklist_id = ? AND status = 'open'",
        [checklist["checklist_id"]],
    ):
        env.update("checklists", checklist["checklist_id"], {"status": "completed", "completed_at": env.now})
    return {"task_id": task_id, "status": status}


@tool(kind="write", reads=CHECK, writes=("checklists", "checklist_tasks"), idempotent=True)
def complete_checklist_task(env: Env, task_id: int) -> dict:
    """Mark a checklist task done (its assignee, or the worker's HR partner); the checklist is completed
    with its last open task.

    Args:
        task_id: The task (from list_checklist_tasks).
    """
    return finish(env, task_id, "done")


@tool(kind="write", reads=CHECK, writes=("checklists", "checklist_tasks"), idempotent=True)
def skip_checklist_task(env: Env, task_id: int) -> dict:
    """Skip a checklist task that does not apply (its assignee, or the worker's HR partner).

    Args:
        task_id: The task (from list_checklist_tasks).
    """
    return finish(env, task_id, "skipped")


CHECKLIST_TOOLS = [
    list_checklist_templates,
    start_checklist,
    list_checklist_tasks,
    complete_checklist_task,
    skip_checklist_task,
]
