"""The directory: workers, org units, positions, job profiles, offices and holidays, and one's own
emergency contacts (self-service)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from stateforge.tools import Env, ToolError, tool

from .common import PEOPLE, WORKER, Limit, Number, Offset, actor, unit, worker


@tool(reads=PEOPLE)
def get_my_profile(env: Env) -> dict:
    """The signed-in worker's profile: name, employee number, job, unit, manager, office, security role and
    how many direct reports they have."""
    me = actor(env)
    row = env.one(f"{WORKER} WHERE e.employee_id = ?", [me.id])
    reports = env.scalar(
        "SELECT count(*) FROM employees WHERE manager_id = ? AND status <> 'terminated'", [me.id]
    )
    return {**row, "security_role": me.role, "direct_reports": reports}


@tool(reads=PEOPLE)
def search_workers(
    env: Env,
    name: str | None = None,
    org_unit: str | None = None,
    manager: str | None = None,
    job_family: str | None = None,
    status: Literal["active", "on_leave", "pre_hire", "terminated", "current"] = "current",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Search the worker directory, by last name then first name, a page at a time.

    Args:
        name: Part of the worker's first or last name.
        org_unit: The org unit's name or code (workers of that unit only, not of units under it).
        manager: The employee number of their manager (their direct reports).
        job_family: A job family (Engineering, Sales, Finance, People, IT, ...).
        status: active, on_leave, pre_hire, terminated, or current (everyone who has not left).
        limit: Workers per page.
        offset: Workers to skip.
    """
    actor(env)
    where, params = [], []
    if name:
        where.append("lower(e.first_name || ' ' || e.last_name) LIKE ?")
        params.append(f"%{name.strip().lower()}%")
    if org_unit:
        where.append("e.org_unit_id = ?")
        params.append(unit(env, org_unit)["org_unit_id"])
    if manager:
        where.append("e.manager_id = ?")
        params.append(worker(env, manager, argument="manager")["employee_id"])
    if job_family:
        where.append("lower(j.job_family) = lower(?)")
        params.append(job_family.strip())
    where.append("e.status <> 'terminated'" if status == "current" else "e.status = ?")
    if status != "current":
        params.append(status)
    sql = f"SELECT * FROM ({WORKER} WHERE {' AND '.join(where)}) AS w"
    return env.page(sql, params, order_by="name, employee_number", limit=limit, offset=offset)


@tool(reads=PEOPLE)
def get_worker(env: Env, employee: Number) -> dict:
    """One worker's directory entry (no pay: see get_compensation).

    Args:
        employee: Their employee number.
    """
    actor(env)
    who = worker(env, employee)
    return env.one(f"{WORKER} WHERE e.employee_id = ?", [who["employee_id"]])


@tool(reads=PEOPLE)
def list_direct_reports(env: Env, limit: Limit = 50, offset: Offset = 0) -> dict:
    """The signed-in worker's direct reports who have not left, a page at a time.

    Args:
        limit: Workers per page.
        offset: Workers to skip.
    """
    me = actor(env)
    sql = f"SELECT * FROM ({WORKER} WHERE e.manager_id = ? AND e.status <> 'terminated') AS w"
    return env.page(sql, [me.id], order_by="name, employee_number", limit=limit, offset=offset)


@tool(reads=PEOPLE)
def list_org_units(env: Env) -> dict:
    """Every org unit: name, code, parent, office, head, HR partner and headcount."""
    actor(env)
    rows = env.query(
        "SELECT o.name, o.code, p.name AS parent, l.name AS location, h.employee_number AS head, "
        "r.employee_number AS hr_partner, r.first_name || ' ' || r.last_name AS hr_partner_name, "
        "(SELECT count(*) FROM employees AS e WHERE e.org_unit_id = o.org_unit_id AND e.status <> "
        "'terminated') "
        "AS headcount FROM org_units AS o LEFT JOIN org_units AS p ON p.org_unit_id = o.parent_unit_id "
        "JOIN locations AS l ON l.location_id = o.location_id LEFT JOIN employees AS h ON h.employee_id = "
        "o.head_id "
        "LEFT JOIN employees AS r ON r.employee_id = o.hr_partner_id ORDER BY o.code"
    )
    return {"org_units": rows}


