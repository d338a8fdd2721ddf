"""What the meeting storylines share (stories.py, office_move.py): casting the employee who speaks, reading
a team, and times as the tools return them."""

from __future__ import annotations

import datetime as dt
from typing import Any

from stateforge.tasks.compose import Story

from .common import introduce


def when(moment: Any) -> dt.datetime:
    """A time a tool returned (ISO text or a datetime) as a datetime."""
    return moment if isinstance(moment, dt.datetime) else dt.datetime.fromisoformat(str(moment))


Span = tuple[dt.datetime, dt.datetime]


def span_of(row: dict[str, Any], start: str = "start_at", end: str = "end_at") -> Span:
    """The time span of a row a tool returned (a meeting, a booking; `starts_at`/`ends_at` for an absence)."""
    return when(row[start]), when(row[end])


def room_taken(room: dict[str, Any], slot: Span, meeting: Any = None) -> bool:
    """Whether a room `get_room` returned has a booking overlapping `slot` (other than `meeting`'s own)."""
    return any(overlaps(span_of(b), slot) for b in room["bookings"]
               if meeting is None or b["meeting_id"] != meeting)


def id_list(rows: list[dict[str, Any]]) -> str:
    """The rows' meeting ids as an SQL list: `12, 40, 41`."""
    return ", ".join(str(r["meeting_id"]) for r in rows)


def cast_person(story: Story, sql: str, params: list | None = None, *, what: str) -> dict[str, Any]:
    """Pick the employee who speaks (`story["user"]`) with SQL and open the request as them."""
    person = story.ctx.pick(sql, params or [], what=what)
    story["user"] = person
    introduce(story.ctx, person)
    return person


def direct_reports(story: Story, email: str) -> list[dict[str, Any]]:
    """Every active direct report of `email`, read page by page."""
    return story.read_all("list_direct_reports", {"person": email})


def overlaps(a: Span, b: Span) -> bool:
    """Whether two time spans overlap (touching ends do not)."""
    return a[0] < b[1] and b[0] < a[1]
