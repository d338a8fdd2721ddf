"""Infeasible requests that cross the systems: the whole onboarding or offboarding is asked, all or nothing,
and its first write is refused by a policy the reads reveal, or would break the workplace's procedure.

- `onboard_over_grade`: one of the hires is offered more than their grade's top (`list_job_profiles`
  shows the range); `hire_worker` refuses it (salary_within_grade) and nothing is done for anyone.
- `onboard_other_unit`: the HR partner who asks does not partner the unit (`list_org_units` shows who
  does); `hire_worker` refuses (hr_partner_scope).
- `move_up_as_transfer`: one of a group of workers moving to another unit is to take an opening of
  another pay grade (`list_positions` and `get_worker` show both); `transfer_worker` refuses it
  (lateral_moves_keep_the_grade: a promotion is not a transfer) and nobody moves.
- `move_lead_blocked`: one of a group of workers moving to another unit still has direct reports (each
  mover read with `get_worker` and `search_workers` by manager); `transfer_worker` refuses it
  (reports_reassigned_first: the team needs a new manager first) and nobody moves.
- `leave_calendar_open`: a leaver's termination asked for today while their calendar is to stay open for
  their meetings: the tools let it go through, the procedure leavers_offboarded_everywhere forbids it.
"""

from __future__ import annotations

import datetime as dt
from functools import partial

from stateforge.tasks.compose import Story, Storyline, step

from .onboarding import cast_hiring, hiring_phrase
from .stories import PERSON, PHRASES, cast_leaver, everyone_leaving, leavers_phrase, with_colleagues
from .transfers import along_with, moves, names

ALL_OR_NOTHING = (
    "It is all or nothing: if HR will not take one of the hires exactly as I put it, don't change anything.",
    "Do all of it or none of it: if any hire cannot go through as asked, leave everything as it is.",
)


def _ask_onboarding(story: Story) -> None:
    unit, hires, start = story["unit"], story["hires"], story["start"]
    people = hiring_phrase(hires)
    story.say(["We're hiring {people} in {unit}, starting {start}: hire them, start their standard "
               "onboarding and do my tasks on it, open their service desk accounts and calendars, and put a "
               "welcome meeting with {boss}'s team in on day one.",
               "Please hire {people} into {unit} for {start}, then onboard them everywhere: checklist, "
               "service desk account, calendar and a first-day welcome with {boss}'s team."],
              people=people, unit=unit["unit"], start=start, boss=story["head"]["full_name"])
    story.say(list(ALL_OR_NOTHING))


