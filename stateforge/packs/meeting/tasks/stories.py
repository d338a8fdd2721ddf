"""Storylines of the meeting pack: long tasks composed of steps on shared entities (docs/tasks.md).

- `team_sync_series`: my direct reports without the contractors and interns -> the first time in a stated
  week when all of us are free -> a weekly series at that time -> (in some requests) my manager, found on my
  profile, optional on the first occurrence -> for each occurrence the smallest free room in my building
  that seats everyone invited to it and has video -> decline what I had accepted that clashes with it.
- `team_office_move` (office_move.py): my team's base moves to another office: home buildings, desk bookings
  in the old office, and my meetings' rooms there moved to the new office or given up.
- `unit_all_hands`: everyone in the unit I head and the units below it, minus interns and people who
  joined after a day (every page of the directory) -> who is away that day (optional then) -> the
  all-hands, online with a waiting room -> cancel my own meetings that clash with it.
- `away_handover`: my own meetings in the days I am away -> the out-of-office period, my manager covering
  -> cancel the small ones (a stated number of invitees at most) -> move the others a week on, giving up
  the room first where it is taken then (the policy detour).
- `answer_invitations`: my working hours and what I've accepted -> every pending invitation, decided by
  rules the employee states (outside my hours: decline; my manager's: accept, declining what it clashes
  with first; a clash otherwise: tentative; else accept).
- `team_desks`: my direct reports' office days (working hours, remote days, absences, desks already
  booked) -> a desk for each of us on one floor on the days stated.
- `equipment_refresh`: every room with a kind of equipment (every page, then each room's details) ->
  replace the units not serviced since a day (one on that day stays), installing the successor where the
  room has none.
- infeasible, all or nothing (the employee says so): `team_room_short` meets a room that seats one fewer
  than the team (with my manager, in some requests) after counting it; `series_room_taken` meets the room
  taken on one week of the series after reading its schedule day by day; `desk_days_past_window` meets the
  30-day desk window on one of the weekdays asked (one or two a week; days I already have a desk need no
  look).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from ..tools.common import DESK_DAYS_AHEAD
from .common import ACTIVE, FACILITIES, LAST_DAY, PERSON, UNIT_TREE, WEEKDAY_NAMES, introduce, next_monday
from .office_move import TEAM_OFFICE_MOVE
from .storykit import cast_person, direct_reports, id_list, overlaps, room_taken, span_of
from .storykit import when as _when

OFFICE_TYPES = ("full_time", "part_time")
"""Employment types that count as "the team" (contractors and interns left out)."""
SERIES_TITLES = ("Team Sync", "Weekly Team Catch-up", "Team Standup", "Team Planning", "Weekly Huddle")
ALL_HANDS_TITLES = ("All-Hands", "Quarterly All-Hands", "Town Hall", "Unit All-Hands", "Spring Town Hall")


# --- the team's weekly series ------------------------------------------------------------------------


def cast_manager(story: Story) -> None:
    """An active manager with a home building and 4 to 8 active direct reports, at least one a contractor
    or intern and at least three on staff."""
    cast_person(
        story,
        f"SELECT {PERSON}, e.home_building_id, b.name AS building FROM employees AS e JOIN buildings AS b ON "
        f"b.building_id = e.home_building_id WHERE {ACTIVE} AND (SELECT count(*) FILTER (WHERE "
        "r.employment_type IN ('contractor', 'intern')) > 0 AND count(*) FILTER (WHERE r.employment_type IN "
        "('full_time', 'part_time')) BETWEEN 3 AND 8 FROM employees AS r WHERE r.manager_id = e.employee_id "
        "AND r.is_active)",
        what="manager with a mixed team",
    )


@step(
    inputs=("user",),
    outputs=("team",),
    goal="the direct reports on staff",
    capabilities=("multi_condition_filtering",),
)
def staff_team(story: Story) -> None:
    rows = direct_reports(story, story["user"]["email"])
    team = [r for r in rows if r["employment_type"] in OFFICE_TYPES]
    if len(team) < 3 or len(team) == len(rows):
        raise Skip("no mixed team")
    story["team"] = [{"name": r["name"], "email": r["email"]} for r in team]
    story.knob("solver_filtering", "direct reports without contractors and interns")
    story.say(
        [
            "I want a regular slot with the people who report to me directly, leaving out the contractors "
            "and interns.",
            "Please set up a recurring meeting for my direct reports; only the permanent staff, so no "
            "contractors or interns.",
        ]
    )


@step(
    inputs=("user", "team"),
    outputs=("slot", "minutes"),
    goal="the first time that week when everyone is free",
    capabilities=("aggregation_computation",),
)
def first_common_slot(story: Story) -> None:
    monday = next_monday(story.ctx.today) + dt.timedelta(weeks=story.rng.choice((0, 1, 2, 3)))
    minutes = story.rng.choice((30, 45, 60))
    window = story.rng.choice(((9, 17), (13, 17), (9, 12), (14, 18), (10, 16)))
    earliest, latest = dt.time(window[0]), dt.time(window[1])
    people = [story["user"]["email"], *(p["email"] for p in story["team"])]
    slot = None
    for offset in range(5):
        day = monday + dt.timedelta(days=offset)
        found = story.read(
            "find_meeting_times",
            {"people": people, "date": day, "duration_minutes": minutes, "earliest": earliest.isoformat(),
             "latest": latest.isoformat()},
        )
        if found["slots"]:
            slot = _when(found["slots"][0]["start_at"])
            break
    if slot is None:
        raise Skip("no common slot that week")
    story["slot"], story["minutes"] = slot, minutes
    story.ctx.derived(slot.time().isoformat(), "the start of the first common free slot that week")
    story.knob("aggregation", "the earliest slot across the week's days")
    story.say(
        [
            "Start it at the first time in the week of {monday} when all of us are free for {minutes} "
            "minutes between {earliest} and {latest} (on the half hour), and repeat it weekly on that "
            "weekday and time.",
            "Look at the week of {monday}: the earliest half-hour start between {earliest} and {latest} "
            "when every one of us has {minutes} minutes free is the slot, repeated weekly.",
        ],
        monday=monday,
        minutes=minutes,
        earliest=earliest,
        latest=latest,
    )


@step(
    inputs=("user", "team", "slot", "minutes"),
    outputs=("occurrences",),
    goal="the weekly series",
)
def weekly_series(story: Story) -> None:
    user, slot = story["user"], story["slot"]
    count = story.rng.randint(6, 12)
    last = slot.date() + dt.timedelta(weeks=count - 1)
    if last > LAST_DAY:
        count = (LAST_DAY - slot.date()).days // 7 + 1
    if count < 4:
        raise Skip("too few weeks left")
    title = story.rng.choice(SERIES_TITLES)
    made = story.call(
        "create_meeting_series",
        {
            "organizer": user["email"],
            "title": title,
            "frequency": "weekly",
            "first_date": slot.date(),
            "start_time": slot.time().isoformat(),
            "duration_minutes": story["minutes"],
            "occurrences": count,
            "invitees": [p["email"] for p in story["team"]],
        },
    )
    story["occurrences"] = [
        (mid, slot + dt.timedelta(weeks=i)) for i, mid in enumerate(made["meeting_ids"])
    ]
    # the occurrences' ids come back from the call; later calls name them by it
    story.ctx.derived(made["meeting_ids"], "the occurrence ids create_meeting_series returned")
    story.say(
        ["Call it {title:q} and make it {count} weeks long.", "Title: {title:q}, for {count} weeks."],
        title=title,
        count=count,
    )
    story.ctx.goal(
        "the series and its invitees",
        "SELECT count(DISTINCT m.meeting_id) AS meetings, count(a.employee_id) FILTER (WHERE NOT "
        "a.is_optional) AS invitations FROM meeting_series AS s JOIN meetings AS m ON m.series_id = "
        "s.series_id LEFT JOIN meeting_attendees AS a ON a.meeting_id = m.meeting_id WHERE "
        "s.organizer_id = ? AND s.title = ?",
        [user["employee_id"], title],
        expected=[{"meetings": count, "invitations": count * len(story["team"])}],
    )


@step(
    inputs=("user", "occurrences"),
    outputs=("guest",),
    goal="my manager sits in on the first occurrence (some requests)",
)
def manager_sits_in(story: Story) -> None:
    user = story["user"]
    story["guest"] = None
    boss = story.ctx.one(
        "SELECT m.email FROM employees AS e JOIN employees AS m ON m.employee_id = e.manager_id "
        "WHERE e.employee_id = ? AND m.is_active",
        [user["employee_id"]],
    )
    if boss is None or story.rng.random() < 0.5:
        return  # the request leaves the manager out: no read, no invitation
    manager = story.read("get_person", {"person": user["email"]})["reports_to"][0]
    first = story["occurrences"][0][0]
    story.call("invite_attendees", {"meeting": first, "organizer": user["email"],
                                    "people": [manager["email"]], "optional": True})
    story["guest"] = manager["email"]
    story.say(
        [
            "Also invite my manager to the first one only, as an optional attendee, so they can see how it "
            "goes.",
            "My manager should get an optional invite to the very first occurrence (just that one).",
        ]
    )
    story.ctx.goal(
        "the manager is an optional invitee of the first occurrence only",
        "SELECT count(*) FILTER (WHERE a.is_optional) AS optional, count(*) AS invited FROM meetings AS m "
        "JOIN meeting_attendees AS a ON a.meeting_id = m.meeting_id JOIN employees AS e ON e.employee_id = "
        "a.employee_id WHERE m.series_id = (SELECT series_id FROM meetings WHERE meeting_id = ?) AND "
        "e.email = ?",
        [first, manager["email"]],
        expected=[{"optional": 1, "invited": 1}],
    )


@step(
    inputs=("user", "team", "occurrences", "minutes", "guest"),
    goal="a room for each occurrence",
    capabilities=("multi_condition_filtering",),
)
def room_each_week(story: Story) -> None:
    user = story["user"]
    booked = 0
    for week, (mid, start) in enumerate(story["occurrences"]):
        # everyone invited to that week's occurrence and me: the guest sits in on the first only
        seats = len(story["team"]) + 1 + (1 if week == 0 and story["guest"] else 0)
        end = start + dt.timedelta(minutes=story["minutes"])
        rooms = story.read(
            "find_rooms",
            {"building": user["building"], "start_at": start, "end_at": end, "min_capacity": seats,
             "video_conferencing": True, "limit": 5},
        )["rows"]
        if not rooms:
            continue
        story.call("book_room", {"meeting": mid, "organizer": user["email"], "room": rooms[0]["name"]})
        booked += 1
    if booked < 2:
        raise Skip("too few rooms free")
    story.say(
        [
            "Book a room for every one of them in {building}: the smallest one free at that time that "
            "seats everyone invited to it and me, and has video conferencing (it can change from week to "
            "week; if none is free some week, that one stays online only).",
            "For each week, grab the smallest free room in {building} with video conferencing that fits "
            "everyone invited that week, me included; weeks with no such room just stay online.",
        ],
        building=user["building"],
    )


@step(
    inputs=("user", "occurrences", "minutes"),
    goal="decline the accepted meetings that clash",
    capabilities=("cross_step_dependency",),
)
def decline_clashes(story: Story) -> None:
    user = story["user"]
    times = [(s, s + dt.timedelta(minutes=story["minutes"])) for _, s in story["occurrences"]]
    first, last = times[0][0].date(), times[-1][0].date()
    rows = story.read_all(
        "get_calendar",
        {"person": user["email"], "from_date": first, "to_date": last, "response": "accepted"},
    )
    clashes = [r for r in rows if any(overlaps(span_of(r), t) for t in times)]
    story.say(
        [
            "If I've accepted anything else that overlaps one of those slots, decline it for me.",
            "And decline any invitation I'd accepted that now clashes with one of them.",
        ]
    )
    for row in clashes:
        story.call(
            "respond_to_invitation",
            {"meeting": row["meeting_id"], "person": user["email"], "response": "declined"},
        )


# --- the unit's all-hands ----------------------------------------------------------------------------

def cast_unit_head(story: Story) -> None:
    """The active head of a unit with 60 to 280 active members (not interns) with the units below it."""
    row = cast_person(
        story,
        UNIT_TREE
        + ", sizes AS (SELECT t.root_id, count(*) AS n FROM tree AS t JOIN employees AS e ON e.org_unit_id = "
        "t.org_unit_id WHERE e.is_active AND e.employment_type <> 'intern' GROUP BY ALL) "
        f"SELECT {PERSON}, u.name AS unit, u.code, s.n FROM org_units AS u JOIN sizes AS s ON s.root_id = "
        f"u.org_unit_id JOIN employees AS e ON e.employee_id = u.head_employee_id WHERE {ACTIVE} "
        "AND s.n BETWEEN 60 AND 280 AND (SELECT count(*) FROM org_units AS o WHERE lower(o.name) = "
        "lower(u.name)) = 1",
        what="unit head",
    )
    story["unit"] = {"name": row["unit"], "code": row["code"]}


@step(
    inputs=("user", "unit"),
    outputs=("members", "cutoff"),
    goal="every member of the unit and below, without interns and new joiners",
    capabilities=("full_data_acquisition", "multi_condition_filtering", "precise_boundary_judgment"),
)
def unit_roster(story: Story) -> None:
    unit, user = story["unit"], story["user"]
    story.read("search_org_units", {"query": unit["name"]})
    rows = story.read_all("search_people", {"org_unit": unit["code"], "include_subunits": True})
    hired = sorted({r["hired_on"][:10] for r in rows if r["employment_type"] != "intern"})
    if len(hired) < 20:
        raise Skip("too few hiring days")
    days = [dt.date.fromisoformat(h) for h in hired]
    # a cutoff whose next hiring day is within a week: someone just past it exists
    close = [a for a, b in zip(days[-40:], days[-39:], strict=False) if (b - a).days <= 7]
    if not close:
        raise Skip("no hiring day close to another")
    cutoff = story.rng.choice(close)
    members = [
        r for r in rows
        if r["employment_type"] != "intern" and dt.date.fromisoformat(r["hired_on"][:10]) <= cutoff
        and r["email"] != user["email"]
    ]
    story["members"], story["cutoff"] = members, cutoff
    story.knob("solver_filtering", "no interns, hired on or before a day")
    story.distractor(
        f"a member of {unit['name']} or below hired in the week after {cutoff}",
        UNIT_TREE
        + " SELECT count(*) FROM employees AS e WHERE e.is_active AND e.employment_type <> 'intern' AND "
        "e.org_unit_id IN (SELECT t.org_unit_id FROM tree AS t JOIN org_units AS u ON u.org_unit_id = "
        "t.root_id WHERE u.code = ?) AND e.hired_on > ? AND e.hired_on <= ?",
        [unit["code"], cutoff, cutoff + dt.timedelta(days=7)],
    )
    story.say(
        [
            "I'm holding an all-hands for {unit} and every team under it: invite everyone there except the "
            "interns and anyone who joined after {cutoff} (they get their own onboarding session).",
            "Everyone in {unit}, including the units below it, should come to an all-hands, apart from "
            "interns and people hired after {cutoff}.",
        ],
        unit=unit["name"],
        cutoff=cutoff,
    )


@step(
    inputs=("unit", "members"),
    outputs=("start", "away"),
    goal="who is away that day",
    capabilities=("full_data_acquisition",),
)
def away_that_day(story: Story) -> None:
    unit = story["unit"]
    day = next_monday(story.ctx.today) + dt.timedelta(
        weeks=story.rng.randint(1, 8), days=story.rng.choice((1, 2, 3))
    )
    if day > LAST_DAY:
        raise Skip("past the calendar")
    start = dt.datetime.combine(day, dt.time(story.rng.choice((10, 14, 16))))
    rows = story.read_all(
        "list_out_of_office", {"org_unit": unit["code"], "include_subunits": True, "on_date": day}
    )
    emails = {m["email"] for m in story["members"]}
    away_ids = {r.get("email") for r in rows}
    away = sorted(e for e in emails if e in away_ids)
    story["start"], story["away"] = start, away
    story.say(
        [
            "Make it {start} for 60 minutes, online, with the waiting room on. Whoever is out of office that "
            "day should still get it, but as an optional invite.",
            "It's on {start}, 60 minutes, online only with a waiting room; people who are away that day are "
            "invited as optional.",
        ],
        start=start,
    )


@step(
    inputs=("user", "members", "start", "away"),
    outputs=("all_hands",),
    goal="the all-hands with its invitees",
)
def schedule_all_hands(story: Story) -> None:
    user, away = story["user"], set(story["away"])
    title = story.rng.choice(ALL_HANDS_TITLES)
    required = [m["email"] for m in story["members"] if m["email"] not in away]
    optional = [m["email"] for m in story["members"] if m["email"] in away]
    made = story.call(
        "schedule_meeting",
        {
            "organizer": user["email"],
            "title": title,
            "start_at": story["start"],
            "duration_minutes": 60,
            "invitees": required,
            "optional_invitees": optional,
            "is_online": True,
            "waiting_room_enabled": True,
        },
    )
    story["all_hands"] = made["meeting_id"]
    story.say(["Title it {title:q}.", "Call it {title:q}."], title=title)
    story.ctx.goal(
        "the all-hands invites the unit",
        "SELECT count(*) FILTER (WHERE NOT a.is_optional) AS required, count(*) FILTER (WHERE a.is_optional) "
        "AS optional FROM meetings AS m JOIN meeting_attendees AS a ON a.meeting_id = m.meeting_id WHERE "
        "m.organizer_id = ? AND m.title = ? AND m.start_at = ?",
        [user["employee_id"], title, story["start"]],
        expected=[{"required": len(required), "optional": len(optional)}],
    )


@step(
    inputs=("user", "members", "start", "away"),
    outputs=("parties",),
    goal="a watch party in each office with enough of them",
    capabilities=("aggregation_computation",),
)
def watch_parties(story: Story) -> None:
    user, start = story["user"], story["start"]
    end = start + dt.timedelta(hours=1)
    floor = story.rng.choice((6, 8, 10))
    away = set(story["away"])
    by_building: dict[str, list[str]] = {}
    for m in story["members"]:
        if m["home_building"] and m["email"] not in away:
            by_building.setdefault(m["home_building"], []).append(m["email"])
    story.say(
        [
            "In every office where at least {floor} of the required invitees are based, set up a {title:q} "
            "meeting at the same time in the smallest free room there that seats them all, and invite them "
            "to it; skip an office where no free room is big enough.",
            "Also, so people can watch together: for each building that is home to {floor} or more of the "
            "required invitees, book a {title:q} at the same hour in the smallest free room that fits them, "
            "with them invited (no room that fits, no watch party there).",
        ],
        floor=floor,
        title="Watch Party",
    )
    made: list[int] = []
    for building in sorted(b for b, people in by_building.items() if len(people) >= floor):
        people = by_building[building]
        rooms = story.read(
            "find_rooms",
            {"building": building, "start_at": start, "end_at": end, "min_capacity": len(people) + 1,
             "limit": 5},
        )["rows"]
        if not rooms:
            continue
        party = story.call(
            "schedule_meeting",
            {"organizer": user["email"], "title": "Watch Party", "start_at": start, "duration_minutes": 60,
             "invitees": people, "room": rooms[0]["name"], "is_online": False},
        )
        made.append(party["meeting_id"])
    story["parties"] = made
    story.knob("aggregation", f"required invitees per home building, {floor} or more")
    story.ctx.goal(
        "the watch parties",
        "SELECT count(*) AS parties FROM meetings WHERE organizer_id = ? AND title = 'Watch Party' AND "
        "start_at = ?",
        [user["employee_id"], start],
        expected=[{"parties": len(made)}],
    )


@step(
    inputs=("user", "start", "parties"),
    goal="cancel my other clashing meetings",
    capabilities=("cross_step_dependency",),
)
def cancel_my_clashes(story: Story) -> None:
    user, start = story["user"], story["start"]
    slot = (start, start + dt.timedelta(hours=1))
    rows = story.read_all(
        "get_calendar", {"person": user["email"], "from_date": start.date(), "role": "organizer"}
    )
    story.say(
        [
            "Then cancel any other meeting of my own that overlaps the all-hands.",
            "Finally, if I organise anything else that overlaps that hour (besides what you set up now), "
            "cancel it.",
        ]
    )
    for row in rows:
        if row["meeting_id"] in (story["all_hands"], *story["parties"]) or row["status"] != "scheduled":
            continue
        if overlaps(span_of(row), slot):
            story.call("cancel_meeting", {"meeting": row["meeting_id"], "organizer": user["email"]})


# --- handing over before time away -------------------------------------------------------------------


def cast_away(story: Story) -> None:
    """An active employee with an active manager, 3+ of their own upcoming meetings (2+ invitees each) in a
    stretch of workdays at least a week before the calendar's end, and no absence then."""
    ctx = story.ctx
    first = next_monday(ctx.today) + dt.timedelta(weeks=ctx.rng.randint(0, 7))
    last = first + dt.timedelta(days=ctx.rng.choice((4, 11)))
    if last + dt.timedelta(days=7) > LAST_DAY:
        raise Skip("too close to the calendar's end")
    start = dt.datetime.combine(first, dt.time())
    end = dt.datetime.combine(last + dt.timedelta(days=1), dt.time())
    cast_person(
        story,
        f"SELECT {PERSON} FROM employees AS e JOIN employees AS boss ON boss.employee_id = e.manager_id "
        f"WHERE {ACTIVE} AND boss.is_active AND (SELECT count(*) FROM meetings AS m WHERE m.organizer_id = "
        "e.employee_id AND m.status = 'scheduled' AND m.start_at >= ? AND m.start_at < ? AND (SELECT "
        "count(*) FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id) >= 2) >= 3 AND NOT EXISTS "
        "(SELECT 1 FROM out_of_office AS o WHERE o.employee_id = e.employee_id AND o.starts_at < ? "
        "AND ? < o.ends_at)",
        [start, end, end + dt.timedelta(days=7), start],
        what="organizer with meetings in the stretch",
    )
    story["span"] = (first, last)


