"""Workers move to another unit, in all three systems (their HR partner speaks): one to three of the units
the partner looks after move into open positions of their grades in one new unit. For each: the transfer in
HR (their manager, in ITSM and the calendar too, becomes the new unit's head: `sync:`), their calendar
profile given the new job title and the new manager's building, their desks moved there for the days of
next week they work in the office (by their calendar's working hours), their recurring meetings swapped
from the old manager's to the new one's when there are any, and a welcome 1:1 with the new manager; one who
moves alone also has a coffee with each new teammate."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks.compose import Story, Storyline, step
from stateforge.tasks.wording import join_words

from .calendar import DAYS, one_to_ones
from .stories import PERSON, PHRASES

NEXT_WEEK = [dt.date(2026, 7, 6) + dt.timedelta(days=i) for i in range(5)]


def moves(grade: str = "=", *, with_reports: bool = False) -> str:
    """The SQL of every (worker, opening) pair of a move: a current worker with no reports (`with_reports`:
    with current ones) and a calendar, and an open position in another unit (the only opening of its job
    there) whose head has a calendar in a building; `grade` compares the opening's pay grade with the
    worker's (`=`: a lateral move)."""
    return (
        "SELECT w.employee_id, w.employee_number, w.work_email, "
        "w.first_name || ' ' || w.last_name AS full_name, "
        "w.manager_id, o.hr_partner_id, x.code, j.title, u.name AS unit, u.head_id "
        "FROM hr.employees AS w JOIN hr.org_units AS o ON o.org_unit_id = w.org_unit_id "
        "JOIN hr.positions AS p ON p.position_id = w.position_id "
        "JOIN hr.job_profiles AS jp ON jp.job_profile_id = p.job_profile_id "
        "JOIN hr.positions AS x ON x.status = 'open' AND x.org_unit_id <> w.org_unit_id "
        "JOIN hr.job_profiles AS j ON j.job_profile_id = x.job_profile_id "
        f"AND j.pay_grade_id {grade} jp.pay_grade_id "
        "JOIN hr.org_units AS u ON u.org_unit_id = x.org_unit_id "
        "JOIN meeting.employees AS hm ON hm.employee_id = u.head_id AND hm.is_active "
        "AND hm.home_building_id IS NOT NULL "
        "JOIN meeting.employees AS wm ON wm.employee_id = w.employee_id AND wm.is_active "
        "WHERE w.status = 'active' AND w.termination_date IS NULL "
        "AND w.security_role IN ('employee', 'manager') "
        "AND o.hr_partner_id NOT IN (w.employee_id, u.head_id) AND u.head_id <> w.employee_id "
        + ("AND EXISTS (SELECT 1 FROM hr.employees AS r WHERE r.manager_id = w.employee_id "
           "AND r.status <> 'terminated') " if with_reports else
           "AND NOT EXISTS (SELECT 1 FROM hr.employees AS r WHERE r.manager_id = w.employee_id) ") +
        "AND NOT EXISTS (SELECT 1 FROM hr.org_units AS h "
        "WHERE w.employee_id IN (h.head_id, h.hr_partner_id)) "
        "AND (SELECT count(*) FROM hr.positions AS y WHERE y.org_unit_id = x.org_unit_id "
        "AND y.status = 'open' AND y.job_profile_id = x.job_profile_id) = 1 "
        # an approval waiting for the old manager would be left with someone who no longer manages them
        "AND NOT EXISTS (SELECT 1 FROM itsm.request_approvals AS a "
        "JOIN itsm.requested_items AS r USING (ritm_id) JOIN itsm.requests AS q USING (request_id) "
        "WHERE q.requested_for = w.employee_id AND a.state = 'requested')"
    )


MOVES = moves()
"""Every lateral move (`moves`)."""


