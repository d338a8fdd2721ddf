"""Provisioning a worker's accounts in the other systems: what ties a hire in HR to the service desk and the
calendar (the workplace's own tool; the members' tools are the union's)."""

from __future__ import annotations

import datetime as dt

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

PEOPLE = ("hr.employees", "hr.org_units", "hr.positions", "hr.job_profiles")
WORKDAY = (dt.time(9), dt.time(17))
"""A new calendar's working hours, Monday to Friday (the worker changes them with set_working_hours)."""


@tool(
    kind="write",
    reads=(*PEOPLE, "itsm.users", "meeting.employees", "meeting.working_hours"),
    writes=("itsm.users", "meeting.employees", "meeting.working_hours"),
)
def provision_accounts(env: Env, employee: str) -> dict:
    """Open a hired worker's accounts in the other systems (their HR partner, or IT admins): the service
    desk account (user name from the work e-mail) and the calendar (working hours Monday to Friday, 9 to 5),
    in their manager's ITSM department and location and their manager's calendar org unit, building and time
    zone. Do it once HR has hired them (a pre-hire gets them before the first day).

    Args:
        employee: The worker's employee number (E...).
    """
    me = env.one("SELECT * FROM hr.employees WHERE work_email = ?", [env.acting().person])
    if me is None or me["status"] == "terminated":
        raise ToolError("the signed-in worker is not a current worker of the HR system.")
    who = env.one(
        "SELECT e.*, o.hr_partner_id, o.name AS unit, j.title FROM hr.employees AS e "
        "JOIN hr.org_units AS o ON o.org_unit_id = e.org_unit_id "
        "JOIN hr.positions AS p ON p.position_id = e.position_id "
        "JOIN hr.job_profiles AS j ON j.job_profile_id = p.job_profile_id WHERE e.employee_number = ?",
        [employee.strip().upper()],
    )
    if who is None:
        raise ToolError(f"no worker has the employee number {employee!r}; find them with search_workers.",
                        argument="employee")
    if me["security_role"] != "it_admin" and who["hr_partner_id"] != me["employee_id"]:
        raise refuse("accounts_by_partner_or_it",
                     f"{me['employee_number']} is not the HR partner of {who['unit']} nor an IT admin",
                     argument="employee")
    if who["status"] == "terminated":
        raise refuse("accounts_by_partner_or_it", f"{who['employee_number']} has left the company",
                     argument="employee")
    key = who["employee_id"]
    has_user = env.scalar("SELECT count(*) FROM itsm.users WHERE user_id = ?", [key])
    has_calendar = env.scalar("SELECT count(*) FROM meeting.employees WHERE employee_id = ?", [key])
    if has_user and has_calendar:
        raise ToolError(f"{who['employee_number']} already has their service desk account and calendar.",
                        argument="employee")
    boss = env.one(
        "SELECT u.department_id, u.location_id, m.org_unit_id, m.home_building_id, m.timezone "
        "FROM itsm.users AS u JOIN meeting.employees AS m ON m.employee_id = u.user_id WHERE u.user_id = ?",
        [who["manager_id"]],
    )
    if boss is None:
        raise ToolError(f"{who['employee_number']}'s manager has no accounts to provision theirs like; "
                        "provision the manager's first.", argument="employee")
    user_name = who["work_email"].split("@")[0]
    opened: dict[str, str] = {"employee": who["employee_number"]}
    if not has_user:
        env.insert("itsm.users", {
            "user_id": key, "user_name": user_name, "first_name": who["first_name"],
            "last_name": who["last_name"], "email": who["work_email"], "title": who["title"],
            "department_id": boss["department_id"], "location_id": boss["location_id"],
            "manager_id": who["manager_id"], "vip": False, "active": True, "created_at": env.now,
        })
        opened["service_desk_user"] = user_name
    if not has_calendar:
        env.insert("meeting.employees", {
            "employee_id": key, "org_unit_id": boss["org_unit_id"], "manager_id": who["manager_id"],
            "home_building_id": boss["home_building_id"], "employee_no": who["employee_number"],
            "first_name": who["first_name"], "last_name": who["last_name"], "email": who["work_email"],
            "job_title": who["title"], "employment_type": "full_time", "timezone": boss["timezone"],
            "hired_on": who["hire_date"], "left_on": None, "is_active": True,
        })
        env.insert_many("meeting.working_hours", [
            {"employee_id": key, "weekday": day, "starts_at": WORKDAY[0], "ends_at": WORKDAY[1],
             "is_remote": False} for day in range(1, 6)])
        opened["calendar"] = who["work_email"]
    return opened
