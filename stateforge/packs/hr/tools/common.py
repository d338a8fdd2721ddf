"""What the HR tools share: the signed-in worker and what they may see of others, lookups by what people
know (employee numbers, unit and system names), paging.

The acting worker comes from one place, `actor(env)`: the episode's actor (domain.yaml `actors:`, named by
employee number). Who may act on whom is decided here too (`relation`), from the data: a manager's direct
reports, the units an HR partner partners, and the security role of payroll and IT admins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import Field

from stateforge.tools import Env, ToolError
from stateforge.tools.policies import refuse

PAGE = 50

Limit = Annotated[int, Field(ge=1, le=PAGE, description=f"Rows per page (at most {PAGE}).")]
Offset = Annotated[int, Field(ge=0, le=1_000_000, description="Rows to skip.")]
Number = Annotated[str, Field(min_length=2, max_length=12, description="An employee number (E0010042).")]

PEOPLE = ("employees", "org_units", "positions", "job_profiles", "locations")
"""The tables `actor`, `worker` and `relation` read: every tool declares them."""

WORKER = (
    "SELECT e.employee_number, e.first_name || ' ' || e.last_name AS name, e.work_email, e.status, "
    "e.hire_date, e.termination_date, j.title AS job_title, j.job_family, o.name AS org_unit, "
    "l.name AS location, m.employee_number AS manager, m.first_name || ' ' || m.last_name AS manager_name "
    "FROM employees AS e JOIN org_units AS o ON o.org_unit_id = e.org_unit_id "
    "JOIN locations AS l ON l.location_id = e.location_id "
    "LEFT JOIN positions AS p ON p.position_id = e.position_id "
    "LEFT JOIN job_profiles AS j ON j.job_profile_id = p.job_profile_id "
    "LEFT JOIN employees AS m ON m.employee_id = e.manager_id"
)
"""A worker as the directory shows them (no pay): the select the people lists share."""


@dataclass(frozen=True)
class Me:
    """The signed-in worker: their row and security role."""

    row: dict[str, Any]

    @property
    def id(self) -> int:
        return int(self.row["employee_id"])

    @property
    def number(self) -> str:
        return str(self.row["employee_number"])

    @property
    def role(self) -> str:
        return str(self.row["security_role"])


def actor(env: Env) -> Me:
    """The signed-in worker (`env.actor`); refused (active_workers_only) once they have left."""
    number = env.acting().person
    row = env.one("SELECT * FROM employees WHERE employee_number = ?", [number])
    if row is None:  # the episode checked the actor when it opened: only a deleted worker gets here
        raise ToolError(f"the signed-in worker {number} is no longer in the HR system.")
    if row["status"] == "terminated":
        raise refuse("active_workers_only", f"{number} has left the company and cannot act")
    return Me(row)


def worker(env: Env, number: str, *, argument: str = "employee") -> dict[str, Any]:
    """The worker with this employee number; a `ToolError` saying how to find them otherwise."""
    row = env.one("SELECT * FROM employees WHERE employee_number = ?", [number.strip().upper()])
    if row is None:
        raise ToolError(
            f"no worker has the employee number {number!r}; find them with search_workers.", argument=argument
        )
    return row


def relation(env: Env, me: Me, who: dict[str, Any]) -> set[str]:
    """How the actor stands to `who`: self, manager (a direct report), partner (their unit's HR partner),
    payroll, it (by the actor's security role)."""
    out = set()
    if who["employee_id"] == me.id:
        out.add("self")
    if who["manager_id"] == me.id:
        out.add("manager")
    if (
        me.role == "hr_partner"
        and env.scalar("SELECT hr_partner_id FROM org_units WHERE org_unit_id = ?", [who["org_unit_id"]])
        == me.id
    ):
        out.add("partner")
    if me.role == "payroll_admin":
        out.add("payroll")
    if me.role == "it_admin":
        out.add("it")
    return out


def require(
    env: Env,
    me: Me,
    who: dict[str, Any],
    allowed: set[str],
    policy: str,
    what: str,
    argument: str = "employee",
) -> set[str]:
    """The actor's relation to `who`, refused by `policy` unless it is one of `allowed`."""
    rel = relation(env, me, who)
    if not rel & allowed:
        raise refuse(policy, f"{me.number} may not {what} for {who['employee_number']}", argument=argument)
    return rel


def require_role(me: Me, role: str, policy: str, what: str) -> None:
    """Refuse by `policy` unless the actor holds the security role `role`."""
    if me.role != role:
        raise refuse(policy, f"{me.number} is {me.role}, and only a {role} may {what}")


def require_active(who: dict[str, Any], what: str, argument: str = "employee") -> None:
    """Refuse (active_workers_only) when `who` has left."""
    if who["status"] == "terminated":
        raise refuse(
            "active_workers_only", f"{who['employee_number']} has left: cannot {what}", argument=argument
        )


def unit(env: Env, name: str, *, argument: str = "org_unit") -> dict[str, Any]:
    """The org unit with this name or code (case-insensitive)."""
    row = env.one(
        "SELECT * FROM org_units WHERE lower(name) = lower(?) OR lower(code) = lower(?)", [name.strip()] * 2
    )
    if row is None:
        raise ToolError(f"no org unit is called {name!r}; list_org_units shows them.", argument=argument)
    return row


def number_of(env: Env, employee_id: int | None) -> str | None:
    """The employee number of a worker id (None for none)."""
    if employee_id is None:
        return None
    return env.scalar("SELECT employee_number FROM employees WHERE employee_id = ?", [employee_id])


def working_days(env: Env, employee_id: int, start: Any, end: Any) -> int:
    """Weekdays from `start` to `end` that are not holidays of the worker's office."""
    return int(
        env.scalar(
            "SELECT count(*) FROM range(CAST(? AS TIMESTAMP), CAST(? AS TIMESTAMP) + INTERVAL 1 DAY, "
            "INTERVAL 1 DAY) AS g(d) WHERE isodow(d) < 6 AND NOT EXISTS (SELECT 1 FROM holidays AS h "
            "JOIN employees AS e ON e.location_id = h.location_id WHERE e.employee_id = ? "
            "AND h.holiday_date = CAST(d AS DATE))",
            [start, end, employee_id],
        )
    )
