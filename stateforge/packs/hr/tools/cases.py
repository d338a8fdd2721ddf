"""HR cases: questions workers raise with their HR partner."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Limit, Offset, actor

CASES = ("hr_cases", *PEOPLE)
Category = Literal["payroll", "leave", "benefits", "relocation", "policy", "conduct"]


@tool(reads=CASES)
def list_hr_cases(
    env: Env,
    scope: Literal["mine", "assigned"] = "mine",
    status: Literal["open", "resolved", "closed", "all"] = "open",
    category: Category | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """HR cases, oldest first: the ones you raised, or (HR partners) the ones assigned to you.

    Args:
        scope: mine or assigned.
        status: open, resolved, closed or all.
        category: Only cases of this category.
        limit: Cases per page.
        offset: Cases to skip.
    """
    me = actor(env)
    where, params = ["c.employee_id = ?" if scope == "mine" else "c.hr_partner_id = ?"], [me.id]
    if status != "all":
        where.append("c.status = ?")
        params.append(status)
    if category:
        where.append("c.category = ?")
        params.append(category)
    sql = (
        "SELECT c.number, w.employee_number AS employee, c.category, c.subject, c.status, c.opened_at, "
        "c.resolved_at "
        f"FROM hr_cases AS c JOIN employees AS w ON w.employee_id = c.employee_id WHERE {' AND '.join(where)}"
    )
    return env.page(sql, params, order_by="opened_at, number", limit=limit, offset=offset)


@tool(kind="write", reads=CASES, writes=("hr_cases",), idempotent=False)
def open_hr_case(
    env: Env, category: Category, subject: Annotated[str, Field(min_length=3, max_length=120)]
) -> dict:
    """Raise a case with your HR partner.

    Args:
        category: payroll, leave, benefits, relocation, policy or conduct.
        subject: What it is about.
    """
    me = actor(env)
    partner = env.scalar("SELECT hr_partner_id FROM org_units WHERE org_unit_id = ?", [me.row["org_unit_id"]])
    new_id = int(env.scalar("SELECT coalesce(max(case_id), 0) + 1 FROM hr_cases"))
    number = f"HRC{new_id + 10000:07d}"
    env.insert(
        "hr_cases",
        {
            "case_id": new_id,
            "number": number,
            "employee_id": me.id,
            "hr_partner_id": partner,
            "category": category,
            "subject": subject.strip(),
            "status": "open",
            "opened_at": env.now,
        },
    )
    return {"number": number, "status": "open"}


@tool(kind="write", reads=CASES, writes=("hr_cases",), idempotent=True)
def resolve_hr_case(env: Env, number: str) -> dict:
    """Resolve an open case assigned to you (HR partners).

    Args:
        number: The case number (HRC0010001).
    """
    me = actor(env)
    case = env.one("SELECT * FROM hr_cases WHERE number = ?", [number.strip().upper()])
    if case is None:
        raise ToolError(
            f"no HR case has the number {number!r}; list_hr_cases shows yours.", argument="number"
        )
    if case["hr_partner_id"] != me.id:
        raise refuse(
            "hr_partner_scope", f"case {case['number']} is not assigned to {me.number}", argument="number"
        )
    if case["status"] != "open":
        raise ToolError(f"case {case['number']} is already {case['status']}.", argument="number")
    env.update("hr_cases", case["case_id"], {"status": "resolved", "resolved_at": env.now})
    return {"number": case["number"], "status": "resolved"}


CASE_TOOLS = [list_hr_cases, open_hr_case, resolve_hr_case]
