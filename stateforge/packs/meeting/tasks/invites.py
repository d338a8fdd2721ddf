"""Recipes about invitations: invite a whole team or one's direct reports, take the people who declined off
a meeting, answer many invitations at once by organizer, days and time of day, and accept one."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Call, RecipeContext, recipe
from stateforge.tasks.wording import render

from ..tools.common import MAX_INVITEES
from .common import (
    ACTIVE,
    LAST_DAY,
    PERSON,
    UNIT_TREE,
    colleague,
    find_meeting_read,
    introduce,
    meeting_ref,
    named_ref,
    refer,
    refer_meeting,
    scaled_difficulty,
    unique_meeting_sql,
    upcoming,
)


def _unit_sizes(ctx: RecipeContext, meeting_id: int, organizer_id: int) -> list[dict]:
    """Per org unit: how many active people not yet invited to the meeting (the organizer aside) are
    members of it (`direct`), and of it or a unit below it (`below`)."""
    return ctx.sql(
        UNIT_TREE
        + """
        , fresh AS (
            SELECT t.root_id, e.org_unit_id = t.root_id AS direct FROM tree AS t
            JOIN employees AS e ON e.org_unit_id = t.org_unit_id
            WHERE e.is_active AND e.employee_id <> ?
              AND e.employee_id NOT IN (SELECT employee_id FROM meeting_attendees WHERE meeting_id = ?))
        SELECT u.org_unit_id, u.name, u.kind, count(*) FILTER (WHERE f.direct) AS direct, count(*) AS below
        FROM org_units AS u JOIN fresh AS f ON f.root_id = u.org_unit_id GROUP BY ALL ORDER BY u.org_unit_id
        """,
        [organizer_id, meeting_id],
    )


UNIT_WORDS = {
    True: (
        "Please invite everyone in {unit}, including all the teams under it, to my {title:q} on {when}",
        "Invite the whole {unit} organisation (every sub-team too) to my {title:q} on {when}",
    ),
    False: (
        "Please invite the whole {unit} {kind} to my {title:q} on {when}",
        "Invite every member of {unit} to my {title:q} on {when}",
    ),
}
"""How an organizer asks to invite a unit with the units below it (True) or the unit alone (False)."""


@recipe(capabilities=("full_data_acquisition",), difficulty="medium")
def invite_org_unit(ctx: RecipeContext) -> None:
    """An organizer invites every active member of an org unit (with the units below it, for a department
    or a division) to one of their upcoming meetings; people already invited keep their answer. The
    variant names a unit so big that the meeting would pass the 300-invitee limit."""
    row = ctx.pick(unique_meeting_sql(f"{ACTIVE} AND {upcoming()}"), [ctx.now], what="upcoming meeting")
    invited = ctx.scalar("SELECT count(*) FROM meeting_attendees WHERE meeting_id = ?", [row["meeting_id"]])
    units = _unit_sizes(ctx, row["meeting_id"], row["employee_id"])
    options = [
        (unit, subunits, unit["below"] if subunits else unit["direct"])
        for unit in units
        for subunits in ((False, True) if unit["kind"] != "team" else (False,))
        if 0 < (unit["below"] if subunits else unit["direct"]) <= MAX_INVITEES - invited
    ]
    if not options:
        ctx.skip("no unit to invite")
    unit, subunits, new = ctx.choice(options)
    optional = ctx.rng.random() < 0.25
    refer(ctx, named_ref("org unit", "org_units", unit["name"]))
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    opening = ctx.instruction
    template = ctx.choice(UNIT_WORDS[subunits])
    template += ctx.choice([" as optional attendees.", ", optional for them."]) if optional else "."
    values = {"unit": unit["name"], "title": row["title"], "when": row["start_at"], "kind": unit["kind"]}
    ctx.say(template, **values)
    if optional:
        ctx.derived(True, "'optional' means is_optional = true")
    find_meeting_read(ctx, row, row)
    arguments = {"meeting": row["meeting_id"], "organizer": row["email"], "org_unit": unit["name"]}
    if subunits:
        arguments["include_subunits"] = True
    if optional:
        arguments["optional"] = True
    ctx.call(
        "invite_attendees", arguments, step=f"Invite the {new} members of {unit['name']} not yet invited"
    )
    ctx.goal(
        "exactly the unit's members are added to the invitees",
        "SELECT list(employee_id ORDER BY employee_id) AS invitees, count(*) FILTER (WHERE is_optional) AS "
        "optional FROM meeting_attendees WHERE meeting_id = ?",
        [row["meeting_id"]],
    )
    scaled_difficulty(ctx, new, medium=10, hard=60)
    big_units = [u for u in units if u["kind"] != "team" and invited + u["below"] > MAX_INVITEES]
    if big_units:
        big = ctx.choice(big_units)
        variant = render(
            "Please invite everyone in {unit}, including all the teams under it, to my {title:q} on {when}.",
            {**values, "unit": big["name"]},
            ctx.style,
        )
        ctx.infeasible(
            "capacity",
            instruction=f"{opening} {variant}",
            calls=[
                Call(
                    "invite_attendees",
                    {**arguments, "org_unit": big["name"], "include_subunits": True},
                )
            ],
            because=(
                f"{big['name']} has {big['below']} people to add; "
                f"a meeting has at most {MAX_INVITEES} invitees"
            ),
            proof=named_ref("org unit", "org_units", big["name"]),
        )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def invite_direct_reports(ctx: RecipeContext) -> None:
    """A manager invites all their direct reports to one of their upcoming meetings: the reports come from
    list_direct_reports and feed invite_attendees."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND {upcoming()}")
        + " AND (SELECT count(*) FROM employees AS r WHERE r.manager_id = e.employee_id AND r.is_active "
        "AND r.employee_id NOT IN (SELECT employee_id FROM meeting_attendees WHERE meeting_id = "
        "m.meeting_id)) >= 2",
        [ctx.now],
        what="manager's upcoming meeting",
    )
    reports = ctx.sql(
        "SELECT e.email, e.employee_id FROM employees AS e WHERE e.manager_id = ? AND e.is_active "
        "ORDER BY e.employee_id",
        [row["employee_id"]],
    )
    invited = ctx.scalar("SELECT count(*) FROM meeting_attendees WHERE meeting_id = ?", [row["meeting_id"]])
    if len(reports) + invited > MAX_INVITEES:
        ctx.skip("too many invitees")
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    ctx.say(
        [
            "Please invite all my direct reports to my {title:q} on {when}.",
            "Everyone who reports directly to me should be at my {title:q} ({when}); please invite them.",
            "Add my whole team of direct reports to the invite list of my {title:q} on {when}.",
        ],
        title=row["title"],
        when=row["start_at"],
    )
    ctx.read("list_direct_reports", {"person": row["email"]}, step="List their direct reports")
    find_meeting_read(ctx, row, row)
    ctx.call(
        "invite_attendees",
        {"meeting": row["meeting_id"], "organizer": row["email"], "people": [r["email"] for r in reports]},
        step=f"Invite the {len(reports)} direct reports",
    )
    ctx.goal(
        "every direct report is invited",
        "SELECT list(employee_id ORDER BY employee_id) AS invitees FROM meeting_attendees WHERE meeting_id "
        "= ?",
        [row["meeting_id"]],
    )


