"""What the ITSM recipes share: who speaks and is signed in (an IT staff member or an employee, named by user
name: the task's actor), the SQL that finds people by role and group, and the swap that turns a request into
someone else's (the variant is then signed in as them)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from stateforge.tasks import RecipeContext

PHRASES = (
    "I'm {name} (user name {handle}).",
    "This is {name}, user name {handle}.",
    "Hi, {name} here (user name {handle}).",
)
NOW = "TIMESTAMP '2026-06-30 23:59:59'"
PERSON = "SELECT u.user_id, u.user_name, u.first_name || ' ' || u.last_name AS full_name FROM users AS u"


def has_role(role: str, alias: str = "u") -> str:
    """SQL: the user `alias` holds `role`."""
    return (
        f"EXISTS (SELECT 1 FROM user_roles AS ur JOIN roles AS r USING (role_id) WHERE ur.user_id = "
        f"{alias}.user_id AND r.name = '{role}')"
    )


def in_group(group_sql: str, alias: str = "u") -> str:
    """SQL: the user `alias` is a member of the group whose id is `group_sql`."""
    return (
        f"EXISTS (SELECT 1 FROM group_members AS gm WHERE gm.user_id = {alias}.user_id "
        f"AND gm.group_id = {group_sql})"
    )


def introduce(ctx: RecipeContext, who: Mapping[str, Any]) -> None:
    """Sign in as `who` (every tool acts as them, in every role they hold) and open the instruction with
    them speaking."""
    ctx.act_as("users", {"user_name": who["user_name"]})
    ctx.say(list(PHRASES), name=who["full_name"], handle=who["user_name"])


def swap_person(who: Mapping[str, Any], other: Mapping[str, Any]) -> dict[str, Any]:
    """The swap that makes a variant spoken (and acted) by `other` instead of `who`."""
    return {who["user_name"]: other["user_name"], who["full_name"]: other["full_name"]}


def someone(ctx: RecipeContext, where: str, params: list[Any] | None = None, *, what: str) -> dict[str, Any]:
    """An active person matching `where` (SQL over `u`)."""
    return ctx.pick(f"{PERSON} WHERE u.active AND ({where})", params, what=what)


def blocked(
    ctx: RecipeContext, tool: str, arguments: Mapping[str, Any], *, because: str, policy: str
) -> None:
    """`ctx.blocked(...)` for a write the policy `policy` refuses, the policy stated where the recipe is
    written: the infeasible draft names it, as the gate requires of a forbidden task (and the gate then
    checks that the refusal carries exactly that policy)."""
    ctx.blocked(tool, arguments, kind="forbidden", because=because)
    ctx.declined = ctx.declined.model_copy(update={"policy": policy})