@step(inputs=("user",), outputs=("manager",), goal="who covers")
def my_manager(story: Story) -> None:
    profile = story.read("get_person", {"person": story["user"]["email"]})
    if not profile["reports_to"]:
        raise Skip("no manager")
    story["manager"] = profile["reports_to"][0]


@step(
    inputs=("user", "span"),
    outputs=("mine",),
    goal="my own meetings in the stretch",
)
def my_meetings_then(story: Story) -> None:
    first, last = story["span"]
    rows = story.read_all(
        "get_calendar",
        {"person": story["user"]["email"], "from_date": first, "to_date": last, "role": "organizer"},
    )
    mine = [r for r in rows if r["status"] == "scheduled"]
    if len(mine) < 3:
        raise Skip("too few own meetings")
    story["mine"] = mine


@step(inputs=("user", "span", "manager"), goal="the out-of-office period")
def set_away(story: Story) -> None:
    user, (first, last) = story["user"], story["span"]
    story.call(
        "set_out_of_office",
        {
            "person": user["email"],
            "starts_at": dt.datetime.combine(first, dt.time()),
            "ends_at": dt.datetime.combine(last + dt.timedelta(days=1), dt.time()),
            "reason": "vacation",
            "delegate": story["manager"]["email"],
        },
    )
    story.ctx.derived(
        dt.datetime.combine(last + dt.timedelta(days=1), dt.time()).isoformat(),
        "the end of the last day away (midnight after it)",
    )
    story.say(
        [
            "I'm on vacation from {first} to {last}, both days included: put me out of office for that "
            "whole time with my manager as my delegate.",
            "I'll be away on vacation {first} through {last}; set my out-of-office for those days (all day) "
            "and have my manager cover for me.",
        ],
        first=first,
        last=last,
    )


