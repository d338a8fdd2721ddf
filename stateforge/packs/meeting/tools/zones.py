"""Whose local time a meeting-pack time is, and how a time sent with a zone becomes it.

The pack stores times without a zone, each in the local time of where it happens (schema.sql): a meeting's
times (and its room bookings') in its organizer's building's zone, an out-of-office period in its
person's, a room's free time in its building's. Where a person has no home building their profile's
`timezone` stands in. A tool's date-time parameter is declared `zoned(...)`, so it reaches the tool as sent:

- without a zone (`2026-04-07T10:00`) it is that local time, as is;
- with one (`2026-04-07T08:00:00Z`, `2026-04-07T16:00:00+08:00`) it is converted to the zone the pack
  stores for that value (`at_person`, `at_building`), or, where the rows searched lie in several zones
  (`search_meetings` over every organizer, `find_rooms` over every building), compared row by row with
  the same instant in each row's zone (`per_zone`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from stateforge.tools import Env
from stateforge.tools.times import in_zone, zoned

_FORM = "Date and time as YYYY-MM-DDTHH:MM[:SS]"
_ZONE = "a zone (Z, +08:00) is converted to it"
MeetingTime = zoned(f"{_FORM}, in the organizer's local time (their building's time zone); {_ZONE}.")
PersonTime = zoned(f"{_FORM}, in the person's local time (their building's time zone); {_ZONE}.")
RoomTime = zoned(
    f"{_FORM}, in the room's building's local time; {_ZONE} (for each building when none is given)."
)
SearchTime = zoned(
    f"{_FORM}, local time; with a zone (Z, +08:00), each meeting is compared in its organizer's zone."
)

PERSON_ZONE = (
    "coalesce((SELECT zb.timezone FROM buildings AS zb WHERE zb.building_id = {e}.home_building_id), "
    "{e}.timezone)"
)
"""SQL for the zone of the employee row aliased `{e}`: their building's, else their profile's."""


def aware(value: dt.datetime | None) -> bool:
    """Whether `value` carries a zone (so it must be converted)."""
    return value is not None and value.tzinfo is not None and value.utcoffset() is not None


def person_zone(env: Env, employee_id: int) -> str | None:
    """The zone a person's times are stored in: their home building's, else their profile's."""
    return env.scalar(f"SELECT {PERSON_ZONE.format(e='e')} FROM employees AS e WHERE e.employee_id = ?",
                      [employee_id])


def at_person(env: Env, value: Any, employee_id: int) -> Any:
    """`value` (a datetime or None) as the person's local time: converted when it has a zone."""
    return in_zone(value, person_zone(env, employee_id)) if aware(value) else value


def at_building(env: Env, value: Any, building_id: int) -> Any:
    """`value` (a datetime or None) as the building's local time: converted when it has a zone."""
    if not aware(value):
        return value
    return in_zone(value, env.scalar("SELECT timezone FROM buildings WHERE building_id = ?", [building_id]))


def zones(env: Env) -> list[str]:
    """Every zone a stored time may be in (the buildings' and the people's), sorted."""
    rows = env.query("SELECT timezone FROM buildings UNION SELECT timezone FROM employees ORDER BY 1")
    return [r["timezone"] for r in rows if r["timezone"]]


def per_zone(env: Env, value: dt.datetime, zone_sql: str) -> tuple[str, list[Any]]:
    """SQL (and its parameters) for `value` as local time in the zone `zone_sql` gives for each row: the
    value itself when it has no zone, else one local time per zone, picked by the row's zone."""
    if not aware(value):
        return "?", [value]
    cases, params = [], []
    for zone in zones(env):
        cases.append("WHEN ? THEN ?")
        params += [zone, in_zone(value, zone)]
    return f"(CASE {zone_sql} {' '.join(cases)} ELSE ? END)", [*params, in_zone(value, "UTC")]
