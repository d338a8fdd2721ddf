"""What the HR recipes share: who speaks (a worker, named by employee number, acting in their security
role) and the SQL that finds people by role and place in the organisation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stateforge.tasks import RecipeContext, Skip

PHRASES = (
    "I'm {name} (employee number {handle}).",
    "This is {name}, employee {handle}.",
    "Hi, {name} here ({handle}).",
)
PERSON = (
    "SELECT e.employee_id, e.employee_number, e.first_name || ' ' || e.last_name AS full_name, "
    "e.org_unit_id, "
    "e.security_role FROM employees AS e"
)


def introduce(ctx: RecipeContext, who: Mapping[str, Any]) -> None:
    """Sign in as `who` (every tool acts for them) and open the instruction with them speaking."""
    ctx.act_as("employees", {"employee_number": who["employee_number"]})
    ctx.say(list(PHRASES), name=who["full_name"], handle=who["employee_number"])


def someone(ctx: RecipeContext, where: str, params: list[Any] | None = None, *, what: str) -> dict[str, Any]:
    """A current worker matching `where` (SQL over `e`)."""
    return ctx.pick(f"{PERSON} WHERE e.status IN ('active', 'on_leave') AND ({where})", params, what=what)


def partner_of(ctx: RecipeContext, employee_id: int) -> dict[str, Any]:
    """The HR partner of a worker's unit."""
    return ctx.one(
        f"{PERSON} JOIN org_units AS o ON o.hr_partner_id = e.employee_id "
        "JOIN employees AS w ON w.org_unit_id = o.org_unit_id WHERE w.employee_id = ?",
        [employee_id],
    )


def heir_and_partner(ctx: RecipeContext, lead: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A colleague in `lead`'s unit (not one of their reports) to take the team, and the lead's HR partner
    (neither of the two); `Skip` when there is no such partner."""
    heir = someone(
        ctx,
        "e.org_unit_id = ? AND e.employee_id <> ? AND e.status = 'active' AND e.termination_date IS NULL "
        "AND e.security_role IN ('employee', 'manager') AND e.manager_id <> ?",
        [lead["org_unit_id"], lead["employee_id"], lead["employee_id"]],
        what="colleague",
    )
    partner = partner_of(ctx, lead["employee_id"])
    if partner is None or partner["employee_id"] in (lead["employee_id"], heir["employee_id"]):
        raise Skip("no partner")
    return heir, partner
