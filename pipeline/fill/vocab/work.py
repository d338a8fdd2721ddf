"""Work texts: meeting subjects, agendas, meeting notes, out-of-office replies.

People are named by first name only (`{first}`, from `common.FIRST`), as in real calendars and notes.
"""

from __future__ import annotations

from pipeline.fill.grammar import Grammar
from pipeline.fill.vocab.common import FIRST

PROJECT = (
    "Atlas Phoenix Orion Hermes Nova Apollo Falcon Aurora Mercury Titan Beacon Compass Summit Horizon "
    "Keystone Lighthouse Meridian Northstar Pegasus Polaris Quartz Sequoia Spark Vega Zephyr Cobalt Ember "
    "Harbor Juniper Lumen Mosaic Nimbus Onyx Prism Redwood Sierra Tundra Willow"
)
KIND = (
    "Sync|Kickoff|Review|Planning|Status Update|Demo|Retro|Go/No-Go|Deep Dive|Working Session|Check-in|"
    "Postmortem|Office Hours|Standup|Steering Committee|Launch Readiness"
)
TEAM = (
    "Platform|Payments|Growth|Data|Mobile|Web|Security|Finance|Marketing|Sales|Legal|People|Support|Design|"
    "Infrastructure|Analytics|Procurement|Facilities|Product|Customer Success|Brand|Operations|Research"
)
TOPIC = (
    "Pricing|Onboarding|Hiring Plan|Roadmap|Budget|OKR|Launch|Migration|Security Audit|Vendor Selection|"
    "Customer Feedback|Release|Capacity Planning|Performance|Compensation|Office Move|Data Retention|API "
    "Design|Forecast|Churn|Pipeline|Headcount|Accessibility|Incident Response|Partnerships|Renewals"
)
ROLE = (
    "Senior Data Engineer|Product Designer|Account Executive|Backend Engineer|Engineering Manager|"
    "Financial Analyst|Recruiter|Marketing Manager|Site Reliability Engineer|Legal Counsel|Data Scientist|"
    "Customer Success Manager|Frontend Engineer|Office Manager|Security Engineer"
)
COMMON_MEETINGS = (
    "Weekly Sync|Team Standup|Sprint Planning|Retrospective|All Hands|Quarterly Business Review|Roadmap "
    "Planning|Incident Postmortem|Onboarding Session|Architecture Review|Brainstorm|Hiring Debrief|Project "
    "Kickoff|Training|Budget Review|Leadership Sync|Office Hours|Town Hall|Lunch and Learn"
)
MEETING_TITLE = Grammar.of(
    ("{common}", 3),
    ("{project} {kind}", 6),
    ("{team} {kind}", 5),
    ("Q{quarter} {topic} Review", 2),
    ("Q{quarter} {topic} Planning", 2),
    ("1:1 {first} / {first}", 4),
    ("{first} / {first} 1:1", 1),
    ("Interview: {role}", 2),
    ("{topic} Discussion", 2),
    ("{topic} Brainstorm", 1),
    ("{team} x {team} Sync", 1),
    ("{project}: {topic} Deep Dive", 1),
    ("Coffee Chat with {first}", 1),
    ("{project} {team} {kind}", 2),
    ("{team} {topic} {kind}", 2),
    ("{kind}: {project} {topic}", 1),
    common=COMMON_MEETINGS, project=PROJECT, kind=KIND, team=TEAM, topic=TOPIC, quarter="1 2 3 4", role=ROLE,
    first=FIRST,
)

