"""The org chart and colleagues: find people, see a profile, who reports to whom and who is in a unit."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, tool
from stateforge.tools.where import Where

from .common import WEEKDAYS, Limit, Offset, find_building, find_person, find_unit, like, who

_LIST = """
    SELECT e.employee_id, e.employee_no, e.first_name || ' ' || e.last_name AS name, e.email, e.job_title,
           e.employment_type, u.name AS org_unit, u.code AS org_unit_code,
           m.first_name || ' ' || m.last_name AS manager, b.name AS home_building, e.hired_on, e.is_active,
           e.left_on
    FROM employees AS e
    JOIN org_units AS u ON u.org_unit_id = e.org_unit_id
    LEFT JOIN employees AS m ON m.employee_id = e.manager_id
    LEFT JOIN buildings AS b ON b.building_id = e.home_building_id
"""
_SUBTREE = """
    WITH RECURSIVE tree (org_unit_id, depth) AS (
        SELECT org_unit_id, 0 FROM org_units WHERE org_unit_id = ?
        UNION ALL
        SELECT u.org_unit_id, t.depth + 1 FROM org_units AS u JOIN tree AS t ON u.parent_id = t.org_unit_id
        WHERE t.depth < 50)
"""
_PEOPLE_READS = ("employees", "org_units", "buildings")


@tool(reads=_PEOPLE_READS)
def search_people(
    env: Env,
    query: str | None = None,
    org_unit: str | None = None,
    include_subunits: bool = False,
    building: str | None = None,
    job_title: str | None = None,
    employment_type: Literal["full_time", "part_time", "contractor", "intern"] | None = None,
    hired_after: dt.date | None = None,
    hired_before: dt.date | None = None,
    include_former: bool = False,
    sort_by: Literal["name", "hired_on", "org_unit"] = "name",
    descending: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Find colleagues: by part of a name or email, org unit (and its sub-units), home building, job title,
    employment type and hiring date, a page at a time. Every condition given must hold.

    Args:
        query: Text anywhere in the full name or email (case-insensitive).
        org_unit: Only members of this org unit (its name or code, e.g. OU-0007).
        include_subunits: With org_unit, also members of every unit below it.
        building: Only people whose home building this is (name or code).
        job_title: Text anywhere in the job title (case-insensitive).
        employment_type: Only this kind of contract.
        hired_after: Only people hired on or after this date.
        hired_before: Only people hired on or before this date.
        include_former: Also people who have left the company (default: active employees only).
        sort_by: Order by name, hiring date or org unit name.
        descending: Reverse the order.
    """
    where, tree = Where(), []
    if query:
        name = "lower(e.first_name || ' ' || e.last_name)"
        where.add(f"{name} LIKE ? OR lower(e.email) LIKE ?", like(query), like(query))
    if org_unit:
        unit = find_unit(env, org_unit)
        if include_subunits:
            where.add("e.org_unit_id IN (SELECT org_unit_id FROM tree)")
            tree = [unit["org_unit_id"]]
        else:
            where.add("e.org_unit_id = ?", unit["org_unit_id"])
    if building:
        where.add("e.home_building_id = ?", find_building(env, building)["building_id"])
    where.when(like(job_title) if job_title else None, "lower(e.job_title) LIKE ?")
    where.when(employment_type, "e.employment_type = ?")
    where.when(hired_after, "e.hired_on >= ?").when(hired_before, "e.hired_on <= ?")
    if not include_former:
        where.add("e.is_active")
    sql, params = (_SUBTREE if tree else "") + _LIST + f" WHERE {where.sql}", [*tree, *where.params]
    way = " DESC" if descending else ""
    order = {"name": f"name{way}", "hired_on": f"hired_on{way}, name", "org_unit": f"org_unit{way}, name"}[
        sort_by
    ]
    page = env.page(sql, params, order_by=f"{order}, employee_no", limit=limit, offset=offset)
    for row in page["rows"]:
        row.pop("employee_id")
    return page


