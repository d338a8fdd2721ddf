"""Storylines that cross the workplace's systems: one request whose steps run in HR, ITSM and the calendar.

- `offboard_everywhere` (HR partner): a worker of a unit they partner leaves today. In HR, every system
  access they hold is revoked (HR's procedure offboarding_access_revoked) and the termination is recorded
  with today as the last day; then their calendar account is closed in the meeting app (the workplace's
  procedure leavers_offboarded_everywhere), which cancels the meetings they organise and takes them off
  invitations. A solver that stops after HR breaks the procedure and fails its verifier by name.
- `offboard_lead_everywhere` (HR partner): HR's own offboarding of a team lead, step for step (the team to
  a colleague, every access revoked, the termination, the partner's checklist tasks, their open cases:
  `in_member("hr", ...)`), then the calendar closed as above.

The SQL here names tables with their schema (`hr.employees`): a recipe's queries run on the whole
database, while the tools it calls run in their member's schema (stateforge.tools.compose).
"""

from __future__ import annotations

from stateforge.packs.hr.tasks import stories as hr
from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step
from stateforge.tasks.members import in_member, member_cast
from stateforge.tasks.wording import join_words

from .calendar import DAYS, earliest, one_to_ones

PHRASES = (
    "I'm {name} from HR ({email}).",
    "This is {name}, HR partner ({email}).",
    "Hi, {name} here ({email}), HR.",
)
PERSON = (
    "SELECT e.employee_id, e.employee_number, e.work_email, e.first_name || ' ' || e.last_name AS full_name, "
    "e.org_unit_id FROM hr.employees AS e"
)
NOW = "TIMESTAMP '2026-06-30 12:00:00'"
NO_REPORTS = "NOT EXISTS (SELECT 1 FROM hr.employees AS r WHERE r.manager_id = e.employee_id)"
NOTHING_TO_HAND_OVER = (
    "e.status = 'active' AND e.termination_date IS NULL AND e.security_role IN ('employee', 'manager') "
    "AND NOT EXISTS (SELECT 1 FROM hr.org_units AS o WHERE o.head_id = e.employee_id "
    "OR o.hr_partner_id = e.employee_id) "
    "AND NOT EXISTS (SELECT 1 FROM hr.compensation_changes AS x WHERE x.employee_id = e.employee_id "
    "AND x.status = 'proposed') "
    "AND NOT EXISTS (SELECT 1 FROM hr.leave_requests AS l WHERE l.employee_id = e.employee_id "
    "AND l.status IN ('pending', 'approved') AND l.end_date >= DATE '2026-06-30') "
    "AND NOT EXISTS (SELECT 1 FROM itsm.group_members AS gm WHERE gm.user_id = e.employee_id) "
    "AND NOT EXISTS (SELECT 1 FROM meeting.org_units AS u WHERE u.head_employee_id = e.employee_id)"
)
"""A current worker HR lets go today with nothing else to settle first: heading or partnering no unit, no
raise waiting, no leave ahead, on no ITSM team, heading no unit of the calendar."""


def cast_leaver(story: Story, *, with_reports: bool = False) -> None:
    """A current worker with no reports in HR, system access and upcoming meetings they organise (heading
    no unit of the meeting app, on no ITSM team), and the HR partner of their unit, who speaks."""
    ctx = story.ctx
    leaver = ctx.pick(
        f"{PERSON} WHERE {NOTHING_TO_HAND_OVER} AND "
        + ("EXISTS (SELECT 1 FROM hr.employees AS r WHERE r.manager_id = e.employee_id "
           "AND r.status <> 'terminated')" if with_reports else NO_REPORTS)
        + " AND EXISTS (SELECT 1 FROM hr.system_access AS a WHERE a.employee_id = e.employee_id "
        "AND a.revoked_at IS NULL) "
        f"AND EXISTS (SELECT 1 FROM meeting.meetings AS m WHERE m.organizer_id = e.employee_id "
        f"AND m.status = 'scheduled' AND m.start_at > {NOW})",
        what="worker who organises upcoming meetings",
    )
    partner = ctx.one(
        f"{PERSON} JOIN hr.org_units AS o ON o.hr_partner_id = e.employee_id WHERE o.org_unit_id = ? "
        "AND e.status = 'active' AND e.employee_id <> ?",
        [leaver["org_unit_id"], leaver["employee_id"]],
    )
    if partner is None:
        raise Skip("no partner")
    story["leaver"], story["partner"] = leaver, partner
    ctx.act_as("hr.employees", {"work_email": partner["work_email"]})
    ctx.say(list(PHRASES), name=partner["full_name"], email=partner["work_email"])


