"""Canonical JSON values: how a database value is written wherever it leaves the process.

Diffs, tool results, tasks and release manifests all go through `json_value`, so the same row reads the
same in every artifact, on every machine:

    None -> null          bool, int -> as is        float -> as is ("NaN", "Infinity" as strings)
    Decimal -> "12.50"    (a string: the column's scale kept, no float rounding)
    datetime -> "2026-06-30T12:00:00" (ISO 8601; "+00:00" kept when the value has a zone)
    date -> "2026-06-30"  time -> "09:30:00"  timedelta -> total seconds (a number)
    UUID -> its text      bytes -> hex text     list, tuple -> list     dict (STRUCT, MAP) -> dict

`dumps` is the one canonical serialisation: keys sorted, no insignificant whitespace, UTF-8 kept.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import uuid
from decimal import Decimal
from typing import Any


def json_value(value: Any) -> Any:
    """`value` (as DuckDB's Python client returns it) as a JSON-ready, canonical value."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, Decimal):
        return str(value) if value.is_finite() else str(value).replace("Inf", "Infinity")
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): json_value(v) for k, v in value.items()}
    return str(value)


def json_row(row: dict[str, Any]) -> dict[str, Any]:
    """Every value of a row (column -> value) through `json_value`."""
    return {k: json_value(v) for k, v in row.items()}


def dumps(data: Any, *, indent: int | None = None) -> str:
    """The canonical JSON text of `data`: sorted keys, compact unless `indent`, non-ASCII kept."""
    separators = (",", ": ") if indent is not None else (",", ":")
    return json.dumps(
        data, sort_keys=True, ensure_ascii=False, separators=separators, indent=indent, default=json_value
    )
