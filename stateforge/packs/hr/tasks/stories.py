"""Storylines of the HR pack: long tasks composed of steps on shared entities (docs/tasks.md), and the
infeasible ones whose blocker is met only after the reads.

- `offboard_lead` (HR partner): the leaver's reports go to a named colleague, every system access they hold
  is revoked (the procedure offboarding_access_revoked), they are terminated today and the partner's own
  offboarding tasks are done.
- `unit_bonus_run` (payroll admin): a bonus for every current worker of a unit hired before a day (every
  page, a boundary distractor), then the June run calculated again; asked to approve it as well, the
  reference leaves the approval to another admin (payroll_four_eyes).
- `merit_round` (manager): a merit raise of a percentage for each direct report, capped at their grade's
  top; only those rated 3 or more in H2 2025 get one (merit_needs_review).
- `review_wrapup` (manager): every report waiting for the manager's review is rated by their goals.
- `team_leave_sweep` (manager): every pending request of the team is approved, those starting after a day
  rejected.
- infeasible: `leave_over_balance`, `terminate_with_reports`, `partner_raise`, `raise_past_grade`,
  `bonus_for_leaver`.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import heir_and_partner, introduce, someone

JUNE = "Payroll June 2026"


# --- offboarding --------------------------------------------------------------------------------------------


def team_size(story: Story, who: str = "e.employee_id") -> str:
    """SQL: the worker's current direct reports within the sizes this task draws from. Teams are
    heavy-tailed (domain.yaml managers_in_the_line: most of 4-12, a few of 24-40); two tasks in three draw
    from the teams of 12 or more, where a sweep over the team is a real afternoon's work."""
    low = 12 if story.rng.random() < 2 / 3 else 1
    return (
        f"(SELECT count(*) FROM employees AS r WHERE r.manager_id = {who} AND r.status <> 'terminated') "
        f"BETWEEN {low} AND 60"
    )


def cast_leaver(story: Story, also: str = "") -> None:
    """A team lead (not a unit's head) with reports and system access, a colleague in their unit to take
    the team, and their HR partner who speaks; `also`: more conditions on the lead `e` (`AND ...`), as a
    composed pack asks of its systems."""
    ctx = story.ctx
    lead = someone(
        ctx,
        f"{team_size(story)} AND NOT EXISTS (SELECT 1 FROM org_units AS o WHERE o.head_id = e.employee_id) "
        "AND e.status = 'active' AND e.termination_date IS NULL AND e.security_role IN ('employee', "
        "'manager') "
        "AND EXISTS (SELECT 1 FROM system_access AS a "
        "WHERE a.employee_id = e.employee_id AND a.revoked_at IS NULL) "
        # a raise waiting for payroll keeps a worker from leaving (compensation_proposals_are_current)
        "AND NOT EXISTS (SELECT 1 FROM compensation_changes AS x WHERE x.employee_id = e.employee_id "
        "AND x.status = 'proposed')" + also,
        what="team lead with access",
    )
    heir, partner = heir_and_partner(ctx, lead)
    story["leaver"], story["heir"], story["partner"] = lead, heir, partner
    introduce(ctx, partner)


@step(
    inputs=("leaver", "heir"),
    outputs=("reports",),
    goal="the leaver's reports go to the colleague",
    capabilities=("full_data_acquisition",),
)
def hand_over_team(story: Story) -> None:
    leaver, heir = story["leaver"], story["heir"]
    moving = story.get("spot") is not None
    why = (
        ("is moving to another team", "moves on to another team")
        if moving
        else ("is leaving us today", "leaves today")
    )
    story.say(
        [
            "{leaver} ({number}) " + why[0] + ". First move everyone who reports to them over to "
            "{heir} ({heir_number}).",
            "{leaver}, employee {number}, " + why[1] + ": their whole team should report to {heir} "
            "({heir_number}) from now on.",
        ],
        leaver=leaver["full_name"],
        number=leaver["employee_number"],
        heir=heir["full_name"],
        heir_number=heir["employee_number"],
    )
    reports = story.read_all("search_workers", {"manager": leaver["employee_number"], "status": "current"})
    for r in reports:
        story.call("change_manager", {"employee": r["employee_number"], "manager": heir["employee_number"]})
    story["reports"] = [r["employee_number"] for r in reports]
    story.knob("policy_detour", "reports get a new manager before the lead leaves or moves")


