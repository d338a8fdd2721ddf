"""Recipes about people: set an out-of-office period with one's manager as delegate, record that a unit head
left (the longest-serving member takes over), shorten one's working days, and move a whole team to another
home building."""

from __future__ import annotations

import datetime as dt

from stateforge.tasks import Call, RecipeContext, picks, recipe
from stateforge.tasks.wording import render

from .common import (
    ACTIVE,
    LAST_DAY,
    PERSON,
    WEEKDAY_NAMES,
    at,
    colleague,
    introduce,
    named_ref,
    refer,
    scaled_difficulty,
    speak_for,
    workdays,
)

HR_UNITS = ("People", "HR Operations", "Recruiting", "Compensation")
"""Org units whose members speak for HR (the offboarding tool does not ask who acts)."""
AWAY = {
    "vacation": ("I'm on vacation", "I'll be on holiday"),
    "training": ("I'm at a training course", "I'll be away for training"),
    "travel": ("I'm travelling for work", "I'll be on a business trip"),
}


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def out_of_office_with_manager(ctx: RecipeContext) -> None:
    """An employee sets an out-of-office period (from a morning to an evening some days later) with their
    manager as delegate: get_person shows the manager, set_out_of_office declines what the period covers.
    Variants: a period longer than a year, or a delegate who has left the company."""
    me = ctx.pick(
        f"SELECT {PERSON}, e.manager_id FROM employees AS e JOIN employees AS b ON b.employee_id = "
        f"e.manager_id WHERE {ACTIVE} AND b.is_active",
        what="employee with an active manager",
    )
    first = ctx.choice(workdays(ctx.today + dt.timedelta(days=2), LAST_DAY - dt.timedelta(days=14)))
    last = ctx.choice(workdays(first, first + dt.timedelta(days=11)))
    start, end = at(first, dt.time(ctx.choice([8, 9]))), at(last, dt.time(ctx.choice([17, 18])))
    if ctx.scalar(
        "SELECT count(*) FROM out_of_office WHERE employee_id = ? AND starts_at < ? AND ? < ends_at",
        [me["employee_id"], end, start],
    ):
        ctx.skip("already away then")
    reason = ctx.choice(list(AWAY))
    reply = None
    if ctx.rng.random() < 0.5:
        back = workdays(last + dt.timedelta(days=1), last + dt.timedelta(days=5))[0]
        reply = f"I'm away until {back:%B} {back.day} and will answer when I'm back."
    introduce(ctx, me)
    opening = ctx.instruction
    template = ctx.choice(
        [
            "{away} from {start} until {end}. Please set my out-of-office for that time and make my manager "
            "my delegate.",
            "{away} between {start} and {end}: put in an out-of-office period with my manager as the "
            "delegate.",
        ]
    )
    values = {"away": ctx.choice(AWAY[reason]), "start": start, "end": end}
    if reply:
        template += ' The automatic reply should say: "{reply}"'
        values["reply"] = reply
    ctx.say(template, **values)
    ctx.read("get_person", {"person": me["email"]}, step="Look up their manager")
    ctx.derived(reason, f"'{values['away']}' is the reason {reason}")
    boss = ctx.one("SELECT email FROM employees WHERE employee_id = ?", [me["manager_id"]])
    assert boss is not None
    arguments = {
        "person": me["email"],
        "starts_at": start.isoformat(),
        "ends_at": end.isoformat(),
        "reason": reason,
        "delegate": boss["email"],
    }
    if reply:
        arguments["auto_reply"] = reply
    result = ctx.call(
        "set_out_of_office", arguments, step="Set the out-of-office period with the manager as delegate"
    )
    ctx.goal(
        "the period is set with the manager as delegate",
        "SELECT starts_at, ends_at, reason, delegate_id, auto_reply_message FROM out_of_office WHERE "
        "employee_id = ? AND starts_at = ?",
        [me["employee_id"], start],
    )
    scaled_difficulty(
        ctx, 1 + int(result["invitations_declined"]) + int(result["desk_bookings_cancelled"]), hard=8
    )
    gone = ctx.sql(
        "SELECT e.employee_id FROM employees AS e WHERE NOT e.is_active AND (SELECT count(*) FROM employees "
        "AS o "
        "WHERE lower(o.first_name || ' ' || o.last_name) = lower(e.first_name || ' ' || e.last_name)) = 1 "
        "ORDER BY e.employee_id LIMIT 20"
    )
    if gone and ctx.rng.random() < 0.5:
        former = colleague(ctx, ctx.choice(gone)["employee_id"], record=False)
        text = render(
            "{away} from {start} until {end}. Please set my out-of-office for that time with {who} as my "
            "delegate.",
            {**values, "who": former["text"]},
            ctx.style,
        )
        ctx.infeasible(
            "forbidden",
            policy="active_employees_only",
            instruction=f"{opening} {text}",
            calls=[Call("set_out_of_office", {**arguments, "delegate": former["arg"]})],
            because=f"{former['name']} has left the company and cannot be a delegate",
            proof=(
                f"colleague {former['name']}",
                "SELECT count(*) FROM employees WHERE lower(first_name || ' ' || last_name) = lower(?)",
                [former["name"]],
                1,
            ),
        )
    else:
        far = at(first + dt.timedelta(days=400), end.time())
        ctx.infeasible("capacity", swap={end: far}, because="an out-of-office period lasts at most 366 days")