_ITEM_SLOTS = {
    "topic": TOPIC,
    "topic_lower": TOPIC.lower(),
    "project": PROJECT,
    "team": TEAM,
    "first": FIRST,
    "doc": "draft proposal|launch plan|design doc|budget sheet|hiring plan|Q3 forecast|customer survey|RFC",
    "metric": "activation|churn|NPS|pipeline coverage|uptime|ticket backlog|burn rate|conversion",
}
ITEM_FIRST = Grammar.of(
    ("Review last week's action items", 3),
    ("Welcome and goals for today", 1),
    ("{topic} update ({first})", 3),
    ("Recap of the {doc}", 1),
    ("Metrics review: {metric}", 1),
    **_ITEM_SLOTS,
)
ITEM = Grammar.of(
    ("{topic} update ({first})", 4),
    ("Decide on {topic_lower}", 3),
    ("Demo of {project} ({first})", 2),
    ("Risks and blockers", 2),
    ("Open questions", 2),
    ("Walk through the {doc}", 2),
    ("{team} updates", 2),
    ("Metrics review: {metric}", 2),
    ("Feedback on the {doc}", 1),
    ("Next steps and owners", 2),
    **_ITEM_SLOTS,
)

NOTE_FIRST = Grammar.of(
    ("Agreed to {decision}.", 4),
    ("{first} will {action} by {day}.", 4),
    ("Action: {first} to {action}.", 3),
    ("{team} flagged {risk} as the main risk.", 2),
    ("Decision: {decision}.", 2),
    ("Quick sync, no blockers this week.", 1),
    decision=(
        "move the launch to next quarter|keep the current pricing|ship it behind a feature flag|drop the "
        "export feature from scope|run a pilot with three customers|freeze hiring until Q3|split the "
        "migration into two phases|adopt the new vendor|extend the beta by two weeks|retire the legacy "
        "dashboard"
    ),
    action=(
        "share the updated forecast|send the notes to the group|book a follow-up with legal|draft the RFC|"
        "update the roadmap|collect customer feedback|fix the flaky tests|confirm the budget|prepare the "
        "demo|review the contract|write the announcement|check capacity with ops"
    ),
    day="Monday Tuesday Wednesday Thursday Friday|end of week|end of month|next sprint",
    team=TEAM, risk="hiring|vendor delays|data quality|scope creep|budget|security review|capacity|timeline",
    first=FIRST,
)
NOTE_MORE = Grammar.of(
    ("{first} to {action} by {day}.", 4),
    ("Open question: {question}?", 3),
    ("{metric} is {trend} {pct}% week over week.", 3),
    ("Blocked on {blocker}; escalate if not resolved by {day}.", 2),
    ("Follow-up scheduled for {day}.", 2),
    ("Everyone agreed the {doc} is ready for review.", 1),
    action="send the slides|loop in finance|update the ticket|share the numbers|set up the next review",
    day="Monday Tuesday Wednesday Thursday Friday",
    question=(
        "who owns the rollout|do we need legal sign-off|can we reuse the old contract|what is the real "
        "deadline|do customers actually want this|is the budget approved"
    ),
    metric="Activation|Churn|Pipeline|Uptime|Ticket volume|Conversion|Signups|Revenue",
    trend="up down", pct="2 3 4 5 7 8 10 12 15",
    blocker="the security review|vendor pricing|missing data|an open hire|the API change|legal approval",
    doc="design doc|proposal|launch plan|budget|FAQ",
    first=FIRST,
)

LEAVE = "vacation|parental leave|a business trip|a conference|training|sick leave|a team offsite"
OUT_OF_OFFICE = Grammar.of(
    ("I'm out of the office until {day} with limited access to email.", 4),
    ("Thanks for your message. I'm on {leave} and will reply when I'm back.", 3),
    ("I'm away on {leave} until {day}. For anything urgent, please contact {first}.", 4),
    ("Out of office until {day}. {first} is covering for me in the meantime.", 2),
    ("I'm travelling with limited connectivity and will answer as soon as I can.", 1),
    ("Out of office until {day}.", 1),
    ("On {leave} until {day}.", 1),
    ("Away until {day}, back soon.", 1),
    day="Monday|Tuesday|Wednesday|Thursday|Friday|next week|the 15th|the end of the month|early next month",
    leave=LEAVE,
    first=FIRST,
)