def cast_mover(story: Story) -> None:
    """One to three movers (weights 40/30/30) into the same unit, each into their own opening
    (`MOVES`), all partnered by the HR partner who speaks."""
    ctx = story.ctx
    move = ctx.pick(MOVES, what="worker to move")
    partner = ctx.one(f"{PERSON} WHERE e.employee_id = ? AND e.status = 'active'", [move["hr_partner_id"]])
    head = ctx.one(f"{PERSON} WHERE e.employee_id = ?", [move["head_id"]])
    if partner is None:
        ctx.skip("no partner")
    movers = [move, *along_with(story, move, story.rng.choices((0, 1, 2), weights=(40, 30, 30))[0])]
    movers.sort(key=lambda m: m["employee_number"])
    story["movers"], story["partner"], story["head"] = movers, partner, head
    ctx.act_as("hr.employees", {"work_email": partner["work_email"]})
    ctx.say(list(PHRASES), name=partner["full_name"], email=partner["work_email"])


def along_with(story: Story, move: dict, k: int) -> list[dict]:
    """Up to `k` more lateral moves (`MOVES`) into the same unit by other workers the same partner looks
    after, each into another opening."""
    if not k:
        return []
    pairs = story.ctx.sql(f"SELECT * FROM ({MOVES}) AS m WHERE m.head_id = ? AND m.hr_partner_id = ? "
                          "AND m.employee_id <> ? AND m.code <> ? ORDER BY m.employee_number, m.code",
                          [move["head_id"], move["hr_partner_id"], move["employee_id"], move["code"]])
    story.rng.shuffle(pairs)
    chosen: list[dict] = []
    for pair in pairs:
        if len(chosen) < k and all(pair["employee_id"] != m["employee_id"] and pair["code"] != m["code"]
                                   for m in chosen):
            chosen.append(pair)
    return chosen


def names(movers: list[dict]) -> str:
    """'A (E001)', 'A (E001) and B (E002)', ...: the movers as the request names them."""
    return join_words([f"{m['full_name']} ({m['employee_number']})" for m in movers])


@step(inputs=("movers",), goal="transferred in HR into the open positions")
def move_in_hr(story: Story) -> None:
    movers = story["movers"]
    unit = movers[0]["unit"]
    if len(movers) == 1:
        m = movers[0]
        story.say(["{name} ({number}) moves to {unit} today, into the open {title} position there.",
                   "From today {name}, employee {number}, joins {unit} as our open {title}: please "
                   "transfer them."],
                  name=m["full_name"], number=m["employee_number"], unit=unit, title=m["title"])
    else:
        jobs = "; ".join(f"{m['full_name']} as its {m['title']}" for m in movers)
        story.say(["{people} move to {unit} today, each into the open position of their job there ({jobs}).",
                   "From today {people} join {unit}: transfer each into the opening of their job there "
                   "({jobs})."],
                  people=names(movers), unit=unit, jobs=jobs)
    rows = story.read_all("list_positions", {"org_unit": unit, "status": "open"})
    story.ctx.derived(story.ctx.today, "the move is today")
    for m in movers:
        [code] = [r["code"] for r in rows if r["job_title"] == m["title"]]
        story.ctx.derived(code, "the open position of that job, from list_positions")
        story.call("transfer_worker", {"employee": m["employee_number"], "position": code})


@step(inputs=("movers", "head"), outputs=("building",),
      goal="their calendar profiles: the new job and building",
      capabilities=("cross_step_dependency",))
def new_profile(story: Story) -> None:
    head = story["head"]
    story.say(["In the meeting app, give them the new job title and {boss}'s building as their home.",
               "Their calendar profile should show the new title and {boss}'s building from now on."],
              boss=head["full_name"])
    boss = story.read("get_person", {"person": head["work_email"]})
    building = boss.get("home_building") or {}
    code = building.get("code") if isinstance(building, dict) else building
    if not code:
        story.ctx.skip("new manager has no building")
    for m in story["movers"]:
        story.call("update_profile", {"person": m["employee_number"], "job_title": m["title"],
                                      "home_building": code})
    story["building"] = code


