"""Recipes at the service desk: each finds a ticket in a situation, acts through the tools as the person who
speaks, and writes the request. Most offer an infeasible variant refused by a policy (a non-member as the
assignee, an employee without the itil role, a closed incident)."""

from __future__ import annotations

from typing import Any

from stateforge.tasks import RecipeContext, recipe

from .common import PERSON, has_role, in_group, introduce, someone, swap_person

CALLER = PERSON.replace(
    "FROM users AS u", ", i.number FROM incidents AS i JOIN users AS u ON u.user_id = i.caller_id"
)
NOTES = (
    "Restarted the VPN client and confirmed with the caller.",
    "Reset the password and verified sign-in.",
    "Replaced the docking station.",
    "Cleared the Outlook profile and re-synced the mailbox.",
    "Reinstalled the printer driver.",
    "Applied the documented workaround from the knowledge base.",
)


def member_of(ctx: RecipeContext, group_id: int, *, exclude: int | None = None) -> dict[str, Any]:
    return someone(ctx, f"{in_group('?')} AND u.user_id <> ?", [group_id, exclude or -1], what="group member")


def outsider(ctx: RecipeContext, group_id: int) -> dict[str, Any]:
    return someone(
        ctx, f"NOT {in_group('?')} AND {has_role('itil')}", [group_id], what="itil user outside the group"
    )