@recipe(capabilities=("cross_step_dependency", "aggregation_computation"), difficulty="hard")
def offboard_unit_head(ctx: RecipeContext) -> None:
    """HR records that the head of an org unit left on a recent day; the unit's longest-serving active
    member (earliest hired, found with search_people) becomes its head. Their meetings, invitations, desk
    and delegations are tidied by offboard_employee. The variant names a last day still to come."""
    head = ctx.pick(
        f"""
        SELECT {PERSON}, e.hired_on, u.org_unit_id, u.name AS unit FROM org_units AS u
        JOIN employees AS e ON e.employee_id = u.head_employee_id
        WHERE {ACTIVE} AND (SELECT count(*) FROM org_units AS o WHERE o.head_employee_id = e.employee_id) = 1
          AND (SELECT count(*) FROM org_units AS o WHERE lower(o.name) = lower(u.name)) = 1
        """,
        what="unit head",
    )
    members = ctx.sql(
        "SELECT employee_id, email, hired_on FROM employees WHERE org_unit_id = ? AND is_active AND "
        "employee_id <> ? "
        "ORDER BY hired_on, employee_id LIMIT 2",
        [head["org_unit_id"], head["employee_id"]],
    )
    if not members or (len(members) == 2 and members[0]["hired_on"] == members[1]["hired_on"]):
        ctx.skip("no single longest-serving member")
    successor = members[0]
    day = ctx.today - dt.timedelta(days=ctx.rng.randint(0, 10))
    if day <= head["hired_on"]:
        ctx.skip("hired too recently")
    person = colleague(ctx, head["employee_id"])
    refer(ctx, named_ref("org unit", "org_units", head["unit"]))
    speak_for(ctx, HR_UNITS)
    ctx.say(
        [
            "{who} has left the company; their last day was {day}. They headed {unit}: please record that "
            "they left and make the longest-serving member of {unit} its new head.",
            "Please offboard {who} (last working day: {day}). {unit} needs a new head: the member of {unit} "
            "who has been with the company longest.",
        ],
        who=person["text"],
        day=day,
        unit=head["unit"],
    )
    ctx.read(
        "search_people",
        {"org_unit": head["unit"], "sort_by": "hired_on", "limit": 5},
        step=f"Find the longest-serving member of {head['unit']}",
    )
    ctx.derived(False, "someone who has left is no longer active")
    result = ctx.call(
        "offboard_employee",
        {"person": person["arg"], "last_day": day.isoformat(), "new_unit_head": successor["email"]},
        step="Record that they left, with the new unit head",
    )
    ctx.goal(
        "they have left and the unit has its new head",
        "SELECT e.left_on, e.is_active, u.head_employee_id FROM employees AS e JOIN org_units AS u ON "
        "u.org_unit_id = e.org_unit_id WHERE e.employee_id = ?",
        [head["employee_id"]],
    )
    touched = sum(v for k, v in result.items() if isinstance(v, int))
    scaled_difficulty(ctx, touched, hard=10)
    ctx.infeasible(
        "forbidden",
        swap={day: ctx.today + dt.timedelta(days=ctx.rng.randint(7, 30))},
        because="a last day still to come cannot be recorded yet; offboarding happens on or after it",
        policy="leaving_is_recorded",
    )