DECLINED_WORDS = {
    True: (
        "Remove the optional invitees who declined from my {title:q} on {when}; keep the required ones.",
        "On my {title:q} ({when}), drop the optional attendees who said no. Required people stay, even if "
        "they declined.",
    ),
    False: (
        "Please take everyone who declined off the invite list of my {title:q} on {when}.",
        "Remove all the people who declined my {title:q} ({when}) from it.",
        "Clean up my {title:q} on {when}: anyone who declined should no longer be invited.",
    ),
}
"""How an organizer asks to remove the optional invitees who declined (True) or everyone who did (False)."""


@recipe(capabilities=("multi_condition_filtering",), difficulty="easy")
def remove_declined(ctx: RecipeContext) -> None:
    """An organizer takes the invitees who declined (optionally only the optional ones who declined) off an
    upcoming meeting. The variant asks it of a meeting that has already taken place."""
    row = ctx.pick(
        unique_meeting_sql(f"{ACTIVE} AND {upcoming()}")
        + " AND EXISTS (SELECT 1 FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id "
        "AND a.response = 'declined')",
        [ctx.now],
        what="upcoming meeting with a declined invitation",
    )
    kinds = ctx.one(
        "SELECT count(*) FILTER (WHERE is_optional) AS optional, count(*) FILTER (WHERE NOT is_optional) AS "
        "required FROM meeting_attendees WHERE meeting_id = ? AND response = 'declined'",
        [row["meeting_id"]],
    )
    assert kinds is not None
    only_optional = bool(kinds["optional"] and kinds["required"] and ctx.rng.random() < 0.5)
    refer_meeting(ctx, row, row)
    introduce(ctx, row)
    opening = ctx.instruction
    template = ctx.choice(DECLINED_WORDS[only_optional])
    ctx.say(template, title=row["title"], when=row["start_at"])
    find_meeting_read(ctx, row, row)
    arguments = {"meeting": row["meeting_id"], "organizer": row["email"], "response": "declined"}
    if only_optional:
        arguments["optional_only"] = True
    result = ctx.call("remove_attendees", arguments, step="Remove the invitees who declined")
    ctx.goal(
        "the invitees left are the expected ones",
        "SELECT list(employee_id ORDER BY employee_id) AS invitees FROM meeting_attendees WHERE meeting_id "
        "= ?",
        [row["meeting_id"]],
    )
    scaled_difficulty(ctx, len(result["removed"]), medium=3)
    past = ctx.scalar(
        "SELECT count(*) FROM meetings AS m WHERE m.organizer_id = ? AND m.status = 'ended' AND EXISTS "
        "(SELECT 1 FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id AND a.response = "
        "'declined')",
        [row["employee_id"]],
    )
    if not past:
        return
    old = ctx.pick(
        unique_meeting_sql("e.employee_id = ? AND m.status = 'ended'")
        + " AND EXISTS (SELECT 1 FROM meeting_attendees AS a WHERE a.meeting_id = m.meeting_id "
        "AND a.response = 'declined')",
        [row["employee_id"]],
        what="past meeting",
    )
    text = render(template, {"title": old["title"], "when": old["start_at"]}, ctx.style)
    ctx.infeasible(
        "forbidden",
        policy="only_upcoming_meetings_change",
        instruction=f"{opening} {text}",
        calls=[Call("remove_attendees", {**arguments, "meeting": old["meeting_id"]})],
        because="that meeting has already taken place; only upcoming meetings can change",
        proof=meeting_ref(old, row["email"]),
    )