@step(
    inputs=("leaver",),
    goal="every access of the leaver revoked (the procedure)",
    capabilities=("cross_step_dependency",),
)
def revoke_everything(story: Story) -> None:
    leaver = story["leaver"]
    access = story.read("list_system_access", {"employee": leaver["employee_number"]})["access"]
    for a in access:
        story.call("revoke_access", {"employee": leaver["employee_number"], "system": a["system"]})
    story.ctx.goal(
        "no access is left",
        "SELECT count(*) AS active FROM system_access WHERE employee_id = ? AND revoked_at IS NULL",
        [leaver["employee_id"]],
    )


@step(inputs=("leaver",), outputs=("checklist",), goal="terminated today, offboarding started")
def terminate_today(story: Story) -> None:
    leaver = story["leaver"]
    involuntary = story.rng.random() < 0.3
    story.say(
        [
            "Then record the termination with today as the last day{kind}, and tick off my own offboarding "
            "tasks for them.",
            "Process the leave-taking effective today{kind} and complete the offboarding tasks that are "
            "mine.",
        ],
        kind=" (a dismissal)" if involuntary else " (a resignation)",
    )
    story.ctx.derived(story.ctx.today, "today is the last day")
    story.ctx.derived(involuntary, "a dismissal is involuntary, a resignation is not")
    done = story.call(
        "terminate_worker",
        {"employee": leaver["employee_number"], "last_day": story.ctx.today, "involuntary": involuntary},
    )
    story["checklist"] = done["checklist_id"]


@step(inputs=("leaver", "partner", "checklist"), goal="the partner's offboarding tasks done")
def my_offboarding_tasks(story: Story) -> None:
    leaver, partner = story["leaver"], story["partner"]
    tasks = story.read_all(
        "list_checklist_tasks", {"scope": "employee", "employee": leaver["employee_number"]}
    )
    mine = [t for t in tasks if t["assignee"] == partner["employee_number"]]
    story.ctx.derived([t["task_id"] for t in mine], "the ids of my tasks, from list_checklist_tasks")
    for t in mine:
        story.call("complete_checklist_task", {"task_id": t["task_id"]})
    story.knob("solver_filtering", "only the tasks assigned to me")
    story.ctx.goal(
        "the leaver is gone and the team moved",
        "SELECT e.status, (SELECT count(*) FROM employees AS r "
        "WHERE r.manager_id = e.employee_id AND r.status <> 'terminated') AS reports FROM employees AS e "
        "WHERE e.employee_id = ?",
        [leaver["employee_id"]],
    )


@step(
    inputs=("leaver", "partner"),
    goal="the leaver's open HR cases resolved (when asked)",
    capabilities=("multi_condition_filtering",),
)
def close_their_cases(story: Story) -> None:
    """One offboarding in two also closes the leaver's open HR cases: the partner's whole open queue is
    read (every page) and only the leaver's are resolved (there may be none)."""
    if story.rng.random() < 0.5:
        return
    leaver = story["leaver"]
    story.say(
        [
            "Finally, resolve any HR case of {name}'s that is still open with me.",
            "And close out whatever open HR cases {name} still has in my queue.",
        ],
        name=leaver["full_name"],
    )
    cases = story.read_all("list_hr_cases", {"scope": "assigned", "status": "open"})
    for c in cases:
        if c["employee"] == leaver["employee_number"]:
            story.ctx.derived(c["number"], "the case number, from list_hr_cases")
            story.call("resolve_hr_case", {"number": c["number"]})
    story.knob("solver_filtering", "only the leaver's cases in the partner's queue")


OFFBOARD_LEAD = Storyline(
    "offboard_lead",
    cast_leaver,
    (hand_over_team, revoke_everything, terminate_today, my_offboarding_tasks, close_their_cases),
    provides=("leaver", "heir", "partner"),
    weight=1.5,
)


# --- payroll ---------------------------------------------------------------------------------------------