@tool(reads=(*_PEOPLE_READS, "working_hours", "out_of_office", "desks"))
def get_person(env: Env, person: str) -> dict:
    """A colleague's profile: contact details, job, org unit, manager and the whole chain above them, number
    of direct reports, home building, time zone, working hours per weekday, upcoming out-of-office periods
    and assigned desk.

    Args:
        person: The colleague: an email address, an employee number (E and seven digits) or a full name.
    """
    p = find_person(env, person, active=False)
    row = env.one(_LIST + " WHERE e.employee_id = ?", [p["employee_id"]])
    assert row is not None
    extra = env.one("SELECT phone, timezone FROM employees WHERE employee_id = ?", [p["employee_id"]]) or {}
    chain = env.query(
        """
        WITH RECURSIVE up (employee_id, level) AS (
            SELECT manager_id, 1 FROM employees WHERE employee_id = ? AND manager_id IS NOT NULL
            UNION ALL
            SELECT e.manager_id, up.level + 1 FROM employees AS e JOIN up ON e.employee_id = up.employee_id
            WHERE e.manager_id IS NOT NULL AND up.level < 50)
        SELECT e.first_name || ' ' || e.last_name AS name, e.email, e.job_title
        FROM up JOIN employees AS e ON e.employee_id = up.employee_id ORDER BY up.level
        """,
        [p["employee_id"]],
    )
    hours = env.query(
        "SELECT weekday, starts_at, ends_at, is_remote FROM working_hours WHERE employee_id = ? "
        "ORDER BY weekday",
        [p["employee_id"]],
    )
    away = env.query(
        "SELECT ooo_id AS period_id, starts_at, ends_at, reason FROM out_of_office "
        "WHERE employee_id = ? AND ends_at > ? ORDER BY starts_at, ooo_id",
        [p["employee_id"], env.now],
    )
    desk = env.scalar(
        "SELECT code FROM desks WHERE assigned_employee_id = ? ORDER BY code LIMIT 1", [p["employee_id"]]
    )
    reports = env.scalar(
        "SELECT count(*) FROM employees WHERE manager_id = ? AND is_active", [p["employee_id"]]
    )
    heads = env.query(
        "SELECT name FROM org_units WHERE head_employee_id = ? ORDER BY name", [p["employee_id"]]
    )
    row.pop("employee_id")
    return {
        **row,
        **extra,
        "heads_units": [h["name"] for h in heads],
        "reports_to": chain,
        "direct_reports": reports,
        "working_hours": [
            {
                "day": WEEKDAYS[h["weekday"] - 1],
                "weekday": h["weekday"],
                "starts_at": h["starts_at"],
                "ends_at": h["ends_at"],
                "remote": h["is_remote"],
            }
            for h in hours
        ],
        "out_of_office": away,
        "assigned_desk": desk,
    }


@tool(reads=_PEOPLE_READS)
def list_direct_reports(
    env: Env,
    person: str,
    all_levels: bool = False,
    include_former: bool = False,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """The people who report to someone: directly, or with all_levels everyone below them in the reporting
    tree (level 1 = direct report, 2 = their reports, ...).

    Args:
        person: The manager: an email address, an employee number (E and seven digits) or a full name.
        all_levels: Everyone below the manager, not only direct reports.
        include_former: Also people who have left the company.
    """
    p = find_person(env, person, active=False)
    depth = 50 if all_levels else 1
    sql = f"""
        WITH RECURSIVE down (employee_id, level) AS (
            SELECT employee_id, 1 FROM employees WHERE manager_id = ?
            UNION ALL
            SELECT e.employee_id, d.level + 1 FROM employees AS e JOIN down AS d ON e.manager_id =
                d.employee_id
            WHERE d.level < {depth})
        SELECT d.level, x.* EXCLUDE (employee_id)
        FROM down AS d JOIN ({_LIST}) AS x ON x.employee_id = d.employee_id
        WHERE ? OR x.is_active
    """
    page = env.page(
        sql,
        [p["employee_id"], include_former],
        order_by="level, name, employee_no",
        limit=limit,
        offset=offset,
    )
    page["manager"] = who(p)
    return page


@tool(reads=("org_units", "employees"))
def search_org_units(
    env: Env,
    query: str | None = None,
    kind: Literal["company", "division", "department", "team"] | None = None,
    parent: str | None = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """Find org units (company, divisions, departments, teams) with their head, parent unit, and how many
    active people are in each (directly, and including every unit below it).

    Args:
        query: Text anywhere in the unit's name or code (case-insensitive).
        kind: Only units of this level.
        parent: Only the units directly below this one (name or code).
    """
    where = Where()
    if query:
        where.add("lower(u.name) LIKE ? OR lower(u.code) LIKE ?", like(query), like(query))
    where.when(kind, "u.kind = ?")
    if parent:
        where.add("u.parent_id = ?", find_unit(env, parent)["org_unit_id"])
    sql = f"""
        WITH RECURSIVE below (root_id, org_unit_id, depth) AS (
            SELECT org_unit_id, org_unit_id, 0 FROM org_units
            UNION ALL
            SELECT b.root_id, u.org_unit_id, b.depth + 1 FROM org_units AS u JOIN below AS b
              ON u.parent_id = b.org_unit_id WHERE b.depth < 50),
        members AS (SELECT org_unit_id, count(*) AS n FROM employees WHERE is_active GROUP BY org_unit_id)
        SELECT u.code, u.name, u.kind, p.name AS parent, h.first_name || ' ' || h.last_name AS head,
               h.email AS head_email, u.cost_center, coalesce(m.n, 0) AS members,
               (SELECT coalesce(sum(m2.n), 0) FROM below AS b JOIN members AS m2 ON m2.org_unit_id =
                   b.org_unit_id
                WHERE b.root_id = u.org_unit_id) AS members_with_subunits,
               u.parent_id
        FROM org_units AS u
        LEFT JOIN org_units AS p ON p.org_unit_id = u.parent_id
        LEFT JOIN employees AS h ON h.employee_id = u.head_employee_id
        LEFT JOIN members AS m ON m.org_unit_id = u.org_unit_id
        WHERE {where.sql}
    """
    sql = f"SELECT * EXCLUDE (parent_id) FROM ({sql})"
    return env.page(sql, where.params, order_by="code", limit=limit, offset=offset)

