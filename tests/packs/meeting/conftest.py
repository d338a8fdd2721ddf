"""The meeting pack built small once per test process, episodes over it, and helpers to call its tools.

The frozen "now" of the pack is 2026-03-31 12:00 (a Tuesday). Built meetings run until late June 2026 and
out-of-office periods until early July, so tests that need a calendar nobody else uses schedule in the week
of 2026-07-13 (Monday) or later.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.episode import Episode
from tests.shared import pack_at

NOW = "2026-03-31T12:00:00"
FREE_MONDAY = "2026-07-13"
"""A Monday after every built meeting and out-of-office period: calendars are empty from here on."""
COUNTS = (
    " UNION ALL ".join(
        f"SELECT '{t}' AS t, count(*) AS n FROM {t}"
        for t in (
            "meetings",
            "meeting_attendees",
            "room_bookings",
            "desk_bookings",
            "out_of_office",
            "recordings",
            "meeting_notes",
            "meeting_series",
            "employees",
        )
    )
    + " ORDER BY t"
)
"""Row counts of the tables calls change most: a refused call must leave them as they were."""


@pytest.fixture(scope="session")
def meeting_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The meeting pack at scale 0.05 (150 employees, 1,000 meetings), built once for the session (the MCP
    tests read the same build). Never write to it."""
    return pack_at(tmp_path_factory, "meeting", 0.05)


@pytest.fixture
def ep(meeting_db: Path, tmp_path: Path) -> Iterator[Episode]:
    """A fresh episode over the pack, with the pack's own tools."""
    with Episode.open(meeting_db, workdir=tmp_path) as episode:
        yield episode


def ok(ep: Episode, tool: str, args: dict[str, Any] | None = None) -> Any:
    """Call a tool that must succeed; its value."""
    result = ep.call(tool, args or {})
    assert result.ok, f"{tool} failed ({result.error_kind}): {result.error}"
    return result.value


def refused(
    ep: Episode, tool: str, args: dict[str, Any], *words: str, kind: str = "tool", policy: str | None = None
) -> str:
    """Call a tool that must refuse, with an error of `kind` containing every one of `words` (and, when
    `policy` is given, a refusal by that domain.yaml policy); the message."""
    before = ep.query(COUNTS)
    result = ep.call(tool, args)
    assert not result.ok, f"{tool} should have been refused: {result.value}"
    assert result.error_kind == kind, result.error
    if policy is not None:
        assert result.policy == policy, f"refused by {result.policy!r}, not {policy!r}: {result.error}"
    for word in words:
        assert word in result.error, f"{word!r} not in: {result.error}"
    after = ep.query(COUNTS)
    assert before == after, "a refused call changed the database"
    return result.error


def people(ep: Episode, n: int, *, skip: int = 0) -> list[str]:
    """Emails of `n` active employees who head no unit, lowest ids first (after `skip`)."""
    rows = ep.query(
        "SELECT email FROM employees AS e WHERE is_active AND NOT EXISTS "
        "(SELECT 1 FROM org_units AS u WHERE u.head_employee_id = e.employee_id) ORDER BY employee_id "
        f"LIMIT {n} OFFSET {skip}"
    )
    assert len(rows) == n
    return [r["email"] for r in rows]


def room(ep: Episode, *, min_capacity: int = 1, skip: int = 0) -> dict[str, Any]:
    """A room the app can book (bookable, no approval) with at least `min_capacity` seats, in a building
    open on Mondays to Fridays."""
    rows = ep.query(
        "SELECT r.name, b.name AS building, r.capacity, r.room_id FROM rooms AS r "
        "JOIN buildings AS b ON b.building_id = r.building_id "
        f"WHERE r.is_bookable AND NOT r.requires_approval AND r.capacity >= {min_capacity} "
        "AND (SELECT count(*) FROM building_hours AS h WHERE h.building_id = r.building_id AND "
        "h.weekday <= 5) = 5 "
        f"ORDER BY r.capacity DESC, r.room_id LIMIT 1 OFFSET {skip}"
    )
    assert rows, "the built pack has no such room"
    return rows[0]


def schedule(ep: Episode, organizer: str, start: str, minutes: int = 60, **extra: Any) -> dict[str, Any]:
    """Schedule a meeting (title "Test"), returning the tool's value."""
    return ok(
        ep,
        "schedule_meeting",
        {
            "organizer": organizer,
            "title": extra.pop("title", "Test"),
            "start_at": start,
            "duration_minutes": minutes,
            **extra,
        },
    )
