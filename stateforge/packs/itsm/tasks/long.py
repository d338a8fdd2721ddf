"""Long storylines of the ITSM pack: work that fans out over the CMDB, each later step touching what an
earlier one found or made (docs/tasks.md, "Steps and storylines").

- `major_outage`: a major-incident manager logs a P1 on a failed item -> declares it a major incident ->
  informs a colleague on the major-incident rota (the procedure) -> walks the CMDB up from the item -> opens
  an incident on every business service it reaches (impact by the service's criticality) -> makes each a
  child of the major incident -> a work note counting them.
- `change_plan`: a change manager computes the risk of a change from the business services an outage of
  the item would reach -> raises and assesses it -> a verification task per application it reaches, each
  for that application's support group -> approvals from the longest-serving CAB members -> on the agenda
  of the next CAB when the risk is high.
- infeasible, found by working: `standard_change_too_risky` (a "standard" change whose computed risk is not
  low: change_authorization refuses the first write, after the walk).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story, Storyline, step

from .common import has_role, in_group, introduce, someone

INFRA = ("Server", "Database", "Virtual Machine", "Storage Array", "Load Balancer", "Network Device")
CATEGORY = {
    "Database": ("Database", "Performance"),
    "Network Device": ("Network", "VPN"),
    "Load Balancer": ("Network", "VPN"),
}
"""The category an outage of an item of this class is logged under (else Software / ERP)."""


ROUTED = "Critical service: routed to its support team"
VERIFY = "Verify the application after the change"
CONFIRM = "Confirm with the business owner before the window"


def reach_sql(depth: int) -> str:
    """SQL: infrastructure items (`ci`) and how many business services and applications an outage reaches
    within `depth`."""
    return (
        "WITH RECURSIVE up(start, ci_id, hops) AS (SELECT ci.ci_id, ci.ci_id, 0 FROM configuration_items AS "
        "ci "
        "JOIN ci_classes AS k ON k.class_id = ci.class_id WHERE ci.operational_status <> 'retired' AND "
        "k.name "
        f"IN ({', '.join(repr(c) for c in INFRA)}) UNION SELECT up.start, r.parent_ci_id, up.hops + 1 FROM "
        "up "
        f"JOIN ci_relationships AS r ON r.child_ci_id = up.ci_id WHERE up.hops < {depth}) "
        "SELECT ci.ci_id, ci.name, ci.support_group_id, k.name AS class, count(DISTINCT up.ci_id) FILTER "
        "(WHERE s.name = 'Business Service' AND o.operational_status <> 'retired' AND up.hops > 0) "
        "AS services, count(DISTINCT up.ci_id) FILTER (WHERE s.name = 'Application' AND o.operational_status "
        "<> 'retired' AND up.hops > 0) AS apps "
        "FROM up "
        "JOIN configuration_items AS ci ON ci.ci_id = up.start JOIN ci_classes AS k ON k.class_id = "
        "ci.class_id "
        "JOIN configuration_items AS o ON o.ci_id = up.ci_id JOIN ci_classes AS s ON s.class_id = o.class_id "
        "GROUP BY ALL"
    )


def risk_of(services: int) -> str:
    """The change-risk rule the instruction states: by the business services an outage would reach."""
    return "very_high" if services >= 25 else "high" if services >= 10 else "moderate" if services else "low"


RISK_RULE = (
    "very high if an outage of it would reach 25 or more live business services within 3 hops, high for 10 "
    "to 24, moderate for 1 to 9 and low for none"
)


# --- major outage ----------------------------------------------------------------------------------------


def cast_outage(story: Story) -> None:
    """A failed infrastructure item whose outage reaches 6 to 80 business services, and a major-incident
    manager (itil, on the Major Incident Management rota) to run it."""
    ctx = story.ctx
    depth = ctx.choice((2, 3, 3, 4))
    item = ctx.pick(
        f"SELECT * FROM ({reach_sql(depth)}) AS r WHERE services BETWEEN 6 AND 80", what="failed item"
    )
    mim = someone(
        ctx, f"{has_role('major_incident_manager')} AND {has_role('itil')} AND {in_group('16')}", what="MIM"
    )
    story["me"], story["item"], story["depth"] = mim, item, depth
    introduce(ctx, mim)


@step(inputs=("me", "item"), outputs=("parent", "category"), goal="a P1 on the failed item, declared major")
def log_and_declare(story: Story) -> None:
    ctx, item = story.ctx, story["item"]
    cat, sub = CATEGORY.get(item["class"], ("Software", "ERP"))
    summary = ctx.choice(
        (f"{item['name']} down", f"Outage of {item['name']}", f"{item['name']} not responding")
    )
    story.say(
        [
            "{ci} has failed and I'm running the bridge. Log it as a P1 reported by monitoring (impact 1, "
            "urgency 1), {summary:q}, category {cat} / {sub}, on {ci}, and declare it a major incident.",
            "Monitoring says {ci} is down: open a critical incident for it ({summary:q}, impact 1, urgency "
            "1, "
            "{cat} / {sub}, contact type monitoring, item {ci}) and make it a major incident.",
        ],
        ci=item["name"],
        summary=summary,
        cat=cat,
        sub=sub,
    )
    made = story.call(
        "create_incident",
        {
            "short_description": summary,
            "category_name": cat,
            "subcategory": sub,
            "impact": 1,
            "urgency": 1,
            "ci_name": item["name"],
            "contact_type": "monitoring",
        },
    )
    ctx.derived(made["number"], "the new incident's number, returned by create_incident")
    story.call("declare_major_incident", {"number": made["number"]})
    story["parent"], story["category"] = made["number"], (cat, sub)


@step(
    inputs=("me", "parent"),
    goal="a colleague on the rota informed (the major-incident procedure)",
    capabilities=("cross_step_dependency",),
)
def inform_rota(story: Story) -> None:
    ctx, me = story.ctx, story["me"]
    group = story.read("get_group", {"name": "Major Incident Management"})
    others = sorted(m["user_name"] for m in group["members"] if m["user_name"] != me["user_name"])
    if not others:
        raise Skip("no colleague on the rota")
    mim = others[ctx.rng.randrange(len(others))]
    story.say(
        ["Inform {mim} as the P1 procedure asks.", "As the procedure says, notify {mim} on the rota."],
        mim=mim,
    )
    story.call("notify_major_incident_manager", {"number": story["parent"], "manager": mim})
    story.knob("policy_detour", "a P1 taken on informs a major-incident manager")


@step(
    inputs=("me", "item", "depth", "parent", "category"),
    outputs=("children",),
    goal="an incident on every business service reached, each a child of the major incident",
    capabilities=("multi_condition_filtering", "aggregation_computation"),
)
def services_hit(story: Story) -> None:
    ctx, item, depth = story.ctx, story["item"], story["depth"]
    critical = ctx.choice((2, 3, 4, 4))
    walk = story.read("impacted_services", {"name": item["name"], "depth": depth})
    live = live_services(walk)
    hit = sorted((s for s in live if int(s["criticality"]) <= critical), key=lambda s: s["name"])
    if not 3 <= len(hit) <= 60:  # up to about 240 changed rows in about 190 calls
        raise Skip("too few or too many services")
    cat, sub = story["category"]
    story.say(
        [
            "Then find every live (not retired) business service the outage reaches within {depth} hops "
            "whose criticality is {crit} or more critical (1 is the most), open an incident on each "
            "({text:q}, impact 1 for "
            "criticality 1 and 2 for the others, urgency 2, same category, contact type monitoring) and "
            "make each a child of the major incident.",
            "For each business service up to {depth} hops above {ci} with criticality 1 to {crit} (retired "
            "ones aside), log an "
            "incident {text:q} on the service (impact 1 if it is criticality 1, else 2; urgency 2; the same "
            "category; reported by monitoring) and put it under the major incident.",
        ],
        depth=depth,
        crit=critical,
        ci=item["name"],
        text=f"Degraded by the {item['name']} outage",
    )
    story.say(
        [
            "The incident of a criticality-1 service goes to that service's own support group "
            "(unless it is there already), with the reason {why:q}.",
            "Move each criticality-1 service's incident to the service's support group if it landed "
            "elsewhere; reason: {why:q}.",
        ],
        why=ROUTED,
    )
    tracked = f"Tracked under major incident {story['parent']}; updates follow there."
    story.say(
        [
            "On each of them add the work note {note:q}.",
            "Give each the work note {note:q}.",
        ],
        note=tracked,
    )
    children = []
    for service in hit:
        child = story.call(
            "create_incident",
            {
                "short_description": f"Degraded by the {item['name']} outage",
                "category_name": cat,
                "subcategory": sub,
                "impact": 1 if int(service["criticality"]) == 1 else 2,
                "urgency": 2,
                "ci_name": service["name"],
                "contact_type": "monitoring",
            },
        )
        ctx.derived(child["number"], f"the incident opened on {service['name']}, returned by create_incident")
        story.call("link_child_incident", {"number": child["number"], "parent": story["parent"]})
        story.call("add_work_note", {"number": child["number"], "text": tracked})
        if int(service["criticality"]) == 1:  # a critical service's incident goes to its own team
            team = story.read("get_ci", {"name": service["name"]})["support_group"]
            if team != child["assignment_group"]:
                ctx.derived(team, f"the support group of {service['name']}, returned by get_ci")
                story.call(
                    "reassign_incident",
                    {"number": child["number"], "assignment_group": team, "reason": ROUTED},
                )
        children.append(child["number"])
    story["children"] = children
    story.knob("solver_filtering", f"business services of criticality <= {critical} within {depth} hops")
    left_out = [s for s in live if int(s["criticality"]) == critical + 1]
    if left_out:
        story.distractor(
            "a business service one criticality level too low",
            "SELECT count(*) FROM configuration_items WHERE name = ? AND criticality = ?",
            [left_out[0]["name"], critical + 1],
        )


@step(inputs=("parent", "children"), goal="the bridge note counting the services")
def count_note(story: Story) -> None:
    n = len(story["children"])
    note = f"{n} business services affected; child incidents opened."
    story.say(
        [
            'Finish with a work note on the major incident: "<count> business services affected; child '
            "incidents "
            'opened."',
            'Last, note on the major incident how many services are affected, as "<count> business '
            'services affected; child incidents opened."',
        ]
    )
    story.ctx.derived(note, "the count of child incidents opened, in the stated words")
    story.call("add_work_note", {"number": story["parent"], "text": note})
    story.knob("aggregation", "the services counted")
    story.ctx.goal(
        "the major incident has its children",
        "SELECT p.major_incident, p.state, count(c.incident_id) AS children FROM incidents AS p LEFT JOIN "
        "incidents AS c ON c.parent_incident_id = p.incident_id WHERE p.number = ? GROUP BY ALL",
        [story["parent"]],
        expected=[{"major_incident": True, "state": "in_progress", "children": n}],
    )


MAJOR_OUTAGE = Storyline(
    "major_outage",
    cast_outage,
    (log_and_declare, inform_rota, services_hit, count_note),
    provides=("me", "item", "depth"),
    weight=13.0,
)


# --- change plan -----------------------------------------------------------------------------------------


def cast_change(story: Story) -> None:
    """An infrastructure item some applications depend on, and a change manager (itil) to plan its change."""
    ctx = story.ctx
    item = ctx.pick(
        f"SELECT * FROM ({reach_sql(3)}) AS r WHERE services <= 60 AND apps BETWEEN 4 AND 45 AND EXISTS "
        "(SELECT 1 FROM ci_relationships AS rel JOIN configuration_items AS p ON p.ci_id = rel.parent_ci_id "
        "JOIN ci_classes AS k ON k.class_id = p.class_id WHERE rel.child_ci_id = r.ci_id "
        "AND k.name = 'Application')",
        what="item under applications",
    )
    cm = someone(ctx, f"{has_role('change_manager')} AND {has_role('itil')}", what="change manager")
    start = (ctx.now + dt.timedelta(days=ctx.rng.randrange(7, 40))).replace(
        hour=ctx.choice((20, 21, 22)), minute=0, second=0, microsecond=0
    )
    story["me"], story["item"] = cm, item
    story["window"] = (start, start + dt.timedelta(hours=ctx.choice((2, 3, 4))))
    introduce(ctx, cm)


def walk_risk(story: Story) -> tuple[str, dict[str, Any]]:
    """Read the walk the risk rule needs (3 hops) and return the risk it gives."""
    walk = story.read("impacted_services", {"name": story["item"]["name"], "depth": 3})
    story.knob("solver_filtering", "business services within 3 hops decide the risk")
    return risk_of(len(live_services(walk))), walk


def live_services(walk: dict[str, Any]) -> list[dict[str, Any]]:
    """The business services of an impacted_services walk that are not retired."""
    return [s for s in walk["business_services"] if s["operational_status"] != "retired"]


@step(
    inputs=("me", "item", "window"),
    outputs=("change", "risk", "walk"),
    goal="the change raised at its computed risk",
)
def raise_at_risk(story: Story) -> None:
    ctx, item = story.ctx, story["item"]
    start, end = story["window"]
    what = ctx.choice(
        (
            "Firmware upgrade",
            "Patch the operating system",
            "Replace a failed disk",
            "Apply the vendor's hotfix",
        )
    )
    impact = ctx.choice((2, 3))
    story.say(
        [
            "I'm planning a change on {ci}: {what:q}, from {start} to {end}. Raise it as a normal change "
            "with "
            "impact {impact} and the risk our rule gives ({rule}), and assess it at that risk.",
            "Please raise a normal change {what:q} on {ci} for {start} to {end}, impact {impact}; set its "
            "risk "
            "by our rule ({rule}) and assess it accordingly.",
        ],
        ci=item["name"],
        what=what,
        start=start,
        end=end,
        impact=impact,
        rule=RISK_RULE,
    )
    risk, walk = walk_risk(story)
    story["walk"] = walk
    made = story.call(
        "request_change",
        {
            "short_description": what,
            "ci_name": item["name"],
            "planned_start": start.isoformat(),
            "planned_end": end.isoformat(),
            "change_type": "normal",
            "risk": risk,
            "impact": impact,
        },
    )
    ctx.derived(made["number"], "the new change's number, returned by request_change")
    ctx.derived(risk, "the risk the stated rule gives for the business services impacted_services found")
    story.call("assess_change", {"number": made["number"], "risk": risk, "impact": impact})
    story.knob("aggregation", "business services counted for the risk")
    story["change"], story["risk"] = made["number"], risk


@step(
    inputs=("item", "change", "walk"),
    goal="a verification task for each application the change can reach, for its support group",
    capabilities=("cross_step_dependency", "multi_condition_filtering"),
)
def verification_tasks(story: Story) -> None:
    ctx, item = story.ctx, story["item"]
    walk = story["walk"]
    shown = max((r["hops"] for r in walk["items"]), default=0)
    complete = walk["reached"] == len(walk["items"])  # else the last hop shown may be cut short

    def live_apps(h: int) -> list[str]:
        return sorted(
            r["name"]
            for r in walk["items"]
            if r["class"] == "Application" and r["hops"] <= h and r["operational_status"] != "retired"
        )

    # the widest reach (up to 3 hops) whose applications the tool shows in full and that stays a plan
    fits = [h for h in (1, 2, 3) if (complete or h < shown) and 1 <= len(live_apps(h)) <= 45]
    if not fits:
        raise Skip("no or too many applications")
    hops = fits[-1] if ctx.rng.random() < 0.7 else fits[0]
    reached = [r for r in walk["items"] if r["class"] == "Application" and r["hops"] <= hops]
    apps = live_apps(hops)
    story.say(
        [
            "Add a task {text:q} for every live application within {hops} hop(s) above {ci} in that walk "
            "(retired ones aside), each assigned to that application's own support group.",
            "For each application up to {hops} hop(s) above {ci} that is not retired, add the change task "
            "{text:q} for the application's support group.",
        ],
        ci=item["name"],
        hops=hops,
        text=VERIFY,
    )
    story.say(
        [
            "A criticality-1 application gets a second task, {confirm:q}, for the same group.",
            "For the criticality-1 ones add {confirm:q} as well, same group.",
        ],
        confirm=CONFIRM,
    )
    for app in apps:
        info = story.read("get_ci", {"name": app})
        for text in (VERIFY, CONFIRM) if int(info["criticality"]) == 1 else (VERIFY,):
            story.call(
                "add_change_task",
                {
                    "number": story["change"],
                    "short_description": text,
                    "assignment_group": info["support_group"],
                },
            )
    story.knob("solver_filtering", f"live applications within {hops} hop(s)")
    retired = [r["name"] for r in reached if r["operational_status"] == "retired"]
    beyond = [
        r["name"] for r in story["walk"]["items"] if r["class"] == "Application" and r["hops"] == hops + 1
    ]
    if retired:
        story.distractor(
            "a retired application in the walk",
            "SELECT count(*) FROM configuration_items WHERE name = ? AND operational_status = 'retired'",
            [retired[0]],
        )
    elif beyond:
        story.distractor(
            "an application one hop too far",
            "SELECT count(*) FROM configuration_items WHERE name = ?",
            [beyond[0]],
        )


@step(
    inputs=("me", "change", "risk"),
    goal="approvals asked of the longest-serving CAB members, and the CAB agenda when the risk is high",
    capabilities=("aggregation_computation",),
)
def cab_approvals(story: Story) -> None:
    ctx, me = story.ctx, story["me"]
    k = ctx.choice((3, 4, 5, 6))
    group = story.read("get_group", {"name": "Change Management"})
    members = sorted(
        (m for m in group["members"] if m["user_name"] != me["user_name"]),
        key=lambda m: (str(m["joined_at"]), m["user_name"]),
    )
    if len(members) < k:
        raise Skip("too few CAB members")
    chosen = [m["user_name"] for m in members[:k]]
    story.say(
        [
            "Then ask the {k} longest-serving members of Change Management (earliest to join; not me) to "
            "approve it, and if its risk is high or very high put it on the agenda of the next CAB meeting.",
            "Request approval from the {k} Change Management members who joined the group first (other than "
            "me); a high or very high risk change also goes on the first CAB meeting from now.",
        ],
        k=k,
    )
    story.call("request_change_approval", {"number": story["change"], "approvers": chosen})
    ctx.derived(chosen, "the members of get_group joined earliest, the actor left out")
    if story["risk"] in ("high", "very_high"):
        meetings = story.read("list_cab_meetings", {"after": ctx.now.isoformat(), "limit": 20})
        if not meetings["rows"]:
            raise Skip("no CAB meeting ahead")
        first = min(meetings["rows"], key=lambda m: (str(m["scheduled_at"]), m["name"]))
        story.call("add_change_to_cab_agenda", {"number": story["change"], "meeting": first["name"]})
        story.knob("policy_detour", "a high-risk change goes to the CAB")
    story.ctx.goal(
        "the change awaits its approvals",
        "SELECT c.state, c.risk, count(DISTINCT a.approval_id) AS approvals, count(DISTINCT t.task_id) AS "
        "tasks "
        "FROM changes AS c LEFT JOIN change_approvals AS a USING (change_id) LEFT JOIN change_tasks AS t "
        "USING (change_id) WHERE c.number = ? GROUP BY ALL",
        [story["change"]],
    )


CHANGE_PLAN = Storyline(
    "change_plan",
    cast_change,
    (raise_at_risk, verification_tasks, cab_approvals),
    provides=("me", "item", "window"),
    weight=10.0,
)


# --- infeasible, found by working ------------------------------------------------------------------------


@step(inputs=("me", "item", "window"), goal="a standard change whose computed risk is not low (refused)")
def standard_too_risky(story: Story) -> None:
    """One standard change, or a patch night of two or three (all or none) where the others are low risk:
    the walk of each item decides, and the risky one's change is refused."""
    ctx, item = story.ctx, story["item"]
    start, end = story["window"]
    quiet = ctx.sql(
        f"SELECT name FROM ({reach_sql(3)}) AS r WHERE services = 0 AND ci_id <> ? AND (SELECT count(*) "
        "FROM configuration_items AS o WHERE o.name = r.name) = 1 ORDER BY name",
        [item["ci_id"]],
    )
    companions = ctx.rng.choice((0, 0, 1, 2)) if quiet else 0
    names = [q["name"] for q in ctx.rng.sample(quiet, min(companions, len(quiet)))]
    names.insert(ctx.rng.randrange(len(names) + 1), item["name"])
    if len(names) == 1:
        story.say(
            [
                "It's routine: raise a standard change {what:q} on {ci} for {start} to {end}, with the risk "
                "our rule gives ({rule}). If that can't be done, change nothing.",
                "Please log a standard (pre-approved) change on {ci}, {what:q}, {start} to {end}, risk by "
                "our rule ({rule}); leave everything as it is if it isn't possible.",
            ],
            ci=item["name"],
            what="Routine patching",
            start=start,
            end=end,
            rule=RISK_RULE,
        )
    else:
        story.say(
            [
                "Patch night: raise a standard change {what:q} on each of {cis}, {start} to {end}, each with "
                "the risk our rule gives ({rule}). All of them or none: if one can't be raised, raise none.",
                "Please log standard (pre-approved) changes {what:q} on {cis} for {start} to {end}, risk by "
                "our rule ({rule}); if any of them isn't possible, leave everything as it is.",
            ],
            cis=", ".join(names[:-1]) + " and " + names[-1],
            what="Routine patching",
            start=start,
            end=end,
            rule=RISK_RULE,
        )
    schedule = ctx.choice((False, True))
    if schedule:
        story.say(
            [
                "Check the schedule for other open changes on it first."
                if len(names) == 1 else "Check the schedule for other open changes on each first.",
                "Look at what else is planned on it before you raise it."
                if len(names) == 1 else "Look at what else is planned on them before you raise anything.",
            ]
        )
    if ctx.choice((False, True)):
        for name in names:
            story.read("get_ci", {"name": name})
    for name in names:
        if name == item["name"]:
            risk, walk = walk_risk(story)
            if risk == "low":
                raise Skip("the walk reaches no business service")
        else:
            story.read("impacted_services", {"name": name, "depth": 3})
        if schedule:
            story.read("list_changes", {"ci_name": name, "state": "open"})
    story.blocked(
        "request_change",
        {
            "short_description": "Routine patching",
            "ci_name": item["name"],
            "planned_start": start.isoformat(),
            "planned_end": end.isoformat(),
            "change_type": "standard",
            "risk": risk,
        },
        kind="forbidden",
        because=f"an outage of {item['name']} reaches {len(live_services(walk))} live business services, so "
        f"its risk is {risk.replace('_', ' ')}, and a standard change is low risk by definition",
        policy="change_authorization",
    )


STANDARD_TOO_RISKY = Storyline(
    "standard_change_too_risky",
    cast_change,
    (standard_too_risky,),
    provides=("me", "item", "window"),
    capabilities=("aggregation_computation",),
    difficulty="medium",
    feasible=False,
    weight=6.0,
)

LONG_STORYLINES = (MAJOR_OUTAGE, CHANGE_PLAN)
LONG_BLOCKED = (STANDARD_TOO_RISKY,)
