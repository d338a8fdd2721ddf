"""People and teams: users with their roles and groups, assignment groups with their members and workload,
and group membership (kept by the group's manager or an itil_admin)."""

from __future__ import annotations

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.policies import refuse

from .common import PEOPLE, Actor, Limit, Offset, active_person, actor, group, person

READS = (*PEOPLE, "departments", "locations", "incidents")
GROUP_ROLES = {
    "Change Management": "cab_member",
    "Problem Management": "problem_manager",
    "Major Incident Management": "major_incident_manager",
}
"""Teams whose members hold a role of their own (the CAB is the Change Management group)."""


@tool(reads=READS)
def get_user(env: Env, user: str) -> dict:
    """A person: name, title, department, location, manager, whether VIP and active, roles and groups.

    Args:
        user: Their user name.
    """
    actor(env)
    who = person(env, user, argument="user")
    row = env.one(
        "SELECT u.user_name, u.first_name, u.last_name, u.email, u.title, d.name AS department, "
        "l.name AS location, m.user_name AS manager, u.vip, u.active FROM users AS u "
        "JOIN departments AS d ON d.department_id = u.department_id JOIN locations AS l ON "
        "l.location_id = u.location_id LEFT JOIN users AS m ON m.user_id = u.manager_id WHERE u.user_id = ?",
        [who["user_id"]],
    )
    row["roles"] = [
        r["name"]
        for r in env.query(
            "SELECT r.name FROM user_roles AS ur JOIN roles AS r USING (role_id) "
            "WHERE ur.user_id = ? ORDER BY r.name",
            [who["user_id"]],
        )
    ]
    row["groups"] = [
        g["name"]
        for g in env.query(
            "SELECT g.name FROM group_members AS gm JOIN assignment_groups AS g USING (group_id) WHERE "
            "gm.user_id = ? "
            "ORDER BY g.name",
            [who["user_id"]],
        )
    ]
    return row


@tool(reads=READS)
def search_users(
    env: Env,
    query: str | None = None,
    department: str | None = None,
    role: str | None = None,
    active_only: bool = True,
    limit: Limit = 20,
    offset: Offset = 0,
) -> dict:
    """People whose name or user name contains the words of `query`, by last name.

    Args:
        query: Words of the name or user name.
        department: The department's name.
        role: Only holders of this role (itil, cab_member, major_incident_manager, ...).
        active_only: Leave out people who have left.
    """
    actor(env)
    where, params = ["TRUE"], []
    for word in (query or "").lower().split():
        where.append("lower(u.first_name || ' ' || u.last_name || ' ' || u.user_name) LIKE ?")
        params.append(f"%{word}%")
    if department:
        where.append("lower(d.name) = lower(?)")
        params.append(department)
    if role:
        where.append(
            "EXISTS (SELECT 1 FROM user_roles AS ur JOIN roles AS r USING (role_id) WHERE ur.user_id = "
            "u.user_id AND r.name = ?)"
        )
        params.append(role)
    if active_only:
        where.append("u.active")
    return env.page(
        "SELECT u.user_name, u.first_name, u.last_name, u.title, d.name AS department, u.vip, u.active "
        "FROM users AS u JOIN departments AS d ON d.department_id = u.department_id "
        f"WHERE {' AND '.join(where)}",
        params,
        order_by="last_name, first_name, user_name",
        limit=limit,
        offset=offset,
    )


@tool(reads=READS)
def list_groups(env: Env) -> dict:
    """Every assignment group: type, manager, member count and open incidents."""
    actor(env)
    return {
        "groups": env.query(
            "SELECT g.name, g.group_type, u.user_name AS manager, p.name AS parent_group, "
            "(SELECT count(*) FROM group_members AS gm WHERE gm.group_id = g.group_id) AS members, "
            "(SELECT count(*) FROM incidents AS i WHERE i.assignment_group_id = g.group_id "
            "AND i.state IN ('new', 'in_progress', 'on_hold')) AS open_incidents "
            "FROM assignment_groups AS g LEFT JOIN users AS u ON u.user_id = g.manager_id "
            "LEFT JOIN assignment_groups AS p ON p.group_id = g.parent_group_id ORDER BY g.name"
        )
    }