@step(inputs=("unit", "hires", "start", "head", "blocker"), goal="the hire over the grade refused (nothing "
      "changed)", capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def hire_over_grade(story: Story) -> None:
    _ask_onboarding(story)
    rows = story.read_all("list_positions", {"org_unit": story["unit"]["unit"], "status": "open"})
    story.read("list_job_profiles", {})
    bad = story["blocker"]
    [code] = [r["code"] for r in rows if r["job_title"] == bad["title"]]
    story.ctx.derived(code, "the open position of that job, from list_positions")
    story.knob("solver_filtering", "whose salary is outside their grade")
    story.blocked(
        "hire_worker",
        {"first_name": bad["first"], "last_name": bad["last"], "position": code, "start_date": story["start"],
         "base_salary": bad["salary"]},
        kind="forbidden",
        because=f"{bad['salary']:,} is above the top of the {bad['title']} grade",
        policy="salary_within_grade",
    )


@step(inputs=("unit", "hires", "start", "head", "blocker"), goal="the hire refused: not the partner's unit "
      "(nothing changed)", capabilities=("multi_condition_filtering",))
def hire_elsewhere(story: Story) -> None:
    _ask_onboarding(story)
    story.read("list_org_units", {})
    rows = story.read_all("list_positions", {"org_unit": story["unit"]["unit"], "status": "open"})
    first = story["blocker"]
    [code] = [r["code"] for r in rows if r["job_title"] == first["title"]]
    story.ctx.derived(code, "the open position of that job, from list_positions")
    story.blocked(
        "hire_worker",
        {"first_name": first["first"], "last_name": first["last"], "position": code,
         "start_date": story["start"], "base_salary": first["salary"]},
        kind="forbidden",
        because=f"I do not partner {story['unit']['unit']}: its own HR partner hires into it",
        policy="hr_partner_scope",
    )


@step(inputs=("leaver",), goal="the termination declined: the calendar must close with it (nothing changed)",
      capabilities=("cross_step_dependency",))
def terminate_keep_calendar(story: Story) -> None:
    leaver, people = story["leaver"], everyone_leaving(story)
    until = story.ctx.today + dt.timedelta(days=story.rng.choice((14, 21, 31)))
    if len(people) == 1:
        story.say(
            ["{name} ({number}) leaves us today. Record the termination with today as the last day and "
             "take away their system access, but keep their calendar open until {until} so the meetings "
             "they set up still go ahead. If that can't be done, change nothing.",
             "{name}, employee {number}, resigns effective today: process it and revoke their access, yet "
             "leave their calendar account running until {until}, their meetings must not be cancelled. "
             "All of it or nothing."],
            name=leaver["full_name"], number=leaver["employee_number"], until=until,
        )
    else:
        story.say(
            ["{people} leave us today. Record each termination with today as the last day and take away "
             "their system access, but keep {name}'s calendar open until {until} so the meetings they set "
             "up still go ahead. All of them or none: if one part can't be done, change nothing for anyone.",
             "{people} resign effective today: process them and revoke their access; {name}'s calendar "
             "account stays running until {until}, their meetings must not be cancelled. Do it for all of "
             "them or for none."],
            people=leavers_phrase(story), name=leaver["full_name"], until=until,
        )
    for person in people:
        story.read("get_worker", {"employee": person["employee_number"]})
        story.read("list_system_access", {"employee": person["employee_number"]})
    story.read_all("search_meetings", {"organizer": leaver["employee_number"], "status": "scheduled",
                                       "starts_from": f"{story.ctx.today}T12:00"})
    story.ctx.derived(story.ctx.today, "today is the last day")
    story.blocked(
        "terminate_worker",
        {"employee": leaver["employee_number"], "last_day": story.ctx.today, "involuntary": False},
        kind="forbidden",
        because="a leaver's calendar is closed with their last day (our offboarding procedure), so it "
                "cannot stay open",
        policy="leavers_offboarded_everywhere",
    )


def _cast_moves(story: Story, blocker: str, what: str) -> None:
    """The blocker (a pick of `blocker`, a `moves(...)` query), its unit's partner as the speaker, and none
    to two lateral moves into the same unit by others the partner looks after (`along_with`)."""
    ctx = story.ctx
    bad = ctx.pick(blocker, what=what)
    partner = ctx.one(f"{PERSON} WHERE e.employee_id = ? AND e.status = 'active'", [bad["hr_partner_id"]])
    if partner is None:
        ctx.skip("no partner")
    movers = [bad, *along_with(story, bad, story.rng.choice((0, 1, 2)))]
    story["movers"] = sorted(movers, key=lambda m: m["employee_number"])
    story["blocker"], story["partner"] = bad, partner
    ctx.act_as("hr.employees", {"work_email": partner["work_email"]})
    ctx.say(list(PHRASES), name=partner["full_name"], email=partner["work_email"])


@step(inputs=("movers", "blocker"), goal="the move refused: another pay grade is not a transfer (nothing "
      "changed)", capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def transfer_across_grades(story: Story) -> None:
    movers, bad = story["movers"], story["blocker"]
    unit = bad["unit"]
    if len(movers) == 1:
        story.say(["{name} ({number}) moves to {unit} today, into the open {title} position there; their "
                   "calendar profile, desks and meetings follow. If HR will not take it as a transfer, "
                   "change nothing.",
                   "Please transfer {name}, employee {number}, to {unit} as its {title} from today and move "
                   "them in the other systems too; should the transfer not go through, leave it all as is."],
                  name=bad["full_name"], number=bad["employee_number"], unit=unit, title=bad["title"])
    else:
        jobs = "; ".join(f"{m['full_name']} as its {m['title']}" for m in movers)
        story.say(["{people} move to {unit} today, each into the open position of that job there ({jobs}); "
                   "their calendar profiles, desks and meetings follow. All of it or nothing: if HR will not "
                   "take one of the moves as a transfer, don't move anybody.",
                   "Please transfer {people} to {unit} from today ({jobs}) and move them in the other "
                   "systems too. It is all or none: should one transfer not go through, change nothing for "
                   "anyone."],
                  people=names(movers), unit=unit, jobs=jobs)
    rows = story.read_all("list_positions", {"org_unit": unit, "status": "open"})
    for m in movers:
        story.read("get_worker", {"employee": m["employee_number"]})
    _refuse_transfer(story, rows, "whose opening is of another pay grade",
                     f"the {bad['title']} opening is of another pay grade than {bad['full_name']}'s: a "
                     "promotion or a step down, not a transfer", "lateral_moves_keep_the_grade")


def cast_group_move(story: Story) -> None:
    """A worker whose move to another unit would change their pay grade (`moves("<>")`: the blocker)."""
    _cast_moves(story, moves("<>"), "move across grades")


def cast_lead_move(story: Story) -> None:
    """A worker who still has direct reports, to move laterally to another unit (`moves(with_reports=True)`:
    the blocker)."""
    _cast_moves(story, moves(with_reports=True), "move of a worker with reports")


def _refuse_transfer(story: Story, rows: list[dict], knob: str, because: str, policy: str) -> None:
    """The blocker's transfer into the open position of their job (from `rows`, list_positions), refused."""
    bad = story["blocker"]
    [code] = [r["code"] for r in rows if r["job_title"] == bad["title"]]
    story.ctx.derived(code, "the open position of that job, from list_positions")
    story.knob("solver_filtering", knob)
    story.blocked("transfer_worker", {"employee": bad["employee_number"], "position": code},
                  kind="forbidden", because=because, policy=policy)


@step(inputs=("movers", "blocker"), goal="the move refused: a mover still has reports (nothing changed)",
      capabilities=("multi_condition_filtering", "cross_step_dependency"))
def transfer_with_team(story: Story) -> None:
    movers, bad = story["movers"], story["blocker"]
    unit = bad["unit"]
    jobs = "; ".join(f"{m['full_name']} as its {m['title']}" for m in movers)
    story.say(["{people} move to {unit} today, each into the open position of their job there ({jobs}); "
               "their calendar profiles, desks and meetings follow. Transfer them first: if HR will not take "
               "one of the moves, don't move anybody and change nothing.",
               "Please transfer {people} to {unit} from today ({jobs}), then move them in the other systems "
               "too. All or none: should one transfer not go through, leave everything as it is."],
              people=names(movers), unit=unit, jobs=jobs)
    rows = story.read_all("list_positions", {"org_unit": unit, "status": "open"})
    for m in movers:
        story.read("get_worker", {"employee": m["employee_number"]})
        story.read_all("search_workers", {"manager": m["employee_number"]})
    _refuse_transfer(story, rows, "which mover still has direct reports",
                     f"{bad['full_name']} still has direct reports: they need a new manager before the move",
                     "reports_reassigned_first")


def _blocked(name: str, cast, item, provides, weight: float) -> Storyline:
    return Storyline(name, cast, (item,), provides=provides, feasible=False,
                     capabilities=("cross_step_dependency",), weight=weight)


HIRING = ("unit", "partner", "head", "hires", "start", "blocker")
BLOCKED_STORIES = [
    _blocked("onboard_over_grade", partial(cast_hiring, over_grade=True), hire_over_grade, HIRING, 0.2),
    _blocked("onboard_other_unit", partial(cast_hiring, stranger=True), hire_elsewhere, HIRING, 0.2),
    _blocked("move_up_as_transfer", cast_group_move, transfer_across_grades,
             ("movers", "partner", "blocker"), 0.25),
    _blocked("move_lead_blocked", cast_lead_move, transfer_with_team, ("movers", "partner", "blocker"), 0.2),
    _blocked("leave_calendar_open", with_colleagues(cast_leaver), terminate_keep_calendar,
             ("leaver", "partner"), 0.25),
]