@step(
    inputs=("user", "mine"),
    outputs=("kept",),
    goal="cancel the small meetings",
    capabilities=("multi_condition_filtering", "precise_boundary_judgment"),
)
def cancel_small(story: Story) -> None:
    user, mine = story["user"], story["mine"]
    sizes = sorted({r["invitees"] for r in mine})
    if len(sizes) < 2:
        raise Skip("every meeting the same size")
    limit = sizes[story.rng.randrange(len(sizes) - 1)]
    small = [r for r in mine if r["invitees"] <= limit]
    story["kept"] = [r for r in mine if r["invitees"] > limit]
    if any(r["invitees"] == limit + 1 for r in mine):
        ids = id_list(mine)
        story.distractor(
            f"a meeting of {user['email']} in the stretch with {limit + 1} invitees",
            f"SELECT count(*) FROM meetings AS m WHERE m.meeting_id IN ({ids}) AND (SELECT count(*) FROM "
            "meeting_attendees AS a WHERE a.meeting_id = m.meeting_id) = ?",
            [limit + 1],
        )
    story.knob("solver_filtering", f"own meetings with at most {limit} invitees")
    story.say(
        [
            "Of the meetings I organise in those days, cancel the ones with {limit} invitees or fewer.",
            "Cancel every meeting I run during that time that has no more than {limit} people invited.",
        ],
        limit=limit,
    )
    for row in small:
        story.call("cancel_meeting", {"meeting": row["meeting_id"], "organizer": user["email"]})
    ids = id_list(small)
    story.ctx.goal(
        "the small meetings are cancelled",
        "SELECT count(*) FILTER (WHERE status = 'cancelled') AS cancelled FROM meetings WHERE meeting_id "
        f"IN ({ids})",
        expected=[{"cancelled": len(small)}],
    )