def with_colleagues(cast, most: int = 2):
    """`cast`, then up to `most` other workers of the partner's units leaving the same day (as often none
    as one or two), with nothing to hand over and an open calendar (`story["colleagues"]`): a request for
    several leavers at once."""
    def cast_several(story: Story) -> None:
        cast(story)
        leaver, partner = story["leaver"], story["partner"]
        k = story.rng.randrange(most + 1)
        pool = story.sql(
            f"{PERSON} JOIN hr.org_units AS u ON u.org_unit_id = e.org_unit_id WHERE u.hr_partner_id = ? "
            f"AND e.employee_id NOT IN (?, ?) AND {NO_REPORTS} AND {NOTHING_TO_HAND_OVER} "
            "AND EXISTS (SELECT 1 FROM meeting.employees AS c WHERE c.employee_id = e.employee_id "
            "AND c.is_active) ORDER BY e.employee_number",
            [partner["employee_id"], leaver["employee_id"], partner["employee_id"]],
        ) if k else []
        story["colleagues"] = [pool[i] for i in sorted(story.rng.sample(range(len(pool)), min(k, len(pool))))]

    cast_several.__doc__ = f"{cast.__doc__} With up to {most} colleagues leaving the same day."
    return cast_several


def leavers_phrase(story: Story) -> str:
    """'A (E001)', 'A (E001) and B (E002)', ...: the leaver and their colleagues by employee number."""
    return join_words([f"{p['full_name']} ({p['employee_number']})" for p in everyone_leaving(story)])


def everyone_leaving(story: Story) -> list[dict]:
    """The leaver and their colleagues (`with_colleagues`), by employee number."""
    people = [story["leaver"], *story.get("colleagues", [])]
    return sorted(people, key=lambda p: p["employee_number"])


@step(inputs=("leaver",), goal="every access of the leavers revoked (HR's procedure)",
      capabilities=("cross_step_dependency",))
def revoke_everything(story: Story) -> None:
    people = everyone_leaving(story)
    if len(people) == 1:
        story.say(
            ["{name} ({number}) is leaving us today. Revoke every system access they still have,",
             "{name}, employee {number}, leaves today: first take away all their system access,"],
            name=people[0]["full_name"], number=people[0]["employee_number"],
        )
    else:
        story.say(["{people} are leaving us today. Revoke every system access each of them still has,",
                   "{people} leave today: first take away all of their system access,"],
                  people=leavers_phrase(story))
    for person in people:
        access = story.read("list_system_access", {"employee": person["employee_number"]})["access"]
        for a in access:
            story.call("revoke_access", {"employee": person["employee_number"], "system": a["system"]})


@step(inputs=("leaver",), goal="terminated today in HR")
def terminate_today(story: Story) -> None:
    people = everyone_leaving(story)
    if len(people) == 1:
        story.say(["then record the termination with today as their last day (a resignation).",
                   "then process their resignation effective today."])
    else:
        story.say(["then record each termination with today as the last day (resignations).",
                   "then process their resignations effective today."])
    story.ctx.derived(story.ctx.today, "today is the last day")
    for person in people:
        story.call("terminate_worker", {"employee": person["employee_number"], "last_day": story.ctx.today,
                                        "involuntary": False})


