"""Recipes for an organizer's own calendar: cancel the meetings of a day or a range (by time of day and
title), move a meeting by some minutes or a week, schedule a meeting at the first time a group is free,
change a meeting's settings, set up a follow-up with the people who accepted, and clear out cancelled
meetings before a day."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Call, RecipeContext, recipe
from stateforge.tasks.wording import render

from .common import (
    ACTIVE,
    LAST_DAY,
    PERSON,
    at,
    colleague,
    find_meeting_read,
    introduce,
    meeting_ref,
    next_monday,
    refer_meeting,
    room_free,
    scaled_difficulty,
    sized,
    unique_meeting_sql,
    unknown_name,
    upcoming,
    workdays,
)

SPANS = (0, 4, 11, 25)
"""Lengths of a range of days to cancel, in days after the first: one day, a work week, two, four."""
TITLES = (
    "Design Review",
    "Project Kickoff",
    "Roadmap Planning",
    "Budget Review",
    "Brainstorm",
    "Customer Call",
    "Hiring Debrief",
    "Vendor Demo",
    "Architecture Review",
)


def _windows(ctx: RecipeContext, span: int) -> list[dt.date]:
    """First days of the ranges of `span` days that lie between tomorrow and the last built day."""
    if span == 0:
        return workdays(ctx.today + dt.timedelta(days=1), LAST_DAY)
    first, days = next_monday(ctx.today), []
    while first + dt.timedelta(days=span) <= LAST_DAY:
        days.append(first)
        first += dt.timedelta(days=7)
    return days


@recipe(capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium")
def cancel_meetings_in_range(ctx: RecipeContext) -> None:
    """An organizer cancels every upcoming meeting of theirs on a day or in a range of days, optionally only
    those starting from (or before) a time of day, or with a title; the range ends on a day with a meeting
    and the time is one a meeting starts at, so both boundaries decide what goes."""
    span = ctx.choice(SPANS)
    row = sized(
        ctx,
        f"""
        WITH w AS (SELECT unnest(?) AS first)
        SELECT {PERSON}, w.first, CAST(w.first + ? AS DATE) AS last,
               count(*) + sum((SELECT count(*) FROM room_bookings AS b WHERE b.meeting_id = m.meeting_id
                               AND b.status = 'confirmed')) AS n
        FROM meetings AS m JOIN employees AS e ON e.employee_id = m.organizer_id
        JOIN w ON CAST(m.start_at AS DATE) BETWEEN w.first AND w.first + ?
        WHERE {ACTIVE} AND {upcoming()}
        GROUP BY ALL
        HAVING count(*) FILTER (WHERE CAST(m.start_at AS DATE) = w.first + ?) >= 1
        """,
        [_windows(ctx, span), span, span, ctx.now, span],
        what="organizer with upcoming meetings in a range",
    )
    first, last = row["first"], row["last"]
    base = (
        "SELECT meeting_id, title, start_at FROM meetings WHERE organizer_id = ? AND status = 'scheduled' "
        "AND start_at > ? AND start_at >= ? AND start_at < ?"
    )
    params = [row["employee_id"], ctx.now, first, last + dt.timedelta(days=1)]
    found = ctx.sql(base + " ORDER BY start_at, meeting_id", params)
    arguments: dict = {"organizer": row["email"], "from_date": first.isoformat()}
    if span:
        arguments["to_date"] = last.isoformat()
    values: dict = {"first": first, "last": last}
    titles = sorted({f["title"] for f in found})
    what = ctx.choice(["meetings", "meetings"])
    big = row["n"] >= 50
    if len(titles) >= 2 and ctx.rng.random() < (0.1 if big else 0.3):
        title = ctx.choice(titles)
        found = [f for f in found if title.lower() in f["title"].lower()]
        values["title"] = title
        arguments["title_contains"] = title
        what = ctx.choice(["{title:q} meetings", "meetings titled {title:q}"])
    times = sorted({f["start_at"].time() for f in found})
    time_part = ""
    if len(times) >= 3 and ctx.rng.random() < (0.4 if big else 0.6):
        cut = ctx.choice(times[1 : max(2, len(times) // 2 + 1)] if big else times[1:])
        values["time"] = cut
        if big or ctx.rng.random() < 0.5:
            found = [f for f in found if f["start_at"].time() >= cut]
            arguments["starts_from_time"] = cut.isoformat()
            time_part = ctx.choice([" that start at {time} or later", " starting at or after {time}"])
        else:
            found = [f for f in found if f["start_at"].time() < cut]
            arguments["starts_before_time"] = cut.isoformat()
            time_part = ctx.choice([" that start before {time}", " starting earlier than {time}"])
    if span == 0:
        when = ctx.choice([" on {first}", " for {first}"])
    else:
        when = ctx.choice(
            [
                " from {first} through {last}",
                " between {first} and {last} (both days included)",
                " from {first} to {last} inclusive",
            ]
        )
    introduce(ctx, row)
    template = ctx.choice(
        [
            "Please cancel all my {what}{when}{time}.",
            "Cancel every one of my {what}{when}{time}, please.",
            "I need my calendar cleared: cancel each of my {what}{when}{time}.",
        ]
    )
    ctx.say(template.format(what=what, when=when, time=time_part), **values)
    result = ctx.call("cancel_meetings", arguments, step=f"Cancel the {len(found)} matching meetings")
    cancelled = [c["meeting_id"] for c in result["cancelled"]]
    ctx.goal(
        "exactly the matching meetings of the range are cancelled",
        "SELECT list(meeting_id ORDER BY meeting_id) FILTER (WHERE status = 'cancelled') AS cancelled, "
        "count(*) FILTER (WHERE status = 'scheduled') AS scheduled FROM meetings WHERE organizer_id = ? "
        "AND start_at >= ? AND start_at < ?",
        [row["employee_id"], first, last + dt.timedelta(days=1)],
    )
    scaled_difficulty(ctx, len(cancelled) + int(result["rooms_released"]), hard=40)
    if len(values) >= 4:
        ctx.difficulty = "hard"
    weeks = (last - ctx.today).days // 7 + ctx.rng.randint(1, 4)
    past = {first: first - dt.timedelta(weeks=weeks), last: last - dt.timedelta(weeks=weeks)}
    held = ctx.scalar(
        "SELECT count(*) FROM meetings WHERE organizer_id = ? AND status <> 'cancelled' AND start_at >= ? "
        "AND start_at < ?",
        [row["employee_id"], past[first], past[last] + dt.timedelta(days=1)],
    )
    if held:
        ctx.infeasible(
            "forbidden",
            policy="only_upcoming_meetings_change",
            swap=past,
            because="those meetings have already taken place; only upcoming meetings can be cancelled",
        )


SHIFTS = (
    (30, "30 minutes", "later"),
    (60, "an hour", "later"),
    (90, "an hour and a half", "later"),
    (120, "two hours", "later"),
    (-30, "half an hour", "earlier"),
    (-60, "one hour", "earlier"),
    (7 * 24 * 60, "one week", "later"),
)
SHIFT_WORDS = {
    "a week": (
        "Please move my {title:q} on {when} to the same time {shift} later.",
        "Push my {title:q} ({when}) back by {shift}, same time of day.",
    ),
    "later": (
        "Please push my {title:q} on {when} back by {shift}.",
        "Can you move my {title:q} ({when}) {shift} later? Keep its length.",
        "My {title:q} on {when} needs to start {shift} later.",
    ),
    "earlier": (
        "Please move my {title:q} on {when} {shift} earlier.",
        "Can you bring my {title:q} ({when}) forward by {shift}? Keep its length.",
    ),
}
"""How an organizer asks to move a meeting a week on, later or earlier."""
LATE = ((5, "five hours"), (6, "six hours"), (7, "seven hours"), (8, "eight hours"), (9, "nine hours"))


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def shift_meeting(ctx: RecipeContext) -> None:
    """An organizer moves a meeting some minutes or a week later or earlier: the new start is worked out from
    the one the calendar shows; its room moves along and everyone is asked again."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND {upcoming()} AND m.start_at > ?"),
        [ctx.now, ctx.now + dt.timedelta(days=1)],
        what="upcoming meeting",
    )
    rooms = ctx.sql(
        "SELECT b.room_id, r.building_id FROM room_bookings AS b JOIN rooms AS r ON r.room_id = b.room_id "
        "WHERE b.meeting_id = ? AND b.status = 'confirmed' ORDER BY b.room_id",
        [row["meeting_id"]],
    )
    options = list(SHIFTS)
    ctx.rng.shuffle(options)
    for option in options:
        minutes, words, way = option
        delta = dt.timedelta(minutes=minutes)
        start, end = row["start_at"] + delta, row["end_at"] + delta
        fits = start > ctx.now and start.date() == end.date() and dt.time(7, 30) <= start.time()
        fits = fits and end.time() <= dt.time(19, 0) and end.date() == start.date()
        if fits and all(room_free(ctx, r["room_id"], start, end, row["meeting_id"]) for r in rooms):
            break
    else:
        ctx.skip("no free time to move to")
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    values = {"title": row["title"], "when": row["start_at"], "shift": words}
    ctx.say(SHIFT_WORDS["a week" if minutes == 7 * 24 * 60 else way], **values)
    find_meeting_read(ctx, row, row)
    ctx.derived(start, f"the meeting's start, {row['start_at']:%Y-%m-%d %H:%M}, moved {words} {way}")
    ctx.call(
        "reschedule_meeting",
        {"meeting": row["meeting_id"], "organizer": row["email"], "start_at": start.isoformat()},
        step=f"Move it to {start:%Y-%m-%d %H:%M}",
    )
    ctx.goal(
        "the meeting and its rooms are at the new time and every answer is pending again",
        "SELECT m.start_at, m.end_at, (SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id = "
        "m.meeting_id AND a.response <> 'pending') AS answered, (SELECT list(b.start_at ORDER BY b.room_id) "
        "FROM room_bookings AS b WHERE b.meeting_id = m.meeting_id AND b.status = 'confirmed') AS rooms "
        "FROM meetings AS m WHERE m.meeting_id = ?",
        [row["meeting_id"]],
    )
    if rooms and way == "later" and minutes < 24 * 60:
        closes = ctx.scalar(
            "SELECT min(closes_at) FROM building_hours WHERE weekday = ? AND building_id IN (SELECT "
            "unnest(?))",
            [row["start_at"].isoweekday(), [r["building_id"] for r in rooms]],
        )
        for hours, late_words in LATE:
            late = row["start_at"] + dt.timedelta(hours=hours)
            late_end = row["end_at"] + dt.timedelta(hours=hours)
            if closes is not None and late_end.date() == late.date() and late_end.time() > closes:
                ctx.infeasible(
                    "hours",
                    swap={words: late_words, start: late},
                    because=f"its room's building closes at {closes:%H:%M}; the meeting would end after that",
                )
                break


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def schedule_at_first_free_time(ctx: RecipeContext) -> None:
    """An employee asks for a meeting with one to three colleagues at the earliest time on a day when all of
    them are free: the slot comes from find_meeting_times and feeds schedule_meeting."""
    day = ctx.choice(workdays(next_monday(ctx.today), LAST_DAY))
    me = ctx.pick(
        f"SELECT {PERSON}, e.org_unit_id FROM employees AS e JOIN working_hours AS w ON w.employee_id = "
        f"e.employee_id WHERE {ACTIVE} AND w.weekday = ?",
        [day.isoweekday()],
        what="employee working that day",
    )
    k = ctx.choice([1, 2, 2, 3])
    others = ctx.sample(
        f"SELECT e.employee_id FROM employees AS e JOIN working_hours AS w ON w.employee_id = e.employee_id "
        f"WHERE {ACTIVE} AND w.weekday = ? AND e.employee_id <> ? AND e.org_unit_id = ?",
        [day.isoweekday(), me["employee_id"], me["org_unit_id"]],
        k=k,
        what="colleague working that day",
    )
    people = [colleague(ctx, o["employee_id"]) for o in others]
    minutes = ctx.choice([30, 45, 60, 90])
    title = ctx.choice(TITLES)
    introduce(ctx, me)
    ctx.say(
        [
            "Find the earliest time on {day} when {people} and I are all free for {minutes} minutes (within "
            "working hours, starting on the hour or half hour), and schedule a {title:q} with them then.",
            "Please book a {minutes}-minute {title:q} with {people} on {day}, at the first half-hour slot "
            "where all of us are free during working hours.",
            "Set up {title:q} on {day} with {people}: {minutes} minutes, at the earliest on-the-hour or "
            "half-hour start that fits everyone's calendar and working hours.",
        ],
        day=day,
        people=[p["text"] for p in people],
        minutes=minutes,
        title=title,
    )
    found = ctx.read(
        "find_meeting_times",
        {
            "people": [me["email"], *(p["arg"] for p in people)],
            "date": day.isoformat(),
            "duration_minutes": minutes,
        },
        step="Find the times the group is free",
    )
    if not found["slots"]:
        ctx.skip("no common free time", found.get("reason"))
    start = dt.datetime.fromisoformat(found["slots"][0]["start_at"])
    ctx.derived(start, "the earliest start find_meeting_times lists for the group that day")
    ctx.call(
        "schedule_meeting",
        {
            "organizer": me["email"],
            "title": title,
            "start_at": start.isoformat(),
            "duration_minutes": minutes,
            "invitees": [p["arg"] for p in people],
        },
        step=f"Schedule {title!r} at {start:%Y-%m-%d %H:%M} with the {len(people)} colleagues",
    )
    ctx.goal(
        "the meeting is in the organizer's calendar at that time with exactly those invitees",
        "SELECT m.end_at, list(a.employee_id ORDER BY a.employee_id) AS invitees FROM meetings AS m "
        "JOIN meeting_attendees AS a ON a.meeting_id = m.meeting_id "
        "WHERE m.organizer_id = ? AND m.title = ? AND m.start_at = ? GROUP BY m.end_at",
        [me["employee_id"], title, start],
    )
    if len(people) >= 3:
        ctx.difficulty = "hard"
    named = [p for p in people if p["text"] == p["name"]]
    if named:
        gone = named[-1]
        nobody = unknown_name(ctx, gone["name"])
        ctx.infeasible(
            "missing",
            swap={gone["name"]: nobody, gone["arg"]: nobody},
            because=f"no colleague is called {nobody}",
        )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def change_meeting_settings(ctx: RecipeContext) -> None:
    """An organizer changes settings of one upcoming meeting (passcode, waiting room, in person, title); the
    meeting is found by title and day first. The variant asks for the same on a meeting the user is only
    invited to."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND {upcoming()}")
        + " AND EXISTS (SELECT 1 FROM meeting_attendees AS i JOIN meetings AS o ON o.meeting_id = "
        "i.meeting_id WHERE i.employee_id = e.employee_id AND o.status = 'scheduled' AND o.start_at > ?)",
        [ctx.now, ctx.now],
        what="organizer of an upcoming meeting",
    )
    meeting = ctx.one("SELECT * FROM meetings WHERE meeting_id = ?", [row["meeting_id"]])
    assert meeting is not None
    changes: dict = {}
    asks: list[str] = []
    values: dict = {"title": row["title"], "when": row["start_at"]}
    choices = ["passcode", "rename"]
    if not meeting["waiting_room_enabled"]:
        choices.append("waiting")
    if meeting["is_online"] and ctx.scalar(
        "SELECT count(*) FROM room_bookings WHERE meeting_id = ? AND status = 'confirmed'",
        [row["meeting_id"]],
    ):
        choices.append("in_person")
    picked = ctx.rng.sample(choices, k=min(len(choices), ctx.choice([1, 2])))
    for what in picked:
        if what == "passcode":
            code = f"{ctx.rng.randrange(1_000_000):06d}"
            changes["passcode"], values["code"] = code, code
            asks.append(ctx.choice(["set its passcode to {code}", "protect it with the passcode {code}"]))
        elif what == "rename":
            new = ctx.choice([t for t in TITLES if t != row["title"]])
            changes["title"], values["new"] = new, new
            asks.append(ctx.choice(["rename it to {new:q}", "change its title to {new:q}"]))
        elif what == "waiting":
            changes["waiting_room_enabled"] = True
            ctx.derived(True, "'turn on the waiting room' means waiting_room_enabled = true")
            asks.append(ctx.choice(["turn on the waiting room", "make people wait in the waiting room"]))
        else:
            changes["is_online"] = False
            ctx.derived(False, "'in person only' means is_online = false")
            asks.append(ctx.choice(["make it in person only (no video link)", "switch it to in-person only"]))
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    opening = ctx.instruction
    template = ctx.choice(["For my {title:q} on {when}, please ", "My {title:q} on {when}: please "])
    request = template + " and ".join(asks) + "."
    ctx.say(request, **values)
    find_meeting_read(ctx, row, row)
    ctx.call(
        "update_meeting",
        {"meeting": row["meeting_id"], "organizer": row["email"], **changes},
        step=f"Change {', '.join(sorted(changes))} of the meeting",
    )
    ctx.goal(
        "the meeting has the new settings",
        f"SELECT {', '.join(sorted(changes))} FROM meetings WHERE meeting_id = ?",
        [row["meeting_id"]],
    )
    other = ctx.pick(
        unique_meeting_sql(upcoming())
        + " AND m.meeting_id IN (SELECT meeting_id FROM meeting_attendees WHERE employee_id = ?)",
        [ctx.now, row["employee_id"]],
        what="meeting the user is invited to",
    )
    boss = colleague(ctx, other["employee_id"], record=False)
    variant = {**values, "title": other["title"], "when": other["start_at"], "boss": boss["text"]}
    theirs = render(
        "For the {title:q} that {boss} organises on {when}, please " + " and ".join(asks) + ".",
        variant,
        ctx.style,
    )
    ctx.infeasible(
        "forbidden",
        policy="organizer_manages_meeting",
        instruction=f"{opening} {theirs}",
        calls=[
            # the solver finds the meeting first, as in the feasible task
            Call(
                "search_meetings",
                {"organizer": boss["email"], "on_date": other["start_at"].date().isoformat(),
                 "text": other["title"]},
            ),
            Call("update_meeting", {"meeting": other["meeting_id"], "organizer": row["email"], **changes}),
        ],
        because=f"only the organizer, {boss['name']}, can change that meeting",
        proof=meeting_ref(other, boss["email"]),
    )


@recipe(capabilities=("cross_step_dependency", "multi_condition_filtering"), difficulty="medium")
def follow_up_with_accepted(ctx: RecipeContext) -> None:
    """An organizer sets up a follow-up meeting and invites exactly the people who accepted an earlier
    meeting of theirs (read with get_meeting, then scheduled)."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND m.status <> 'cancelled' AND m.start_at > ? AND m.start_at < ?")
        + " AND (SELECT count(*) FROM meeting_attendees AS a JOIN employees AS p ON p.employee_id = "
        "a.employee_id WHERE a.meeting_id = m.meeting_id AND a.response = 'accepted' AND p.is_active) >= 2 "
        "AND (SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id "
        "AND a.response <> 'accepted') >= 1",
        [ctx.now - dt.timedelta(days=45), ctx.now + dt.timedelta(days=20)],
        what="meeting with 2+ acceptances",
    )
    accepted = ctx.sql(
        "SELECT e.email FROM meeting_attendees AS a JOIN employees AS e ON e.employee_id = a.employee_id "
        "WHERE a.meeting_id = ? AND a.response = 'accepted' AND e.is_active ORDER BY e.employee_id",
        [row["meeting_id"]],
    )
    gone = ctx.scalar(
        "SELECT count(*) FROM meeting_attendees AS a JOIN employees AS e ON e.employee_id = a.employee_id "
        "WHERE a.meeting_id = ? AND a.response = 'accepted' AND NOT e.is_active",
        [row["meeting_id"]],
    )
    if gone:
        ctx.skip("an accepted invitee has left")
    day = ctx.choice(workdays(max(row["start_at"].date(), ctx.today) + dt.timedelta(days=3), LAST_DAY))
    start = at(day, dt.time(ctx.rng.randint(9, 15), ctx.choice([0, 30])))
    minutes = ctx.choice([30, 45, 60])
    new = ctx.choice([f"{row['title']} follow-up", f"Follow-up: {row['title']}", f"{row['title']} (part 2)"])
    if ctx.scalar(
        "SELECT count(*) FROM meetings WHERE organizer_id = ? AND title = ? AND start_at = ?",
        [row["employee_id"], new, start],
    ):
        ctx.skip("title taken at that time")
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    ctx.say(
        [
            "Please set up a {minutes}-minute meeting called {new:q} on {start} and invite everyone who "
            "accepted my {title:q} on {when}.",
            "I want a follow-up: {new:q}, {start}, {minutes} minutes. Invite exactly the people who accepted "
            "my {title:q} ({when}), nobody else.",
            "Schedule {new:q} for {start} ({minutes} minutes) with all the attendees who said yes to my "
            "{title:q} on {when}.",
        ],
        minutes=minutes,
        new=new,
        start=start,
        title=row["title"],
        when=row["start_at"],
    )
    find_meeting_read(ctx, row, row)
    ctx.read("get_meeting", {"meeting": row["meeting_id"]}, step="Read who accepted it")
    ctx.call(
        "schedule_meeting",
        {
            "organizer": row["email"],
            "title": new,
            "start_at": start.isoformat(),
            "duration_minutes": minutes,
            "invitees": [a["email"] for a in accepted],
        },
        step=f"Schedule {new!r} with the {len(accepted)} people who accepted",
    )
    ctx.goal(
        "the follow-up exists with exactly the people who accepted",
        "SELECT m.end_at, list(a.employee_id ORDER BY a.employee_id) AS invitees FROM meetings AS m "
        "JOIN meeting_attendees AS a ON a.meeting_id = m.meeting_id "
        "WHERE m.organizer_id = ? AND m.title = ? AND m.start_at = ? GROUP BY m.end_at",
        [row["employee_id"], new, start],
    )
    scaled_difficulty(ctx, len(accepted), medium=3, hard=6)


