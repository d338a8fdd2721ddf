"""Recipes about recurring meetings: end a series from a day on (or after it), add colleagues to every
upcoming occurrence, and set up a new series with invitees and a room for each occurrence."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import RecipeContext, recipe

from ..tools.series import MAX_OCCURRENCES, occurrence_dates
from .common import (
    ACTIVE,
    PERSON,
    at,
    introduce,
    next_monday,
    refer,
    room_free,
    room_ref,
    scaled_difficulty,
    sized,
    unit_colleagues,
    unknown_name,
    upcoming,
)

_SERIES = f"""
    SELECT s.series_id, s.title, {PERSON}, e.org_unit_id,
           count(*) + sum((SELECT count(*) FROM room_bookings AS b WHERE b.meeting_id = m.meeting_id
                           AND b.status = 'confirmed')) AS n
    FROM meeting_series AS s JOIN employees AS e ON e.employee_id = s.organizer_id
    JOIN meetings AS m ON m.series_id = s.series_id
    WHERE {ACTIVE} AND {upcoming()}
    GROUP BY ALL HAVING count(*) >= 2
"""
"""Series whose organizer is active, with 2+ upcoming occurrences; `n` counts them and their rooms."""


def _refer_series(ctx: RecipeContext, row: dict) -> None:
    ctx.refer(
        f"series {row['series_id']} {row['title']!r}",
        "SELECT count(*) FROM meeting_series WHERE series_id = ? AND title = ?",
        [row["series_id"], row["title"]],
    )


ENDING_WORDS = {
    True: (
        "My recurring {title:q} (series {id}) is ending: please cancel every occurrence from {day} on, that "
        "day included.",
        "Please end my series {title:q} (series {id}) starting {day}: the occurrence on {day} and all later "
        "ones should be cancelled.",
    ),
    False: (
        "My recurring {title:q} (series {id}) is ending: please cancel every occurrence after {day}; the one "
        "on {day} still happens.",
        "Please end my series {title:q} (series {id}) after {day}: keep the occurrence on {day}, cancel all "
        "later ones.",
    ),
}
"""How an organizer asks to end a series from a day on (True) or after it (False)."""


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def end_series(ctx: RecipeContext) -> None:
    """A series' organizer ends it: every upcoming occurrence from a day on (the day's occurrence too), or
    after a day (the day's occurrence still happens), is cancelled with its room. The variant is asked by
    an invitee, who may not change the series."""
    row = sized(ctx, _SERIES, [ctx.now], what="series with upcoming occurrences")
    days = [
        r["day"]
        for r in ctx.sql(
            "SELECT DISTINCT CAST(start_at AS DATE) AS day FROM meetings AS m WHERE m.series_id = ? AND "
            f"{upcoming()} ORDER BY 1",
            [row["series_id"], ctx.now],
        )
    ]
    if len(days) < 2:
        ctx.skip("occurrences on one day only")
    day = ctx.choice(days[1:])
    inclusive = day == days[-1] or ctx.rng.random() < 0.5
    start = day if inclusive else day + dt.timedelta(days=1)
    _refer_series(ctx, row)
    introduce(ctx, row)
    values = {"title": row["title"], "id": row["series_id"], "day": day}
    ctx.say(ENDING_WORDS[inclusive], **values)
    result = ctx.call(
        "cancel_series",
        {"series_id": row["series_id"], "organizer": row["email"], "from_date": start.isoformat()},
        step=f"Cancel the occurrences from {start} on",
    )
    ctx.goal(
        "exactly the occurrences from the day on are cancelled",
        "SELECT list(meeting_id ORDER BY meeting_id) FILTER (WHERE status = 'scheduled') AS still, "
        "count(*) FILTER (WHERE status = 'cancelled') AS cancelled FROM meetings WHERE series_id = ?",
        [row["series_id"]],
    )
    scaled_difficulty(ctx, int(result["cancelled"]) + int(result["rooms_released"]), hard=50)
    other = ctx.sql(
        f"SELECT {PERSON} FROM employees AS e WHERE {ACTIVE} AND e.employee_id <> ? AND e.employee_id IN "
        "(SELECT a.employee_id FROM meeting_attendees AS a JOIN meetings AS m ON m.meeting_id = a.meeting_id "
        "WHERE m.series_id = ?) ORDER BY e.employee_id LIMIT 1",
        [row["employee_id"], row["series_id"]],
    )
    if other:
        ctx.infeasible(
            "forbidden",
            policy="organizer_manages_meeting",
            swap={row["name"]: other[0]["name"], row["email"]: other[0]["email"]},
            because=f"only the series' organizer, {row['name']}, can end it",
        )


@recipe(capabilities=("full_data_acquisition",), difficulty="medium")
def add_to_series(ctx: RecipeContext) -> None:
    """A series' organizer invites one or two colleagues to every upcoming occurrence (optionally as optional
    attendees); occurrences they are already invited to keep their answer."""
    row = sized(
        ctx, _SERIES, [ctx.now], what="series with upcoming occurrences", bands=((2, 12), (13, 60), (61, 300))
    )
    k = ctx.choice([1, 2, 2])
    people = unit_colleagues(ctx, row, k)
    optional = ctx.rng.random() < 0.3
    _refer_series(ctx, row)
    introduce(ctx, row)
    ctx.say(
        [
            "Please add {people} to every upcoming occurrence of my recurring {title:q} (series {id}){opt}.",
            "{people} should join my series {title:q} (series {id}) from now on: invite them to all the "
            "upcoming occurrences{opt}.",
        ],
        people=[p["text"] for p in people],
        title=row["title"],
        id=row["series_id"],
        opt=" as optional attendees" if optional else "",
    )
    arguments: dict = {
        "series_id": row["series_id"],
        "organizer": row["email"],
        "add": [p["arg"] for p in people],
    }
    if optional:
        arguments["optional"] = True
        ctx.derived(True, "'optional attendees' means is_optional = true")
    ctx.read(
        "get_series", {"series_id": row["series_id"]}, step="Look up the series and its upcoming occurrences"
    )
    result = ctx.call(
        "update_series_attendees", arguments, step=f"Invite {len(people)} people to every upcoming occurrence"
    )
    ctx.goal(
        "they are invited to every upcoming occurrence",
        "SELECT count(*) AS invitations FROM meeting_attendees AS a JOIN meetings AS m ON m.meeting_id = "
        "a.meeting_id "
        "WHERE m.series_id = ? AND m.status = 'scheduled' AND m.start_at > ? AND a.employee_id IN (SELECT "
        "unnest(?))",
        [row["series_id"], ctx.now, [p["employee_id"] for p in people]],
    )
    if not result["invitations_added"]:
        ctx.skip("already invited everywhere")
    scaled_difficulty(ctx, int(result["invitations_added"]), hard=50)
    named = [p for p in people if p["text"] == p["name"]]
    if named:
        nobody = unknown_name(ctx, named[0]["name"])
        ctx.infeasible(
            "missing",
            swap={named[0]["name"]: nobody, named[0]["arg"]: nobody},
            because=f"no colleague is called {nobody}",
        )


SERIES_TITLES = (
    "Team Standup",
    "Weekly Sync",
    "Office Hours",
    "Sprint Planning",
    "Leadership Sync",
    "Pipeline Review",
)
FREQUENCIES = {
    "daily": ("every weekday", "each weekday (Monday to Friday)"),
    "weekly": ("every week", "once a week"),
    "biweekly": ("every two weeks", "every other week"),
}


@recipe(capabilities=("precise_boundary_judgment",), difficulty="medium")
def create_series(ctx: RecipeContext) -> None:
    """An employee sets up a recurring meeting (every weekday, week or two weeks) until a last day that is
    one of its occurrences, with colleagues and a room booked for every occurrence. Variants: a room too
    small, a start before the building opens, or more occurrences than a series may have."""
    me = ctx.pick(
        f"SELECT {PERSON}, e.org_unit_id, e.home_building_id FROM employees AS e WHERE {ACTIVE} "
        "AND e.home_building_id IS NOT NULL",
        what="employee with a home building",
    )
    frequency = ctx.choice(list(FREQUENCIES))
    first = next_monday(ctx.today) + dt.timedelta(days=ctx.rng.randint(0, 18))
    while first.weekday() >= 5:
        first += dt.timedelta(days=1)
    count = {
        "daily": ctx.rng.randint(5, 45),
        "weekly": ctx.rng.randint(4, 12),
        "biweekly": ctx.rng.randint(3, 6),
    }
    days = occurrence_dates(frequency, first, None, count[frequency])
    last = days[-1]
    start_time = dt.time(ctx.rng.randint(8, 16), ctx.choice([0, 30]))
    minutes = ctx.choice([15, 30, 45, 60])
    k = ctx.choice([1, 2, 3, 4])
    people = unit_colleagues(ctx, me, k)
    rooms = ctx.sample(
        "SELECT r.room_id, r.name, b.name AS building, r.capacity FROM rooms AS r JOIN buildings AS b ON "
        "b.building_id = r.building_id WHERE r.building_id = ? AND r.is_bookable AND NOT r.requires_approval "
        "AND r.capacity >= ?",
        [me["home_building_id"], 1 + len(people)],
        k=4,
        what="room for the group",
    )
    slots = [(at(d, start_time), at(d, start_time) + dt.timedelta(minutes=minutes)) for d in days]
    room = next((r for r in rooms if all(room_free(ctx, r["room_id"], s, e) for s, e in slots)), None)
    if room is None:
        ctx.skip("no room free for every occurrence")
    title = ctx.choice(SERIES_TITLES)
    refer(ctx, room_ref(room["name"], room["building"]))
    introduce(ctx, me)
    ctx.say(
        [
            "Please set up a recurring {title:q} {freq} at {time} for {minutes} minutes, from {first} until "
            "{last} (that day's meeting included), with {people}, in {room} ({building}).",
            "I'd like a {minutes}-minute {title:q} {freq}, starting {first} at {time}; the last one is on "
            "{last}. Invite {people} and book {room} in {building} for each of them.",
        ],
        title=title,
        freq=ctx.choice(FREQUENCIES[frequency]),
        time=start_time,
        minutes=minutes,
        first=first,
        last=last,
        people=[p["text"] for p in people],
        room=room["name"],
        building=room["building"],
    )
    ctx.derived(frequency, f"'{FREQUENCIES[frequency][0]}' is the {frequency} frequency")
    ctx.call(
        "create_meeting_series",
        {
            "organizer": me["email"],
            "title": title,
            "frequency": frequency,
            "first_date": first.isoformat(),
            "start_time": start_time.isoformat(),
            "duration_minutes": minutes,
            "ends_on": last.isoformat(),
            "invitees": [p["arg"] for p in people],
            "room": room["name"],
            "building": room["building"],
        },
        step=f"Create the series: {len(days)} occurrences with {len(people)} invitees and the room",
    )
    ctx.goal(
        "the series exists with every occurrence, invitee and room booking",
        "SELECT s.starts_on, s.ends_on, count(DISTINCT m.meeting_id) AS occurrences, count(DISTINCT "
        "(a.meeting_id, "
        "a.employee_id)) AS invitations, count(DISTINCT b.booking_id) AS bookings FROM meeting_series AS s "
        "JOIN meetings AS m ON m.series_id = s.series_id LEFT JOIN meeting_attendees AS a ON a.meeting_id = "
        "m.meeting_id LEFT JOIN room_bookings AS b ON b.meeting_id = m.meeting_id "
        "WHERE s.organizer_id = ? AND s.title = ? AND s.starts_on = ? GROUP BY ALL",
        [me["employee_id"], title, first],
    )
    scaled_difficulty(ctx, 1 + len(days) * (2 + len(people)), hard=60)
    variants = []
    small = ctx.sql(
        "SELECT r.name, b.name AS building FROM rooms AS r JOIN buildings AS b ON b.building_id = "
        "r.building_id "
        "WHERE r.is_bookable AND NOT r.requires_approval AND r.capacity < ? AND (SELECT count(*) FROM rooms "
        "AS o WHERE lower(o.name) = lower(r.name)) = 1 ORDER BY r.room_id LIMIT 3",
        [1 + len(people)],
    )
    if small:
        tiny = ctx.choice(small)
        variants.append(
            (
                "capacity",
                {room["name"]: tiny["name"], room["building"]: tiny["building"]},
                f"{tiny['name']} seats fewer than the {1 + len(people)} people of the meeting",
            )
        )
    opens = ctx.scalar(
        "SELECT min(opens_at) FROM building_hours WHERE building_id = ?", [me["home_building_id"]]
    )
    if opens is not None and opens > dt.time(6, 30):
        variants.append(("hours", {start_time: dt.time(6, 30)}, f"{room['building']} opens at {opens:%H:%M}"))
    if frequency == "daily":
        far = last + dt.timedelta(days=200)
        if len(occurrence_dates(frequency, first, far, None)) > MAX_OCCURRENCES:
            variants.append(("capacity", {last: far}, f"a series has at most {MAX_OCCURRENCES} occurrences"))
    if variants:
        kind, swap, because = ctx.choice(variants)
        ctx.infeasible(kind, swap=swap, because=because)
