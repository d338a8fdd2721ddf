"""Recipes for problem and change management: link incidents to a problem, record a known error, raise and
assess a change and ask the CAB, approve as a CAB member, schedule, start a high-risk change after its CAB
review (the procedure's detour)."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, recipe

from .common import blocked, has_role, introduce, someone, swap_person

CAUSES = (
    ("Expired service certificate", "Restart the client and reconnect"),
    ("Memory leak in the application", "Restart the service nightly"),
    ("Misconfigured load balancer pool", "Fail over to the secondary node"),
)


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "cross_step_dependency"),
    difficulty="hard",
)
def link_problem_incidents(ctx: RecipeContext) -> None:
    """A problem manager links every open incident on a configuration item to an open problem on that item."""
    row = ctx.pick(
        "SELECT p.number AS problem, ci.name AS ci, count(*) AS n FROM problems AS p JOIN "
        "configuration_items AS ci ON ci.ci_id = p.ci_id JOIN incidents AS i ON i.ci_id = p.ci_id "
        "WHERE p.state NOT IN ('resolved', 'closed') AND i.state IN ('new', 'in_progress', 'on_hold') "
        "AND i.problem_id IS DISTINCT FROM p.problem_id GROUP BY ALL HAVING count(*) BETWEEN 1 AND 30",
        what="open problem on an item with open incidents",
    )
    pm = someone(ctx, has_role("problem_manager"), what="problem manager")
    introduce(ctx, pm)
    ctx.say(
        [
            "Link every open incident on {ci} to problem {problem}.",
            "Problem {problem} explains the open incidents on {ci}: link all of them to it.",
        ],
        ci=row["ci"],
        problem=row["problem"],
    )
    rows = []
    offset = 0
    while True:
        page = ctx.read(
            "list_incidents",
            {"state": "open", "ci": row["ci"], "limit": 50, "offset": offset},
        )
        rows += page["rows"]
        offset += 50
        if offset >= page["total"]:
            break
    todo = [r["number"] for r in rows if r["problem"] != row["problem"]]
    for number in todo:
        ctx.call(
            "link_incident_to_problem",
            {"incident": number, "problem": row["problem"]},
        )
    ctx.goal(
        "every open incident on the item is linked",
        "SELECT count(*) AS n FROM incidents AS i JOIN "
        "configuration_items AS ci ON ci.ci_id = i.ci_id LEFT JOIN problems AS p ON p.problem_id = "
        "i.problem_id "
        "WHERE ci.name = ? AND i.state IN ('new', 'in_progress', 'on_hold') AND p.number IS DISTINCT FROM ?",
        [row["ci"], row["problem"]],
        expected=[{"n": 0}],
    )
    employee = someone(ctx, f"NOT {has_role('itil')}", what="employee")
    ctx.infeasible(
        "forbidden",
        because=f"{employee['user_name']} does not hold the itil role",
        swap=swap_person(pm, employee),
        policy="itil_role_required",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def record_known_error(ctx: RecipeContext) -> None:
    """A problem manager records a problem's root cause and workaround and marks it a known error. Variant: an
    itil user who is not a problem manager (problem_management)."""
    prb = ctx.pick(
        "SELECT number, short_description FROM problems WHERE state IN ('new', 'assess', "
        "'root_cause_analysis') AND NOT known_error",
        what="problem under investigation",
    )
    pm = someone(ctx, has_role("problem_manager"), what="problem manager")
    cause, workaround = ctx.choice(CAUSES)
    introduce(ctx, pm)
    ctx.say(
        [
            "We found it: the root cause of {number} is {cause:q}; the workaround is {workaround:q}. Make "
            "it a "
            "known error.",
            "Record on {number} the root cause {cause:q} and the workaround {workaround:q}, and "
            "mark it as a known error.",
        ],
        number=prb["number"],
        cause=cause,
        workaround=workaround,
    )
    ctx.derived(True, "a known error is known_error = true")
    ctx.call(
        "record_root_cause",
        {
            "number": prb["number"],
            "root_cause": cause,
            "workaround": workaround,
            "known_error": True,
        },
    )
    ctx.goal("a known error", "SELECT known_error, state FROM problems WHERE number = ?", [prb["number"]])
    other = someone(ctx, f"{has_role('itil')} AND NOT {has_role('problem_manager')}", what="itil user")
    ctx.infeasible(
        "forbidden",
        because=f"{other['user_name']} is not a problem manager",
        swap=swap_person(pm, other),
        policy="problem_management",
    )


def cab_members(ctx: RecipeContext, k: int) -> list[dict]:
    return ctx.sample(
        f"SELECT u.user_name FROM users AS u WHERE u.active AND {has_role('cab_member')}",
        k=k,
        what="CAB members",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="hard")
def raise_change_for_cab(ctx: RecipeContext) -> None:
    """A change manager raises a normal change on an item for a stated window, records its assessed risk and
    asks named CAB members to approve it. Variant: one approver is not on the CAB (cab_approvers_only)."""
    cm = someone(ctx, has_role("change_manager"), what="change manager")
    item = ctx.pick(
        "SELECT name FROM configuration_items WHERE operational_status = 'operational' AND environment = "
        "'production' AND class_id IN (1, 2, 3, 4)",
        what="production item",
    )
    day = ctx.today + dt.timedelta(days=ctx.choice((8, 10, 15, 22)))
    start = dt.datetime.combine(day, dt.time(21, 0))
    end = start + dt.timedelta(hours=ctx.choice((2, 3, 4)))
    what = ctx.choice(
        (
            "Apply the monthly security patches",
            "Upgrade the runtime to the supported version",
            "Rotate the service certificates",
        )
    )
    risk = ctx.choice(("moderate", "high"))
    approvers = [r["user_name"] for r in cab_members(ctx, 2)]
    introduce(ctx, cm)
    ctx.say(
        [
            "Raise a normal change on {ci}: {what:q}, from {start} to {end}. It is {risk} risk with impact "
            "2; "
            "then ask {approvers:list} to approve it.",
            "I need a change for {ci}, {what:q}, planned {start} to {end}, assessed as {risk} risk, impact "
            "2, "
            "sent for approval to {approvers:list}.",
        ],
        ci=item["name"],
        what=what,
        start=start,
        end=end,
        risk=risk,
        approvers=approvers,
    )
    made = ctx.call(
        "request_change",
        {
            "short_description": what,
            "ci_name": item["name"],
            "planned_start": start.isoformat(),
            "planned_end": end.isoformat(),
            "risk": risk,
            "impact": 2,
        },
    )
    ctx.derived(made["number"], "the new change's number, returned by request_change")
    ctx.call(
        "assess_change", {"number": made["number"], "risk": risk, "impact": 2}
    )
    ctx.call(
        "request_change_approval",
        {"number": made["number"], "approvers": approvers},
    )
    ctx.goal(
        "awaiting the CAB",
        "SELECT c.state, count(a.approval_id) AS approvals FROM changes AS c JOIN "
        "change_approvals AS a USING (change_id) JOIN configuration_items AS ci ON ci.ci_id = c.ci_id "
        "WHERE ci.name = ? AND c.short_description = ? GROUP BY c.state",
        [item["name"], what],
    )
    employee = someone(ctx, f"NOT {has_role('itil')}", what="employee")
    ctx.infeasible(
        "forbidden",
        because=f"{employee['user_name']} does not hold the itil role",
        swap=swap_person(cm, employee),
        policy="itil_role_required",
    )


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def cab_member_approves(ctx: RecipeContext) -> None:
    """A CAB member approves every change waiting for their approval, with a comment. Variant: a colleague
    who was not asked approves them (cab_approvers_only)."""
    cab = ctx.pick(
        "SELECT u.user_id, u.user_name, u.first_name || ' ' || u.last_name AS full_name, count(*) AS n "
        "FROM change_approvals AS a JOIN users AS u ON u.user_id = a.approver_id JOIN changes AS c USING "
        "(change_id) WHERE a.state = 'requested' AND c.state = 'authorize' GROUP BY ALL",
        what="CAB member with approvals waiting",
    )
    introduce(ctx, cab)
    comment = ctx.choice(("Approved: backout plan reviewed", "Approved for the planned window"))
    ctx.say(
        [
            "Approve every change waiting for my approval, with the comment {comment:q}.",
            "Go through my pending change approvals and approve them all; comment {comment:q}.",
        ],
        comment=comment,
    )
    waiting = ctx.read("list_my_approvals", {"state": "requested", "limit": 50})
    numbers = [r["number"] for r in waiting["rows"]]
    for number in numbers:
        ctx.call("approve_change", {"number": number, "comments": comment})
    ctx.policy("change_approvals.comments", "normalized")
    ctx.goal(
        "nothing waits for the member",
        "SELECT count(*) AS n FROM change_approvals WHERE approver_id = ? AND state = 'requested'",
        [cab["user_id"]],
        expected=[{"n": 0}],
    )
    other = someone(
        ctx,
        f"{has_role('cab_member')} AND u.user_id NOT IN (SELECT approver_id FROM change_approvals "
        "WHERE state = 'requested')",
        what="CAB member with nothing asked",
    )
    ctx.infeasible(
        "forbidden",
        because=f"no approval of {numbers[0]} was asked of {other['user_name']}",
        instruction=f"I'm {other['full_name']} (user name {other['user_name']}). Approve {numbers[0]} "
        f"on behalf of the CAB, with the comment {comment!r}.",
        calls=[
            ("approve_change", {"number": numbers[0], "comments": comment})
        ],
        swap=swap_person(cab, other),  # signed in as the colleague
        policy="cab_approvers_only",
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def schedule_pending_change(ctx: RecipeContext) -> None:
    """A change manager asked to schedule a change whose approvals are not all in: refused
    (change_authorization). Infeasible by design: the task is to decline."""
    chg = ctx.pick(
        "SELECT c.number FROM changes AS c WHERE c.state = 'authorize' AND EXISTS (SELECT 1 FROM "
        "change_approvals AS a WHERE a.change_id = c.change_id AND a.state = 'requested')",
        what="change awaiting approvals",
    )
    cm = someone(ctx, has_role("change_manager"), what="change manager")
    introduce(ctx, cm)
    ctx.say(
        [
            "Schedule {number} now; if it can't be scheduled, leave it as it is and tell me why.",
            "Please move {number} to scheduled (or tell me what blocks it).",
        ],
        number=chg["number"],
    )
    ctx.read("get_change", {"number": chg["number"]})
    blocked(
        ctx,
        "schedule_change",
        {"number": chg["number"]},
        because=f"{chg['number']} still waits for CAB approvals",
        policy="change_authorization",
    )


@recipe(capabilities=("cross_step_dependency", "aggregation_computation"), difficulty="hard")
def high_risk_through_cab(ctx: RecipeContext) -> None:
    """A change manager starts a scheduled high-risk change: the procedure asks for an approved CAB review
    first, so it goes on the next meeting before its start, the outcome is recorded, then implementation
    starts (the procedure high_risk_cab_review: the tools would start it without, its policy verifier
    would not pass)."""
    cm = someone(ctx, f"{has_role('change_manager')}", what="change manager")
    chg = ctx.pick(
        "SELECT c.number, c.planned_start, c.assignment_group_id FROM changes AS c WHERE c.state = "
        "'scheduled' AND c.risk IN ('high', 'very_high') AND c.change_type <> 'standard' AND NOT EXISTS "
        "(SELECT 1 FROM cab_agenda_items AS a WHERE a.change_id = c.change_id AND a.outcome = 'approved') "
        f"AND EXISTS (SELECT 1 FROM cab_meetings AS m WHERE m.scheduled_at > {ctx_now()} AND "
        "m.scheduled_at <= c.planned_start)",
        what="scheduled high-risk change",
    )
    introduce(ctx, cm)
    ctx.say(
        [
            "Start the implementation of {number}; it is high risk, so take it through the first CAB meeting "
            "before its start and record the board's approval first.",
            "{number} should start now. Follow the high-risk procedure: put it on the earliest CAB meeting "
            "before "
            "its planned start, record it as approved there, then start the implementation.",
        ],
        number=chg["number"],
    )
    change = ctx.read("get_change", {"number": chg["number"]})
    meetings = ctx.read(
        "list_cab_meetings", {"after": ctx.now.isoformat(), "limit": 20}
    )
    planned = change["planned_start"]
    meeting = next(m["name"] for m in meetings["rows"] if m["scheduled_at"] <= planned)
    ctx.call(
        "add_change_to_cab_agenda", {"number": chg["number"], "meeting": meeting}
    )
    ctx.derived("approved", "the board's approval is the outcome approved")
    ctx.call(
        "record_cab_outcome",
        {"number": chg["number"], "meeting": meeting, "outcome": "approved"},
    )
    ctx.call("start_change_implementation", {"number": chg["number"]})
    ctx.goal(
        "implementing after an approved review",
        "SELECT c.state, a.outcome FROM changes AS c JOIN "
        "cab_agenda_items AS a USING (change_id) WHERE c.number = ?",
        [chg["number"]],
    )


def ctx_now() -> str:
    return "TIMESTAMP '2026-06-30 23:59:59'"


RECIPES = [
    link_problem_incidents,
    record_known_error,
    raise_change_for_cab,
    cab_member_approves,
    schedule_pending_change,
    high_risk_through_cab,
]
