"""Infeasible HR requests whose blocker is met only after the reads: the first write is refused by a
policy the reads revealed, and the request is declined with nothing changed."""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_UP, Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import introduce, partner_of, someone
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
    start = dt.date(2026, 8, 3) + dt.timedelta(weeks=ctx.rng.randrange(0, 8))
    end, days = start, 0
    while days < left + 1:
        if end.isoweekday() < 6:
            days += 1
        end += dt.timedelta(days=1)
    end -= dt.timedelta(days=1)
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
    story["lead"] = lead
    introduce(ctx, partner)


@step(inputs=("lead",), goal="terminate someone who still has reports (refused)")
def terminate_lead(story: Story) -> None:
    lead = story["lead"]
    story.say(
        [
            "{name} ({number}) resigned: please record their termination with today as the last day. Their "
            "team can be sorted out next week.",
            "Process the resignation of {name}, employee {number}, effective today; we'll deal with their "
            "reports later.",
        ],
        name=lead["full_name"],
        number=lead["employee_number"],
    )
    story.read("get_worker", {"employee": lead["employee_number"]})
    story.read_all("search_workers", {"manager": lead["employee_number"]})
    story.ctx.derived(story.ctx.today, "today is the last day")
    story.blocked(
        "terminate_worker",
        {"employee": lead["employee_number"], "last_day": story.ctx.today},
        kind="forbidden",
        because="they still have direct reports: those need a new manager first",
        policy="reports_reassigned_first",
    )


def cast_partner_of_worker(story: Story) -> None:
    ctx = story.ctx
    who = someone(ctx, "e.status = 'active' AND e.security_role IN ('employee', 'manager')", what="worker")
    partner = partner_of(ctx, who["employee_id"])
    if partner is None or partner["employee_id"] == who["employee_id"]:
        raise Skip("no partner")
    story["worker"] = who
    introduce(ctx, partner)


@step(inputs=("worker",), goal="an HR partner raising pay (refused)")
def partner_raise(story: Story) -> None:
    who = story["worker"]
    pct = story.ctx.choice((3, 5, 6))
    story.say(
        [
            "{name} ({number}) is underpaid for the market: raise their base salary by {pct}%.",
            "Please bump {name}'s ({number}) salary {pct}% as a market adjustment.",
        ],
        name=who["full_name"],
        number=who["employee_number"],
        pct=pct,
    )
    pay = story.read("get_compensation", {"employee": who["employee_number"]})
    new = (Decimal(str(pay["base_salary"])) * (100 + pct) / 100).quantize(Decimal("1"), ROUND_HALF_UP)
    if new > Decimal(str(pay["max_salary"])):
        raise Skip("past the grade")
    story.ctx.derived(new, f"{pct}% over {pay['base_salary']}")
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
    for member in story["team"]:
        pay = story.read("get_compensation", {"employee": member["employee_number"]})
        base, top = Decimal(str(pay["base_salary"])), Decimal(str(pay["max_salary"]))
        pct = int(((top / base - 1) * 100).to_integral_value(ROUND_HALF_UP)) + 1
        if 2 <= pct <= 12:
            break
    else:
        raise Skip("nobody near the top of the grade")
    new = (base * (100 + pct) / 100).quantize(Decimal("1"), ROUND_HALF_UP)
    story.say(
        [
            "Give {name} ({number}) a {pct}% raise for the promotion they earned.",
            "Propose a {pct}% promotion raise for {name}, employee {number}.",
        ],
        name=member["name"],
        number=member["employee_number"],
        pct=pct,
    )
    ctx.derived(new, f"{pct}% over {base}")
    story.blocked(
        "propose_salary_change",
        {"employee": member["employee_number"], "new_salary": new, "reason": "promotion"},
        kind="capacity",
        because=f"{new} passes the top of their pay grade ({top})",
        policy="salary_within_grade",
    )


def cast_payroll_leaver(story: Story) -> None:
    ctx = story.ctx
    admin = someone(ctx, "e.security_role = 'payroll_admin' AND e.status = 'active'", what="payroll admin")
    gone = ctx.pick(
        "SELECT employee_number, first_name || ' ' || last_name AS full_name FROM employees "
        "WHERE termination_date BETWEEN DATE '2026-03-01' AND DATE '2026-05-31'",
        what="leaver",
    )
    story["admin"], story["gone"] = admin, gone
    introduce(ctx, admin)


@step(inputs=("admin", "gone"), goal="a bonus for someone who left before June (refused)")
def bonus_for_leaver(story: Story) -> None:
    gone = story["gone"]
    story.say(
        [
            "Add a referral bonus of 500.00 for {name} ({number}) to the June 2026 payroll.",
            "{name}, employee {number}, earned a 500.00 referral bonus: put it on June's payroll.",
        ],
        name=gone["full_name"],
        number=gone["employee_number"],
    )
    story.read("get_worker", {"employee": gone["employee_number"]})
    story.read("list_payroll_runs", {"limit": 3})
    story.ctx.derived(JUNE, "the June 2026 run's name")
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
        because="they left before June: no pay items after leaving",
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
    _infeasible("terminate_with_reports", cast_partner_of_lead, (terminate_lead,), ("lead",), 0.5),
    _infeasible("partner_raise", cast_partner_of_worker, (partner_raise,), ("worker",), 0.4),
    _infeasible("raise_past_grade", cast_manager, (my_team, raise_past_grade), ("boss",), 0.5),
    _infeasible("bonus_for_leaver", cast_payroll_leaver, (bonus_for_leaver,), ("admin", "gone"), 0.45),
]