@step(inputs=("leaver",), goal="their calendar closed: upcoming meetings cancelled, invitations dropped",
      capabilities=("cross_step_dependency",))
def close_calendar(story: Story) -> None:
    story.say(["After that, close them out everywhere else the company expects when someone leaves.",
               "Last, finish their offboarding in the other systems as our procedures require."])
    for person in everyone_leaving(story):
        story.call("offboard_employee", {"person": person["employee_number"], "last_day": story.ctx.today})
        story.ctx.goal(
            f"the calendar of {person['full_name']} closed and no upcoming meeting of theirs left scheduled",
            "SELECT c.is_active, c.left_on, (SELECT count(*) FROM meeting.meetings AS m WHERE "
            f"m.organizer_id = c.employee_id AND m.status = 'scheduled' AND m.start_at > {NOW}) AS scheduled "
            "FROM meeting.employees AS c WHERE c.employee_id = ?",
            [person["employee_id"]],
        )
    story.knob("policy_detour", "the calendar closes only after HR has terminated the worker")


OFFBOARD_EVERYWHERE = Storyline(
    "offboard_everywhere",
    with_colleagues(cast_leaver),
    (revoke_everything, terminate_today, close_calendar),
    provides=("leaver", "partner"),
    weight=1.0,
)



LEAD_ELSEWHERE = (
    # an HR partner can change none of these: the lead is on no ITSM group, heads no unit of the calendar
    # and no request approval of a report waits for them (it would be left with no manager to decide it)
    " AND NOT EXISTS (SELECT 1 FROM itsm.group_members AS gm WHERE gm.user_id = e.employee_id)"
    " AND NOT EXISTS (SELECT 1 FROM meeting.org_units AS u WHERE u.head_employee_id = e.employee_id)"
    " AND NOT EXISTS (SELECT 1 FROM itsm.request_approvals AS a WHERE a.approver_id = e.employee_id"
    " AND a.state = 'requested')"
)


def cast_lead_everywhere(story: Story) -> None:
    """HR's team lead who leaves (`hr.stories.cast_leaver`), with the workplace's conditions on the other
    systems (`LEAD_ELSEWHERE`)."""
    member_cast("hr", hr.cast_leaver)(story, LEAD_ELSEWHERE)


@step(inputs=("reports", "heir"), goal="the new manager meets the team next week",
      capabilities=("cross_step_dependency", "multi_condition_filtering"))
def meet_new_manager(story: Story) -> None:
    """Most of the time: up to twelve reports, a 30-minute online 1:1 of the heir with each, one after
    another (in the directory's order, each at the earliest time the two are free); more, or one time in
    five, one 45-minute online team meeting with all of them at the earliest time everyone is free; one
    time in ten, none."""
    reports, heir = story["reports"], story["heir"]
    way = story.rng.choices(("one_to_ones", "team", "none"), weights=(7, 2, 1))[0] if reports else "none"
    if way == "none":
        return
    day = story.rng.choice(DAYS)
    small = len(reports) <= 12 and way == "one_to_ones"
    title = f"1:1 with {heir['full_name']}" if small else f"Meet {heir['full_name']}"
    if small:
        story.say(["Finally, set {heir} up with a 30-minute online \"{title}\" with each of the team on "
                   "{day}: "
                   "in the directory's order of their names, each at the earliest time the two are free.",
                   "And give each of the team a 30-minute online 1:1 with {heir} on {day}, called "
                   "\"{title}\", "
                   "booked one by one in alphabetical order of their names at the first time both are free."],
                  heir=heir["full_name"], title=title, day=day)
        one_to_ones(story, heir["employee_number"], reports, day, 30, title)
        story.knob("solver_filtering", "one after another, in the directory's order")
    else:
        story.say(["Finally, put in a 45-minute online \"{title}\" for {heir} and the whole team on {day}, "
                   "at "
                   "the earliest time all of them are free.",
                   "And on {day}, at the first time everyone is free, a 45-minute online meeting \"{title}\" "
                   "of {heir} with the whole team."], heir=heir["full_name"], title=title, day=day)
        slot = earliest(story, [heir["employee_number"], *reports], day, 45)
        story.call("schedule_meeting", {"organizer": heir["employee_number"], "title": title,
                                        "start_at": slot["start_at"], "duration_minutes": 45,
                                        "invitees": list(reports), "is_online": True})
    story.ctx.goal(
        "the new manager's meetings with the team",
        "SELECT m.start_at, count(a.employee_id) AS invited FROM meeting.meetings AS m "
        "JOIN meeting.employees AS o ON o.employee_id = m.organizer_id "
        "LEFT JOIN meeting.meeting_attendees AS a USING (meeting_id) "
        "WHERE o.employee_no = ? AND m.title = ? AND m.status = 'scheduled' GROUP BY ALL ORDER BY 1",
        [heir["employee_number"], title],
    )