@step(inputs=("movers", "building"), goal="their desks moved to the new building for next week's office days",
      capabilities=("full_data_acquisition",))
def desks_follow(story: Story) -> None:
    story.say(["Drop any desk they booked from today on and book them one there for each day of next week "
               "they work in the office (by their working hours in the calendar: not the days they work from "
               "home or don't work).",
               "Cancel the desks they still have booked from today, then reserve them a desk in that "
               "building on every day next week their calendar's working hours have them in the office."])
    story.ctx.derived([d.isoformat() for d in NEXT_WEEK], "Monday to Friday of next week")
    for m in story["movers"]:
        booked = story.read_all("list_desk_bookings", {"person": m["employee_number"],
                                                       "from_date": story.ctx.today, "status": "booked"})
        if booked:
            last = max(b["booking_date"] for b in booked)
            story.ctx.derived(last, "their last booked day, from list_desk_bookings")
            story.call("cancel_desk_bookings", {"person": m["employee_number"],
                                                "from_date": story.ctx.today, "to_date": last})
        hours = story.read("get_person", {"person": m["employee_number"]})["working_hours"]
        office = {h["weekday"] for h in hours if not h["remote"]}
        for day in NEXT_WEEK:
            if day.isoweekday() in office:
                story.call("book_desk", {"person": m["employee_number"], "date": day,
                                         "building": story["building"]})


def _series_of(story: Story, organizer_id: int, attendee_id: int | None = None) -> list[dict]:
    """The recurring meetings `organizer_id` runs with an occurrence ahead (of `attendee_id`'s, if given)."""
    return story.sql(
        "SELECT DISTINCT s.series_id FROM meeting.meeting_series AS s JOIN meeting.meetings AS x "
        "USING (series_id) WHERE s.organizer_id = ? AND x.status = 'scheduled' AND x.start_at > ? "
        + ("AND EXISTS (SELECT 1 FROM meeting.meeting_attendees AS a WHERE a.meeting_id = x.meeting_id "
           "AND a.employee_id = ?) " if attendee_id is not None else "") + "ORDER BY 1",
        [organizer_id, story.ctx.now, *([attendee_id] if attendee_id is not None else [])])


@step(inputs=("movers", "head"), goal="off the old managers' recurring meetings, on the new one's",
      capabilities=("full_data_acquisition", "multi_condition_filtering"))
def swap_series(story: Story) -> None:
    movers, head = story["movers"], story["head"]
    olds = {m["employee_id"]: story.ctx.one("SELECT work_email FROM hr.employees WHERE employee_id = ?",
                                            [m["manager_id"]]) for m in movers}
    leaving = any(olds[m["employee_id"]] and _series_of(story, m["manager_id"], m["employee_id"])
                  for m in movers)
    if not leaving and not _series_of(story, head["employee_id"]):
        return
    story.say(["Take them off the recurring meetings their old manager runs and put them on {boss}'s.",
               "Swap their recurring meetings: none of their old manager's from now on, every one of "
               "{boss}'s."],
              boss=head["full_name"])
    for m in movers:
        old = olds[m["employee_id"]]
        for who, change in ((old["work_email"] if old else None, "remove"), (head["work_email"], "add")):
            if who is None:
                continue
            query = {"organizer": who, "status": "scheduled", "starts_from": f"{story.ctx.today}T12:00"}
            if change == "remove":
                query["attendee"] = m["employee_number"]
            found = story.read_all("search_meetings", query)
            for sid in sorted({x["series_id"] for x in found if x.get("series_id")}):
                story.ctx.derived(sid, "the series id, from search_meetings")
                story.call("update_series_attendees", {"series_id": sid, "organizer": who,
                                                       change: [m["employee_number"]]})
    story.knob("solver_filtering", "only the series of each manager")


