"""What the ITSM tools share: the signed-in person, record lookups by what staff know, paging, the journal.

The acting person comes from one place, `actor(env)`: the episode's actor (domain.yaml `actors:`, named by
user name; `stateforge mcp itsm --as USER`, or the task's actor). No tool takes whom to act as. What the
actor may do and see follows their roles (user_roles) and group memberships, read here: `sees_all` (the
itil staff see every ticket), the caller's own incidents and requests otherwise (`visible_incident`).
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
Text = Annotated[str, Field(min_length=1, max_length=1000)]

PEOPLE = ("users", "user_roles", "roles", "group_members", "assignment_groups")
"""The tables `actor` and the people lookups read: every tool declares them."""


@dataclass(frozen=True)
class Actor:
    """The person a call acts as: their row, roles and the groups they belong to."""

    user: dict[str, Any]
    roles: frozenset[str]
    groups: frozenset[int]

    @property
    def id(self) -> int:
        return int(self.user["user_id"])

    @property
    def name(self) -> str:
        return str(self.user["user_name"])

    def has(self, role: str) -> bool:
        return role in self.roles


def actor(env: Env) -> Actor:
    """The signed-in person (`env.actor`, named by user name); refused (active_users_only) once they have
    left. Their roles and groups are read from the data, as the product would on each request, and limited
    to the roles the session acts in."""
    signed = env.acting()
    name = signed.person
    user = env.one("SELECT * FROM users WHERE user_name = ?", [name])
    if user is None:  # the episode checked the actor when it opened: only a deleted user gets here
        raise ToolError(f"the signed-in user {name} is no longer in the directory.")
    if not user["active"]:
        raise refuse("active_users_only", f"{user['user_name']} is no longer active and cannot act")
    roles = env.query(
        "SELECT r.name FROM user_roles AS ur JOIN roles AS r USING (role_id) WHERE ur.user_id = ?",
        [user["user_id"]],
    )
    groups = env.query("SELECT group_id FROM group_members WHERE user_id = ?", [user["user_id"]])
    held = frozenset(r["name"] for r in roles)
    # the session acts in the roles it was opened with (`--role`; by default every role they hold)
    acting = held & set(signed.roles) if signed.roles else held
    return Actor(user, acting, frozenset(g["group_id"] for g in groups))


def require_itil(me: Actor, what: str) -> None:
    """Refuse (itil_role_required) unless the actor works tickets."""
    if not me.has("itil"):
        raise refuse("itil_role_required", f"{me.name} does not hold the itil role and cannot {what}")


def person(env: Env, user_name: str, *, argument: str = "user") -> dict[str, Any]:
    """The user with this user name (case-insensitive); a `ToolError` saying what to send otherwise."""
    row = env.one("SELECT * FROM users WHERE lower(user_name) = lower(?)", [user_name.strip().lstrip("@")])
    if row is None:
        raise ToolError(
            f"no user has the user name {user_name!r}; find people with search_users.", argument=argument
        )
    return row


def active_person(
    env: Env, user_name: str, *, argument: str, role: str = "be assigned work"
) -> dict[str, Any]:
    """`person`, refused (active_users_only) when they have left."""
    row = person(env, user_name, argument=argument)
    if not row["active"]:
        raise refuse(
            "active_users_only",
            f"{row['user_name']} is no longer active and cannot {role}",
            argument=argument,
        )
    return row


def group(env: Env, name: str, *, argument: str = "group") -> dict[str, Any]:
    """The assignment group with this name (case-insensitive)."""
    row = env.one("SELECT * FROM assignment_groups WHERE lower(name) = lower(?)", [name.strip()])
    if row is None:
        raise ToolError(f"no assignment group is called {name!r}; list_groups shows them.", argument=argument)
    return row


def is_member(env: Env, group_id: int, user_id: int) -> bool:
    return bool(
        env.scalar(
            "SELECT count(*) FROM group_members WHERE group_id = ? AND user_id = ?", [group_id, user_id]
        )
    )


def record(env: Env, table: str, number: str, *, argument: str = "number") -> dict[str, Any]:
    """The row of `table` whose `number` (INC0010001, CHG0010001, PRB..., RITM..., REQ..., KB...) is given."""
    row = env.one(f"SELECT * FROM {table} WHERE number = ?", [number.strip().upper()])
    if row is None:
        what = {
            "incidents": "incident",
            "changes": "change",
            "problems": "problem",
            "requests": "request",
            "requested_items": "requested item",
            "kb_articles": "article",
            "change_tasks": "change task",
        }
        raise ToolError(
            f"no {what.get(table, table)} has the number {number!r}; search for it first.", argument=argument
        )
    return row


def ci(env: Env, name: str, *, argument: str = "ci") -> dict[str, Any]:
    """The configuration item with this name (case-insensitive)."""
    row = env.one("SELECT * FROM configuration_items WHERE lower(name) = lower(?)", [name.strip()])
    if row is None:
        raise ToolError(
            f"no configuration item is called {name!r}; find it with search_cis.", argument=argument
        )
    return row


def category(env: Env, name: str, subcategory: str) -> dict[str, Any]:
    """The category (name, subcategory) pair."""
    row = env.one(
        "SELECT * FROM categories WHERE lower(name) = lower(?) AND lower(subcategory) = lower(?)",
        [name.strip(), subcategory.strip()],
    )
    if row is None:
        raise ToolError(
            f"no category {name!r} / {subcategory!r}; list_categories shows them.", argument="category"
        )
    return row


def user_name_of(env: Env, user_id: int | None) -> str | None:
    if user_id is None:
        return None
    return env.scalar("SELECT user_name FROM users WHERE user_id = ?", [user_id])


def journal(env: Env, incident_id: int, author: Actor, kind: str, body: str) -> dict[str, Any]:
    """Write a work note or comment on an incident, now, by the actor."""
    return env.insert(
        "incident_journal",
        {
            "incident_id": incident_id,
            "author_id": author.id,
            "kind": kind,
            "body": body,
            "created_at": env.now,
        },
    )


def audit(env: Env, incident_id: int, field: str, old: Any, new: Any, by: Actor) -> None:
    """Record a field change of an incident in its history, now, by the actor."""
    env.insert(
        "incident_history",
        {
            "incident_id": incident_id,
            "field_name": field,
            "old_value": None if old is None else str(old)[:60],
            "new_value": None if new is None else str(new)[:60],
            "changed_by": by.id,
            "changed_at": env.now,
        },
    )


STAFF = frozenset({"itil", "itil_admin"})
"""The roles that see every ticket (the service desk and the resolver groups)."""
CHANGE_VIEWERS = STAFF | {"cab_member", "change_manager"}
PROBLEM_VIEWERS = STAFF | {"problem_manager"}
CMDB_VIEWERS = CHANGE_VIEWERS | PROBLEM_VIEWERS | {"major_incident_manager"}


def sees_all(me: Actor) -> bool:
    """Whether the actor sees every incident (IT staff), not only the ones they called in or opened."""
    return bool(me.roles & STAFF)


def incident_scope(me: Actor, alias: str = "i") -> tuple[str, list[Any]]:
    """SQL (over incidents `alias`) and parameters keeping the incidents the actor may see."""
    if sees_all(me):
        return "TRUE", []
    return f"({alias}.caller_id = ? OR {alias}.opened_by = ?)", [me.id, me.id]


def visible_incident(me: Actor, inc: dict[str, Any], *, argument: str = "number") -> None:
    """Refuse (ticket_visibility) an incident the actor may not see: employees see their own only."""
    if not sees_all(me) and me.id not in (inc["caller_id"], inc["opened_by"]):
        raise refuse(
            "ticket_visibility",
            f"{me.name} is not IT staff and sees only the incidents they called in; {inc['number']} is "
            "someone else's",
            argument=argument,
        )


def require_view(me: Actor, roles: frozenset[str], what: str) -> None:
    """Refuse (ticket_visibility) unless the actor holds one of `roles` (who may see `what`)."""
    if not me.roles & roles:
        raise refuse(
            "ticket_visibility",
            f"{me.name} holds none of the roles {', '.join(sorted(roles))} and may not see {what}",
        )
