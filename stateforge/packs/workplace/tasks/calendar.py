"""Meetings the storylines put in: one after another at the earliest time the people are free, so each
depends on the ones before it (a solver that books them in another order, or all at once, lands on other
times)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from stateforge.tasks import Skip
from stateforge.tasks.compose import Story

DAYS = (dt.date(2026, 7, 7), dt.date(2026, 7, 8), dt.date(2026, 7, 9))
"""Next week's Tuesday to Thursday (the workplace's today is Tuesday 30 June 2026)."""


def earliest(story: Story, people: Sequence[str], day: dt.date, minutes: int, step: int = 30) -> dict:
    """The earliest slot of `day` when all of `people` are free (`find_meeting_times`, starts on a grid of
    `step` minutes); `Skip` if none."""
    query = {"people": list(people), "date": day, "duration_minutes": minutes}
    if step != 30:  # the tool's own grid otherwise
        query["step_minutes"] = step
    times = story.read("find_meeting_times", query)
    if not times["slots"]:
        raise Skip("no common slot")
    slot = times["slots"][0]
    story.ctx.derived(slot["start_at"], "the earliest common free time, from find_meeting_times")
    return slot


def one_to_ones(
    story: Story, host: str, guests: Sequence[str], day: dt.date, minutes: int, title: str, step: int = 30
) -> None:
    """An online meeting `title` of `host` with each of `guests` in turn, each at the earliest time the two
    are free on `day` after the ones booked before it (on a grid of `step` minutes)."""
    for guest in guests:
        slot = earliest(story, [host, guest], day, minutes, step)
        story.call("schedule_meeting", {"organizer": host, "title": title, "start_at": slot["start_at"],
                                        "duration_minutes": minutes, "invitees": [guest], "is_online": True})