ANSWER_WORDS = {"declined": ("decline", "Decline"), "tentative": ("tentatively accept", "Tentatively accept")}
"""How a person asks for each answer (in a sentence, and opening one)."""


@recipe(capabilities=("multi_condition_filtering", "precise_boundary_judgment"), difficulty="medium")
def answer_invitations(ctx: RecipeContext) -> None:
    """An invitee answers many invitations at once: those of one organizer over some days, or those of a day
    from (or before) a time of day; only unanswered ones, or every one not already given that answer. The
    time or the last day is one a meeting falls on, so the boundary decides."""
    row = ctx.pick(
        f"""
        SELECT {PERSON}, count(*) AS n FROM meeting_attendees AS a
        JOIN meetings AS m ON m.meeting_id = a.meeting_id JOIN employees AS e ON e.employee_id = a.employee_id
        WHERE {ACTIVE} AND {upcoming()} AND a.response = 'pending' GROUP BY ALL HAVING count(*) >= 2
        """,
        [ctx.now],
        what="invitee with pending invitations",
    )
    invites = ctx.sql(
        "SELECT m.meeting_id, m.title, m.start_at, m.organizer_id, a.response FROM meeting_attendees AS a "
        f"JOIN meetings AS m ON m.meeting_id = a.meeting_id WHERE a.employee_id = ? AND {upcoming()} "
        "ORDER BY m.start_at, m.meeting_id",
        [row["employee_id"], ctx.now],
    )
    response = ctx.choice(["declined", "declined", "tentative"])
    only_pending = ctx.rng.random() < 0.6
    pool = [
        i for i in invites if i["response"] != response and (i["response"] == "pending" or not only_pending)
    ]
    if not pool:
        ctx.skip("nothing to answer")
    arguments: dict = {"person": row["email"], "response": response}
    values: dict = {"answer": ANSWER_WORDS[response][0], "Answer": ANSWER_WORDS[response][1]}
    if only_pending:
        arguments["current_response"] = "pending"
    target = ctx.choice(pool)
    if ctx.rng.random() < 0.5:
        boss = colleague(ctx, target["organizer_id"])
        chosen = [i for i in pool if i["organizer_id"] == target["organizer_id"]]
        first = ctx.today + dt.timedelta(days=1)
        last = chosen[-1]["start_at"].date()
        arguments.update(organizer=boss["arg"], from_date=first.isoformat(), to_date=last.isoformat())
        values.update(boss=boss["text"], first=first, last=last)
        ask = ctx.choice(
            [
                "Please {answer} every invitation from {boss} for meetings between {first} and {last}, both "
                "days included",
                "{Answer} all of {boss}'s invitations for meetings from {first} through {last}",
            ]
        )
    else:
        day = target["start_at"].date()
        that_day = [i for i in pool if i["start_at"].date() == day]
        cut = target["start_at"].time()
        arguments["from_date"] = day.isoformat()
        values.update(day=day, time=cut)
        if ctx.rng.random() < 0.6 or cut == that_day[0]["start_at"].time():
            arguments["starts_from_time"] = cut.isoformat()
            chosen = [i for i in that_day if i["start_at"].time() >= cut]
            ask = ctx.choice(
                [
                    "I'm busy from {time} on {day}: please {answer} my invitations to meetings that day "
                    "starting at {time} or later",
                    "{Answer} every invitation I have for {day} that starts at or after {time}",
                ]
            )
        else:
            arguments["starts_before_time"] = cut.isoformat()
            chosen = [i for i in that_day if i["start_at"].time() < cut]
            ask = ctx.choice(
                [
                    "I only get in at {time} on {day}: please {answer} my invitations to meetings that day "
                    "starting before {time}",
                    "{Answer} every invitation I have for {day} that starts earlier than {time}",
                ]
            )
    ask += " (only the ones I haven't answered yet)." if only_pending else "."
    introduce(ctx, row)
    ctx.say(ask, **values)
    ctx.derived(response, f"'{ANSWER_WORDS[response][0]}' means response {response}")
    result = ctx.call(
        "respond_to_invitations", arguments, step=f"Answer {len(chosen)} invitations: {response}"
    )
    ctx.goal(
        "the invitations have the new answer",
        "SELECT list(meeting_id ORDER BY meeting_id) FILTER (WHERE response = ?) AS answered "
        "FROM meeting_attendees WHERE employee_id = ?",
        [response, row["employee_id"]],
    )
    if len(result["answered"]) >= 3 or (only_pending and "organizer" in arguments):
        ctx.difficulty = "hard"
    if "to_date" in arguments:
        weeks = (LAST_DAY - ctx.today).days // 7 + 2
        back = dt.timedelta(weeks=weeks)
        ctx.infeasible(
            "forbidden",
            policy="only_upcoming_meetings_change",
            swap={values["first"]: values["first"] - back, values["last"]: values["last"] - back},
            because="those meetings are over; only invitations to upcoming meetings can be answered",
        )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy", weight=0.6)
