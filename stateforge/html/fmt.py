"""Numbers and values as people read them, the same on every machine (no locale, no clock).

    count(1234567)        -> "1,234,567"
    plural(1, "row")      -> "1 row"
    percent(0.0123)       -> "1.2%"       (a value above 0 never shows as "0.0%": "<0.1%")
    size(35_401_728)      -> "33.8 MiB"
    number(3.14159)       -> "3.14"       (3 significant digits past the thousands)
    value(Decimal("9.5")) -> "9.5"        (via the canonical JSON values, shortened to `limit`)
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from stateforge.values import json_value


def count(n: int | None) -> str:
    """An integer with thousands separators; `-` for None."""
    return "-" if n is None else f"{int(n):,}"


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 violation`, `2 violations`, `1,204 rows` (`many` for irregular plurals)."""
    return f"{count(n)} {word if n == 1 else many or word + 's'}"


def percent(fraction: float | None, digits: int = 1) -> str:
    """A share as a percentage; tiny but non-zero shares say so instead of rounding to zero."""
    if fraction is None:
        return "-"
    if 0 < fraction < 0.5 * 10 ** -(digits + 2):
        return f"<{10 ** -digits:.{digits}f}%"
    if 1 > fraction > 1 - 0.5 * 10 ** -(digits + 2):
        return f">{100 - 10 ** -digits:.{digits}f}%"
    return f"{fraction * 100:.{digits}f}%"


def number(x: float | int | None) -> str:
    """A number, short: integers in full with separators, others to 3 significant digits (at least)."""
    if x is None:
        return "-"
    if isinstance(x, int) or (isinstance(x, float) and x.is_integer() and abs(x) < 1e15):
        return f"{int(x):,}"
    if not math.isfinite(x):
        return str(x)
    magnitude = abs(x)
    if magnitude >= 1000:
        return f"{x:,.0f}"
    if magnitude >= 1:
        return f"{x:.{max(0, 2 - int(math.log10(magnitude)))}f}"
    return f"{x:.3g}"


def size(n_bytes: int) -> str:
    """A file size in binary units (KiB, MiB, GiB)."""
    value = float(n_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def value(v: Any, limit: int = 60) -> str:
    """A database value as text (canonical JSON values; NULL as `NULL`), cut to `limit` characters.

    Timestamps read `2026-06-30 23:59:59` (to the second: the exact value is in the JSON output)."""
    if v is None:
        return "NULL"
    if isinstance(v, dt.datetime):
        return v.isoformat(sep=" ", timespec="seconds")
    shown = json_value(v)
    text = shown if isinstance(shown, str) else str(shown).lower() if isinstance(shown, bool) else str(shown)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"
