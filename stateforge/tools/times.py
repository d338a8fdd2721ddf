"""Date-time parameters: what a tool accepts, and how a value with a time zone becomes the domain's time.

    DomainDateTime          # the annotation every `datetime` parameter (and TIMESTAMP column) gets

A domain stores and compares naive times: its clock (`env.now`) and its TIMESTAMP columns carry no zone,
and every time is the domain's time. A tool's date-time parameter accepts ISO 8601 with or without a zone:

- `2026-04-01T10:00:00` (or `2026-04-01T10:00`, `2026-04-01 10:00:00`): the domain's time, as is;
- `2026-04-01T10:00:00Z`, `2026-04-01T18:00:00+08:00`: converted to the domain's time zone (`DOMAIN_ZONE`,
  UTC) and then used without the zone, so both of these are 10:00.

The JSON schema says exactly that: a string with a `pattern` that admits both, and no `"format":
"date-time"`, which (RFC 3339) requires a zone, so that a client validating against the schema could send
no value without one.

A pack whose times are local to something (a building, a person) declares such a parameter with
`zoned(description)` instead: the tool gets the value with its zone, if any, and converts it itself with
`in_zone` to the zone the pack stores for that value (the meeting pack: the organizer's building).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator, WithJsonSchema

DOMAIN_ZONE = dt.UTC
"""The zone of the domain's naive times, which a value with an offset is converted to."""
PATTERN = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:?\d{2})?$"
"""ISO 8601 date and time, seconds and zone optional: what pydantic's strict parsing accepts of it."""
WORDS = (
    "a date and time as YYYY-MM-DDTHH:MM:SS, local as the parameter's description says; with a zone (Z, "
    "+08:00) it is converted to that time"
)


def to_domain_time(value: dt.datetime) -> dt.datetime:
    """`value` in the domain's time, without a zone: converted when it has one, as is when it has none."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value
    return value.astimezone(DOMAIN_ZONE).replace(tzinfo=None)


DomainDateTime = Annotated[
    dt.datetime,
    AfterValidator(to_domain_time),
    WithJsonSchema(
        {
            "type": "string",
            "pattern": PATTERN,
            "description": "ISO 8601 date and time; without a zone it is the domain's time, a zone (Z, "
            "+08:00) is converted to it (UTC).",
        }
    ),
]


def domain_times(annotation: Any) -> Any:
    """`DomainDateTime` for a bare `datetime` annotation, else the annotation (unions are `bounded`'s)."""
    return DomainDateTime if annotation is dt.datetime else annotation


@dataclass(frozen=True)
class KeepZone:
    """Marks a date-time parameter whose tool converts a zone itself: `arguments.bounded` leaves it as
    given (naive, or aware with its offset) instead of converting it to the domain's time."""


def zoned(description: str) -> Any:
    """The annotation of a date-time parameter that is local to something the tool knows (a building, a
    person): ISO 8601 with or without a zone, handed to the tool as given; `description` says whose local
    time it is and that a zone is converted to it (the JSON schema's description)."""
    return Annotated[
        dt.datetime,
        KeepZone(),
        WithJsonSchema({"type": "string", "pattern": PATTERN, "description": description}),
    ]


def in_zone(value: dt.datetime, zone: str | None) -> dt.datetime:
    """`value` as a naive time of the IANA zone `zone`: converted when it carries an offset, as is when it
    has none (it is already local). An unknown or missing zone is UTC."""
    if value.tzinfo is None or value.utcoffset() is None:
        return value
    return value.astimezone(zone_info(zone)).replace(tzinfo=None)


def zone_info(zone: str | None) -> dt.tzinfo:
    """The tz database's zone `zone`, or UTC when it is None or unknown."""
    if not zone:
        return dt.UTC
    try:
        return zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return dt.UTC
