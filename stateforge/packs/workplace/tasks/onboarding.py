"""A new hire, in all three systems (HR partner): hired into an open position of a unit they partner, the
onboarding checklist started and their own tasks of it done, their service desk account and calendar
provisioned (the workplace's provision_accounts), a welcome meeting on the first day with the manager and
the manager's whole team in a room of the manager's building that fits them all, and a desk for each day of
the first week they are in the office. A request hires one to five people into the unit, each on site,
hybrid (home on some weekdays: their calendar's hours set so) or remote (a desk on the first day only, when
everyone comes in); most times each hire also gets a buddy from the manager's team (the longest-serving
reports, in the order the hires are named) with a meeting on the second day; and when the manager runs
recurring meetings, the request adds the hires to every one from their first day."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step
from stateforge.tasks.wording import join_words

from .calendar import earliest, one_to_ones
from .stories import PERSON, PHRASES

FIRST = ("Noor", "Tomas", "Ines", "Kwame", "Mei", "Jonas", "Priya", "Mateo", "Sanna", "Idris", "Lena",
         "Oskar")
LAST = ("Okafor", "Lindqvist", "Haddad", "Moreau", "Tanaka", "Brennan", "Kowalski", "Duarte", "Nakamura",
        "Achterberg", "Varga", "Delacroix")
MONDAYS = (dt.date(2026, 7, 6), dt.date(2026, 7, 13), dt.date(2026, 7, 20))
HIRES, HIRES_WEIGHTS = (1, 2, 3, 4, 5), (10, 20, 25, 25, 20)
"""How many people one request hires (at most the unit's openings), and how often."""
HOME_DAYS = {(1, 5): "Mondays and Fridays", (5,): "Fridays", (3,): "Wednesdays", (1,): "Mondays",
             (2, 4): "Tuesdays and Thursdays"}
"""The weekdays a hybrid hire works from home (ISO weekdays), as the request names them."""
WAYS, WAYS_WEIGHTS = ("on_site", "hybrid", "remote"), (45, 35, 20)
"""How a hire works: every day in the office, some days from home, or from home (in on the first day)."""
BUDDIES = 0.75
"""How often a request pairs each hire with a buddy from the manager's team."""


def hiring_phrase(hires: list[dict]) -> str:
    """'A as our new X at 60,000 a year, B as ... and C as ...'."""
    return join_words([f"{h['first']} {h['last']} as our new {h['title']} at {h['salary']:,} a year"
                       for h in hires])


def cast_hiring(story: Story, *, over_grade: bool = False, stranger: bool = False) -> None:
    """An HR partner, a unit they partner whose head has a team of 2 to 40 with calendars, and one to five
    open positions of the unit, each the only open one of its job there. `over_grade`: one hire's salary is
    above their grade's top (`story["blocker"]`); `stranger`: another HR partner, of other units, speaks."""
    ctx = story.ctx
    unit = ctx.pick(
        "SELECT o.org_unit_id, o.name AS unit, o.head_id, o.hr_partner_id FROM hr.org_units AS o "
        "JOIN hr.employees AS p ON p.employee_id = o.hr_partner_id AND p.status = 'active' "
        "JOIN hr.employees AS h ON h.employee_id = o.head_id AND h.status = 'active' "
        "WHERE o.head_id <> o.hr_partner_id AND (SELECT count(*) FROM hr.employees AS r "
        "  JOIN meeting.employees AS m ON m.employee_id = r.employee_id AND m.is_active "
        "  WHERE r.manager_id = o.head_id AND r.status <> 'terminated') BETWEEN 2 AND 40 "
        "AND EXISTS (SELECT 1 FROM meeting.employees AS m WHERE m.employee_id = o.head_id "
        "  AND m.home_building_id IS NOT NULL) "
        "AND (SELECT count(*) FROM hr.positions AS x WHERE x.org_unit_id = o.org_unit_id "
        "AND x.status = 'open') "
        "BETWEEN 1 AND 12",
        what="unit hiring",
    )
    openings = ctx.sql(
        "SELECT x.code, j.title, g.min_salary, g.max_salary FROM hr.positions AS x "
        "JOIN hr.job_profiles AS j USING (job_profile_id) "
        "JOIN hr.pay_grades AS g ON g.pay_grade_id = j.pay_grade_id "
        "WHERE x.org_unit_id = ? AND x.status = 'open' AND (SELECT count(*) FROM hr.positions AS y "
        "WHERE y.org_unit_id = x.org_unit_id AND y.status = 'open' "
        "AND y.job_profile_id = x.job_profile_id) = 1 "
        "ORDER BY x.code",
        [unit["org_unit_id"]],
    )
    if not openings:
        raise Skip("no single opening")
    k = min(len(openings), story.rng.choices(HIRES, weights=HIRES_WEIGHTS)[0])
    chosen = [openings[i] for i in sorted(story.rng.sample(range(len(openings)), k))]
    partner = ctx.one(f"{PERSON} WHERE e.employee_id = ?", [unit["hr_partner_id"]])
    head = ctx.one(f"{PERSON} WHERE e.employee_id = ?", [unit["head_id"]])
    names = story.rng.sample(range(len(FIRST)), k)
    hires = []
    for i, spot in zip(names, chosen, strict=True):
        low, high = Decimal(spot["min_salary"]), Decimal(spot["max_salary"])
        share = Decimal(story.rng.choice((25, 40, 50, 60))) / 100
        salary = ((low + (high - low) * share) / 1000).quantize(Decimal(1)) * 1000
        way = story.rng.choices(WAYS, weights=WAYS_WEIGHTS)[0]
        home = (1, 2, 3, 4, 5) if way == "remote" else story.rng.choice(list(HOME_DAYS)) if way == "hybrid" \
            else ()
        hires.append({"first": FIRST[i], "last": story.rng.choice(LAST), "title": spot["title"],
                      "salary": salary, "way": way, "home": home})
    if over_grade:
        spot = story.rng.randrange(k)
        top = Decimal(chosen[spot]["max_salary"])
        hires[spot]["salary"] = ((top * Decimal(story.rng.choice((104, 108, 112))) / 100) / 1000).quantize(
            Decimal(1)) * 1000
        story["blocker"] = hires[spot]
    if stranger:
        partner = ctx.pick(
            f"{PERSON} WHERE e.status = 'active' AND e.security_role = 'hr_partner' AND e.employee_id NOT IN "
            "(?, ?) AND EXISTS (SELECT 1 FROM hr.org_units AS o WHERE o.hr_partner_id = e.employee_id)",
            [unit["hr_partner_id"], unit["head_id"]], what="another partner")
        story["blocker"] = hires[0]
    story["unit"], story["partner"], story["head"], story["hires"] = unit, partner, head, hires
    story["start"] = story.rng.choice(MONDAYS) + dt.timedelta(days=story.rng.choice((0, 0, 1, 2)))
    ctx.act_as("hr.employees", {"work_email": partner["work_email"]})
    ctx.say(list(PHRASES), name=partner["full_name"], email=partner["work_email"])


@step(inputs=("unit", "hires", "start"), outputs=("numbers",), goal="hired into the open positions",
      capabilities=("multi_condition_filtering",))
def hire(story: Story) -> None:
    unit, hires, start = story["unit"], story["hires"], story["start"]
    people = hiring_phrase(hires)
    story.say(["We're hiring {people} in {unit}, starting {start}.",
               "Please hire {people} into {unit}; first day {start}."],
              people=people, unit=unit["unit"], start=start)
    rows = story.read_all("list_positions", {"org_unit": unit["unit"], "status": "open"})
    numbers = []
    for h in hires:
        [code] = [r["code"] for r in rows if r["job_title"] == h["title"]] or [None]
        if code is None:
            raise Skip("opening not listed")
        story.ctx.derived(code, "the open position of that job, from list_positions")
        done = story.call("hire_worker", {"first_name": h["first"], "last_name": h["last"], "position": code,
                                          "start_date": start, "base_salary": h["salary"]})
        numbers.append(
            story.ctx.derived(done["employee_number"], "the hire's employee number, from hire_worker"))
        h["email"] = story.ctx.derived(done["work_email"], "the hire's work e-mail, from hire_worker")
    story["numbers"] = numbers


@step(inputs=("numbers", "partner"), goal="onboarding started and the partner's own tasks of it done",
      capabilities=("cross_step_dependency", "multi_condition_filtering"))
def onboarding(story: Story) -> None:
    partner = story["partner"]
    story.say(["Start the standard onboarding for them and tick off the onboarding tasks that are mine.",
               "Open their standard onboarding checklist and do my own tasks on it."])
    for number in story["numbers"]:
        story.call("start_checklist", {"employee": number, "template": "Standard onboarding"})
        tasks = story.read_all("list_checklist_tasks", {"scope": "employee", "employee": number})
        for t in tasks:
            if t["assignee"] == partner["employee_number"]:
                story.ctx.derived(t["task_id"], "the task's id, from list_checklist_tasks")
                story.call("complete_checklist_task", {"task_id": t["task_id"]})
    story.knob("solver_filtering", "only the onboarding tasks assigned to me")


@step(inputs=("numbers",), goal="their service desk account and calendar opened",
      capabilities=("cross_step_dependency",))
def accounts(story: Story) -> None:
    story.say(["Get them set up with a service desk account and a calendar,",
               "Then open their IT service desk and calendar accounts,"])
    for number in story["numbers"]:
        story.call("provision_accounts", {"employee": number})


@step(inputs=("hires",), goal="the home days of the hybrid and remote hires in their calendars",
      capabilities=("multi_condition_filtering",))
def work_patterns(story: Story) -> None:
    """Each hire who is not on site: their calendar's hours (9 to 5, as provisioned) marked as from home on
    their home days (every weekday for a remote hire), one call each, in the order named."""
    away = [h for h in story["hires"] if h["way"] != "on_site"]
    if not away:
        return
    parts = [f"{h['first']} {h['last']} " + ("works fully remote" if h["way"] == "remote" else
                                               f"works from home on {HOME_DAYS[h['home']]}") for h in away]
    rest = len(away) < len(story["hires"])
    story.say(["In their calendars, {parts} (their hours stay 09:00 to 17:00){rest}.",
               "Mark in the calendar that {parts}, with the usual hours of 09:00 to 17:00{rest}."],
              parts=join_words(parts), rest="; the others work on site" if rest else "")
    story.ctx.derived(sorted({d for h in away for d in h["home"]}), "the ISO weekdays of the home days named")
    for h in away:
        story.call("set_working_hours", {"person": h["email"], "days": [
            {"weekday": d, "starts_at": "09:00", "ends_at": "17:00", "is_remote": True} for d in h["home"]]})


@step(inputs=("hires", "head", "start"), outputs=("building",),
      goal="a welcome meeting on the first day with the manager's team",
      capabilities=("cross_step_dependency", "full_data_acquisition"))
def welcome_meeting(story: Story) -> None:
    head, start, hires = story["head"], story["start"], story["hires"]
    minutes = story.rng.choice((30, 45, 60))
    title = "Welcome " + " & ".join(h["first"] for h in hires)
    story.say(["and on their first day I'll host a {minutes}-minute \"{title}\" with {boss} and everyone who "
               "reports to {boss}, at the earliest time all of us are free, in the smallest free room of "
               "{boss}'s building that seats us all.",
               "and put a {minutes}-minute meeting \"{title}\" in on day one, hosted by me, with {boss} and "
               "{boss}'s whole team: the first time everyone is free, in the smallest room of {boss}'s "
               "building that is free then and fits everyone."],
              minutes=minutes, boss=head["full_name"], title=title)
    team = story.read_all("meeting_list_direct_reports", {"person": head["work_email"]})
    people = [r["email"] for r in team if r["email"] not in {h["email"] for h in hires}]
    everyone = [*(h["email"] for h in hires), head["work_email"], *people]
    times = story.read("find_meeting_times", {"people": everyone, "date": start,
                                              "duration_minutes": minutes})
    if not times["slots"]:
        raise Skip("no common slot")
    slot = times["slots"][0]
    story.ctx.derived(slot["start_at"], "the earliest common free time, from find_meeting_times")
    boss = story.read("get_person", {"person": head["work_email"]})
    building = boss.get("home_building") or {}
    code = building.get("code") if isinstance(building, dict) else building
    if not code:
        raise Skip("manager has no building")
    rooms = story.read("find_rooms", {"building": code, "start_at": slot["start_at"],
                                      "end_at": slot["end_at"],
                                      "min_capacity": len(everyone) + 1})["rows"]
    if not rooms:
        raise Skip("no room fits")
    story.call("schedule_meeting", {
        "organizer": story["partner"]["work_email"], "title": title,
        "start_at": slot["start_at"], "duration_minutes": minutes, "invitees": everyone,
        "room": rooms[0]["name"], "building": code})
    story["building"] = code


@step(inputs=("hires", "head", "start"), goal="a first-day 1:1 of each hire with the manager",
      capabilities=("cross_step_dependency",))
def first_one_to_ones(story: Story) -> None:
    head, hires = story["head"], story["hires"]
    title = f"1:1 with {head['full_name']}"
    story.say(["After it, each of them gets a 30-minute online \"{title}\" that day, in the order I named "
               "them, each at the earliest time the two are free.",
               "That same day, book {boss} a 30-minute online 1:1 \"{title}\" with each new starter, one "
               "after the other in the order above, at the first time both are free."],
              title=title, boss=head["full_name"])
    one_to_ones(story, head["work_email"], [h["email"] for h in hires], story["start"], 30, title)


@step(inputs=("hires", "head", "start"), goal="a buddy from the manager's team for each hire, met on day two",
      capabilities=("cross_step_dependency", "aggregation_computation"))
def buddies(story: Story) -> None:
    """Most times: the head's longest-serving active reports (by hire date, with no tie up to the last
    one needed) are the hires' buddies, the longest-serving for the first hire named and so on; on the
    second day each buddy hosts a 30-minute online "Meet your buddy" with their hire, one after another
    in that order, each at the earliest time the two are free."""
    head, hires, start = story["head"], story["hires"], story["start"]
    if story.rng.random() >= BUDDIES:
        return
    team = story.sql(
        "SELECT e.employee_number, e.work_email, e.hire_date FROM hr.employees AS e "
        "JOIN meeting.employees AS c USING (employee_id) WHERE e.manager_id = ? AND e.status = 'active' "
        "AND c.is_active ORDER BY e.hire_date, e.employee_number", [head["employee_id"]])
    k = len(hires)
    dates = [r["hire_date"] for r in team[:k + 1]]
    if len(team) < k or len(set(dates)) != len(dates):
        return  # too few reports, or a tie decides who is a buddy
    day = start + dt.timedelta(days=1)
    title = "Meet your buddy"
    story.say(["Each of them gets a buddy from {boss}'s team: {boss}'s longest-serving active reports, the "
               "longest-serving for the first I named, the next for the second, and so on. On {day}, each "
               "buddy hosts a 30-minute online \"{title}\" with their new starter, one after another in that "
               "order, each at the earliest time the two are free.",
               "Pair every new starter with a buddy: the active reports of {boss} who joined us earliest, "
               "the earliest for the first named, then the next, in order. On {day} each buddy hosts a "
               "30-minute online \"{title}\" with theirs, booked one by one in that order at the first time "
               "both are free."], boss=head["full_name"], day=day, title=title)
    rows = story.read_all("search_workers", {"manager": head["employee_number"], "status": "active"})
    ranked = sorted(rows, key=lambda r: (str(r["hire_date"]), r["employee_number"]))
    if [r["employee_number"] for r in ranked[:k]] != [r["employee_number"] for r in team[:k]]:
        story.ctx.skip("the directory's longest-serving reports differ")
    for h, buddy in zip(hires, team[:k], strict=True):
        story.ctx.derived(buddy["work_email"], "a longest-serving report, from search_workers")
        slot = earliest(story, [buddy["work_email"], h["email"]], day, 30)
        story.call("schedule_meeting", {"organizer": buddy["work_email"], "title": title,
                                        "start_at": slot["start_at"], "duration_minutes": 30,
                                        "invitees": [h["email"]], "is_online": True})
    story.ctx.goal(
        "each hire's buddy meeting",
        "SELECT o.employee_no AS buddy, e.email AS hire, m.start_at FROM meeting.meetings AS m "
        "JOIN meeting.employees AS o ON o.employee_id = m.organizer_id "
        "JOIN meeting.meeting_attendees AS a ON a.meeting_id = m.meeting_id "
        "AND a.employee_id <> m.organizer_id "
        "JOIN meeting.employees AS e ON e.employee_id = a.employee_id "
        "WHERE m.title = ? AND m.status = 'scheduled' AND e.email IN (SELECT unnest(?)) ORDER BY 3",
        [title, [h["email"] for h in hires]],
    )
    story.knob("solver_filtering", "the longest-serving active reports, one a hire")


@step(inputs=("hires", "start", "building"), goal="a desk in that building each day of the first week",
      capabilities=("precise_boundary_judgment",))
def first_week_desks(story: Story) -> None:
    start = story["start"]
    if all(h["way"] == "on_site" for h in story["hires"]):
        story.say(["Book them a desk in that building for every day of their first week.",
                   "And reserve {them} a desk there each day of the first week."], them="them")
    else:
        story.say(["Book each of them a desk in that building for every day of their first week they work in "
                   "the office (everyone comes in on the first day).",
                   "And reserve each a desk there on the days of their first week they are in the office; on "
                   "the first day all of them come in."])
    days = [start + dt.timedelta(days=i) for i in range(5 - start.weekday())]
    for h in story["hires"]:
        for day in days:
            if day == start or day.isoweekday() not in h["home"]:
                story.call("book_desk", {"person": h["email"], "date": day, "building": story["building"]})
    story.ctx.derived([d.isoformat() for d in days], "the first day to the Friday of that week")
    for h in story["hires"]:
        story.ctx.goal(
            f"{h['first']} {h['last']} hired, onboarding, accounts, welcome meeting and desks",
            "SELECT e.status, e.hire_date, "
            "(SELECT count(*) FROM hr.checklists AS c WHERE c.employee_id = e.employee_id) AS checklists, "
            "(SELECT count(*) FROM itsm.users AS u WHERE u.user_id = e.employee_id) AS accounts, "
            "(SELECT count(*) FROM meeting.meeting_attendees AS a "
            "JOIN meeting.meetings AS m USING (meeting_id) "
            "WHERE a.employee_id = e.employee_id AND m.status = 'scheduled') AS meetings, "
            "(SELECT count(*) FROM meeting.desk_bookings AS d WHERE d.employee_id = e.employee_id) AS desks, "
            "(SELECT count(*) FROM meeting.working_hours AS w WHERE w.employee_id = e.employee_id "
            "AND w.is_remote) AS home_days "
            "FROM hr.employees AS e WHERE e.first_name = ? AND e.last_name = ? AND e.hire_date = ?",
            [h["first"], h["last"], start],
        )


@step(inputs=("hires", "head", "start"), goal="on every recurring meeting the manager runs, from day one",
      capabilities=("full_data_acquisition",))
def team_series(story: Story) -> None:
    head, start, hires = story["head"], story["start"], story["hires"]
    runs = story.sql(
        "SELECT DISTINCT s.series_id FROM meeting.meeting_series AS s "
        "JOIN meeting.meetings AS m USING (series_id) "
        "WHERE s.organizer_id = ? AND m.status = 'scheduled' AND m.start_at >= ? ORDER BY 1",
        [head["employee_id"], start])
    if not runs:
        return
    story.say(["Last, add them to every recurring meeting {boss} runs, from their first day on.",
               "And from day one, put them on each of {boss}'s recurring meetings."], boss=head["full_name"])
    found = story.read_all("search_meetings", {"organizer": head["work_email"],
                                               "starts_from": f"{start}T00:00",
                                               "status": "scheduled"})
    series = sorted({m["series_id"] for m in found if m.get("series_id")})
    for sid in series:
        story.ctx.derived(sid, "the series id, from search_meetings")
        story.call("update_series_attendees", {"series_id": sid, "organizer": head["work_email"],
                                               "add": [h["email"] for h in hires], "from_date": start})


ONBOARD_EVERYWHERE = Storyline(
    "onboard_everywhere",
    cast_hiring,
    (hire, onboarding, accounts, work_patterns, welcome_meeting, first_one_to_ones, buddies, first_week_desks,
     team_series),
    provides=("unit", "partner", "head", "hires", "start"),
    weight=1.4,
)
