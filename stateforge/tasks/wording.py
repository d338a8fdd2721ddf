"""How a user writes values in a request, and how the gate recognises a value in one.

    style = Style.pick(rng)                 # one way of writing dates and times for a whole instruction
    render("Move it to {when}.", {"when": dt.datetime(2026, 5, 3, 14, 30)}, style)
        -> "Move it to May 3, 2026 at 2:30 pm."
    stated("2026-05-03T14:30:00", "Move it to May 3, 2026 at 2:30 pm.")   -> True

Rendering: dates as "May 3, 2026", "3 May 2026" or "2026-05-03"; times as "2:30 pm" or "14:30" (seconds
only when not zero); a timestamp at midnight as its date; decimals keep their scale ("12.50"); lists as
"a, b and c"; booleans as "yes" / "no". Format specs in a template: `{x:q}` quotes text ('Road Trip'),
`{x:date}` / `{x:time}` take one part of a timestamp, `{x:list}` / `{x:qlist}` join a list, `{x:lower}`,
`{x:upper}`, `{x:title}` change case; any other spec is Python's (`{x:.1f}`).

Recognising (`stated`): numbers by value whatever their spelling ("12.5" states 12.50, "1,200" states
1200, "two" states 2); dates and times in any of the styles above; text after case folding, punctuation
dropped and spaces collapsed (`stateforge.diff.policy.normalize_text`), as whole words; a list when every
item is.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import string
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from stateforge.diff.policy import normalize_text

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
DATE_STYLES = ("long", "day_month", "iso")
TIME_STYLES = ("12h", "24h")
_NUMBER = re.compile(r"(?<![\w.,\-/:])(-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?![\w/]|[.:]\d)")
_DECIMAL_TEXT = re.compile(r"-?\d+(\.\d+)?")


@dataclass(frozen=True)
class Style:
    """How one instruction writes dates and times (chosen once, so a request is consistent)."""

    date: str = "long"
    time: str = "12h"

    @classmethod
    def pick(cls, rng: random.Random) -> Style:
        """A style drawn with `rng`."""
        return cls(date=rng.choice(DATE_STYLES), time=rng.choice(TIME_STYLES))


def date_text(value: dt.date, style: str = "long") -> str:
    """`May 3, 2026` (long), `3 May 2026` (day_month) or `2026-05-03` (iso)."""
    if style == "iso":
        return value.isoformat()
    month = MONTHS[value.month - 1]
    return (
        f"{value.day} {month} {value.year}" if style == "day_month" else f"{month} {value.day}, {value.year}"
    )


def time_text(value: dt.time, style: str = "12h") -> str:
    """`2:30 pm`, `2 pm` (12h) or `14:30` (24h); seconds only when not zero."""
    seconds = f":{value.second:02d}" if value.second else ""
    if style == "24h":
        return f"{value.hour:02d}:{value.minute:02d}{seconds}"
    hour = value.hour % 12 or 12
    half = "am" if value.hour < 12 else "pm"
    if value.minute == 0 and not seconds:
        return f"{hour} {half}"
    return f"{hour}:{value.minute:02d}{seconds} {half}"


def value_text(value: Any, style: Style | None = None) -> str:
    """A value as a person writes it (see the module's docstring)."""
    style = style or Style()
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0) and value.tzinfo is None:
            return date_text(value.date(), style.date)
        return f"{date_text(value.date(), style.date)} at {time_text(value.time(), style.time)}"
    if isinstance(value, dt.date):
        return date_text(value, style.date)
    if isinstance(value, dt.time):
        return time_text(value, style.time)
    if isinstance(value, float):
        return f"{value:.10g}"
    if isinstance(value, list | tuple):
        return join_words([value_text(v, style) for v in value])
    return str(value)