def employee(ctx: RecipeContext) -> dict[str, Any]:
    return someone(ctx, f"NOT {has_role('itil')}", what="employee without itil")


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def assign_from_queue(ctx: RecipeContext) -> None:
    """A service desk agent assigns a new incident of a group's queue to a named member of that group.
    Variant: the named person is not in the group (assignee_in_assignment_group)."""
    inc = ctx.pick(
        "SELECT i.number, i.short_description, i.assignment_group_id, g.name AS grp FROM incidents AS i "
        "JOIN assignment_groups AS g ON g.group_id = i.assignment_group_id WHERE i.state = 'new'",
        what="new incident",
    )
    agent = someone(ctx, f"{has_role('itil')} AND {in_group('1')}", what="service desk agent")
    member = member_of(ctx, inc["assignment_group_id"], exclude=agent["user_id"])
    introduce(ctx, agent)
    ctx.say(
        [
            "Please assign {number} ({summary}) to {assignee} in {grp}.",
            "{number} is sitting in the {grp} queue: give it to {assignee}.",
        ],
        number=inc["number"],
        summary=inc["short_description"],
        assignee=member["user_name"],
        grp=inc["grp"],
    )
    ctx.read("get_incident", {"number": inc["number"]})
    ctx.call(
        "assign_incident",
        {"number": inc["number"], "assignee": member["user_name"]},
    )
    ctx.goal(
        "the incident is in progress with the member",
        "SELECT i.state, u.user_name FROM incidents AS i "
        "JOIN users AS u ON u.user_id = i.assigned_to WHERE i.number = ?",
        [inc["number"]],
    )
    other = outsider(ctx, inc["assignment_group_id"])
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not a member of {inc['grp']}",
        swap={member["user_name"]: other["user_name"]},
        policy="assignee_in_assignment_group",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def resolve_my_incident(ctx: RecipeContext) -> None:
    """An assignee resolves their incident in progress with a close code and notes. Variant: an employee
    without the itil role asks the same (itil_role_required)."""
    inc = ctx.pick(
        "SELECT i.number, i.short_description, u.user_id, u.user_name, u.first_name || ' ' || u.last_name "
        "AS full_name FROM incidents AS i JOIN users AS u ON u.user_id = i.assigned_to "
        "WHERE i.state IN ('in_progress', 'on_hold') AND i.priority > 1",
        what="incident in progress",
    )
    note = ctx.choice(NOTES)
    code = ctx.choice(("solved", "workaround"))
    introduce(ctx, inc)
    ctx.say(
        [
            "I fixed {number}: resolve it as {code} with the notes {note:q}.",
            "Please resolve my incident {number} ({summary}), close code {code}, notes: {note:q}.",
        ],
        number=inc["number"],
        code=code,
        note=note,
        summary=inc["short_description"],
    )
    ctx.call(
        "resolve_incident",
        {"number": inc["number"], "close_code": code, "close_notes": note},
    )
    ctx.goal("resolved", "SELECT state, close_code FROM incidents WHERE number = ?", [inc["number"]])
    other = employee(ctx)
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} does not hold the itil role",
        swap=swap_person(inc, other),
        policy="itil_role_required",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def reassign_with_reason(ctx: RecipeContext) -> None:
    """A group member moves an open incident to the team it belongs to, saying why (the reassignment
    procedure's work note), and names the new assignee."""
    inc = ctx.pick(
        "SELECT i.number, i.short_description, i.assignment_group_id FROM incidents AS i "
        "WHERE i.state IN ('new', 'in_progress') AND NOT i.major_incident",
        what="open incident",
    )
    target = ctx.pick(
        "SELECT group_id, name FROM assignment_groups WHERE group_type = 'support' AND group_id NOT IN "
        "(1, 16) AND group_id <> ?",
        [inc["assignment_group_id"]],
        what="another team",
    )
    agent = someone(
        ctx, f"{has_role('itil')} AND {in_group('?')}", [inc["assignment_group_id"]], what="member"
    )
    new = member_of(ctx, target["group_id"])
    reason = ctx.choice(
        (
            "the fault is on their side",
            "it needs their access rights",
            "the caller sits in their area",
            "it is a known issue of their platform",
        )
    )
    introduce(ctx, agent)
    ctx.say(
        [
            "{number} is not ours: move it to {grp} for {assignee}, noting that {reason}.",
            "Please reassign {number} to {grp} and assign {assignee}; the reason is that {reason}.",
        ],
        number=inc["number"],
        grp=target["name"],
        assignee=new["user_name"],
        reason=reason,
    )
    ctx.call(
        "reassign_incident",
        {
            "number": inc["number"],
            "assignment_group": target["name"],
            "reason": reason,
            "assignee": new["user_name"],
        },
    )
    ctx.policy("incident_journal.body", "normalized")
    ctx.goal(
        "with the new team",
        "SELECT g.name, u.user_name FROM incidents AS i JOIN assignment_groups AS g ON "
        "g.group_id = i.assignment_group_id JOIN users AS u ON u.user_id = i.assigned_to WHERE i.number = ?",
        [inc["number"]],
    )
    other = employee(ctx)
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} does not hold the itil role",
        swap=swap_person(agent, other),
        policy="itil_role_required",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def hold_for_caller(ctx: RecipeContext) -> None:
    """An assignee puts their incident on hold awaiting the caller and asks the caller a question in a
    comment.
    Variant: the incident is on hold already... so a resolved one (incident_state_flow)."""
    inc = ctx.pick(
        "SELECT i.number, u.user_id, u.user_name, u.first_name || ' ' || u.last_name AS full_name "
        "FROM incidents AS i JOIN users AS u ON u.user_id = i.assigned_to WHERE i.state = 'in_progress' "
        "AND NOT i.major_incident",
        what="incident in progress",
    )
    question = ctx.choice(
        (
            "Could you send a screenshot of the error?",
            "When did this start exactly?",
            "Does it happen on another device too?",
        )
    )
    introduce(ctx, inc)
    ctx.say(
        [
            "Put {number} on hold while I wait for the caller, and ask them: {question:q}",
            "I need the caller's answer on {number}: comment {question:q} and set it on hold awaiting the "
            "caller.",
        ],
        number=inc["number"],
        question=question,
    )
    ctx.call("add_comment", {"number": inc["number"], "text": question})
    ctx.derived("awaiting_caller", "on hold while waiting for the caller is the hold reason awaiting_caller")
    ctx.call(
        "put_incident_on_hold",
        {"number": inc["number"], "hold_reason": "awaiting_caller"},
    )
    ctx.goal("on hold", "SELECT state, hold_reason FROM incidents WHERE number = ?", [inc["number"]])
    done = ctx.pick(
        "SELECT i.number FROM incidents AS i WHERE i.state = 'closed' AND i.assigned_to = ?",
        [inc["user_id"]],
        what="closed incident of the same assignee",
    )
    ctx.infeasible(
        "forbidden",
        because=f"{done['number']} is closed and cannot change",
        swap={inc["number"]: done["number"]},
        policy="incident_state_flow",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def caller_reopens(ctx: RecipeContext) -> None:
    """A caller whose incident was resolved says it is broken again: reopened with their reason. Variant: the
    incident is closed already (incident_state_flow)."""
    inc = ctx.pick(
        f"{CALLER} WHERE i.state = 'resolved' AND u.active",
        what="resolved incident",
    )
    reason = ctx.choice(
        (
            "It stopped working again this morning.",
            "The fix did not last, same error.",
            "Still broken on my second laptop.",
        )
    )
    introduce(ctx, inc)
    ctx.say(
        [
            "My incident {number} was marked resolved but it isn't fixed: please reopen it. {reason}",
            "Reopen {number}, please. {reason}",
        ],
        number=inc["number"],
        reason=reason,
    )
    ctx.call("reopen_incident", {"number": inc["number"], "reason": reason})
    ctx.goal("reopened", "SELECT state, reopen_count FROM incidents WHERE number = ?", [inc["number"]])
    closed = ctx.pick(
        "SELECT number FROM incidents WHERE state = 'closed' AND caller_id = ?",
        [inc["user_id"]],
        what="closed incident of the caller",
    )
    ctx.infeasible(
        "forbidden",
        because=f"{closed['number']} is closed: it cannot be reopened",
        swap={inc["number"]: closed["number"]},
        policy="incident_state_flow",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def report_for_caller(ctx: RecipeContext) -> None:
    """A service desk agent opens an incident for a caller who phoned, with the stated category, impact and
    urgency. Variant: the caller has left the company (active_users_only)."""
    agent = someone(ctx, f"{has_role('itil')} AND {in_group('1')}", what="service desk agent")
    caller = someone(ctx, f"NOT {has_role('itil')}", what="caller")
    cat = ctx.pick("SELECT name, subcategory FROM categories WHERE name <> 'Inquiry'", what="category")
    summary = ctx.choice(
        (
            "Cannot sign in since this morning",
            "Application freezes on start",
            "Device keeps disconnecting",
            "Error when saving files",
        )
    )
    impact, urgency = ctx.choice(((3, 2), (2, 2), (3, 1), (2, 3)))
    introduce(ctx, agent)
    ctx.say(
        [
            "{caller} just phoned: open an incident for them, {summary:q}, category {cat} / {sub}, impact "
            "{impact} and urgency {urgency}, reported by phone.",
            "Log a phone call from {caller}: {summary:q} ({cat}, {sub}); impact {impact}, urgency {urgency}.",
        ],
        caller=caller["user_name"],
        summary=summary,
        cat=cat["name"],
        sub=cat["subcategory"],
        impact=impact,
        urgency=urgency,
    )
    ctx.call(
        "create_incident",
        {
            "short_description": summary,
            "category_name": cat["name"],
            "subcategory": cat["subcategory"],
            "impact": impact,
            "urgency": urgency,
            "caller": caller["user_name"],
            "contact_type": "phone",
        },
    )
    ctx.goal(
        "the caller's new incident",
        "SELECT i.priority, i.state FROM incidents AS i JOIN users AS u ON "
        "u.user_id = i.caller_id WHERE u.user_name = ? AND i.short_description = ?",
        [caller["user_name"], summary],
    )
    gone = ctx.pick(f"{PERSON} WHERE NOT u.active", what="inactive user")
    ctx.infeasible(
        "forbidden",
        because=f"{gone['user_name']} has left and cannot report incidents",
        swap={caller["user_name"]: gone["user_name"]},
        policy="active_users_only",
    )


@recipe(capabilities=("multi_condition_filtering", "cross_step_dependency"), difficulty="medium")
def escalate_priority(ctx: RecipeContext) -> None:
    """An agent raises an open incident's impact and urgency (its priority follows) and writes a work note.
    Variant: an employee without the itil role asks it (itil_role_required)."""
    inc = ctx.pick(
        "SELECT i.number, i.impact, i.urgency, i.assignment_group_id FROM incidents AS i "
        "WHERE i.state IN ('new', 'in_progress') AND i.priority >= 3 AND NOT i.major_incident",
        what="low-priority incident",
    )
    agent = someone(
        ctx, f"{has_role('itil')} AND {in_group('?')}", [inc["assignment_group_id"]], what="member"
    )
    impact, urgency = max(1, inc["impact"] - 1), 1
    note = "Escalated: more users affected than first reported."
    introduce(ctx, agent)
    ctx.say(
        [
            "More people are affected by {number}: set impact {impact} and urgency {urgency}, and add the "
            "work "
            "note {note:q}.",
            "Escalate {number} to impact {impact}, urgency {urgency}; work note: {note:q}.",
        ],
        number=inc["number"],
        impact=impact,
        urgency=urgency,
        note=note,
    )
    ctx.call(
        "set_impact_urgency",
        {"number": inc["number"], "impact": impact, "urgency": urgency},
    )
    ctx.call("add_work_note", {"number": inc["number"], "text": note})
    ctx.goal("priority raised", "SELECT priority FROM incidents WHERE number = ?", [inc["number"]])
    other = employee(ctx)
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} does not hold the itil role",
        swap=swap_person(agent, other),
        policy="itil_role_required",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def cancel_duplicate(ctx: RecipeContext) -> None:
    """A caller cancels a new incident they opened by mistake. Variant: it is already being worked
    (incident_state_flow: only new incidents are canceled)."""
    inc = ctx.pick(
        f"{CALLER} WHERE i.state = 'new' AND u.active",
        what="new incident",
    )
    introduce(ctx, inc)
    ctx.say(
        ["Please cancel {number}, the reason: {reason:q}", "Cancel my {number}; reason {reason:q}"],
        number=inc["number"],
        reason="Opened by mistake.",
    )
    ctx.call(
        "cancel_incident",
        {"number": inc["number"], "reason": "Opened by mistake."},
    )
    ctx.policy("incident_journal.body", "ignore")
    ctx.goal("canceled", "SELECT state FROM incidents WHERE number = ?", [inc["number"]])
    busy = ctx.one(
        "SELECT number FROM incidents WHERE state = 'in_progress' AND caller_id = ? ORDER BY number LIMIT 1",
        [inc["user_id"]],
    )
    if busy:
        ctx.infeasible(
            "forbidden",
            because=f"{busy['number']} is in progress: only new incidents are canceled",
            swap={inc["number"]: busy["number"]},
            policy="incident_state_flow",
        )


RECIPES = [
    assign_from_queue,
    resolve_my_incident,
    reassign_with_reason,
    hold_for_caller,
    caller_reopens,
    report_for_caller,
    escalate_priority,
    cancel_duplicate,
]