OFFBOARD_LEAD_EVERYWHERE = Storyline(
    "offboard_lead_everywhere",
    cast_lead_everywhere,
    (*(in_member("hr", s) for s in (hr.hand_over_team, hr.revoke_everything, hr.terminate_today,
                                    hr.my_offboarding_tasks, hr.close_their_cases)), close_calendar,
     meet_new_manager),
    provides=("leaver", "heir", "partner"),
    weight=1.2,
)


def cast_lead_leaver(story: Story) -> None:
    """As `cast_leaver`, a worker who still has direct reports in HR."""
    cast_leaver(story, with_reports=True)


@step(inputs=("leaver",), goal="the termination refused: the leaver still has reports (nothing changed)",
      capabilities=("cross_step_dependency",))
def terminate_lead_first(story: Story) -> None:
    leaver, people = story["leaver"], everyone_leaving(story)
    if len(people) == 1:
        story.say(
            ["{name} ({number}) is leaving us today. Record their resignation with today as the last day "
             "first; then revoke their system access and close them out in the other systems as our "
             "procedures require. If HR will not take the termination today, leave everything as it is.",
             "{name}, employee {number}, resigns effective today: process the termination before anything "
             "else, then take away their access and finish their offboarding everywhere; if the termination "
             "cannot go through, change nothing."],
            name=leaver["full_name"], number=leaver["employee_number"],
        )
    else:
        story.say(
            ["{people} are leaving us today. Record their resignations with today as the last day first; "
             "then revoke their system access and close them out in the other systems as our procedures "
             "require. It is all of them or none: if HR will not take one of the terminations today, leave "
             "everything as it is for everyone.",
             "{people} resign effective today: process the terminations before anything else, then take "
             "away their access and finish their offboarding everywhere. If any one termination cannot go "
             "through, change nothing for any of them."],
            people=leavers_phrase(story),
        )
    for person in people:
        story.read("get_worker", {"employee": person["employee_number"]})
        story.read_all("search_workers", {"manager": person["employee_number"]})
    story.ctx.derived(story.ctx.today, "today is the last day")
    story.blocked(
        "terminate_worker",
        {"employee": leaver["employee_number"], "last_day": story.ctx.today, "involuntary": False},
        kind="forbidden",
        because=f"{leaver['full_name']} still has direct reports: those need a new manager first",
        policy="reports_reassigned_first",
    )


OFFBOARD_LEAD_BLOCKED = Storyline(
    "offboard_lead_blocked",
    with_colleagues(cast_lead_leaver),
    (terminate_lead_first,),
    provides=("leaver", "partner"),
    feasible=False,
    capabilities=("cross_step_dependency",),
    weight=0.3,
)

STORYLINES: list[Storyline] = [OFFBOARD_EVERYWHERE, OFFBOARD_LEAD_EVERYWHERE, OFFBOARD_LEAD_BLOCKED]

