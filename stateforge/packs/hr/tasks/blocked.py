"""Infeasible HR requests whose blocker is met only after the reads: the first write is refused by a
policy the reads revealed, and the request is declined with nothing changed."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import introduce, partner_of, someone
from .desk import cast_moving_lead
from .stories import JUNE, cast_manager, my_team


def cast_worker_with_vacation(story: Story) -> None:
    """A worker with a few vacation days left this year."""
    ctx = story.ctx
    who = someone(
        ctx,
        "EXISTS (SELECT 1 FROM leave_balances AS b WHERE b.employee_id = e.employee_id AND b.year = "
        "2026 AND b.leave_type_id = 1 AND b.entitled_days + b.carried_over - b.used_days - b.pending_days "
        "BETWEEN 2 AND 8) AND e.status = 'active' AND e.termination_date IS NULL",
        what="worker",
    )
    story["me"] = who
    introduce(ctx, who)


@step(
    inputs=("me",),
    goal="vacation over the balance by a day or two (refused)",
    capabilities=("aggregation_computation", "precise_boundary_judgment"),
)
def too_long_vacation(story: Story) -> None:
    ctx = story.ctx
    bal = {b["leave_type"]: b for b in story.read("get_leave_balances", {})["balances"]}["Vacation"]
    left = int(Decimal(str(bal["available_days"])))
    office = story.read("get_my_profile", {})["location"]
    off = {h["holiday_date"] for h in story.read("list_holidays", {"location": office})["holidays"]}
    start = dt.date(2026, 8, 3) + dt.timedelta(weeks=ctx.rng.randrange(0, 8))
    end, days = start, 0
    while days < left + 1:  # working days: weekdays that are not the office's holidays
        if end.isoweekday() < 6 and end not in off and str(end) not in off:
            days += 1
        end += dt.timedelta(days=1)
    end -= dt.timedelta(days=1)
    story.knob("aggregation", "working days of the range, the office's holidays left out")
    story.say(
        [
            "Book me vacation from {start} to {end}, please.",
            "I'd like to take {start} through {end} off as vacation.",
        ],
        start=start,
        end=end,
    )
    story.read("list_leave_requests", {"status": "pending"})
    story.blocked(
        "request_leave",
        {"leave_type": "Vacation", "start_date": start, "end_date": end},
        kind="capacity",
        because=f"the range holds more working days than the {left} vacation days left",
        policy="leave_within_balance",
    )


def cast_partner_of_lead(story: Story) -> None:
    """A lead with reports, their HR partner, and up to three more of the partner's people who could
    leave today (no reports, no raise waiting, not a unit's head): a batch of resignations."""
    ctx = story.ctx
    lead = someone(
        ctx,
        "EXISTS (SELECT 1 FROM employees AS r WHERE r.manager_id = e.employee_id AND r.status <> "
        "'terminated') AND e.status = 'active' AND e.termination_date IS NULL",
        what="lead",
    )
    partner = partner_of(ctx, lead["employee_id"])
    if partner is None or partner["employee_id"] == lead["employee_id"]:
        raise Skip("no partner")
    k = ctx.choice((0, 0, 1, 2, 3))
    others = []
    if k:
        others = ctx.sample(
            "SELECT e.employee_number, e.first_name || ' ' || e.last_name AS full_name FROM employees AS e "
            "JOIN org_units AS o USING (org_unit_id) WHERE o.hr_partner_id = ? AND e.status = 'active' "
            "AND e.termination_date IS NULL AND e.employee_id NOT IN (?, ?) "
            "AND NOT EXISTS (SELECT 1 FROM employees AS r WHERE r.manager_id = e.employee_id AND r.status <> "
            "'terminated') AND NOT EXISTS (SELECT 1 FROM org_units AS h WHERE h.head_id = e.employee_id) "
            "AND NOT EXISTS (SELECT 1 FROM compensation_changes AS x WHERE x.employee_id = e.employee_id "
            "AND x.status = 'proposed')",
            [partner["employee_id"], lead["employee_id"], partner["employee_id"]],
            k=k,
            what="leaver",
        )
    batch = [*others]
    batch.insert(ctx.rng.randrange(len(batch) + 1), lead)
    story["lead"], story["batch"] = lead, batch
    introduce(ctx, partner)


@step(inputs=("lead", "batch"), goal="terminate a batch with someone who still has reports (refused)")
def terminate_lead(story: Story) -> None:
    lead, batch = story["lead"], story["batch"]
    if len(batch) == 1:
        story.say(
            [
                "{name} ({number}) resigned: please record their termination with today as the last day. "
                "Their team can be sorted out next week.",
                "Process the resignation of {name}, employee {number}, effective today; we'll deal with "
                "their reports later.",
            ],
            name=lead["full_name"],
            number=lead["employee_number"],
        )
    else:
        story.say(
            [
                "These resignations take effect today: {who}. Record each termination with today as the last "
                "day, all of them or none; any team left behind can be sorted out next week.",
                "Please process today's leavers, {who}, with today as their last day. Do them all or none of "
                "them.",
            ],
            who=", ".join(f"{p['full_name']} ({p['employee_number']})" for p in batch),
        )
    for p in batch:
        story.read("get_worker", {"employee": p["employee_number"]})
        story.read_all("search_workers", {"manager": p["employee_number"]})
    if len(batch) > 1:
        story.knob("solver_filtering", "who of the batch still has reports")
    story.ctx.derived(story.ctx.today, "today is the last day")
    story.blocked(
        "terminate_worker",
        {"employee": lead["employee_number"], "last_day": story.ctx.today},
        kind="forbidden",
        because=f"{lead['full_name']} still has direct reports: those need a new manager first",
        policy="reports_reassigned_first",
    )


@step(inputs=("leaver", "spot"), goal="move a lead who still has reports to another unit (refused)")
def move_lead_with_team(story: Story) -> None:
    lead, spot = story["leaver"], story["spot"]
    story.say(
        [
            "Please transfer {name} ({number}) into the open position {code} ({title}, {unit}) today; we'll "
            "find their team a new lead afterwards.",
            "{name}, employee {number}, takes the open {title} role {code} in {unit}: move them there now, "
            "their reports can be sorted out later.",
        ],
        name=lead["full_name"],
        number=lead["employee_number"],
        code=spot["code"],
        title=spot["title"],
        unit=spot["org_unit"],
    )
    story.read("get_worker", {"employee": lead["employee_number"]})
    story.read_all("search_workers", {"manager": lead["employee_number"]})
    story.read("list_positions", {"org_unit": spot["org_unit"], "status": "open", "limit": 50})
    story.blocked(
        "transfer_worker",
        {"employee": lead["employee_number"], "position": spot["code"]},
        kind="forbidden",
        because="they still have direct reports: each needs a new manager before the move",
        policy="reports_reassigned_first",
    )


def cast_partner_of_group(story: Story) -> None:
    """An HR partner, and a job family of 3 to 25 current workers in a unit they partner."""
    ctx = story.ctx
    grp = ctx.pick(
        "SELECT o.name AS org_unit, j.job_family, count(*) AS n, o.hr_partner_id FROM employees AS e "
        "JOIN positions AS p ON p.position_id = e.position_id JOIN job_profiles AS j USING (job_profile_id) "
        "JOIN org_units AS o ON o.org_unit_id = e.org_unit_id WHERE e.status <> 'terminated' "
        "AND e.employee_id <> o.hr_partner_id GROUP BY ALL HAVING count(*) BETWEEN 3 AND 25",
        what="job family of a unit",
    )
    partner = someone(
        ctx, "e.employee_id = ? AND e.security_role = 'hr_partner'", [grp["hr_partner_id"]], what="partner"
    )
    story["group"] = grp
    introduce(ctx, partner)


@step(
    inputs=("group",),
    goal="an HR partner raising a group's pay (refused)",
    capabilities=("full_data_acquisition", "aggregation_computation"),
)
def partner_raise(story: Story) -> None:
    grp = story["group"]
    pct = story.ctx.choice((3, 5, 6))
    story.say(
        [
            "Our {family} people in {unit} are underpaid for the market: raise each one's base salary by "
            "{pct}% (rounded to whole units), everyone or no one.",
            "Please give every {family} worker in {unit} a {pct}% market adjustment, rounded to the unit; "
            "do all of them or none.",
        ],
        family=grp["job_family"],
        unit=grp["org_unit"],
        pct=pct,
    )
    people = story.read_all("search_workers", {"org_unit": grp["org_unit"], "job_family": grp["job_family"]})
    first = None
    for who in people:
        pay = story.read("get_compensation", {"employee": who["employee_number"]})
        new = (Decimal(str(pay["base_salary"])) * (100 + pct) / 100).quantize(Decimal("1"), ROUND_HALF_UP)
        if first is None and new <= Decimal(str(pay["max_salary"])):
            first = (who, new, pay["base_salary"])
    if first is None or len(people) < 2:
        raise Skip("nobody fits the grade")
    who, new, base = first
    story.ctx.derived(new, f"{pct}% over {base}")
    story.blocked(
        "propose_salary_change",
        {"employee": who["employee_number"], "new_salary": new, "reason": "market"},
        kind="forbidden",
        because="an HR partner views but does not change compensation",
        policy="compensation_access",
    )


@step(
    inputs=("boss", "team"),
    goal="a raise past the grade's top (refused)",
    capabilities=("aggregation_computation", "precise_boundary_judgment"),
)
def raise_past_grade(story: Story) -> None:
    ctx = story.ctx
    pct = ctx.choice((4, 5, 6, 8, 10))
    story.say(
        [
            "Give everyone who reports to me a {pct}% market raise, rounded to whole units. All of them or "
            "none: if someone can't have it, change nothing and tell me.",
            "Propose a {pct}% market raise (rounded to the unit) for each of my direct reports, as one "
            "round: "
            "either everyone gets it or nobody does.",
        ],
        pct=pct,
    )
    over, fits = None, 0
    for member in story["team"]:
        pay = story.read("get_compensation", {"employee": member["employee_number"]})
        base, top = Decimal(str(pay["base_salary"])), Decimal(str(pay["max_salary"]))
        new = (base * (100 + pct) / 100).quantize(Decimal("1"), ROUND_HALF_UP)
        if new > top:
            over = over or (member, new, base, top)
        else:
            fits += 1
    if over is None or not fits:
        raise Skip("everyone fits the grade" if over is None else "nobody fits the grade")
    member, new, base, top = over
    story.knob("aggregation", "the raise against each report's grade")
    ctx.derived(new, f"{pct}% over {base}")
    story.blocked(
        "propose_salary_change",
        {"employee": member["employee_number"], "new_salary": new, "reason": "market"},
        kind="capacity",
        because=f"{new} passes the top of {member['name']}'s pay grade ({top})",
        policy="salary_within_grade",
    )


def cast_payroll_leaver(story: Story) -> None:
    """A payroll admin, a worker who left this spring and two to five current workers: the referrers."""
    ctx = story.ctx
    admin = someone(ctx, "e.security_role = 'payroll_admin' AND e.status = 'active'", what="payroll admin")
    gone = ctx.pick(
        "SELECT employee_number, first_name || ' ' || last_name AS full_name FROM employees "
        "WHERE termination_date BETWEEN DATE '2026-03-01' AND DATE '2026-05-31'",
        what="leaver",
    )
    others = ctx.sample(
        "SELECT employee_number, first_name || ' ' || last_name AS full_name FROM employees "
        "WHERE status = 'active' AND termination_date IS NULL AND employee_id <> ?",
        [admin["employee_id"]],
        k=ctx.rng.randrange(2, 6),
        what="referrer",
    )
    names = [*others]
    names.insert(ctx.rng.randrange(len(names) + 1), gone)
    story["admin"], story["gone"], story["referrers"] = admin, gone, names
    introduce(ctx, admin)


@step(
    inputs=("admin", "gone", "referrers"),
    goal="referral bonuses, one for someone who left before June (refused)",
    capabilities=("multi_condition_filtering",),
)
def bonus_for_leaver(story: Story) -> None:
    gone, names = story["gone"], story["referrers"]
    story.say(
        [
            "These referral bonuses of 500.00 go on the June 2026 payroll (note {note:q}): {who}. Add all of "
            "them, or none if one can't be paid.",
            "Please put a 500.00 referral bonus (note {note:q}) on June's payroll for each of {who}; it's "
            "all or nothing.",
        ],
        who=", ".join(f"{p['full_name']} ({p['employee_number']})" for p in names),
        note="Referral bonus",
    )
    for p in names:
        story.read("get_worker", {"employee": p["employee_number"]})
    story.read("list_payroll_runs", {"limit": 3})
    story.ctx.derived(JUNE, "the June 2026 run's name")
    story.knob("solver_filtering", "who is still employed, from each worker's status")
    story.blocked(
        "add_payroll_adjustment",
        {
            "run": JUNE,
            "employee": gone["employee_number"],
            "kind": "bonus",
            "amount": Decimal("500.00"),
            "note": "Referral bonus",
        },
        kind="forbidden",
        because=f"{gone['full_name']} left before June: no pay items after leaving",
        policy="active_workers_only",
    )


def _infeasible(name, cast, steps, provides, weight=1.0):
    return Storyline(
        name,
        cast,
        steps,
        provides=provides,
        feasible=False,
        weight=weight,
        capabilities=("cross_step_dependency",),
    )


BLOCKED_STORIES = [
    _infeasible("leave_over_balance", cast_worker_with_vacation, (too_long_vacation,), ("me",), 0.55),
    _infeasible("terminate_with_reports", cast_partner_of_lead, (terminate_lead,), ("lead", "batch"), 0.6),
    _infeasible("partner_raise", cast_partner_of_group, (partner_raise,), ("group",), 0.4),
    _infeasible(
        "move_with_reports", cast_moving_lead, (move_lead_with_team,), ("leaver", "heir", "spot"), 0.3
    ),
    _infeasible("raise_past_grade", cast_manager, (my_team, raise_past_grade), ("boss",), 0.6),
    _infeasible(
        "bonus_for_leaver", cast_payroll_leaver, (bonus_for_leaver,), ("admin", "gone", "referrers"), 0.45
    ),
]
