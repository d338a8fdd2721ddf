"""Ending meetings: cancel one, cancel many by day, time and title, and delete cancelled ones for good."""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic import Field

from stateforge.tools import Env, ToolError
from stateforge.tools.kinds import change
from stateforge.tools.policies import refuse

from .common import Meeting, cancel_all, find_person, last_day, listed, own_meeting, upcoming_in, who


@change(reads=("meetings", "employees", "room_bookings"), writes=("meetings", "room_bookings"))
def cancel_meeting(env: Env, meeting: Meeting, organizer: str) -> dict:
    """Cancel an upcoming meeting: it stays in calendars as cancelled and its rooms are released.

    Args:
        organizer: The meeting's organizer, who cancels it (email, employee number or full name).
    """
    m, _ = own_meeting(env, meeting, organizer, action="cancel")
    rooms = cancel_all(env, [m["meeting_id"]])
    return {
        "meeting_id": m["meeting_id"],
        "title": m["title"],
        "status": "cancelled",
        "rooms_released": rooms,
    }


@change(reads=("meetings", "employees", "room_bookings"), writes=("meetings", "room_bookings"))
def cancel_meetings(
    env: Env,
    organizer: str,
    from_date: dt.date,
    to_date: dt.date | None = None,
    starts_from_time: dt.time | None = None,
    starts_before_time: dt.time | None = None,
    title_contains: str | None = None,
    series_id: int | None = None,
) -> dict:
    """Cancel every upcoming meeting someone organises on a day or in a date range, optionally only those
    starting in a time-of-day window, whose title contains a text, or of one series; their rooms are
    released. Lists what was cancelled.

    Args:
        organizer: Whose meetings: an email address, an employee number (E and seven digits) or a full name.
        from_date: The first day.
        to_date: The last day, inclusive (default: from_date only).
        starts_from_time: Only meetings starting at or after this time of day (e.g. 15:00 for "after 3 pm").
        starts_before_time: Only meetings starting strictly before this time of day.
        title_contains: Only meetings whose title contains this text (case-insensitive).
        series_id: Only occurrences of this recurring series.
    """
    org = find_person(env, organizer, role="organizer", active=False)
    last = last_day(from_date, to_date)
    where = upcoming_in(env, from_date, last, starts_from_time, starts_before_time, title_contains)
    where.add("organizer_id = ?", org["employee_id"]).when(series_id, "series_id = ?")
    found = env.query(
        f"SELECT meeting_id, title, start_at, end_at FROM meetings WHERE {where.sql} "
        "ORDER BY start_at, meeting_id",
        where.params,
    )
    if not found:
        raise refuse(
            "only_upcoming_meetings_change",
            f"{who(org)} organises no upcoming meeting matching that between {from_date} and {last}.",
        )
    rooms = cancel_all(env, [f["meeting_id"] for f in found])
    return {"cancelled": listed(found), "rooms_released": rooms}


@change(reads=("meetings", "employees"), writes=("meetings",))
def delete_cancelled_meetings(
    env: Env,
    organizer: str,
    meeting_ids: Annotated[list[int], Field(max_length=500)] = [],  # noqa: B006 - pydantic copies it
    cancelled_before: dt.date | None = None,
) -> dict:
    """Remove cancelled meetings from an organizer's calendar for good: given ones, and/or every cancelled
    meeting of theirs that was to start before a day. Their invitations, room bookings and notes go with
    them. Only cancelled meetings can be deleted (cancel_meeting first).

    Args:
        organizer: Whose meetings: an email address, an employee number (E and seven digits) or a full name.
        meeting_ids: These cancelled meetings.
        cancelled_before: Every cancelled meeting of theirs that was to start before this day.
    """
    org = find_person(env, organizer, role="organizer", active=False)
    if not meeting_ids and cancelled_before is None:
        raise ToolError("give meeting_ids or cancelled_before.")
    chosen = env.query(
        "SELECT meeting_id, title, status, organizer_id FROM meetings WHERE meeting_id IN (SELECT unnest(?)) "
        "ORDER BY meeting_id",
        [list(meeting_ids)],
    )
    missing = sorted(set(meeting_ids) - {c["meeting_id"] for c in chosen})
    if missing:
        raise ToolError(f"no meeting {', '.join(map(str, missing))}.")
    foreign = [c["meeting_id"] for c in chosen if c["organizer_id"] != org["employee_id"]]
    if foreign:
        raise refuse(
            "organizer_manages_meeting",
            f"{who(org)} does not organise meeting(s) {', '.join(map(str, foreign))}; only the "
            "organizer deletes a meeting.",
        )
    live = [c["meeting_id"] for c in chosen if c["status"] != "cancelled"]
    if live:
        raise ToolError(
            f"meeting(s) {', '.join(map(str, live))} are not cancelled; only cancelled meetings are deleted."
        )
    ids = [c["meeting_id"] for c in chosen]
    if cancelled_before is not None:
        ids += [
            r["meeting_id"]
            for r in env.query(
                "SELECT meeting_id FROM meetings WHERE organizer_id = ? AND status = 'cancelled' "
                "AND start_at < ?",
                [org["employee_id"], cancelled_before],
            )
        ]
    ids = sorted(set(ids))
    if not ids:
        raise ToolError(f"{who(org)} has no cancelled meeting that was to start before {cancelled_before}.")
    deleted = env.delete_where("meetings", "meeting_id IN (SELECT unnest(?))", [ids])
    return {"deleted": deleted, "meeting_ids": ids, "also_removed": env.changes.to_dict()}