@step(inputs=("movers", "head"), goal="a welcome 1:1 of each with the new manager next week",
      capabilities=("cross_step_dependency",))
def meet_new_boss(story: Story) -> None:
    movers, head = story["movers"], story["head"]
    day = story.rng.choice(DAYS)
    title = f"Welcome to {movers[0]['unit']}"
    if len(movers) == 1:
        story.say(["And book {boss} a 30-minute online \"{title}\" with them on {day}, at the earliest time "
                   "both are free.",
                   "Last, a 30-minute online 1:1 \"{title}\" of {boss} with them on {day}, the first time "
                   "both are free."], boss=head["full_name"], title=title, day=day)
    else:
        story.say(["And book {boss} a 30-minute online \"{title}\" with each of them on {day}, in the order "
                   "I named them, each at the earliest time the two are free.",
                   "Last, on {day}, a 30-minute online 1:1 \"{title}\" of {boss} with each of them, one "
                   "after the other in the order above, at the first time both are free."],
                  boss=head["full_name"], title=title, day=day)
    one_to_ones(story, head["work_email"], [m["employee_number"] for m in movers], day, 30, title)
    for m in movers:
        story.ctx.goal(
            f"{m['full_name']} moved in HR, the calendar and the desks",
            "SELECT o.name AS unit, c.job_title, c.home_building_id, c.manager_id, "
            "(SELECT count(*) FROM meeting.desk_bookings AS d WHERE d.employee_id = e.employee_id "
            "AND d.booking_date BETWEEN DATE '2026-07-06' AND DATE '2026-07-10' AND d.status = 'booked') "
            "AS desks FROM hr.employees AS e JOIN hr.org_units AS o ON o.org_unit_id = e.org_unit_id "
            "JOIN meeting.employees AS c ON c.employee_id = e.employee_id WHERE e.employee_id = ?",
            [m["employee_id"]],
        )


@step(inputs=("movers", "head"), goal="a coffee with each of the new teammates that week",
      capabilities=("full_data_acquisition", "cross_step_dependency"))
def meet_the_team(story: Story) -> None:
    """One who moves alone into a team of two to eight: a 20-minute online coffee with each of the new
    manager's other reports, one after another on the Friday of next week (in the directory's order,
    each at the earliest time the two are free)."""
    movers, head = story["movers"], story["head"]
    if len(movers) > 1:
        return
    m = movers[0]
    team = story.sql(
        "SELECT e.employee_number FROM hr.employees AS e JOIN meeting.employees AS c USING (employee_id) "
        "WHERE e.manager_id = ? AND e.status <> 'terminated' AND c.is_active AND e.employee_id <> ?",
        [head["employee_id"], m["employee_id"]])
    if not 2 <= len(team) <= 8:
        return
    friday = dt.date(2026, 7, 10)
    title = f"Coffee with {m['full_name']}"
    story.say(["On {day}, give them a 20-minute online \"{title}\" with each of {boss}'s other reports, one "
               "after another in the directory's order, each at the earliest time the two are free.",
               "And on {day} a 20-minute online coffee \"{title}\" with each of their new teammates "
               "({boss}'s reports), booked in alphabetical order at the first time both are free."],
              day=friday, title=title, boss=head["full_name"])
    rows = story.read_all("search_workers", {"manager": head["employee_number"], "status": "current"})
    mates = [r["employee_number"] for r in rows if r["employee_number"] != m["employee_number"]]
    one_to_ones(story, m["employee_number"], mates, friday, 20, title)
    story.knob("solver_filtering", "the manager's other reports, in the directory's order")


TRANSFER_EVERYWHERE = Storyline(
    "transfer_everywhere",
    cast_mover,
    (move_in_hr, new_profile, desks_follow, swap_series, meet_new_boss, meet_the_team),
    provides=("movers", "partner", "head"),
    weight=0.8,
)