def accept_invitation(ctx: RecipeContext) -> None:
    """An invitee accepts one invitation, named by its organizer, title and time. The variant accepts one
    that clashes with a meeting they have already accepted (nobody accepts two overlapping meetings)."""
    row = ctx.pick(
        unique_meeting_sql(upcoming())
        + " AND EXISTS (SELECT 1 FROM meeting_attendees AS a JOIN employees AS p ON p.employee_id = "
        "a.employee_id "
        "WHERE a.meeting_id = m.meeting_id AND a.response IN ('pending', 'tentative') AND p.is_active)",
        [ctx.now],
        what="meeting with an open invitation",
    )
    guest = ctx.pick(
        f"SELECT {PERSON} FROM meeting_attendees AS a JOIN employees AS e ON e.employee_id = a.employee_id "
        f"WHERE a.meeting_id = ? AND a.response IN ('pending', 'tentative') AND {ACTIVE} "
        "AND NOT EXISTS (SELECT 1 FROM meeting_attendees AS b JOIN meetings AS o ON o.meeting_id = "
        "b.meeting_id "
        "WHERE b.employee_id = a.employee_id AND b.response = 'accepted' AND o.status <> 'cancelled' "
        "AND o.start_at < ? AND ? < o.end_at) "
        "AND NOT EXISTS (SELECT 1 FROM out_of_office AS w WHERE w.employee_id = a.employee_id AND "
        "w.starts_at < ? AND ? < w.ends_at)",
        [row["meeting_id"], row["end_at"], row["start_at"], row["end_at"], row["start_at"]],
        what="invitee free then",
    )
    boss = colleague(ctx, row["employee_id"])
    refer_meeting(ctx, row, row)
    introduce(ctx, guest)
    opening = ctx.instruction
    template = ctx.choice(
        [
            "Please accept {boss}'s invitation to {title:q} on {when} for me.",
            "I'll be at the {title:q} that {boss} organises on {when}; accept it.",
            "Mark me as attending {boss}'s {title:q} on {when}.",
        ]
    )
    ctx.say(template, boss=boss["text"], title=row["title"], when=row["start_at"])
    ctx.derived("accepted", "'accept' means response accepted")
    ctx.read(
        "get_calendar",
        {"person": guest["email"], "from_date": row["start_at"].date().isoformat()},
        step="Find the invitation in their calendar",
    )
    ctx.call(
        "respond_to_invitation",
        {"meeting": row["meeting_id"], "person": guest["email"], "response": "accepted"},
        step="Accept it",
    )
    ctx.goal(
        "the invitation is accepted",
        "SELECT response FROM meeting_attendees WHERE meeting_id = ? AND employee_id = ?",
        [row["meeting_id"], guest["employee_id"]],
    )
    clash = ctx.sql(
        unique_meeting_sql(upcoming())
        + " AND m.meeting_id IN (SELECT a.meeting_id FROM meeting_attendees AS a WHERE a.employee_id = ? "
        "AND a.response IN ('pending', 'tentative')) AND EXISTS (SELECT 1 FROM meeting_attendees AS b "
        "JOIN meetings AS o ON o.meeting_id = b.meeting_id WHERE b.employee_id = ? AND b.response = "
        "'accepted' AND o.status <> 'cancelled' AND o.start_at < m.end_at AND m.start_at < o.end_at "
        "AND o.meeting_id <> m.meeting_id) ORDER BY m.start_at, m.meeting_id LIMIT 1",
        [ctx.now, guest["employee_id"], guest["employee_id"]],
    )
    if not clash:
        return
    other = clash[0]
    their = colleague(ctx, other["employee_id"], record=False)
    text = render(
        template, {"boss": their["text"], "title": other["title"], "when": other["start_at"]}, ctx.style
    )
    ctx.infeasible(
        "forbidden",
        instruction=f"{opening} {text}",
        calls=[
            Call(
                "respond_to_invitation",
                {"meeting": other["meeting_id"], "person": guest["email"], "response": "accepted"},
            )
        ],
        because="they have already accepted another meeting at that time",
        policy="one_meeting_at_a_time",
        proof=meeting_ref(other, other["email"]),
    )
