"""A manager clears their desk before going on leave, in all three systems (the manager speaks): their own
leave requested in HR, then every decision waiting for them decided by a rule they state, then the
calendar.

- `before_my_leave`: a manager with at least two decisions waiting (their reports' pending leave, the
  ITSM requested items waiting for their approval, their reports' pending access requests) goes on leave
  for one or two weeks starting one to three weeks from now. In one message: the leave requested in HR
  (a type their balance covers: `get_leave_balances`); the team's pending leave approved, except requests
  other than sick leave made with less notice than the rule says (rejected); the requested items approved
  up to a price and rejected above it; the access requests approved for systems that are not sensitive
  (`list_systems`) and rejected for sensitive ones; an out-of-office for the period in the calendar (which
  declines their invitations then), their longest-serving active report as the delegate when asked, and
  either every meeting they organise in the period cancelled with it or only the one-off ones (the
  recurring ones keep running, the delegate invited to each of their occurrences); on the Friday before,
  a catch-up with each report (a team of up to 30; above 12, on the quarter hours) or a talk with each
  report whose request was rejected, and
  one time in two a handover with the delegate. Each step says its part only when the data gives it
  something to do, so the plan (which decisions, in which order, approve or reject) differs with each
  manager.
- `leave_over_balance` (infeasible): the same request for a leave longer than the balance of that type;
  `request_leave` refuses it (leave_within_balance) and, all or nothing, nothing else is done.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .calendar import one_to_ones
from .stories import NOW, PERSON

SPEAKER = (
    "I'm {name} ({email}), and I manage a team here.",
    "Hi, this is {name} ({email}); I look after a team.",
    "{name} here ({email}), team manager.",
)
STARTS = (dt.date(2026, 7, 6), dt.date(2026, 7, 13), dt.date(2026, 7, 20))
"""The Mondays one, two and three weeks after the workplace's today (Tuesday 30 June 2026)."""
KINDS = {"Vacation": "vacation", "Study Leave": "training"}
"""The leave types a manager takes here, and the out-of-office reason each one is."""
NOTICE = {7: "a week's", 14: "two weeks'"}
"""The notice (days from asking to the first day off) under which a report's leave is rejected."""
SMALL_TEAM = 12
"""The most active reports whose catch-ups start on the half hour; a bigger team's start on the quarter."""
BIG_TEAM = 30
"""The most active reports a manager catches up with one by one before leaving (30 on the quarter hours
fit the Friday of every manager here)."""
PRICES = (Decimal(250), Decimal(300), Decimal(500), Decimal(1000))
"""The price up to which the manager approves a requested item."""

WAITING = (
    "(SELECT count(*) FROM hr.leave_requests AS l JOIN hr.employees AS w USING (employee_id) "
    "WHERE l.status = 'pending' AND w.manager_id = e.employee_id AND w.status <> 'terminated') + "
    "(SELECT count(*) FROM itsm.request_approvals AS a WHERE a.state = 'requested' "
    "AND a.approver_id = e.employee_id) + "
    "(SELECT count(*) FROM hr.access_requests AS q JOIN hr.employees AS w USING (employee_id) "
    "WHERE q.status = 'pending' AND w.manager_id = e.employee_id)"
)
"""SQL: how many decisions wait for the manager `e` in HR and ITSM."""
MANAGER = (
    f"{PERSON} JOIN itsm.users AS u ON u.user_id = e.employee_id AND u.active "
    "JOIN meeting.employees AS c ON c.employee_id = e.employee_id AND c.is_active "
    "WHERE e.status = 'active' AND e.termination_date IS NULL "
    "AND EXISTS (SELECT 1 FROM hr.employees AS r WHERE r.manager_id = e.employee_id "
    "AND r.status <> 'terminated') "
    f"AND NOT EXISTS (SELECT 1 FROM meeting.out_of_office AS o WHERE o.employee_id = e.employee_id "
    f"AND o.ends_at > {NOW}) "
    "AND NOT EXISTS (SELECT 1 FROM hr.leave_requests AS l WHERE l.employee_id = e.employee_id "
    "AND l.status IN ('pending', 'approved') AND l.end_date >= DATE '2026-07-06') "
    f"AND {WAITING} >= 2"
)
"""A current manager with an ITSM account and a calendar, no leave or out-of-office ahead, and at least two
decisions waiting."""