@tool(reads=READS)
def get_group(env: Env, name: str) -> dict:
    """A group with its members (user name, title, since when) and each member's open incidents.

    Args:
        name: The group's name.
    """
    actor(env)
    grp = group(env, name, argument="name")
    members = env.query(
        "SELECT u.user_name, u.first_name, u.last_name, u.title, gm.joined_at, "
        "(SELECT count(*) FROM incidents AS i WHERE i.assigned_to = u.user_id AND i.assignment_group_id = "
        "gm.group_id "
        "AND i.state IN ('new', 'in_progress', 'on_hold')) AS open_incidents FROM group_members AS gm "
        "JOIN users AS u ON u.user_id = gm.user_id WHERE gm.group_id = ? ORDER BY u.user_name",
        [grp["group_id"]],
    )
    manager = env.scalar("SELECT user_name FROM users WHERE user_id = ?", [grp["manager_id"]])
    return {
        "name": grp["name"],
        "group_type": grp["group_type"],
        "manager": manager,
        "email": grp["email"],
        "members": members,
    }


def may_manage(me: Actor, grp: dict) -> None:
    if not (me.has("itil_admin") or grp["manager_id"] == me.id):
        raise refuse(
            "itil_role_required",
            f"only the manager of {grp['name']} or an itil_admin changes its members"
        )


@tool(kind="write", reads=READS, writes=("group_members", "user_roles"), idempotent=True)
def add_group_member(env: Env, group_name: str, member: str) -> dict:
    """Add a person to an assignment group; they get the itil role (and the CAB, problem or major-incident
    role of those teams).

    Args:
        group_name: The group's name.
        member: The person's user name.
    """
    me = actor(env)
    grp = group(env, group_name, argument="group_name")
    may_manage(me, grp)
    who = active_person(env, member, argument="member", role="join a group")
    if env.scalar(
        "SELECT count(*) FROM group_members WHERE group_id = ? AND user_id = ?",
        [grp["group_id"], who["user_id"]],
    ):
        raise ToolError(f"{who['user_name']} is already a member of {grp['name']}.", argument="member")
    env.insert(
        "group_members", {"group_id": grp["group_id"], "user_id": who["user_id"], "joined_at": env.now}
    )
    for role in ("itil", GROUP_ROLES.get(grp["name"])):
        if role is None:
            continue
        rid = env.scalar("SELECT role_id FROM roles WHERE name = ?", [role])
        if not env.scalar(
            "SELECT count(*) FROM user_roles WHERE user_id = ? AND role_id = ?", [who["user_id"], rid]
        ):
            env.insert("user_roles", {"user_id": who["user_id"], "role_id": rid, "granted_at": env.now})
    return {"group": grp["name"], "added": who["user_name"]}


@tool(
    kind="write",
    reads=READS,
    writes=("group_members", "user_roles", "incidents"),
    idempotent=True,
    destructive=True,
)
def remove_group_member(env: Env, group_name: str, member: str) -> dict:
    """Take a person off a group (not its manager; nor anyone still assigned open incidents of the group).

    Args:
        group_name: The group's name.
        member: The person's user name.
    """
    me = actor(env)
    grp = group(env, group_name, argument="group_name")
    may_manage(me, grp)
    who = person(env, member, argument="member")
    if grp["manager_id"] == who["user_id"]:
        raise ToolError(
            f"{who['user_name']} manages {grp['name']}; name another manager first.", argument="member"
        )
    busy = env.scalar(
        "SELECT count(*) FROM incidents WHERE assigned_to = ? AND assignment_group_id = ? "
        "AND state NOT IN ('closed', 'canceled')",
        [who["user_id"], grp["group_id"]],
    )
    if busy:
        raise refuse(
            "assignee_in_assignment_group",
            f"{who['user_name']} still has {busy} incident(s) of "
            f"{grp['name']} assigned (resolved ones included); reassign them first",
            argument="member",
        )
    if not env.delete_where(
        "group_members", "group_id = ? AND user_id = ?", [grp["group_id"], who["user_id"]]
    ):
        raise ToolError(f"{who['user_name']} is not a member of {grp['name']}.", argument="member")
    role = GROUP_ROLES.get(grp["name"])
    if role:
        env.delete_where(
            "user_roles",
            "user_id = ? AND role_id IN (SELECT role_id FROM roles WHERE name = ?)",
            [who["user_id"], role],
        )
    return {"group": grp["name"], "removed": who["user_name"]}


PEOPLE_TOOLS = [get_user, search_users, list_groups, get_group, add_group_member, remove_group_member]