def join_words(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


class _Formatter(string.Formatter):
    def __init__(self, style: Style) -> None:
        self.style = style

    def format_field(self, value: Any, format_spec: str) -> str:
        spec = format_spec
        if spec in ("", "text"):
            return value_text(value, self.style)
        if spec == "q":
            return f"'{value_text(value, self.style)}'"
        if spec == "date":
            return date_text(value.date() if isinstance(value, dt.datetime) else value, self.style.date)
        if spec == "time":
            return time_text(value.time() if isinstance(value, dt.datetime) else value, self.style.time)
        if spec in ("list", "qlist"):
            quote = "'" if spec == "qlist" else ""
            return join_words([f"{quote}{value_text(v, self.style)}{quote}" for v in value])
        if spec in ("lower", "upper", "title"):
            return getattr(value_text(value, self.style), spec)()
        return super().format_field(value, spec)


def render(template: str, values: dict[str, Any], style: Style | None = None) -> str:
    """`template` with its `{name}` fields written as a user writes them."""
    return _Formatter(style or Style()).format(template, **values)


def fields_of(template: str) -> set[str]:
    """The names of the fields a template uses (`{name}`, `{name:q}`, `{name.attr}`)."""
    names = set()
    for _, field, _, _ in string.Formatter().parse(template):
        if field:
            names.add(re.split(r"[.\[]", field, maxsplit=1)[0])
    return names


# --- recognising values ---------------------------------------------------------------------------


NUMBER_WORDS = {
    word: n
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "dozen": 12,
    "once": 1,
    "twice": 2,
    "both": 2,
    "single": 1,
    "pair": 2,
    "none": 0,
}
_WORD = re.compile(r"[a-z]+")


def numbers_in(text: str) -> set[Decimal]:
    """Every number written in `text`, in digits ("1,200" is 1200; the parts of "2026-05-03" or "14:30" are
    not) or as a word up to twenty ("two", "a dozen")."""
    found = {Decimal(NUMBER_WORDS[w]) for w in _WORD.findall(text.lower()) if w in NUMBER_WORDS}
    for match in _NUMBER.finditer(text):
        try:
            found.add(Decimal(match.group(1).replace(",", "")))
        except InvalidOperation:
            continue
    return found


def as_number(value: Any) -> Decimal | None:
    """`value` as a Decimal when it is a number or a decimal string ("12.50"), else None."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float | Decimal):
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            return None
        return number if number.is_finite() else None
    if isinstance(value, str) and _DECIMAL_TEXT.fullmatch(value.strip()):
        return Decimal(value.strip())
    return None


def same_value(a: Any, b: Any) -> bool:
    """Whether two canonical JSON values are the same value (numbers compared by value)."""
    if a == b and type(a) is type(b):
        return True
    x, y = as_number(a), as_number(b)
    if x is not None and y is not None:
        return x == y
    return isinstance(a, str) and isinstance(b, str) and a == b


def _temporal(value: str) -> dt.datetime | dt.date | dt.time | None:
    for parse in (dt.date.fromisoformat, dt.datetime.fromisoformat, dt.time.fromisoformat):
        try:
            return parse(value)
        except ValueError:
            continue
    return None


def _date_forms(value: dt.date) -> list[str]:
    month = MONTHS[value.month - 1]
    forms = [date_text(value, s) for s in DATE_STYLES]
    forms += [
        f"{month} {value.day}",
        f"{value.day} {month}",
        f"{month[:3]} {value.day}, {value.year}",
        f"{value.day} {month[:3]} {value.year}",
        f"{value.year}/{value.month:02d}/{value.day:02d}",
    ]
    return forms


def _time_forms(value: dt.time) -> list[str]:
    forms = [time_text(value, s) for s in TIME_STYLES]
    hour = value.hour % 12 or 12
    half = "am" if value.hour < 12 else "pm"
    forms += [
        f"{value.hour}:{value.minute:02d}",
        f"{hour}:{value.minute:02d} {half}",
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}",
    ]
    if value.minute == 0 and not value.second:
        forms += [f"{hour}{half}", f"{hour} o'clock"]
    if value == dt.time(12):
        forms.append("noon")
    if value == dt.time(0):
        forms.append("midnight")
    return forms


def _has(forms: list[str], folded: str) -> bool:
    return any(f" {normalize_text(form)} " in folded for form in forms if normalize_text(form))


def stated(value: Any, text: str) -> bool:
    """Whether the canonical JSON `value` is written in `text` (see the module's docstring).

    NULL, booleans, objects and empty text are never stated by words: declare them derived (or give the
    column a comparison policy that does not demand them).
    """
    if value is None or isinstance(value, bool | dict) or value == "":
        return False
    if isinstance(value, list):
        return bool(value) and all(stated(v, text) for v in value)
    folded = f" {normalize_text(text)} "
    number = as_number(value)
    if number is not None:
        return number in numbers_in(text)
    if isinstance(value, str):
        when = _temporal(value)
        if isinstance(when, dt.datetime):
            if not _has(_date_forms(when.date()), folded):
                return False
            if when.microsecond:
                return False  # nobody writes microseconds
            return when.time() == dt.time(0) or _has(_time_forms(when.time()), folded)
        if isinstance(when, dt.date):
            return _has(_date_forms(when), folded)
        if isinstance(when, dt.time):
            return not when.microsecond and _has(_time_forms(when), folded)
        return _has([value], folded)
    return False