def working_days(story: Story, employee_id: int, start: dt.date, end: dt.date) -> int:
    """Weekdays from `start` to `end` that are not holidays of the worker's office (as HR counts them)."""
    return int(story.ctx.scalar(
        "SELECT count(*) FROM range(CAST(? AS TIMESTAMP), CAST(? AS TIMESTAMP) + INTERVAL 1 DAY, "
        "INTERVAL 1 DAY) AS g(d) WHERE isodow(d) < 6 AND NOT EXISTS (SELECT 1 FROM hr.holidays AS h "
        "JOIN hr.employees AS e ON e.location_id = h.location_id WHERE e.employee_id = ? "
        "AND h.holiday_date = CAST(d AS DATE))",
        [start, end, employee_id]))


def cast_manager(story: Story, *, over_balance: bool = False) -> None:
    """A manager (`MANAGER`) and their leave: a Monday one to three weeks ahead, one or two weeks long, of
    a type whose 2026 balance covers it (`over_balance`: one whose balance falls short of it)."""
    ctx = story.ctx
    boss = ctx.pick(MANAGER, what="manager with decisions waiting")
    balances = {r["name"]: Decimal(r["available"]) for r in ctx.sql(
        "SELECT t.name, b.entitled_days + b.carried_over - b.used_days - b.pending_days AS available "
        "FROM hr.leave_balances AS b JOIN hr.leave_types AS t USING (leave_type_id) "
        "WHERE b.employee_id = ? AND b.year = 2026", [boss["employee_id"]])}
    start = story.rng.choice(STARTS)
    options = []
    for weeks in (1, 2):
        end = start + dt.timedelta(days=7 * weeks - 3)
        days = working_days(story, boss["employee_id"], start, end)
        for kind in KINDS:
            left = balances.get(kind)
            if left is not None and days and (days > left if over_balance else days <= left):
                options.append((kind, end, days))
    if not options:
        raise Skip("no leave the balance fits" if not over_balance else "every balance covers it")
    kind, end, days = story.rng.choice(options)
    story["boss"], story["leave"] = boss, {"kind": kind, "start": start, "end": end, "days": days,
                                           "left": balances[kind]}
    ctx.act_as("hr.employees", {"work_email": boss["work_email"]})
    ctx.say(list(SPEAKER), name=boss["full_name"], email=boss["work_email"])


def ask_leave(story: Story) -> None:
    """The request's opening: the leave, its type and dates."""
    leave = story["leave"]
    kind = "vacation" if leave["kind"] == "Vacation" else "study leave"
    story.say(["I'm off on {kind} from {start} to {end}. Before I go, please request that leave for me in "
               "HR as {type}.",
               "I'll be away on {kind} from {start} until {end}, so first put in my leave request in HR "
               "({type}) for those days."],
              kind=kind, start=leave["start"], end=leave["end"], type=leave["kind"])


@step(inputs=("boss", "leave"), goal="the manager's own leave requested in HR",
      capabilities=("precise_boundary_judgment",))
def request_my_leave(story: Story) -> None:
    ask_leave(story)
    leave, boss = story["leave"], story["boss"]
    story.read("get_leave_balances", {})
    story.call("request_leave", {"leave_type": leave["kind"], "start_date": leave["start"],
                                 "end_date": leave["end"]})
    story.ctx.goal(
        "the manager's leave requested",
        "SELECT t.name, l.status, l.days FROM hr.leave_requests AS l JOIN hr.leave_types AS t "
        "USING (leave_type_id) WHERE l.employee_id = ? AND l.start_date = ? AND l.end_date = ?",
        [boss["employee_id"], leave["start"], leave["end"]],
    )