@step(
    inputs=("user", "kept", "manager"),
    goal="move the bigger ones a week on, freeing rooms that are taken then",
    capabilities=("cross_step_dependency",),
)
def move_a_week(story: Story) -> None:
    user, manager = story["user"], story["manager"]
    note = f"Moved a week on while I'm on vacation; {manager['name']} covers for me until then."
    story.say(
        [
            "Move each of the bigger ones to the same time exactly one week later. Where its room isn't free "
            "at the new time, give the room up first and let it go ahead online.",
            "The rest should move to the same weekday and time a week later; if a meeting's room is taken "
            "then, release the room and keep the meeting without it.",
        ]
    )
    story.say(
        [
            "On each meeting you move, leave a note for the attendees saying {note:q}",
            "Add this note for the attendees to every meeting that moves: {note:q}",
        ],
        note=note,
    )
    for row in story["kept"]:
        start, end = (t + dt.timedelta(weeks=1) for t in span_of(row))
        taken = False
        for room in row["rooms"]:
            info = story.read("get_room", {"room": room, "date": start.date()})
            if room_taken(info, (start, end), row["meeting_id"]):
                taken = True
            hours = info["building_hours"]
            if "-" in hours and not (hours[:5] <= f"{start:%H:%M}" and f"{end:%H:%M}" <= hours[-5:]):
                taken = True
        if taken:
            story.call("release_room", {"meeting": row["meeting_id"], "organizer": user["email"]})
            story.knob("policy_detour", "a room taken at the new time is released before the move")
        story.call("reschedule_meeting", {"meeting": row["meeting_id"], "organizer": user["email"],
                                          "start_at": start})
        story.ctx.derived(start.isoformat(), "the same time a week later")
        story.call("add_meeting_note", {"meeting": row["meeting_id"], "author": user["email"], "body": note})
    ids = id_list(story["kept"])
    story.ctx.goal(
        "the bigger meetings moved a week on",
        "SELECT list((meeting_id, start_at, status) ORDER BY meeting_id) AS moved FROM meetings WHERE "
        f"meeting_id IN ({ids})",
    )