@tool(reads=("positions", "job_profiles", "pay_grades", "org_units", "locations", "employees"))
def list_positions(
    env: Env,
    org_unit: str | None = None,
    status: Literal["open", "filled", "frozen"] = "open",
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Positions with their job profile, grade, unit, office and holder, a page at a time.

    Args:
        org_unit: The org unit's name or code.
        status: open (hiring), filled or frozen.
        limit: Positions per page.
        offset: Positions to skip.
    """
    actor(env)
    where, params = ["p.status = ?"], [status]
    if org_unit:
        where.append("p.org_unit_id = ?")
        params.append(unit(env, org_unit)["org_unit_id"])
    sql = (
        "SELECT p.code, p.status, j.title AS job_title, g.code AS pay_grade, o.name AS org_unit, "
        "l.name AS location, e.employee_number AS holder FROM positions AS p "
        "JOIN job_profiles AS j ON j.job_profile_id = p.job_profile_id "
        "JOIN pay_grades AS g ON g.pay_grade_id = j.pay_grade_id JOIN org_units AS o ON o.org_unit_id = "
        "p.org_unit_id "
        "JOIN locations AS l ON l.location_id = p.location_id LEFT JOIN employees AS e ON e.position_id = "
        "p.position_id "
        f"WHERE {' AND '.join(where)}"
    )
    return env.page(sql, params, order_by="code", limit=limit, offset=offset)


@tool(reads=("job_profiles", "pay_grades", *PEOPLE))
def list_job_profiles(env: Env) -> dict:
    """Job profiles with their family and pay grade (the grade's salary range)."""
    actor(env)
    return {
        "job_profiles": env.query(
            "SELECT j.title, j.job_family, g.code AS pay_grade, g.min_salary, g.max_salary, j.is_manager "
            "FROM job_profiles AS j JOIN pay_grades AS g USING (pay_grade_id) ORDER BY j.title"
        )
    }


@tool(reads=("locations", "holidays", *PEOPLE))
def list_holidays(env: Env, location: str, year: Annotated[int, Field(ge=2024, le=2026)] = 2026) -> dict:
    """The public holidays of an office in a year (not working days: they cost no leave).

    Args:
        location: The office's name or city.
        year: The year.
    """
    actor(env)
    office = env.one(
        "SELECT location_id, name FROM locations WHERE lower(name) = lower(?) OR lower(city) = lower(?)",
        [location.strip()] * 2,
    )
    if office is None:
        raise ToolError(f"no office is called {location!r}; get_worker shows a worker's office.")
    rows = env.query(
        "SELECT holiday_date, name FROM holidays WHERE location_id = ? AND year(holiday_date) = ? "
        "ORDER BY holiday_date",
        [office["location_id"], year],
    )
    return {"location": office["name"], "holidays": rows}


@tool(reads=("employment_events", *PEOPLE))
def get_job_history(env: Env, employee: Number) -> dict:
    """A worker's job history: hire, transfers, promotions and termination, oldest first.

    Args:
        employee: Their employee number.
    """
    actor(env)
    who = worker(env, employee)
    rows = env.query(
        "SELECT v.event_type, v.effective_date, f.name AS from_unit, t.name AS to_unit, v.note, "
        "r.employee_number AS recorded_by FROM employment_events AS v "
        "LEFT JOIN org_units AS f ON f.org_unit_id = v.from_unit_id LEFT JOIN org_units AS t ON "
        "t.org_unit_id = v.to_unit_id "
        "LEFT JOIN employees AS r ON r.employee_id = v.recorded_by WHERE v.employee_id = ? "
        "ORDER BY v.effective_date, v.event_id",
        [who["employee_id"]],
    )
    return {"employee": who["employee_number"], "events": rows}


@tool(reads=("emergency_contacts", *PEOPLE))
def list_emergency_contacts(env: Env) -> dict:
    """The signed-in worker's emergency contacts."""
    me = actor(env)
    return {
        "contacts": env.query(
            "SELECT contact_id, name, relationship, phone FROM emergency_contacts WHERE employee_id = ? "
            "ORDER BY contact_id",
            [me.id],
        )
    }


@tool(kind="write", reads=("emergency_contacts", *PEOPLE), writes=("emergency_contacts",), idempotent=False)
def add_emergency_contact(
    env: Env,
    name: Annotated[str, Field(min_length=2, max_length=80)],
    relationship: Literal["spouse", "partner", "parent", "sibling", "friend", "child"],
    phone: Annotated[str, Field(min_length=5, max_length=30)],
) -> dict:
    """Add an emergency contact to the signed-in worker's profile.

    Args:
        name: The contact's full name.
        relationship: How they are related.
        phone: Their phone number.
    """
    me = actor(env)
    row = env.insert(
        "emergency_contacts",
        {"employee_id": me.id, "name": name.strip(), "relationship": relationship, "phone": phone.strip()},
    )
    return {"contact_id": row["contact_id"], "name": row["name"]}


@tool(kind="write", reads=("emergency_contacts", *PEOPLE), writes=("emergency_contacts",), idempotent=True)
def remove_emergency_contact(env: Env, contact_id: int) -> dict:
    """Remove one of the signed-in worker's emergency contacts.

    Args:
        contact_id: The contact (from list_emergency_contacts).
    """
    me = actor(env)
    row = env.one(
        "SELECT * FROM emergency_contacts WHERE contact_id = ? AND employee_id = ?", [contact_id, me.id]
    )
    if row is None:
        raise ToolError(f"you have no emergency contact {contact_id}; list_emergency_contacts shows yours.")
    env.delete("emergency_contacts", contact_id)
    return {"removed": contact_id}