def cast_payroll(story: Story) -> None:
    """A payroll admin, and a unit with 8 to 120 current workers hired before a cut-off day; one time in
    three a division instead: a unit with the units under it (Engineering and its three teams), whose
    members the admin gathers unit by unit."""
    ctx = story.ctx
    admin = someone(ctx, "e.security_role = 'payroll_admin' AND e.status = 'active'", what="payroll admin")
    tree = ctx.rng.random() < 1 / 3
    grp = ctx.pick(
        "SELECT o.org_unit_id, o.name, count(*) AS n FROM employees AS e JOIN org_units AS o USING "
        "(org_unit_id) WHERE e.status IN ('active', 'on_leave') AND e.hire_date <= DATE '2026-05-31' "
        + (
            "AND o.parent_unit_id IS NOT NULL AND EXISTS (SELECT 1 FROM org_units AS c WHERE "
            "c.parent_unit_id = o.org_unit_id) GROUP BY ALL"
            if tree
            else "GROUP BY ALL HAVING count(*) BETWEEN 8 AND 120"
        ),
        what="division" if tree else "unit",
    )
    grp["tree"] = tree
    story["admin"], story["unit"] = admin, grp
    introduce(ctx, admin)


@step(
    inputs=("admin", "unit"),
    outputs=("paid",),
    goal="a bonus for every worker of the unit hired before the day",
    capabilities=("full_data_acquisition", "precise_boundary_judgment", "multi_condition_filtering"),
)
def unit_bonuses(story: Story) -> None:
    ctx, grp = story.ctx, story["unit"]
    units = [grp["name"]]
    if grp["tree"]:
        tree = story.read("list_org_units", {})["org_units"]
        units += [u["name"] for u in tree if u["parent"] == grp["name"]]
        story.knob("solver_filtering", "the units under the division, from list_org_units")
    rows = [
        r for name in units for r in story.read_all("search_workers", {"org_unit": name, "status": "current"})
    ]
    hires = sorted({r["hire_date"] for r in rows})
    if len(hires) < 4:
        raise Skip("too few hire dates")
    cut = hires[(len(hires) * ctx.choice((2, 3, 4))) // 5]
    amount = ctx.choice((Decimal("250.00"), Decimal("400.00"), Decimal("500.00"), Decimal("750.00")))
    paid = [r for r in rows if r["hire_date"] < cut]
    story.say(
        [
            "Everyone currently in {unit} who joined before {cut} gets a one-off bonus of {amount} on the "
            "June 2026 payroll, note {note:q}.",
            "Put a {amount} bonus (note {note:q}) on the June 2026 payroll for each current {unit} worker "
            "hired before {cut}.",
        ],
        unit=f"{grp['name']} or a unit under it" if grp["tree"] else grp["name"],
        cut=cut,
        amount=amount,
        note="Team bonus",
    )
    for r in paid:
        story.call(
            "add_payroll_adjustment",
            {
                "run": JUNE,
                "employee": r["employee_number"],
                "kind": "bonus",
                "amount": amount,
                "note": "Team bonus",
            },
        )
    ctx.derived(JUNE, "the June 2026 payroll run's name, from list_payroll_runs")
    on_cut = [r for r in rows if r["hire_date"] == cut]
    if on_cut:
        story.distractor(
            f"a {grp['name']} worker hired on {cut} itself",
            "SELECT count(*) FROM employees AS e JOIN org_units AS o USING (org_unit_id) WHERE "
            "(o.org_unit_id = ? OR (? AND o.parent_unit_id = ?)) AND e.hire_date = ? AND e.status <> "
            "'terminated'",
            [grp["org_unit_id"], grp["tree"], grp["org_unit_id"], cut],
        )
    story.knob("solver_filtering", "hired before the day")
    story["paid"] = [r["employee_number"] for r in paid]


@step(inputs=("admin", "paid"), goal="the June run calculated again (approval left to another admin)")
def recalculate(story: Story) -> None:
    ask = story.rng.random() < 0.5
    story.say(
        ["Then recalculate the June run{approve}.", "Recalculate June afterwards{approve}."],
        approve=" and approve it" if ask else "",
    )
    story.read("list_payroll_runs", {"limit": 3})
    story.call("calculate_payroll_run", {"run": JUNE})
    if ask:
        story.knob(
            "policy_detour", "the admin who calculated the run does not approve it (payroll_four_eyes)"
        )
    story.ctx.goal(
        "the run is calculated with the bonuses",
        "SELECT r.status, count(a.adjustment_id) AS bonuses "
        "FROM payroll_runs AS r LEFT JOIN payroll_adjustments AS a ON a.run_id = r.run_id AND a.note = "
        "'Team bonus' WHERE r.name = ? GROUP BY r.status",
        [JUNE],
    )


UNIT_BONUS_RUN = Storyline(
    "unit_bonus_run", cast_payroll, (unit_bonuses, recalculate), provides=("admin", "unit"), weight=2.0
)


# --- merit, reviews and leave (managers) -------------------------------------------------------------------


def cast_manager(story: Story, where: str = "TRUE") -> None:
    ctx = story.ctx
    boss = someone(
        ctx,
        "(SELECT count(*) FROM employees AS r WHERE r.manager_id = e.employee_id AND r.status IN "
        f"('active', 'on_leave')) >= 3 AND {team_size(story)} AND e.status = 'active' AND {where}",
        what="manager",
    )
    story["boss"] = boss
    introduce(ctx, boss)


def cast_reviewer(story: Story) -> None:
    """A manager with reports waiting for their review in the open cycle."""
    cast_manager(
        story,
        "(SELECT count(*) FROM reviews AS v JOIN employees AS r ON r.employee_id = v.employee_id "
        "WHERE r.manager_id = e.employee_id AND v.cycle_id = 5 AND v.status = 'manager_review') >= 2",
    )


def cast_approver(story: Story) -> None:
    """A manager with pending leave requests in their team."""
    cast_manager(
        story,
        "(SELECT count(*) FROM leave_requests AS q JOIN employees AS r ON r.employee_id = "
        "q.employee_id WHERE r.manager_id = e.employee_id AND q.status = 'pending') >= 2",
    )


@step(
    inputs=("boss",),
    outputs=("team",),
    goal="the manager's direct reports",
    capabilities=("full_data_acquisition",),
)
def my_team(story: Story) -> None:
    story["team"] = story.read_all("list_direct_reports", {})


@step(
    inputs=("boss", "team"),
    goal="a capped merit raise for each report rated 3+ in H2 2025",
    capabilities=("aggregation_computation", "precise_boundary_judgment"),
)
def merit_raises(story: Story) -> None:
    ctx = story.ctx
    pct = ctx.choice((2, 3, 4, 5))
    story.say(
        [
            "Please put in a {pct}% merit raise for each of my direct reports, rounded to whole units; where "
            "that would pass the top of someone's pay grade, raise them to the top instead.",
            "Merit round: propose a {pct}% raise (rounded to the unit) for everyone reporting to me, capped "
            "at "
            "the maximum of their grade.",
        ],
        pct=pct,
    )
    reviews = story.read_all("list_reviews", {"cycle": "H2 2025 review", "scope": "team"})
    rated = {r["employee"]: r["rating"] for r in reviews}
    proposed = 0
    for member in story["team"]:
        if (rated.get(member["employee_number"]) or 0) < 3:
            continue
        pay = story.read("get_compensation", {"employee": member["employee_number"]})
        raw = (Decimal(str(pay["base_salary"])) * (100 + pct) / 100).quantize(Decimal("1"), ROUND_HALF_UP)
        new = min(raw, Decimal(str(pay["max_salary"])))
        if new <= Decimal(str(pay["base_salary"])):
            continue
        ctx.derived(new, f"{pct}% over {pay['base_salary']}, capped at {pay['max_salary']}")
        story.call(
            "propose_salary_change",
            {"employee": member["employee_number"], "new_salary": new, "reason": "merit"},
        )
        proposed += 1
    if not proposed or len(rated) == proposed:
        raise Skip("no one left out by the procedure" if proposed else "nobody to raise")
    story.knob(
        "policy_detour", "only reports rated 3 or more in H2 2025 get a merit raise (merit_needs_review)"
    )
    story.knob("aggregation", "percent, rounding and cap per report")
    ctx.goal(
        "the merit proposals",
        "SELECT e.employee_number, x.new_salary FROM compensation_changes AS x JOIN employees AS e USING "
        "(employee_id) WHERE e.manager_id = ? AND x.status = 'proposed' AND x.reason = 'merit' "
        "AND x.entered_by = ? ORDER BY 1",
        [story["boss"]["employee_id"], story["boss"]["employee_id"]],
    )


@step(
    inputs=("boss", "team"),
    goal="reviews waiting for the manager rated by the goals, a planning goal for all",
    capabilities=("multi_condition_filtering", "cross_step_dependency", "aggregation_computation"),
)
def rate_by_goals(story: Story) -> None:
    ctx = story.ctx
    weight = ctx.choice((10, 15, 20, 25))
    story.say(
        [
            "Finish the H1 2026 reviews that are waiting for me: rate a report 4 if every goal they have "
            "this "
            "cycle is achieved (cancelled ones don't count), 2 if none is, and 3 otherwise. Also give each "
            "of "
            "my reports a goal {title:q} weighing {weight}, unless it would take their goals past 100.",
            "Complete my pending H1 2026 reviews: 4 for someone whose goals (leaving out cancelled ones) are "
            "all achieved, 2 for someone with none achieved, 3 for everyone else. And add the goal {title:q} "
            "(weight {weight}) for everyone on my team whose goals leave room for it.",
        ],
        title="Plan the H2 2026 objectives",
        weight=weight,
    )
    waiting = {
        r["employee"] for r in story.read_all("list_reviews", {"scope": "team", "status": "manager_review"})
    }
    added = 0
    for member in story["team"]:
        got = story.read("list_goals", {"employee": member["employee_number"]})
        goals = [g for g in got["goals"] if g["status"] != "cancelled"]
        if member["employee_number"] in waiting:
            hit = sum(g["status"] == "achieved" for g in goals)
            rating = 4 if goals and hit == len(goals) else 2 if goals and hit == 0 else 3
            ctx.derived(rating, "the rating the goals give")
            story.call("complete_review", {"employee": member["employee_number"], "rating": rating})
        if got["weight_used"] + weight <= 100:
            story.call(
                "add_goal",
                {
                    "title": "Plan the H2 2026 objectives",
                    "weight": weight,
                    "employee": member["employee_number"],
                },
            )
            added += 1
    if not waiting or not added:
        raise Skip("no review waiting or no room for a goal")
    story.knob("solver_filtering", "ratings from the goals' statuses")
    story.knob("aggregation", "goal weights summed per report")
    ctx.goal(
        "no review waits for the manager",
        "SELECT count(*) AS waiting FROM reviews AS v JOIN employees AS e USING (employee_id) "
        "WHERE e.manager_id = ? AND v.cycle_id = 5 AND v.status = 'manager_review'",
        [story["boss"]["employee_id"]],
    )


@step(
    inputs=("boss",),
    goal="pending leave approved up to a day, rejected after it",
    capabilities=("full_data_acquisition", "precise_boundary_judgment"),
)
def leave_sweep(story: Story) -> None:
    ctx = story.ctx
    pending = story.read_all("list_leave_requests", {"scope": "team", "status": "pending"})
    starts = sorted({p["start_date"] for p in pending})
    if len(starts) < 2:
        raise Skip("one start day")
    cut = starts[len(starts) // 2]
    story.say(
        [
            "Go through my team's pending leave: approve everything starting on or before {cut}, and reject "
            "whatever starts later, with the reason {why:q}.",
            "Approve all of my team's waiting leave requests that start by {cut} (inclusive); reject the "
            "later "
            "ones saying {why:q}.",
        ],
        cut=cut,
        why="Too many away then",
    )
    for p in pending:
        if p["start_date"] <= cut:
            story.call("approve_leave_request", {"request_id": p["request_id"]})
        else:
            story.call(
                "reject_leave_request", {"request_id": p["request_id"], "reason": "Too many away then"}
            )
    story.distractor(
        f"a pending request starting on {cut} itself",
        "SELECT count(*) FROM leave_requests AS q JOIN employees AS e USING (employee_id) WHERE "
        "e.manager_id = ? AND q.status = 'pending' AND q.start_date = ?",
        [story["boss"]["employee_id"], cut],
    )
    ctx.goal(
        "no pending leave is left in the team",
        "SELECT count(*) AS pending FROM leave_requests AS q JOIN "
        "employees AS e USING (employee_id) WHERE e.manager_id = ? AND q.status = 'pending'",
        [story["boss"]["employee_id"]],
    )


MERIT_ROUND = Storyline("merit_round", cast_manager, (my_team, merit_raises), provides=("boss",))
REVIEW_WRAPUP = Storyline("review_wrapup", cast_reviewer, (my_team, rate_by_goals), provides=("boss",))
TEAM_LEAVE_SWEEP = Storyline(
    "team_leave_sweep", cast_approver, (leave_sweep,), provides=("boss",), weight=0.3
)

STORYLINES = [OFFBOARD_LEAD, UNIT_BONUS_RUN, MERIT_ROUND, REVIEW_WRAPUP, TEAM_LEAVE_SWEEP]