# --- answering my invitations ------------------------------------------------------------------------


def cast_invitee(story: Story) -> None:
    """An active employee with a manager and 3+ pending invitations to upcoming meetings."""
    ctx = story.ctx
    cast_person(
        story,
        f"SELECT {PERSON} FROM employees AS e WHERE {ACTIVE} AND e.manager_id IS NOT NULL AND (SELECT "
        "count(*) FROM meeting_attendees AS a JOIN meetings AS m ON m.meeting_id = a.meeting_id WHERE "
        "a.employee_id = e.employee_id AND a.response = 'pending' AND m.status = 'scheduled' "
        "AND m.start_at > ?) >= 3",
        [ctx.now],
        what="employee with pending invitations",
    )


@step(inputs=("user",), outputs=("profile",), goal="my hours, absences and manager")
def my_profile(story: Story) -> None:
    story["profile"] = story.read("get_person", {"person": story["user"]["email"]})


@step(
    inputs=("user",),
    outputs=("accepted", "pending"),
    goal="what I've accepted and what waits",
    capabilities=("full_data_acquisition",),
)
def my_invitations(story: Story) -> None:
    email, today = story["user"]["email"], story.ctx.today
    base = {"person": email, "from_date": today, "to_date": LAST_DAY}
    story["accepted"] = story.read_all("get_calendar", {**base, "response": "accepted"})
    pending = story.read_all("get_calendar", {**base, "response": "pending"})
    story["pending"] = [
        r for r in pending if _when(r["start_at"]) > story.ctx.now and r["status"] == "scheduled"
    ]
    if len(story["pending"]) < 3:
        raise Skip("too few pending")


def _inside_hours(profile: dict, start: dt.datetime, end: dt.datetime) -> bool:
    day = next((h for h in profile["working_hours"] if h["weekday"] == start.isoweekday()), None)
    if day is None:
        return False
    return str(day["starts_at"]) <= start.time().isoformat() and end.time().isoformat() <= str(day["ends_at"])


@step(
    inputs=("user", "profile", "accepted", "pending"),
    goal="answer every pending invitation by the stated rules",
    capabilities=("multi_condition_filtering", "precise_boundary_judgment", "cross_step_dependency"),
)
def answer_by_rules(story: Story) -> None:
    user, profile = story["user"], story["profile"]
    boss = profile["reports_to"][0]["email"] if profile["reports_to"] else None
    away = [span_of(o, "starts_at", "ends_at") for o in profile["out_of_office"]]
    held = [(r["meeting_id"], *span_of(r)) for r in story["accepted"]]
    held = [h for h in held if h[2] > story.ctx.now]
    story.say(
        [
            "Please go through every invitation I haven't answered yet, earliest first. Decline anything "
            "that isn't fully inside my working hours that day, or falls while I'm out of office. Accept my "
            "manager's meetings, and if one of them clashes with something I'd accepted, decline that other "
            "one first. For the rest, accept unless it clashes with something I've accepted (including "
            "what you accept as you go); then answer tentative.",
            "Could you answer all my pending invitations, in date order? Outside my working hours for that "
            "day, or during my out-of-office: decline. From my manager: accept, declining whatever I'd "
            "accepted that overlaps it. Anything else: accept if it doesn't overlap a meeting I've accepted "
            "(counting the ones you've just accepted), otherwise mark it tentative.",
        ]
    )
    answers: dict[str, int] = {}
    near = 0
    for row in sorted(story["pending"], key=lambda r: (_when(r["start_at"]), r["meeting_id"])):
        start, end = span_of(row)
        inside = _inside_hours(profile, start, end)
        if inside and not _inside_hours(profile, start - dt.timedelta(minutes=30), end) or inside and not \
                _inside_hours(profile, start, end + dt.timedelta(minutes=30)):
            near += 1
        if not inside or any(overlaps((start, end), a) for a in away):
            response = "declined"
        elif boss is not None and row["organizer_email"] == boss:
            for other in [h for h in held if overlaps((start, end), h[1:])]:
                story.call("respond_to_invitation",
                           {"meeting": other[0], "person": user["email"], "response": "declined"})
                story.ctx.derived("declined", "the clashing acceptance gives way")
                held.remove(other)
                story.knob("policy_detour", "a clashing acceptance is declined before the manager's")
            response = "accepted"
        elif any(overlaps((start, end), h[1:]) for h in held):
            response = "tentative"
        else:
            response = "accepted"
        story.call("respond_to_invitation",
                   {"meeting": row["meeting_id"], "person": user["email"], "response": response})
        story.ctx.derived(response, "the answer the stated rules give")
        if response == "accepted":
            held.append((row["meeting_id"], start, end))
        answers[response] = answers.get(response, 0) + 1
    if len(answers) < 2:
        raise Skip("one answer for all")
    story.knob("solver_filtering", "working hours, absences, organizer and clashes")
    if near:
        story.knob("boundary_distractor", f"{near} invitations end or start at the edge of working hours")
    story.ctx.goal(
        "every invitation is answered",
        "SELECT count(*) AS pending FROM meeting_attendees AS a JOIN meetings AS m ON m.meeting_id = "
        "a.meeting_id WHERE a.employee_id = ? AND a.response = 'pending' AND m.status = 'scheduled' AND "
        "m.start_at > ?",
        [user["employee_id"], story.ctx.now],
        expected=[{"pending": 0}],
    )


# --- desks for the team ------------------------------------------------------------------------------


def cast_desk_team(story: Story) -> None:
    """An active manager with a home building and 3 to 8 active direct reports."""
    cast_person(
        story,
        f"SELECT {PERSON}, e.home_building_id, b.name AS building FROM employees AS e JOIN buildings AS b ON "
        f"b.building_id = e.home_building_id WHERE {ACTIVE} AND (SELECT count(*) FROM employees AS r WHERE "
        "r.manager_id = e.employee_id AND r.is_active) BETWEEN 3 AND 8",
        what="manager with a home building",
    )