@step(inputs=("boss",), outputs=("turned_down",), goal="the team's pending leave decided by the notice rule",
      capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def decide_team_leave(story: Story) -> None:
    """Every pending request of a current report: sick leave approved; another type approved when asked at
    least `NOTICE` days before its first day, rejected otherwise."""
    boss = story["boss"]
    story["turned_down"] = []
    waiting = story.sql(
        "SELECT l.request_id FROM hr.leave_requests AS l JOIN hr.employees AS w USING (employee_id) "
        "WHERE l.status = 'pending' AND w.manager_id = ? AND w.status <> 'terminated'", [boss["employee_id"]])
    if not waiting:
        return
    notice = story.rng.choice(list(NOTICE))
    story.say(["Then decide my team's pending leave requests: sick leave always goes through; anything else "
               "asked with less than {notice} notice before its first day I turn down, and the rest I "
               "approve.",
               "Then clear my team's pending time-off requests: approve them, except that a request other "
               "than sick leave made with less than {notice} notice ahead of its start is rejected."],
              notice=NOTICE[notice])
    rows = story.read_all("list_leave_requests", {"scope": "team", "status": "pending"})
    for r in rows:
        asked = dt.datetime.fromisoformat(str(r["requested_at"])).date()
        first = dt.date.fromisoformat(str(r["start_date"]))
        ok = r["leave_type"] == "Sick Leave" or (first - asked).days >= notice
        story.ctx.derived(r["request_id"], "the request's id, from list_leave_requests")
        story.call("approve_leave_request" if ok else "reject_leave_request", {"request_id": r["request_id"]})
        if not ok:
            story["turned_down"].append(r["employee"])
    story.ctx.goal(
        "the team's pending leave decided",
        "SELECT request_id, status FROM hr.leave_requests WHERE request_id IN (SELECT unnest(?)) ORDER BY 1",
        [[r["request_id"] for r in rows]],
    )
    story.knob("solver_filtering", f"sick leave, or asked at least {notice} days ahead")


@step(inputs=("boss",), goal="the requested items waiting for the manager decided by price",
      capabilities=("multi_condition_filtering", "precise_boundary_judgment"))
def decide_requested_items(story: Story) -> None:
    """Every requested item waiting for the manager's approval: approved at or below the price, rejected
    above it."""
    boss = story["boss"]
    if not story.sql("SELECT 1 FROM itsm.request_approvals WHERE state = 'requested' AND approver_id = ?",
                     [boss["employee_id"]]):
        return
    top = story.rng.choice(PRICES)
    story.say(["Approve the service desk items waiting for my approval that cost {top:,} or less in all "
               "(price times quantity) and reject the pricier ones.",
               "Go through the IT catalogue requests waiting on me: anything up to {top:,} in total is "
               "approved, anything above it rejected."], top=top)
    rows = story.read_all("list_my_request_approvals", {})
    for r in rows:
        ok = Decimal(str(r["price"])) * int(r["quantity"]) <= top
        story.call("approve_requested_item" if ok else "reject_requested_item", {"number": r["number"]})
    story.ctx.goal(
        "the requested items decided",
        "SELECT r.number, a.state FROM itsm.request_approvals AS a JOIN itsm.requested_items AS r "
        "USING (ritm_id) WHERE r.number IN (SELECT unnest(?)) ORDER BY 1",
        [[r["number"] for r in rows]],
    )
    story.knob("solver_filtering", f"price times quantity up to {top}")


@step(inputs=("boss",), outputs=("refused_access",),
      goal="the team's access requests decided by the system's sensitivity",
      capabilities=("multi_condition_filtering", "cross_step_dependency"))
def decide_access(story: Story) -> None:
    """Every pending access request of a report: approved for a system that is not sensitive, rejected for
    a sensitive one (`list_systems`)."""
    boss = story["boss"]
    story["refused_access"] = []
    if not story.sql("SELECT 1 FROM hr.access_requests AS q JOIN hr.employees AS w USING (employee_id) "
                     "WHERE q.status = 'pending' AND w.manager_id = ?", [boss["employee_id"]]):
        return
    story.say(["On my reports' access requests, approve the ones for systems that are not sensitive and "
               "reject those for sensitive systems.",
               "For the access requests of my team: yes to non-sensitive systems, no to the sensitive "
               "ones."])
    systems = {s["name"]: s["sensitive"] for s in story.read("list_systems", {})["systems"]}
    rows = story.read_all("list_access_requests", {"scope": "to_approve", "status": "pending"})
    for r in rows:
        story.ctx.derived(r["request_id"], "the request's id, from list_access_requests")
        ok = not systems[r["system"]]
        story.call("approve_access_request" if ok else "reject_access_request",
                   {"request_id": r["request_id"]})
        if not ok:
            story["refused_access"].append(r["employee"])
    story.ctx.goal(
        "the access requests decided",
        "SELECT request_id, status FROM hr.access_requests WHERE request_id IN (SELECT unnest(?)) ORDER BY 1",
        [[r["request_id"] for r in rows]],
    )
    story.knob("solver_filtering", "sensitive systems, from list_systems")


@step(inputs=("boss", "leave"), outputs=("delegate",),
      goal="an out-of-office for the leave, the manager's own meetings in it cancelled or handed on as asked",
      capabilities=("cross_step_dependency", "full_data_acquisition"))
def away_in_calendar(story: Story) -> None:
    """The out-of-office from the first day 00:00 to the day after the last, 00:00 (the reason the leave's
    type gives); two times in three the longest-serving active report (earliest hire date, no tie) as
    delegate. When the manager runs recurring meetings in the period, three times in five only the one-off
    meetings are cancelled (one by one) and the delegate, if any, is invited to each recurring occurrence
    in it; otherwise every meeting they organise in the period is cancelled with the out-of-office (and
    when they organise none then, the request says nothing of them)."""
    boss, leave = story["boss"], story["leave"]
    starts, ends = f"{leave['start']}T00:00", f"{leave['end'] + dt.timedelta(days=1)}T00:00"
    delegate = None
    if story.rng.random() < 2 / 3:
        team = story.sql(
            "SELECT e.employee_number, e.work_email, e.first_name || ' ' || e.last_name AS full_name, "
            "e.hire_date FROM hr.employees AS e JOIN meeting.employees AS c USING (employee_id) "
            "WHERE e.manager_id = ? AND e.status = 'active' AND c.is_active ORDER BY e.hire_date",
            [boss["employee_id"]])
        if team and (len(team) == 1 or team[0]["hire_date"] != team[1]["hire_date"]):
            delegate = team[0]
    own = story.sql(
        "SELECT meeting_id, series_id FROM meeting.meetings WHERE organizer_id = ? AND status = 'scheduled' "
        "AND start_at > ? AND start_at < ? AND ? < end_at",
        [boss["employee_id"], story.ctx.now, ends, starts])
    all_of_them = bool(own) and (not any(m["series_id"] for m in own) or story.rng.random() < 0.4)
    story.say(["In the calendar, set me out of office for the whole leave, from {start} 00:00 until {back} "
               "00:00 ({reason}).",
               "Then mark me out of office in the meeting app from the start of {start} to the start of "
               "{back} (reason: {reason})."],
              start=leave["start"], back=leave["end"] + dt.timedelta(days=1), reason=KINDS[leave["kind"]])
    if delegate:
        story.say(["Whoever of my active reports has been with us longest is my delegate.",
                   "Name my longest-serving active report as the delegate."])
    if not own:
        pass  # nothing of theirs in the period: the request says nothing about their meetings
    elif all_of_them:
        story.say(["Cancel every meeting I organise in that time.",
                   "All the meetings I run in those days are to be cancelled."])
    elif delegate:
        story.say(["Cancel the one-off meetings I organise in that time; my recurring ones keep running, so "
                   "invite my delegate to each of their occurrences during my leave.",
                   "Call off my one-off meetings in those days, but leave my recurring series alone and add "
                   "my delegate to every occurrence of them while I'm away."])
    else:
        story.say(["Cancel the one-off meetings I organise in that time; my recurring ones keep running.",
                   "Call off my one-off meetings in those days, but leave my recurring series alone."])
    arguments = {"person": boss["work_email"], "starts_at": starts, "ends_at": ends,
                 "reason": KINDS[leave["kind"]], "cancel_own_meetings": all_of_them}
    if delegate:
        me = story.read("get_my_profile", {})
        rows = story.read_all("search_workers", {"manager": me["employee_number"], "status": "active"})
        story.ctx.derived(delegate["employee_number"], "the earliest hire date, from search_workers")
        if min(rows, key=lambda r: str(r["hire_date"]))["employee_number"] != delegate["employee_number"]:
            raise Skip("delegate not the directory's earliest hire")
        arguments["delegate"] = delegate["employee_number"]
    story.call("set_out_of_office", arguments)
    if own and not all_of_them:
        found = story.read_all("search_meetings", {"organizer": boss["work_email"], "status": "scheduled",
                                                   "starts_from": starts, "starts_before": ends})
        for m in found:
            if not m.get("series_id"):
                story.call("cancel_meeting", {"meeting": m["meeting_id"], "organizer": boss["work_email"]})
        for m in found if delegate else ():
            if m.get("series_id") and not story.sql(
                    "SELECT 1 FROM meeting.meeting_attendees AS a JOIN meeting.employees AS c "
                    "USING (employee_id) WHERE a.meeting_id = ? AND c.employee_no = ?",
                    [m["meeting_id"], delegate["employee_number"]]):
                story.ctx.derived(m["meeting_id"], "an occurrence in the leave, from search_meetings")
                story.call("invite_attendees", {"meeting": m["meeting_id"], "organizer": boss["work_email"],
                                                "people": [delegate["employee_number"]]})
        story.knob("solver_filtering", "only the one-off meetings")
    story["delegate"] = delegate
    story.ctx.goal(
        "out of office for the leave, the meetings in it cancelled or handed on as asked",
        "SELECT o.starts_at, o.ends_at, o.reason, d.employee_no AS delegate, "
        "(SELECT count(*) FROM meeting.meetings AS m WHERE m.organizer_id = o.employee_id "
        "AND m.status = 'scheduled' AND m.start_at >= o.starts_at AND m.start_at < o.ends_at "
        "AND m.series_id IS NULL) AS one_off_left, "
        "(SELECT count(*) FROM meeting.meetings AS m WHERE m.organizer_id = o.employee_id "
        "AND m.status = 'scheduled' AND m.start_at >= o.starts_at AND m.start_at < o.ends_at "
        "AND m.series_id IS NOT NULL) AS recurring_left, "
        "(SELECT count(*) FROM meeting.meetings AS m JOIN meeting.meeting_attendees AS a USING (meeting_id) "
        "WHERE m.organizer_id = o.employee_id AND m.status = 'scheduled' AND m.start_at >= o.starts_at "
        "AND m.start_at < o.ends_at AND a.employee_id = o.delegate_id) AS delegate_invited "
        "FROM meeting.out_of_office AS o LEFT JOIN meeting.employees AS d ON d.employee_id = o.delegate_id "
        "WHERE o.employee_id = ? AND o.ends_at > ?",
        [boss["employee_id"], story.ctx.now],
    )


@step(inputs=("boss", "leave", "turned_down", "refused_access"),
      goal="talks with the team before the leave: each report, or those whose request was turned down",
      capabilities=("cross_step_dependency", "full_data_acquisition"))
def talks_before_leave(story: Story) -> None:
    """On the Friday before the leave, one after another, each at the earliest time the two are free: with
    a team of 2 to `BIG_TEAM` active reports (every one with an open calendar), eight times in ten a
    15-minute online catch-up with each in the directory's order (`search_workers`; for a team of more than
    `SMALL_TEAM`, at times on the quarter hour, so that they fit the day); otherwise a 15-minute talk with
    each report whose leave or access request was rejected, by employee number."""
    boss = story["boss"]
    day = story["leave"]["start"] - dt.timedelta(days=3)  # the Friday before the Monday the leave starts
    team = story.sql(
        "SELECT e.employee_number, c.is_active FROM hr.employees AS e "
        "LEFT JOIN meeting.employees AS c USING (employee_id) WHERE e.manager_id = ? AND e.status = 'active'",
        [boss["employee_id"]])
    if 2 <= len(team) <= BIG_TEAM and all(r["is_active"] for r in team) and story.rng.random() < 0.8:
        title = "Catch-up before my leave"
        big = len(team) > SMALL_TEAM  # back to back on the quarter hours, so that the whole team fits
        story.say(["On {day}, set up a 15-minute online \"{title}\" with each of my active reports, one "
                   "after another in the directory's order of their names, each at the earliest time we're "
                   "both free{grid}.",
                   "And on {day} book me a 15-minute online \"{title}\" with every active report of mine, in "
                   "alphabetical order as the directory lists them, each at the first time the two of us are "
                   "free{grid}."], day=day, title=title,
                  grid=" that starts on the quarter hour (:00, :15, :30 or :45)" if big else "")
        me = story.read("get_my_profile", {})
        rows = story.read_all("search_workers", {"manager": me["employee_number"], "status": "active"})
        one_to_ones(story, boss["work_email"], [r["employee_number"] for r in rows], day, 15, title,
                    step=15 if big else 30)
        story.knob("solver_filtering", "active reports, in the directory's order")
        return
    people = sorted(set(story["turned_down"]) | set(story["refused_access"]))
    if not people:
        return
    if len(story.sql("SELECT employee_no FROM meeting.employees WHERE is_active "
                     "AND employee_no IN (SELECT unnest(?))", [people])) != len(people):
        return
    title = "About your request"
    story.say(["On {day}, give each report whose request I turned down a 15-minute online \"{title}\" with "
               "me, one after another in order of their employee numbers, each at the earliest time we're "
               "both free.",
               "And on {day} book me a 15-minute online talk \"{title}\" with everyone on my team whose "
               "request I rejected, by employee number, each at the first time the two of us are free."],
              day=day, title=title)
    one_to_ones(story, boss["work_email"], people, day, 15, title)
    story.knob("solver_filtering", "the reports whose requests were rejected")


@step(inputs=("boss", "leave", "delegate"), goal="a handover with the delegate before the leave",
      capabilities=("cross_step_dependency",))
def handover(story: Story) -> None:
    """One time in two, when there is a delegate: a 30-minute online handover with them on the last working
    day before the leave, at the earliest time both are free (after the talks of that day)."""
    delegate, leave = story["delegate"], story["leave"]
    if delegate is None or story.rng.random() < 0.5:
        return
    day = leave["start"] - dt.timedelta(days=3)
    title = "Handover before my leave"
    story.say(["On {day}, book a 30-minute online \"{title}\" with my delegate at the earliest time we're "
               "both free.",
               "Last, put a 30-minute online meeting \"{title}\" with my delegate in on {day}, the first "
               "time both of us are free."], day=day, title=title)
    one_to_ones(story, story["boss"]["work_email"], [delegate["work_email"]], day, 30, title)


@step(inputs=("boss", "leave"), goal="the leave refused: longer than the balance (nothing changed)",
      capabilities=("precise_boundary_judgment",))
def request_too_much(story: Story) -> None:
    ask_leave(story)
    leave = story["leave"]
    story.say(["Then decide whatever waits for my approval in HR and the service desk and set my "
               "out-of-office for the period. It's all or nothing: if HR won't take the leave as asked, "
               "change nothing at all.",
               "After that, clear my approvals and mark me out of office for those days; but if the leave "
               "itself can't be booked as I put it, leave everything untouched."])
    story.read("get_leave_balances", {})
    story.blocked(
        "request_leave",
        {"leave_type": leave["kind"], "start_date": leave["start"], "end_date": leave["end"]},
        kind="forbidden",
        because=f"{leave['days']} working days asked and only {leave['left']} {leave['kind']} days left",
        policy="leave_within_balance",
    )


BEFORE_MY_LEAVE = Storyline(
    "before_my_leave",
    cast_manager,
    (request_my_leave, decide_team_leave, decide_requested_items, decide_access, away_in_calendar,
     talks_before_leave, handover),
    provides=("boss", "leave"),
    weight=1.0,
)


def cast_manager_short(story: Story) -> None:
    """As `cast_manager`, a leave longer than the balance of its type."""
    cast_manager(story, over_balance=True)


LEAVE_OVER_BALANCE = Storyline(
    "leave_over_balance",
    cast_manager_short,
    (request_too_much,),
    provides=("boss", "leave"),
    feasible=False,
    capabilities=("cross_step_dependency",),
    weight=0.2,
)