DELETE_WORDS = {
    True: (
        "Please delete for good all my cancelled meetings that were scheduled on or before {day}.",
        "Clean up my calendar: remove every cancelled meeting of mine up to and including {day}.",
        "Permanently delete my cancelled meetings dated {day} or earlier.",
    ),
    False: (
        "Please delete for good all my cancelled meetings that were scheduled before {day}.",
        "Clean up my calendar: remove every cancelled meeting of mine from before {day} (keep the ones on "
        "{day} itself).",
        "Permanently delete my cancelled meetings dated earlier than {day}.",
    ),
}
"""How an organizer asks to delete cancelled meetings up to a day, with it (True) or before it (False)."""


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def delete_cancelled_before(ctx: RecipeContext) -> None:
    """An organizer deletes for good every cancelled meeting of theirs scheduled before a day, or up to and
    including it: a cancelled meeting falls on that day, so the boundary decides; invitations, room
    bookings and notes go with the meetings."""
    inclusive = ctx.rng.random() < 0.5
    row = sized(
        ctx,
        f"""
        WITH c AS (
            SELECT m.organizer_id, CAST(m.start_at AS DATE) AS day,
                   count(*) + sum((SELECT count(*) FROM meeting_attendees AS a WHERE a.meeting_id =
                   m.meeting_id))
                   + sum((SELECT count(*) FROM room_bookings AS b WHERE b.meeting_id = m.meeting_id))
                   + sum((SELECT count(*) FROM meeting_notes AS t WHERE t.meeting_id = m.meeting_id)) AS rows
            FROM meetings AS m WHERE m.status = 'cancelled' GROUP BY ALL),
        d AS (SELECT *, sum(rows) OVER (PARTITION BY organizer_id ORDER BY day) AS through,
                     min(day) OVER (PARTITION BY organizer_id) AS first_day FROM c)
        SELECT {PERSON}, d.day, d.first_day, {"d.through" if inclusive else "d.through - d.rows"} AS n
        FROM d JOIN employees AS e ON e.employee_id = d.organizer_id
        WHERE {ACTIVE} AND d.day > d.first_day
        """,
        what="organizer with cancelled meetings on several days",
    )
    day = row["day"]
    cutoff = day + dt.timedelta(days=1) if inclusive else day
    introduce(ctx, row)
    ctx.say(DELETE_WORDS[inclusive], day=day)
    ctx.call(
        "delete_cancelled_meetings",
        {"organizer": row["email"], "cancelled_before": cutoff.isoformat()},
        step=f"Delete their cancelled meetings that were to start before {cutoff}",
    )
    ctx.goal(
        "no cancelled meeting of theirs before the cutoff is left; the later ones stay",
        "SELECT count(*) FILTER (WHERE start_at < ?) AS before, count(*) FILTER (WHERE start_at >= ?) AS "
        "after FROM meetings WHERE organizer_id = ? AND status = 'cancelled'",
        [cutoff, cutoff, row["employee_id"]],
    )
    scaled_difficulty(ctx, int(row["n"]), hard=50)
    first = row["first_day"]
    swap = {day: first - dt.timedelta(days=1), cutoff: first} if inclusive else {day: first}
    ctx.infeasible(
        "missing",
        swap=swap,
        because=f"there is no cancelled meeting of theirs scheduled before {first}",
        proof=(
            f"cancelled meetings of {row['email']} before {first}",
            "SELECT count(*) FROM meetings AS m JOIN employees AS e ON e.employee_id = m.organizer_id "
            "WHERE e.email = ? AND m.status = 'cancelled' AND m.start_at < ?",
            [row["email"], first],
            0,
        ),
    )