@step(
    inputs=("user",),
    outputs=("days", "office"),
    goal="who of us is in the office on each day",
    capabilities=("multi_condition_filtering", "cross_step_dependency"),
)
def office_days(story: Story) -> None:
    user, today = story["user"], story.ctx.today
    monday = next_monday(today) + dt.timedelta(weeks=story.rng.choice((0, 1, 2)))
    picks = sorted(story.rng.sample(range(5), story.rng.choice((2, 3))))
    days = [monday + dt.timedelta(days=i) for i in picks]
    if days[-1] > today + dt.timedelta(days=DESK_DAYS_AHEAD):
        raise Skip("past the desk window")
    people = [{"email": user["email"], "name": user["name"]}] + [
        {"email": r["email"], "name": r["name"]} for r in direct_reports(story, user["email"])
    ]
    office: dict[dt.date, list[str]] = {d: [] for d in days}
    for person in people:
        profile = story.read("get_person", {"person": person["email"]})
        booked = story.read(
            "list_desk_bookings", {"person": person["email"], "from_date": days[0], "to_date": days[-1]}
        )["rows"]
        taken = {b["booking_date"][:10] for b in booked if b["status"] in ("booked", "checked_in")}
        for day in days:
            hours = next((h for h in profile["working_hours"] if h["weekday"] == day.isoweekday()), None)
            if hours is None or hours["remote"] or day.isoformat() in taken:
                continue
            core = (dt.datetime.combine(day, dt.time(9)), dt.datetime.combine(day, dt.time(17)))
            away = [span_of(o, "starts_at", "ends_at") for o in profile["out_of_office"]]
            if any(overlaps(core, period) for period in away):
                continue
            office[day].append(person["email"])
    if sum(len(v) for v in office.values()) < 4:
        raise Skip("too few office days")
    story["days"], story["office"] = days, office
    story.knob("solver_filtering", "working days, remote days, absences, desks already booked")
    story.say(
        [
            "I'd like my direct reports and me to sit together in {building} on {days}. Book a desk for "
            "each of us who works from the office that day: skip anyone not working that weekday, working "
            "remotely that day, out of office, or who already has a desk booked that day.",
            "We're getting the team together in {building} on {days}: book desks for me and each of my "
            "direct reports who'll be in that day, leaving out whoever doesn't work that day, works "
            "remotely then, is away, or already has a desk.",
        ],
        building=user["building"],
        days=days,
    )


@step(inputs=("user", "days", "office"), goal="a desk for each of us on one floor")
def book_team_desks(story: Story) -> None:
    user = story["user"]
    booked = 0
    for day in story["days"]:
        people = story["office"][day]
        if not people:
            continue
        free = story.read_all("find_desks", {"building": user["building"], "date": day})
        floors: dict[int, int] = {}
        for desk in free:
            floors[desk["floor"]] = floors.get(desk["floor"], 0) + 1
        fitting = sorted(f for f, n in floors.items() if n >= len(people))
        if not fitting:
            raise Skip("no floor with room for everyone")
        for email in people:
            story.call("book_desk", {"person": email, "date": day, "building": user["building"],
                                     "floor": fitting[0]})
            booked += 1
    story.say(
        [
            "Put us all on the same floor each day: the lowest floor with enough free desks for everyone "
            "coming that day.",
            "Each day, use the lowest floor that still has a free desk for every one of us who's in.",
        ]
    )
    story.ctx.goal(
        "the desk bookings of the days",
        "SELECT count(*) AS booked FROM desk_bookings AS k JOIN desks AS d ON d.desk_id = k.desk_id WHERE "
        "d.building_id = ? AND k.booking_date IN (SELECT unnest(?)) AND k.status = 'booked'",
        [user["home_building_id"], story["days"]],
    )


# --- facilities: replacing old equipment -------------------------------------------------------------

REPLACEMENTS = {
    "Projector": "85-inch Display",
    "65-inch Display": "85-inch Display",
    "Speakerphone": "Conference Phone",
    "Conference Phone": "Ceiling Microphones",
    "Whiteboard": "Digital Whiteboard",
    "Flip Chart": "Digital Whiteboard",
    "Document Camera": "PTZ Camera",
    "Wireless Presenter": "Wireless Screen Share",
}
"""Old kind -> the kind that replaces it."""


def cast_facilities(story: Story) -> None:
    """An active member of a facilities unit, and a kind of equipment found in 12 to 40 rooms."""
    ctx = story.ctx
    units = ", ".join(f"'{u}'" for u in FACILITIES)
    person = ctx.pick(
        f"SELECT {PERSON} FROM employees AS e JOIN org_units AS u ON u.org_unit_id = e.org_unit_id "
        f"WHERE {ACTIVE} AND u.name IN ({units})",
        what="facilities employee",
    )
    kinds = ", ".join(f"'{k}'" for k in REPLACEMENTS)
    kind = ctx.pick(
        "SELECT e.name FROM room_equipment AS q JOIN equipment AS e ON e.equipment_id = q.equipment_id "
        f"WHERE e.name IN ({kinds}) GROUP BY ALL HAVING count(*) BETWEEN 12 AND 40",
        what="kind of equipment to replace",
    )["name"]
    story["user"], story["kind"] = person, kind
    introduce(ctx, person)


@step(
    inputs=("kind",),
    outputs=("rooms",),
    goal="every room with that kind of equipment, in detail",
    capabilities=("full_data_acquisition",),
)
def rooms_with_kind(story: Story) -> None:
    kind = story["kind"]
    listed = story.read_all(
        "find_rooms", {"equipment": [kind], "include_unbookable": True, "sort_by": "name"}
    )
    rooms = []
    for row in listed:
        detail = story.read("get_room", {"room": row["name"], "building": row["building"]})
        item = next(e for e in detail["equipment"] if e["name"] == kind)
        rooms.append({"name": row["name"], "building": row["building"], "serviced": item["last_serviced_on"],
                      "has": [e["name"] for e in detail["equipment"]]})
    story["rooms"] = rooms