@recipe(capabilities=("aggregation_computation", "cross_step_dependency"), difficulty="medium")
def shorten_working_days(ctx: RecipeContext) -> None:
    """An employee ends each working day an hour (or half an hour) earlier than now, keeping the starts and
    the remote days, and may drop one weekday: the new ends are worked out from get_person."""
    me = ctx.pick(
        f"SELECT {PERSON} FROM employees AS e WHERE {ACTIVE} AND (SELECT count(*) FROM working_hours AS w "
        "WHERE w.employee_id = e.employee_id AND w.ends_at >= w.starts_at + INTERVAL 3 HOUR) = 5",
        what="employee with five working days",
    )
    hours = ctx.sql(
        "SELECT weekday, starts_at, ends_at, is_remote FROM working_hours WHERE employee_id = ? ORDER BY "
        "weekday",
        [me["employee_id"]],
    )
    minutes, words = ctx.choice([(60, "one hour"), (30, "half an hour")])
    off = ctx.choice(hours)["weekday"] if ctx.rng.random() < 0.5 else None
    days = []
    for h in hours:
        if h["weekday"] == off:
            continue
        end = (dt.datetime.combine(dt.date(2000, 1, 3), h["ends_at"]) - dt.timedelta(minutes=minutes)).time()
        days.append(
            {
                "weekday": h["weekday"],
                "starts_at": h["starts_at"].isoformat(),
                "ends_at": end.isoformat(),
                "is_remote": h["is_remote"],
            }
        )
    introduce(ctx, me)
    extra = " I'm also no longer working on {off}s." if off else ""
    ctx.say(
        [
            "From now on I want to finish {words} earlier every working day; keep my start times as they are."
            + extra,
            "Please end each of my working days {words} earlier than they end now (same start times)."
            + extra,
        ],
        words=words,
        off=WEEKDAY_NAMES[off - 1] if off else "",
    )
    ctx.read("get_person", {"person": me["email"]}, step="Read their working hours")
    ctx.derived([d["ends_at"] for d in days], f"each day's current end, {words} earlier")
    ctx.derived([d["weekday"] for d in days], "the weekdays they work")
    for flag in {d["is_remote"] for d in days}:
        ctx.derived(flag, "each day keeps its remote setting")
    arguments: dict = {"person": me["email"], "days": days}
    if off:
        arguments["days_off"] = [off]
    ctx.call("set_working_hours", arguments, step="Set the shorter days")
    ctx.goal(
        "the working hours end earlier",
        "SELECT list(weekday ORDER BY weekday) AS days, list(ends_at ORDER BY weekday) AS ends FROM "
        "working_hours WHERE employee_id = ?",
        [me["employee_id"]],
    )


@recipe(capabilities=("full_data_acquisition",), difficulty="medium")
def move_team_building(ctx: RecipeContext) -> None:
    """A team moved offices: every active member of an org unit gets a new home building, one update_profile
    per person after listing the unit's members page by page. The variant names a unit that does not exist."""
    row = ctx.pick(
        """
        SELECT u.org_unit_id, u.name AS unit, b.building_id, b.name AS building,
               count(*) FILTER (WHERE e.home_building_id IS DISTINCT FROM b.building_id) AS n
        FROM org_units AS u JOIN employees AS e ON e.org_unit_id = u.org_unit_id AND e.is_active
        CROSS JOIN buildings AS b
        WHERE (SELECT count(*) FROM org_units AS o WHERE lower(o.name) = lower(u.name)) = 1
        GROUP BY ALL HAVING count(*) FILTER (WHERE e.home_building_id IS DISTINCT FROM b.building_id)
        BETWEEN 3 AND 120
        """,
        what="unit to move",
    )
    movers = ctx.sql(
        "SELECT email FROM employees WHERE org_unit_id = ? AND is_active AND home_building_id IS DISTINCT "
        "FROM ? ORDER BY employee_id",
        [row["org_unit_id"], row["building_id"]],
    )
    speaker = ctx.sql(
        f"SELECT {PERSON} FROM org_units AS u JOIN employees AS e ON e.employee_id = u.head_employee_id "
        f"WHERE u.org_unit_id = ? AND {ACTIVE}",
        [row["org_unit_id"]],
    )
    refer(ctx, named_ref("org unit", "org_units", row["unit"]))
    refer(ctx, named_ref("building", "buildings", row["building"]))
    if speaker:
        introduce(ctx, speaker[0])
    ctx.say(
        [
            "The whole {unit} unit has moved to {building}. Please make {building} the home building of "
            "every active member of {unit} (only that unit, not the ones below it).",
            "Everyone in {unit} now works from {building}: update each current member's home building "
            "(members of {unit} itself, not of its sub-units).",
        ],
        unit=row["unit"],
        building=row["building"],
    )
    picks.read_pages(ctx, "search_people", {"org_unit": row["unit"]}, step="List the unit's members")
    for person in movers:
        ctx.call("update_profile", {"person": person["email"], "home_building": row["building"]})
    ctx.goal(
        "every active member has the new home building",
        "SELECT count(*) FILTER (WHERE home_building_id IS DISTINCT FROM ?) AS elsewhere FROM employees "
        "WHERE org_unit_id = ? AND is_active",
        [row["building_id"], row["org_unit_id"]],
    )
    scaled_difficulty(ctx, len(movers), hard=40)
    for suffix in (" Europe", " Americas", " 2", " Team", " North"):
        other = row["unit"] + suffix
        if not ctx.scalar("SELECT count(*) FROM org_units WHERE lower(name) = lower(?)", [other]):
            ctx.infeasible(
                "missing", swap={row["unit"]: other}, because=f"there is no org unit called {other}"
            )
            break
