"""The storyline `team_office_move`: a manager moves their team's base to another office from a day on.

my direct reports based in the old office, and me (`movers`) -> each gets the new office as home building ->
their desk bookings in the old office from that day on are cancelled, day by day (bookings in other offices
stay) -> each of my own meetings in the three weeks after with a room in the old office moves to the smallest
free room of the new office that seats everyone who has not declined, or gives its room up when none is free
(three weeks on).

What varies with the data: how many of the team sit in the old office, who has desk bookings there and on
how many days, which of my meetings have a room there, and whether the new office has a room free then.
"""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import ACTIVE, LAST_DAY, PERSON, next_monday
from .storykit import cast_person, direct_reports, when

SPAN_DAYS = 20
"""The meetings that follow the move: those in the three weeks from the move day (its Monday to the Sunday
three weeks on)."""


def cast_mover(story: Story) -> None:
    """An active manager based in an office, with 2 to 10 active direct reports (one or more based there
    too), and another active office to move to. Whether their meetings of the three weeks from the move
    day have rooms there is for the steps to find out (often none do, and nothing moves)."""
    ctx = story.ctx
    day = next_monday(ctx.today) + dt.timedelta(weeks=ctx.rng.randint(0, 2))
    last = day + dt.timedelta(days=SPAN_DAYS)
    if last > LAST_DAY:
        raise Skip("past the calendar")
    cast_person(
        story,
        f"SELECT {PERSON}, e.home_building_id, b.name AS building FROM employees AS e JOIN buildings AS b ON "
        f"b.building_id = e.home_building_id WHERE {ACTIVE} AND (SELECT count(*) FROM employees AS r WHERE "
        "r.manager_id = e.employee_id AND r.is_active) BETWEEN 2 AND 10 AND (SELECT count(*) FROM employees "
        "AS r WHERE r.manager_id = e.employee_id AND r.is_active AND r.home_building_id = "
        "e.home_building_id) >= 1",
        what="manager based in an office with some of their team",
    )
    user = story["user"]
    target = ctx.pick(
        "SELECT name FROM buildings WHERE is_active AND building_id <> ?", [user["home_building_id"]],
        what="office to move to",
    )
    story["move"] = {"day": day, "last": last, "old": user["building"], "new": target["name"]}


@step(
    inputs=("user", "move"),
    outputs=("movers",),
    goal="my direct reports based in the old office, and me",
    capabilities=("multi_condition_filtering",),
)
def who_moves(story: Story) -> None:
    user, move = story["user"], story["move"]
    team = [r for r in direct_reports(story, user["email"]) if r["home_building"] == move["old"]]
    if not team:
        raise Skip("none of the team in the old office")
    story["movers"] = [user["email"], *(r["email"] for r in team)]
    story.knob("solver_filtering", f"direct reports based in {move['old']}")
    story.say(
        [
            "My team is moving from {old} to {new} on {day}. Everyone who reports to me directly and is "
            "based in {old} moves, and so do I: make {new} our home building.",
            "From {day} we're based in {new} instead of {old}: change the home building of me and of each of "
            "my direct reports who currently sits in {old} (the others stay where they are).",
        ],
        old=move["old"],
        new=move["new"],
        day=move["day"],
    )


@step(inputs=("movers", "move"), goal="the movers' home building is the new office")
def rehome(story: Story) -> None:
    for email in story["movers"]:
        story.call("update_profile", {"person": email, "home_building": story["move"]["new"]})
    story.ctx.goal(
        "the movers are based in the new office",
        "SELECT count(*) AS moved FROM employees AS e JOIN buildings AS b ON b.building_id = "
        "e.home_building_id WHERE b.name = ? AND e.email IN (SELECT unnest(?))",
        [story["move"]["new"], story["movers"]],
        expected=[{"moved": len(story["movers"])}],
    )


