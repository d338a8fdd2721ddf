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
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import AfterValidator, WithJsonSchema

DOMAIN_ZONE = dt.UTC
"""The zone of the domain's naive times, which a value with an offset is converted to."""
PATTERN = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:?\d{2})?$"
"""ISO 8601 date and time, seconds and zone optional: what pydantic's strict parsing accepts of it."""
WORDS = (
    "a date and time as YYYY-MM-DDTHH:MM:SS, in the domain's time; with a zone (Z, +08:00) it is converted "
    "to the domain's time (UTC)"
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
