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


def cast_person(story: Story, sql: str, params: list | None = None, *, what: str) -> dict[str, Any]:
    """Pick the employee who speaks (`story["user"]`) with SQL and open the request as them."""
    person = story.ctx.pick(sql, params or [], what=what)
    story["user"] = person
    introduce(story.ctx, person)
    return person


def direct_reports(story: Story, email: str) -> list[dict[str, Any]]:
    """Every active direct report of `email`, read page by page."""
    return story.read_all("list_direct_reports", {"person": email})


def overlaps(a: tuple[dt.datetime, dt.datetime], b: tuple[dt.datetime, dt.datetime]) -> bool:
    """Whether two time spans overlap (touching ends do not)."""
    return a[0] < b[1] and b[0] < a[1]