@step(
    inputs=("kind", "rooms"),
    goal="replace the units not serviced since a day",
    capabilities=("multi_condition_filtering", "precise_boundary_judgment"),
)
def replace_old_units(story: Story) -> None:
    kind, rooms = story["kind"], story["rooms"]
    new = REPLACEMENTS[kind]
    days = sorted({str(r["serviced"])[:10] for r in rooms if r["serviced"]})
    if len(days) < 4:
        raise Skip("too few service dates")
    cutoff = dt.date.fromisoformat(story.rng.choice(days[1:-1]))
    old = [
        r for r in rooms if r["serviced"] is None or dt.date.fromisoformat(str(r["serviced"])[:10]) < cutoff
    ]
    if len(old) < 2:
        raise Skip("too few old units")
    story.say(
        [
            "Facilities is retiring old kit: every {kind} in any of our rooms, in every building, that "
            "hasn't been serviced since {cutoff} (or has no service date at all) comes out, and the room "
            "gets one {new} instead, unless it already has one. Units serviced on {cutoff} or later stay.",
            "Please go through all our rooms, every office: wherever a {kind} was last serviced before "
            "{cutoff}, or was never serviced, remove it and install a single {new} in its place (rooms that "
            "already have a {new} just lose the {kind}).",
        ],
        kind=kind,
        cutoff=cutoff,
        new=new,
    )
    for room in old:
        change: dict[str, Any] = {"room": room["name"], "building": room["building"], "remove": [kind]}
        if new not in room["has"]:
            change["install"] = [{"name": new, "quantity": 1}]
        story.call("update_room_equipment", change)
    story.knob("solver_filtering", f"{kind} not serviced since {cutoff}, room by room")
    story.distractor(
        f"a {kind} serviced on {cutoff} or in the week after (it stays)",
        "SELECT count(*) FROM room_equipment AS q JOIN equipment AS e ON e.equipment_id = q.equipment_id "
        "WHERE e.name = ? AND q.last_serviced_on BETWEEN ? AND ?",
        [kind, cutoff, cutoff + dt.timedelta(days=7)],
    )
    names = ", ".join(f"'{r['name']}'" for r in rooms)
    story.ctx.goal(
        "the old units are replaced",
        "SELECT list((r.name, e.name) ORDER BY r.name, e.name) AS kit FROM rooms AS r JOIN room_equipment AS "
        f"q ON q.room_id = r.room_id JOIN equipment AS e ON e.equipment_id = q.equipment_id WHERE r.name IN "
        f"({names}) AND e.name IN (?, ?)",
        [kind, new],
    )


# --- infeasible: blockers found by working -----------------------------------------------------------


def cast_short_room(story: Story) -> None:
    """An active manager whose active direct reports number exactly the seats of an app-bookable room
    in their home building (so the room is one seat short once the manager counts); in some requests the
    manager's own manager comes too, and the room seats one more."""
    ctx = story.ctx
    boss = ctx.rng.random() < 0.5  # my manager joins us: the room seats the reports and one more
    row = cast_person(
        story,
        f"SELECT {PERSON}, r.name AS room, b.name AS building FROM employees AS e JOIN rooms AS r ON "
        "r.building_id = e.home_building_id JOIN buildings AS b ON b.building_id = r.building_id WHERE "
        f"{ACTIVE} AND r.is_bookable AND NOT r.requires_approval AND r.capacity = (SELECT count(*) FROM "
        "employees AS x WHERE x.manager_id = e.employee_id AND x.is_active) + ? AND r.capacity >= 4 "
        "AND (NOT ? OR EXISTS (SELECT 1 FROM employees AS m WHERE m.employee_id = e.manager_id "
        "AND m.is_active))",
        [int(boss), boss],
        what="manager with a room one seat short",
    )
    story["room"], story["boss"] = {"name": row["room"], "building": row["building"]}, boss


@step(
    inputs=("user", "room", "boss"),
    goal="a team meeting in that room: one seat short",
    capabilities=("aggregation_computation",),
)
def team_in_room(story: Story) -> None:
    user, room = story["user"], story["room"]
    team = direct_reports(story, user["email"])
    guests = [story.read("get_person", {"person": user["email"]})["reports_to"][0]] if story["boss"] else []
    who = "everyone who reports to me directly" + (", and my manager" if guests else "")
    whom = "all my direct reports" + (" and my manager" if guests else "")
    weeks, days = story.rng.randint(1, 6), story.rng.randint(0, 4)
    day = next_monday(story.ctx.today) + dt.timedelta(weeks=weeks, days=days)
    start = dt.datetime.combine(day, dt.time(story.rng.choice((10, 11, 14, 15))))
    when = "on {start}"
    if story.rng.random() < 0.5:  # the time is the first one we are all free that day
        people = [user["email"], *(r["email"] for r in team + guests)]
        found = story.read(
            "find_meeting_times",
            {"people": people, "date": day, "duration_minutes": 60, "earliest": "09:00", "latest": "17:00"},
        )
        if not found["slots"]:
            raise Skip("no common slot that day")
        start = _when(found["slots"][0]["start_at"])
        when = "at the first time on {day} when all of us are free"
    info = story.read("get_room", {"room": room["name"], "date": day})
    if room_taken(info, (start, start + dt.timedelta(hours=1))):
        raise Skip("room taken then")
    title = story.rng.choice(("Team Offsite Prep", "Team Retro", "Quarter Planning"))
    story.say(
        [
            "Set up {title:q} " + when + " for 60 minutes with " + who + ", in "
            "{room} ({building}) - that room or nothing: if we don't all fit in it, don't book anything and "
            "just tell me.",
            "I want {title:q} " + when + ", 60 minutes, with " + whom + ", in person in {room} in "
            "{building}. If the room can't hold all of us, leave everything as it is and let me know.",
        ],
        title=title,
        start=start,
        day=day,
        room=room["name"],
        building=room["building"],
    )
    story.blocked(
        "schedule_meeting",
        {"organizer": user["email"], "title": title, "start_at": start, "duration_minutes": 60,
         "invitees": [r["email"] for r in team + guests], "room": room["name"], "is_online": False},
        kind="capacity",
        because=f"{room['name']} seats {info['capacity']}, and the team is {len(team)} direct reports"
        + (", my manager" if guests else "") + " and the organizer: one seat short, so nothing is booked",
        policy="room_fits_meeting",
    )


def cast_room_regular(story: Story) -> None:
    """An active manager (3 to 8 active direct reports) and a room of their home building that seats them
    all, with a confirmed booking at least three weeks ahead starting on the hour (the week the series
    meets it)."""
    ctx = story.ctx
    row = cast_person(
        story,
        f"SELECT {PERSON}, b.name AS building, r.name AS room, k.start_at AS taken_at FROM employees AS e "
        "JOIN buildings AS b ON b.building_id = e.home_building_id JOIN rooms AS r ON r.building_id = "
        "b.building_id JOIN room_bookings AS k ON k.room_id = r.room_id AND k.status = 'confirmed' "
        f"WHERE {ACTIVE} AND r.is_bookable AND NOT r.requires_approval AND minute(k.start_at) = 0 "
        "AND k.start_at >= ? AND r.capacity > (SELECT count(*) FROM employees AS x WHERE x.manager_id = "
        "e.employee_id AND x.is_active) AND (SELECT count(*) FROM employees AS x WHERE x.manager_id = "
        "e.employee_id AND x.is_active) BETWEEN 3 AND 8",
        [ctx.now + dt.timedelta(weeks=3)],
        what="manager and a room booked weeks ahead",
    )
    story["room"] = {"name": row["room"], "taken_at": _when(row["taken_at"])}