@step(
    inputs=("movers", "move"),
    goal="desk bookings in the old office from the move day on are cancelled",
    capabilities=("multi_condition_filtering",),
)
def drop_old_desks(story: Story) -> None:
    move = story["move"]
    cancelled = 0
    for email in story["movers"]:
        rows = story.read_all(
            "list_desk_bookings",
            {"person": email, "building": move["old"], "from_date": move["day"], "status": "booked"},
        )
        for row in rows:
            day = dt.date.fromisoformat(str(row["booking_date"])[:10])
            story.call("cancel_desk_bookings", {"person": email, "from_date": day})
            cancelled += 1
    story.say(
        [
            "Cancel any desk booking any of us has in {old} from {day} on (desks booked in other offices "
            "stay).",
            "Whatever desks we've booked in {old} for {day} or later should be cancelled; bookings in other "
            "buildings are fine.",
        ],
        old=move["old"],
        day=move["day"],
    )
    if cancelled:
        story.knob("solver_filtering", "desk bookings in the old office only, day by day")


@step(
    inputs=("user", "move"),
    goal="my meetings in the old office move to a room of the new one, or give up the room",
    capabilities=("aggregation_computation", "cross_step_dependency"),
)
def meetings_follow(story: Story) -> None:
    user, move = story["user"], story["move"]
    rows = story.read_all(
        "get_calendar",
        {"person": user["email"], "from_date": move["day"], "to_date": move["last"], "role": "organizer"},
    )
    story.say(
        [
            "And my own meetings from {day} to {last} that have a room in {old}: move each one to the "
            "smallest room in {new} that's free then and seats me and everyone invited who hasn't declined; "
            "if there's no such room, just give up the {old} room and keep the meeting online.",
            "For every meeting I organise between {day} and {last} with a room booked in {old}, switch it to "
            "the smallest free room in {new} that fits everyone who hasn't declined plus me, or, when none "
            "is free, release the old room and leave it online.",
        ],
        day=move["day"],
        last=move["last"],
        old=move["old"],
        new=move["new"],
    )
    moved = released = 0
    for row in rows:
        if row["status"] != "scheduled" or not row["rooms"]:
            continue
        detail = story.read("get_meeting", {"meeting": row["meeting_id"]})
        old_rooms = [r["room"] for r in detail["rooms"]
                     if r["status"] == "confirmed" and r["building"] == move["old"]]
        if not old_rooms:
            continue
        seats = 1 + sum(a["response"] != "declined" for a in detail["attendees"])
        free = story.read(
            "find_rooms",
            {"building": move["new"], "start_at": when(row["start_at"]), "end_at": when(row["end_at"]),
             "min_capacity": seats, "limit": 5},
        )["rows"]
        for room in old_rooms:
            if free:
                story.call("change_room", {"meeting": row["meeting_id"], "organizer": user["email"],
                                           "new_room": free[0]["name"], "building": move["new"],
                                           "current_room": room})
                moved += 1
                free = []  # one room in the new office per meeting; a second old room is given up
            else:
                story.call("release_room",
                           {"meeting": row["meeting_id"], "organizer": user["email"], "room": room})
                released += 1
    if not moved + released:
        return  # none of my meetings then has a room in the old office: nothing moves
    story.knob("aggregation", "seats: me and the invitees who have not declined")
    story.ctx.goal(
        "none of my meetings in the three weeks keeps a room in the old office",
        "SELECT count(*) AS left_behind FROM meetings AS m JOIN room_bookings AS k ON k.meeting_id = "
        "m.meeting_id AND k.status = 'confirmed' JOIN rooms AS r ON r.room_id = k.room_id JOIN buildings "
        "AS b ON b.building_id = r.building_id WHERE m.organizer_id = ? AND m.status = 'scheduled' AND "
        "b.name = ? AND m.start_at >= ? AND m.start_at < ?",
        [user["employee_id"], move["old"], move["day"], move["last"] + dt.timedelta(days=1)],
        expected=[{"left_behind": 0}],
    )


TEAM_OFFICE_MOVE = Storyline(
    "team_office_move",
    cast_mover,
    (who_moves, rehome, drop_old_desks, meetings_follow),
    provides=("user", "move"),
    weight=1.2,
)
