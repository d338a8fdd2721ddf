"""More storylines of the HR pack: payroll's queue of salary changes, a team handed over before its lead
moves, a new hire set up, and IT's grant queue.

- `raise_queue` (payroll admin): every proposed salary change waiting for payroll (every page, or a unit's):
  approved when the new salary fits the grade, rejected when it passes the top; the ones the admin entered
  themself are left for another admin (four_eyes_compensation).
- `lead_moves_on` (HR partner): a lead's reports go to a named colleague, then the lead is transferred into an
  open position of the same grade in another unit (reports_reassigned_first: the detour).
- `new_hire_setup` (HR partner): a hire into the open position of a title in a unit, and their onboarding
  checklist started (onboarding_before_start).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import heir_and_partner, introduce, someone
from .stories import hand_over_team, team_size


def cast_payroll_admin(story: Story) -> None:
    ctx = story.ctx
    admin = someone(ctx, "e.security_role = 'payroll_admin' AND e.status = 'active'", what="payroll admin")
    story["admin"] = admin
    introduce(ctx, admin)


@step(
    inputs=("admin",),
    goal="every proposed salary change decided by the grade, but the admin's own",
    capabilities=("full_data_acquisition", "precise_boundary_judgment", "multi_condition_filtering"),
)
def decide_queue(story: Story) -> None:
    ctx, admin = story.ctx, story["admin"]
    units = ctx.sql(
        "SELECT o.name, count(*) AS n FROM compensation_changes AS x JOIN employees AS e USING "
        "(employee_id) JOIN org_units AS o ON o.org_unit_id = e.org_unit_id WHERE x.status = 'proposed' "
        "GROUP BY ALL HAVING count(*) >= 3 ORDER BY o.name"
    )
    # the mid-year merit round fills the queue (about 160 at scale 1): a desk takes a unit or two of it
    scope = sorted(ctx.rng.sample([u["name"] for u in units], min(len(units), ctx.choice((1, 1, 2)))))
    if not scope:
        raise Skip("no unit with a queue")
    story.say(
        [
            "Work through {where}: approve each change whose new salary stays inside the worker's pay grade "
            "and reject the ones that would go past the top of it.",
            "Please clear {where}. A change that keeps the salary within the grade gets approved; one that "
            "exceeds the grade's maximum gets rejected.",
        ],
        where="the salary changes waiting for payroll in " + " and ".join(scope),
    )
    queue = [
        c
        for unit in scope
        for c in story.read_all("list_salary_changes", {"status": "proposed", "org_unit": unit})
    ]
    own = [c for c in queue if c["entered_by"] == admin["employee_number"]]
    decided = 0
    for change in queue:
        if change["entered_by"] == admin["employee_number"]:
            continue
        pay = story.read("get_compensation", {"employee": change["employee"]})
        fits = Decimal(str(change["new_salary"])) <= Decimal(str(pay["max_salary"]))
        story.call(
            "approve_salary_change" if fits else "reject_salary_change", {"change_id": change["change_id"]}
        )
        decided += 1
    if decided < 2:
        raise Skip("too short a queue")
    if own:
        story.knob(
            "policy_detour", "the admin's own proposals are left for another admin (four_eyes_compensation)"
        )
    story.knob("solver_filtering", "approve or reject by the grade's maximum")
    ids = [c["change_id"] for c in queue]
    ctx.goal(
        "the queue is decided",
        "SELECT status, count(*) AS n FROM compensation_changes WHERE "
        "list_contains(?, change_id) GROUP BY status ORDER BY status",
        [ids],
    )


RAISE_QUEUE = Storyline("raise_queue", cast_payroll_admin, (decide_queue,), provides=("admin",), weight=1.2)


def cast_moving_lead(story: Story) -> None:
    """A lead with reports, an open position of their grade in another unit, a colleague to take the team,
    and their HR partner."""
    ctx = story.ctx
    lead = someone(
        ctx,
        f"{team_size(story)} AND NOT EXISTS (SELECT 1 FROM org_units AS o WHERE o.head_id = e.employee_id) "
        "AND e.status = 'active' AND e.termination_date IS NULL",
        what="lead",
    )
    spot = ctx.pick(
        "SELECT p.code, o.name AS org_unit, j.title FROM positions AS p JOIN job_profiles AS j USING "
        "(job_profile_id) JOIN org_units AS o ON o.org_unit_id = p.org_unit_id WHERE p.status = 'open' "
        "AND p.org_unit_id <> ? AND j.pay_grade_id = (SELECT j2.pay_grade_id FROM employees AS e JOIN "
        "positions AS p2 ON p2.position_id = e.position_id JOIN job_profiles AS j2 ON j2.job_profile_id = "
        "p2.job_profile_id WHERE e.employee_id = ?)",
        [lead["org_unit_id"], lead["employee_id"]],
        what="open position of the lead's grade",
    )
    heir, partner = heir_and_partner(ctx, lead)
    story["leaver"], story["heir"], story["spot"] = lead, heir, spot
    introduce(ctx, partner)


@step(inputs=("leaver", "spot"), goal="the lead transferred into the open position")
def move_lead(story: Story) -> None:
    leaver, spot = story["leaver"], story["spot"]
    story.say(
        [
            "Then transfer {name} into the open position {code} ({title}, {unit}), reporting to that unit's "
            "head.",
            "After that move {name} to position {code}, the open {title} role in {unit}, under its head.",
        ],
        name=leaver["full_name"],
        code=spot["code"],
        title=spot["title"],
        unit=spot["org_unit"],
    )
    story.read("list_positions", {"org_unit": spot["org_unit"], "status": "open", "limit": 50})
    story.call(
        "transfer_worker",
        {"employee": leaver["employee_number"], "position": spot["code"]},
    )
    story.ctx.goal(
        "the lead moved, the team stayed",
        "SELECT e.org_unit_id, (SELECT count(*) FROM employees AS r "
        "WHERE r.manager_id = e.employee_id AND r.status <> 'terminated') AS reports FROM employees AS e "
        "WHERE e.employee_id = ?",
        [leaver["employee_id"]],
    )


OPEN_ALONE = (
    "SELECT p.code, p.org_unit_id, o.name AS org_unit, j.title, g.min_salary, g.max_salary, "
    "o.hr_partner_id FROM positions AS p JOIN job_profiles AS j USING (job_profile_id) JOIN pay_grades "
    "AS g ON g.pay_grade_id = j.pay_grade_id JOIN org_units AS o ON o.org_unit_id = p.org_unit_id "
    "WHERE p.status = 'open' AND (SELECT count(*) FROM positions AS q WHERE q.status = 'open' AND "
    "q.org_unit_id = p.org_unit_id AND q.job_profile_id = p.job_profile_id) = 1"
)
"""Open positions whose title is the only open one of its title in its unit (a hire names it uniquely)."""

NEW_PEOPLE = (
    ("Priya", "Natarajan"),
    ("Tomasz", "Wójcik"),
    ("Amara", "Okafor"),
    ("Lucas", "Moreau"),
    ("Hana", "Sato"),
    ("Diego", "Ramírez"),
    ("Ingrid", "Halvorsen"),
    ("Kwame", "Mensah"),
)


def cast_hiring_partner(story: Story) -> None:
    """An HR partner and one to three open positions of the units they partner (one of a unit's titles
    each), in the order of their units."""
    ctx = story.ctx
    spot = ctx.pick(OPEN_ALONE, what="open position")
    spots = ctx.sample(
        f"SELECT * FROM ({OPEN_ALONE}) AS s WHERE s.hr_partner_id = ? ORDER BY s.org_unit, s.code",
        [spot["hr_partner_id"]],
        k=ctx.choice((1, 2, 2, 3)),
        what="open position",
    )
    spots.sort(key=lambda p: (p["org_unit"], p["code"]))
    partner = ctx.one(
        "SELECT e.employee_id, e.employee_number, e.first_name || ' ' || e.last_name AS full_name "
        "FROM employees AS e WHERE e.employee_id = ? AND e.status = 'active'",
        [spot["hr_partner_id"]],
    )
    if partner is None:
        raise Skip("no partner")
    story["spot"], story["spots"], story["partner"] = spot, spots, partner
    introduce(ctx, partner)


@step(
    inputs=("spots", "partner"),
    outputs=("hire",),
    goal="the hires into the open positions, onboarding started, the signed contracts ticked off",
    capabilities=("cross_step_dependency",),
)
def hire_and_onboard(story: Story) -> None:
    ctx, spots, partner = story.ctx, story["spots"], story["partner"]
    people = ctx.rng.sample(NEW_PEOPLE, len(spots))
    offers = []
    for spot, (first, last) in zip(spots, people, strict=True):
        start = dt.date(2026, 7, 6) + dt.timedelta(weeks=ctx.rng.randrange(0, 8))
        lo, hi = Decimal(str(spot["min_salary"])), Decimal(str(spot["max_salary"]))
        salary = (lo + (hi - lo) * Decimal(ctx.rng.randrange(10, 90)) / 100).quantize(Decimal("1000"))
        offers.append((spot, first, last, start, salary))
    story.say(
        [
            "We've hired: {who}. Please put them in the system, start their onboarding, and tick off the "
            "contract signing for each, they've all signed.",
            "New starters: {who}. Set each of them up with their onboarding checklist; their contracts are "
            "signed, so mark that task done.",
        ],
        who="; ".join(
            f"{first} {last} as our new {spot['title']} in {spot['org_unit']}, starting {start} on a base "
            f"salary of {salary}"
            for spot, first, last, start, salary in offers
        ),
    )
    positions = {}
    for spot in spots:
        if spot["org_unit"] not in positions:
            positions[spot["org_unit"]] = story.read_all(
                "list_positions", {"org_unit": spot["org_unit"], "status": "open"}
            )
    story.read("list_checklist_templates", {})
    hires = []
    for spot, first, last, start, salary in offers:
        engineering = spot["org_unit_id"] in (2, 8, 9, 10)
        template = "Engineering onboarding" if engineering else "Standard onboarding"
        ctx.derived(template, "the onboarding template for the unit")
        code = next(p["code"] for p in positions[spot["org_unit"]] if p["job_title"] == spot["title"])
        made = story.call(
            "hire_worker",
            {
                "first_name": first,
                "last_name": last,
                "position": code,
                "start_date": start,
                "base_salary": salary,
            },
        )
        ctx.derived(made["employee_number"], "the new worker's number, returned by hire_worker")
        story.call("start_checklist", {"employee": made["employee_number"], "template": template})
        tasks = story.read_all(
            "list_checklist_tasks", {"scope": "employee", "employee": made["employee_number"]}
        )
        for t in tasks:
            if t["assignee"] == partner["employee_number"] and t["title"] == "Sign the employment contract":
                ctx.derived(t["task_id"], "the contract task's id, from list_checklist_tasks")
                story.call("complete_checklist_task", {"task_id": t["task_id"]})
        hires.append(made["employee_number"])
    story.knob(
        "policy_detour", "a hire gets an onboarding checklist before the first day (onboarding_before_start)"
    )
    story.knob("solver_filtering", "only the contract task of each checklist")
    story["hire"] = hires
    ctx.goal(
        "the hires are pre-hires with onboarding",
        "SELECT e.first_name, e.last_name, e.status, count(c.checklist_id) AS checklists FROM employees AS e "
        "LEFT JOIN checklists AS c USING (employee_id) WHERE list_contains(?, e.first_name || ' ' || "
        "e.last_name) GROUP BY ALL ORDER BY ALL",
        [[f"{first} {last}" for _, first, last, _, _ in offers]],
    )


NEW_HIRE_SETUP = Storyline(
    "new_hire_setup",
    cast_hiring_partner,
    (hire_and_onboard,),
    provides=("spot", "spots", "partner"),
    weight=0.5,
)


LEAD_MOVES_ON = Storyline(
    "lead_moves_on",
    cast_moving_lead,
    (hand_over_team, move_lead),
    provides=("leaver", "heir", "spot"),
    weight=0.8,
)

DESK_STORYLINES = [RAISE_QUEUE, LEAD_MOVES_ON, NEW_HIRE_SETUP]