@step(
    inputs=("user", "room"),
    goal="a weekly series in one room: the room is taken one of the weeks",
    capabilities=("precise_boundary_judgment",),
)
def series_in_one_room(story: Story) -> None:
    user, room = story["user"], story["room"]
    taken = room["taken_at"]
    team = direct_reports(story, user["email"])
    count = story.rng.randint(5, 10)
    first = taken.date() - dt.timedelta(weeks=story.rng.randint(1, count - 1))
    while first <= story.ctx.today:
        first += dt.timedelta(weeks=1)
    dates = [first + dt.timedelta(weeks=i) for i in range(count)]
    if dates[-1] > LAST_DAY or taken.date() not in dates:
        raise Skip("the taken week is not in the series")
    minutes = story.rng.choice((30, 60))
    for day in dates:
        story.read("get_room", {"room": room["name"], "date": day})
    title = story.rng.choice(SERIES_TITLES)
    story.say(
        [
            "Set up {title:q} for my direct reports and me, weekly for {count} weeks starting {first} at "
            "{time}, {minutes} minutes each, in {room}. It has to be that room every week: if it's taken on "
            "any of those days, don't create anything and tell me which day.",
            "I'd like a weekly {title:q} with everyone who reports to me, {count} occurrences from {first} "
            "at {time}, {minutes} minutes, always in {room}. If that room isn't free every one of those "
            "weeks, leave it all and tell me.",
        ],
        title=title,
        count=count,
        first=first,
        time=taken.time(),
        minutes=minutes,
        room=room["name"],
    )
    story.blocked(
        "create_meeting_series",
        {"organizer": user["email"], "title": title, "frequency": "weekly", "first_date": first,
         "start_time": taken.time().isoformat(), "duration_minutes": minutes, "occurrences": count,
         "invitees": [r["email"] for r in team], "room": room["name"]},
        kind="forbidden",
        because=f"{room['name']} is already booked on {taken.date()} at that time, so no series is created",
        policy="room_fits_meeting",
    )


def cast_desk_regular(story: Story) -> None:
    """An active employee with a home building."""
    cast_person(
        story,
        f"SELECT {PERSON}, b.name AS building FROM employees AS e JOIN buildings AS b ON b.building_id = "
        f"e.home_building_id WHERE {ACTIVE}",
        what="employee with a home building",
    )


@step(
    inputs=("user",),
    goal="a desk on a weekday every week: the last one is past the window",
    capabilities=("precise_boundary_judgment", "aggregation_computation"),
)
def weekly_desks(story: Story) -> None:
    user, today = story["user"], story.ctx.today
    window_end = today + dt.timedelta(days=DESK_DAYS_AHEAD)
    weekdays = sorted(story.rng.sample(range(5), story.rng.choice((1, 1, 2))))
    last = window_end + dt.timedelta(days=6 + 7 * story.rng.randint(0, 2))
    dates = [d for d in (today + dt.timedelta(days=i) for i in range(1, (last - today).days + 1))
             if d.weekday() in weekdays]
    outside = [d for d in dates if d > window_end]
    if not outside:
        raise Skip("every day inside the window")
    mine = story.read(
        "list_desk_bookings",
        {"person": user["email"], "from_date": dates[0], "to_date": dates[-1], "status": "booked"},
    )["rows"]
    booked = {str(b["booking_date"])[:10] for b in mine}
    outside = [d for d in outside if d.isoformat() not in booked]
    if not outside:
        raise Skip("every day past the window already booked")
    for d in dates:
        if d > window_end:
            break
        if d.isoformat() in booked:
            continue  # a desk I already have that day stays: nothing to look for
        story.read("find_desks", {"building": user["building"], "date": d, "limit": 5})
    days = " and ".join(WEEKDAY_NAMES[w] for w in weekdays)
    story.say(
        [
            "Book me a desk in {building} on every {weekday} from {first} to {last}; where I already have a "
            "desk booked one of those days, keep it. I need all of them: if any one of those days can't be "
            "booked, don't book any and tell me why.",
            "I'd like a desk in {building} each {weekday} between {first} and {last}, inclusive (days I've "
            "already got a desk stay as they are) - all of them or none, so if one can't be done, leave it "
            "all and explain.",
        ],
        building=user["building"],
        weekday=days,
        first=dates[0],
        last=dates[-1],
    )
    story.ctx.derived(outside[0].isoformat(), "the first of the days asked that is past the 30-day window")
    story.blocked(
        "book_desk",
        {"person": user["email"], "date": outside[0], "building": user["building"]},
        kind="forbidden",
        because=f"{outside[0]} is more than {DESK_DAYS_AHEAD} days ahead (the window ends {window_end}), so "
        "no desk is booked",
        policy="desk_booking",
    )


# --- the storylines ----------------------------------------------------------------------------------

TEAM_SYNC_SERIES = Storyline(
    "team_sync_series",
    cast_manager,
    (staff_team, first_common_slot, weekly_series, manager_sits_in, room_each_week, decline_clashes),
    provides=("user",),
    weight=1.3,
)
UNIT_ALL_HANDS = Storyline(
    "unit_all_hands",
    cast_unit_head,
    (unit_roster, away_that_day, schedule_all_hands, watch_parties, cancel_my_clashes),
    provides=("user", "unit"),
    weight=1.2,
)
AWAY_HANDOVER = Storyline(
    "away_handover",
    cast_away,
    (my_manager, my_meetings_then, set_away, cancel_small, move_a_week),
    provides=("user", "span"),
    weight=0.8,
)
ANSWER_INVITATIONS = Storyline(
    "answer_invitations",
    cast_invitee,
    (my_profile, my_invitations, answer_by_rules),
    provides=("user",),
    weight=0.5,
)
TEAM_DESKS = Storyline(
    "team_desks",
    cast_desk_team,
    (office_days, book_team_desks),
    provides=("user",),
    weight=1.4,
)
EQUIPMENT_REFRESH = Storyline(
    "equipment_refresh",
    cast_facilities,
    (rooms_with_kind, replace_old_units),
    provides=("user", "kind"),
    weight=1.4,
)
TEAM_ROOM_SHORT = Storyline(
    "team_room_short",
    cast_short_room,
    (team_in_room,),
    provides=("user", "room", "boss"),
    capabilities=("aggregation_computation",),
    feasible=False,
    weight=0.6,
)
SERIES_ROOM_TAKEN = Storyline(
    "series_room_taken",
    cast_room_regular,
    (series_in_one_room,),
    provides=("user", "room"),
    capabilities=("aggregation_computation",),
    feasible=False,
    weight=0.5,
)
DESK_DAYS_PAST_WINDOW = Storyline(
    "desk_days_past_window",
    cast_desk_regular,
    (weekly_desks,),
    provides=("user",),
    capabilities=("precise_boundary_judgment",),
    feasible=False,
    weight=0.5,
)
STORYLINES = (
    TEAM_SYNC_SERIES,
    TEAM_OFFICE_MOVE,
    UNIT_ALL_HANDS,
    AWAY_HANDOVER,
    ANSWER_INVITATIONS,
    TEAM_DESKS,
    EQUIPMENT_REFRESH,
    TEAM_ROOM_SHORT,
    SERIES_ROOM_TAKEN,
    DESK_DAYS_PAST_WINDOW,
)
