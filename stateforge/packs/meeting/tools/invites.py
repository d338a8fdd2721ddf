"""Invitations: the organizer invites and removes people; invitees accept, answer tentatively or decline,
one invitation or many at once."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from stateforge.tools import Env, ToolError, tool
from stateforge.tools.kinds import change
from stateforge.tools.policies import refuse

from .checks import accepted_conflicts, availability_warnings, away_conflicts, headcount
from .common import (
    MAX_INVITEES,
    UNIT_TREE,
    Meeting,
    People,
    find_meeting,
    find_people,
    find_person,
    find_unit,
    invitations,
    last_day,
    listed,
    own_meeting,
    person_id,
    require_upcoming,
    span,
    title_of,
    upcoming_in,
    who,
)

Answer = Literal["accepted", "tentative", "declined"]
Response = Literal["pending", "accepted", "tentative", "declined"]
_READS = ("meetings", "employees", "meeting_attendees", "out_of_office", "working_hours")


@tool(
    kind="write",
    reads=(*_READS, "org_units", "room_bookings", "rooms"),
    writes=("meeting_attendees",),
    idempotent=True,
    destructive=False,
)
def invite_attendees(
    env: Env,
    meeting: Meeting,
    organizer: str,
    people: People = [],  # noqa: B006 - a pydantic default, copied per call
    org_unit: str | None = None,
    include_subunits: bool = False,
    optional: bool = False,
) -> dict:
    """Invite more people to an upcoming meeting: named people and/or every active member of an org unit.
    People already invited are skipped (and listed); answers start as pending. Warns when invitees are busy
    or away, or when the booked room gets too small.

    Args:
        organizer: The meeting's organizer, who invites (email, employee number or full name).
        people: The people to invite, each an email address, employee number or full name.
        org_unit: Invite every active member of this org unit (name or code).
        include_subunits: With org_unit, also the members of every unit below it.
        optional: Invite them as optional attendees.
    """
    m, org = own_meeting(env, meeting, organizer)
    chosen = find_people(env, people, role="people")
    if org_unit:
        unit = find_unit(env, org_unit)
        members = env.query(
            UNIT_TREE + "SELECT employee_id, first_name || ' ' || last_name AS name, email FROM employees "
            "WHERE is_active AND org_unit_id IN (SELECT org_unit_id FROM tree) ORDER BY employee_id",
            [unit["org_unit_id"], include_subunits],
        )
        chosen += members
    if not chosen:
        raise ToolError("name people to invite, or an org unit.")
    invited = {
        a["employee_id"]: a["response"]
        for a in env.query(
            "SELECT employee_id, response FROM meeting_attendees WHERE meeting_id = ?", [m["meeting_id"]]
        )
    }
    new, skipped, seen = [], [], set()
    for p in chosen:
        if p["employee_id"] in seen:
            continue
        seen.add(p["employee_id"])
        if p["employee_id"] == org["employee_id"]:
            skipped.append(f"{who(p)} organises the meeting")
        elif p["employee_id"] in invited:
            skipped.append(f"{who(p)} is already invited ({invited[p['employee_id']]})")
        else:
            new.append(p)
    if len(invited) + len(new) > MAX_INVITEES:
        raise refuse(
            "invitee_limit",
            f"a meeting has at most {MAX_INVITEES} invitees; {title_of(m)} has {len(invited)} and this adds "
            f"{len(new)}.",
        )
    env.insert_many("meeting_attendees", invitations([m["meeting_id"]], ((new, optional),)))
    warnings = availability_warnings(
        env, [p["employee_id"] for p in new], m["start_at"], m["end_at"], m["meeting_id"]
    )
    seats = headcount(env, m["meeting_id"], org["employee_id"])
    for r in env.query(
        "SELECT r.name, r.capacity FROM room_bookings AS b JOIN rooms AS r ON r.room_id = b.room_id "
        "WHERE b.meeting_id = ? AND b.status = 'confirmed' ORDER BY r.name",
        [m["meeting_id"]],
    ):
        if r["capacity"] < seats:
            warnings.append(f"room {r['name']} seats {r['capacity']}; {seats} people are now expected")
    return {
        "meeting_id": m["meeting_id"],
        "invited": [who(p) for p in new],
        "skipped": skipped,
        "warnings": warnings,
    }


@change(reads=("meetings", "employees", "meeting_attendees"), writes=("meeting_attendees",))
def remove_attendees(
    env: Env,
    meeting: Meeting,
    organizer: str,
    people: People = [],  # noqa: B006 - a pydantic default, copied per call
    response: Response | None = None,
    optional_only: bool = False,
) -> dict:
    """Remove invitees from an upcoming meeting: named people, and/or everyone whose answer is `response`
    (e.g. everyone who declined), optionally only optional attendees.

    Args:
        organizer: The meeting's organizer, who removes them (email, employee number or full name).
        people: The people to remove, each an email address, employee number or full name.
        response: Remove everyone whose answer is this.
        optional_only: Only remove optional attendees (with response).
    """
    m, _ = own_meeting(env, meeting, organizer)
    if not people and response is None:
        raise ToolError(
            "name people to remove, or a response (e.g. declined) to remove everyone who gave it."
        )
    named = find_people(env, people, role="people", active=False)
    invited = {
        a["employee_id"]
        for a in env.query(
            "SELECT employee_id FROM meeting_attendees WHERE meeting_id = ?", [m["meeting_id"]]
        )
    }
    absent = [who(p) for p in named if p["employee_id"] not in invited]
    if absent:
        raise ToolError(f"not invited to {title_of(m)}: {', '.join(absent)}.")
    removed = env.query(
        """
        SELECT e.first_name || ' ' || e.last_name AS name, e.email, a.employee_id FROM meeting_attendees AS a
        JOIN employees AS e ON e.employee_id = a.employee_id
        WHERE a.meeting_id = ? AND (a.employee_id IN (SELECT unnest(?))
              OR (a.response = ? AND (NOT ? OR a.is_optional)))
        ORDER BY e.employee_id
        """,
        [m["meeting_id"], [p["employee_id"] for p in named], response, optional_only],
    )
    if not removed:
        raise ToolError(f"nobody invited to {title_of(m)} answered {response!r}.")
    env.delete_where(
        "meeting_attendees",
        "meeting_id = ? AND employee_id IN (SELECT unnest(?))",
        [m["meeting_id"], [r["employee_id"] for r in removed]],
    )
    return {"meeting_id": m["meeting_id"], "removed": [who(r) for r in removed]}


def _accept_problems(env: Env, person: dict, meetings: list[dict]) -> dict[int, str]:
    """Why `person` cannot accept each of `meetings` (taken in order): a clash with a meeting they accepted,
    with one accepted before it in the same call, or with an out-of-office period. Meetings not listed are
    fine. Two queries, whatever the number of meetings."""
    if not meetings:
        return {}
    lo, hi = min(m["start_at"] for m in meetings), max(m["end_at"] for m in meetings)
    accepted = accepted_conflicts(env, [person["employee_id"]], lo, hi)
    away = away_conflicts(env, [person["employee_id"]], lo, hi)
    problems: dict[int, str] = {}
    taken: list[dict] = []
    for m in meetings:
        start, end = m["start_at"], m["end_at"]
        clash = next(
            (
                c
                for c in accepted
                if c["meeting_id"] != m["meeting_id"] and c["start_at"] < end and start < c["end_at"]
            ),
            None,
        )
        twin = next((t for t in taken if t["start_at"] < end and start < t["end_at"]), None)
        gone = next((a for a in away if a["starts_at"] < end and start < a["ends_at"]), None)
        if clash:
            problems[m["meeting_id"]] = (
                f"{title_of(m)} overlaps {clash['title']!r} (meeting {clash['meeting_id']}, "
                f"{span(clash['start_at'], clash['end_at'])}), which {person['name']} has accepted"
            )
        elif twin:
            problems[m["meeting_id"]] = f"{title_of(m)} overlaps {title_of(twin)}, accepted in this call"
        elif gone:
            problems[m["meeting_id"]] = (
                f"{person['name']} is out of office ({gone['reason']}) "
                f"{span(gone['starts_at'], gone['ends_at'])} during {title_of(m)}"
            )
        else:
            taken.append(m)
    return problems


@change(reads=_READS, writes=("meeting_attendees",))
def respond_to_invitation(env: Env, meeting: Meeting, person: str, response: Answer) -> dict:
    """Answer an invitation to an upcoming meeting: accept, accept tentatively or decline. Accepting is
    refused while the person has accepted another meeting at an overlapping time or is out of office then.

    Args:
        person: The invitee who answers: an email address, an employee number (E and seven digits) or a
            full name.
        response: accepted, tentative or declined.
    """
    m = find_meeting(env, meeting)
    p = find_person(env, person, role="person")
    row = env.one(
        "SELECT response FROM meeting_attendees WHERE meeting_id = ? AND employee_id = ?",
        [m["meeting_id"], p["employee_id"]],
    )
    if row is None:
        whose = " (they organise it)" if p["employee_id"] == m["organizer_id"] else ""
        raise ToolError(f"{who(p)} is not invited to {title_of(m)}{whose}; only invitees answer.")
    require_upcoming(env, m, "answer")
    if row["response"] == response:
        return {"meeting_id": m["meeting_id"], "person": who(p), "response": response, "changed": False}
    if response == "accepted":
        problem = _accept_problems(env, p, [m]).get(m["meeting_id"])
        if problem:
            raise refuse(
                "one_meeting_at_a_time",
                f"{who(p)} cannot accept: {problem}. Decline or move the other one first.",
            )
    env.update(
        "meeting_attendees",
        {"meeting_id": m["meeting_id"], "employee_id": p["employee_id"]},
        {"response": response, "responded_at": env.now},
    )
    return {"meeting_id": m["meeting_id"], "person": who(p), "response": response, "changed": True}


@change(reads=_READS, writes=("meeting_attendees",))
def respond_to_invitations(
    env: Env,
    person: str,
    response: Answer,
    from_date: dt.date,
    to_date: dt.date | None = None,
    starts_from_time: dt.time | None = None,
    starts_before_time: dt.time | None = None,
    organizer: str | None = None,
    title_contains: str | None = None,
    current_response: Response | None = None,
    skip_conflicts: bool = False,
) -> dict:
    """Answer many invitations at once: every invitation of a person to an upcoming meeting in a date range
    (optionally only meetings starting in a time-of-day window, from one organizer, whose title contains a
    text, or currently answered a given way) gets `response`. When accepting, meetings that clash with an
    accepted meeting, with each other or with an out-of-office period make the call fail, unless
    skip_conflicts (then the earlier meeting wins and the others are listed as skipped).

    Args:
        person: The invitee: an email address, an employee number (E and seven digits) or a full name.
        response: accepted, tentative or declined.
        from_date: The first day.
        to_date: The last day, inclusive (default: from_date only).
        starts_from_time: Only meetings starting at or after this time of day.
        starts_before_time: Only meetings starting strictly before this time of day.
        organizer: Only meetings this person organises (email, employee number or full name).
        title_contains: Only meetings whose title contains this text (case-insensitive).
        current_response: Only invitations currently answered this way (e.g. pending).
        skip_conflicts: When accepting, skip clashing meetings instead of failing.
    """
    p = find_person(env, person, role="person")
    last = last_day(from_date, to_date)
    where = upcoming_in(env, from_date, last, starts_from_time, starts_before_time, title_contains, "m.")
    where.add("a.employee_id = ? AND a.response <> ?", p["employee_id"], response)
    where.when(current_response, "a.response = ?")
    if organizer:
        where.add("m.organizer_id = ?", person_id(env, organizer, role="organizer"))
    found = env.query(
        "SELECT m.meeting_id, m.title, m.start_at, m.end_at, a.response FROM meeting_attendees AS a JOIN "
        f"meetings AS m ON m.meeting_id = a.meeting_id WHERE {where.sql} ORDER BY m.start_at, m.meeting_id",
        where.params,
    )
    if not found:
        raise refuse(
            "only_upcoming_meetings_change",
            f"{who(p)} has no invitation to an upcoming meeting matching that from {from_date} to {last} "
            f"that is not already {response}.",
        )
    problems = _accept_problems(env, p, found) if response == "accepted" else {}
    done, skipped = [], []
    for m in found:
        problem = problems.get(m["meeting_id"])
        if problem and not skip_conflicts:
            raise refuse(
                "one_meeting_at_a_time",
                f"{who(p)} cannot accept: {problem}. Nothing was answered; pass skip_conflicts to "
                "accept the others."
            )
        (skipped if problem else done).append({**m, "why": problem} if problem else m)
    env.update_where(
        "meeting_attendees",
        "employee_id = ? AND meeting_id IN (SELECT unnest(?))",
        [p["employee_id"], [m["meeting_id"] for m in done]],
        {"response": response, "responded_at": env.now},
    )
    return {
        "person": who(p),
        "response": response,
        "answered": listed(done),
        "skipped": [{"meeting_id": m["meeting_id"], "title": m["title"], "why": m["why"]} for m in skipped],
    }

