"""How values are compared when a solver's diff is graded against the expected one.

A `Policy` maps columns to rules; every other column is compared exactly. It is stored with each task
(tasks.jsonl), and a domain's defaults sit under the task's rules (`task_policy.over(domain_policy)`):

    {"columns": {"playlists.description": "normalized",          # case, whitespace, punctuation
                 "*.updated_at": {"rule": "time", "seconds": 120},  # any table's updated_at, +-2 min
                 "payments.amount": {"rule": "numeric", "abs": 0.01},
                 "comments.body": "any_non_null", "users.last_active_at": "ignore"}}

Rules: exact (the default), ignore, normalized (text compared after case folding, dropping punctuation
and collapsing whitespace), numeric (|expected - actual| <= max(abs, rel * |expected|)), time (ISO 8601
times, dates or clock times within `seconds`), any_non_null (the actual value is not NULL, whatever the
expected one). A value the rule cannot read (a number under `time`, say) is compared exactly.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from stateforge.diff.model import DiffError
from stateforge.schema.model import Schema, suggest
from stateforge.values import dumps

RuleName = Literal["exact", "ignore", "normalized", "numeric", "time", "any_non_null"]

PAIRWISE = frozenset({"numeric", "time"})
"""Rules that compare two values with a tolerance, so they cannot be reduced to one canonical form."""


class ColumnRule(BaseModel):
    """The rule for one column. In JSON, a bare rule name stands for a rule without parameters."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: RuleName = "exact"
    abs: float | None = Field(default=None, ge=0, description="numeric: largest absolute difference.")
    rel: float | None = Field(default=None, ge=0, description="numeric: largest difference / |expected|.")
    seconds: float | None = Field(default=None, ge=0, description="time: largest difference in seconds.")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        return {"rule": data} if isinstance(data, str) else data

    @model_validator(mode="after")
    def _parameters(self) -> ColumnRule:
        given = {p for p in ("abs", "rel", "seconds") if getattr(self, p) is not None}
        allowed = {"numeric": {"abs", "rel"}, "time": {"seconds"}}.get(self.rule, set())
        if given - allowed:
            raise ValueError(f"rule {self.rule!r} takes no {', '.join(sorted(given - allowed))}")
        if self.rule == "numeric" and not given:
            raise ValueError('rule "numeric" needs "abs" or "rel" (or both)')
        if self.rule == "time" and not given:
            raise ValueError('rule "time" needs "seconds"')
        return self

    def to_data(self) -> str | dict[str, Any]:
        """The compact JSON form: the bare rule name when it takes no parameters."""
        data = self.model_dump(exclude_none=True)
        return self.rule if len(data) == 1 else data

    def describe(self) -> str:
        """`normalized`, `numeric within 0.01`, `time within 120 s`: for messages."""
        if self.rule == "numeric":
            parts = [f"{self.abs:g}"] if self.abs is not None else []
            parts += [f"{self.rel:g} relative"] if self.rel is not None else []
            return "numeric within " + " or ".join(parts)
        if self.rule == "time":
            return f"time within {self.seconds:g} s"
        return self.rule

    def signature(self, value: Any) -> Any:
        """A hashable form equal for every two values the rule accepts as equal (rules without tolerance)."""
        if self.rule == "normalized" and isinstance(value, str):
            return ("text", normalize_text(value))
        if self.rule == "any_non_null":
            return value is not None
        return dumps(value)

    def matches(self, expected: Any, actual: Any) -> bool:
        """Whether `actual` passes for `expected` under this rule."""
        if self.rule == "ignore":
            return True
        if self.rule == "any_non_null":
            return actual is not None
        if self.rule == "numeric":
            close = _numeric_close(expected, actual, self.abs or 0.0, self.rel or 0.0)
            if close is not None:
                return close
        elif self.rule == "time":
            close = _time_close(expected, actual, self.seconds or 0.0)
            if close is not None:
                return close
        return self.signature(expected) == self.signature(actual)


EXACT = ColumnRule()


class Policy(BaseModel):
    """Per-column rules, keyed `"table.column"` or `"*.column"` (that column in every table)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    columns: dict[str, ColumnRule] = {}

    @field_validator("columns")
    @classmethod
    def _names(cls, columns: dict[str, ColumnRule]) -> dict[str, ColumnRule]:
        for name in columns:
            table, _, column = name.rpartition(".")
            if not table or not column or column == "*":
                raise ValueError(f'"{name}": name a column as "table.column" or "*.column"')
        return columns

    def to_dict(self) -> dict[str, Any]:
        """The compact JSON form stored with a task: `{"columns": {"songs.title": "normalized", ...}}`."""
        return {"columns": {name: rule.to_data() for name, rule in sorted(self.columns.items())}}

    def rule(self, table: str, column: str) -> ColumnRule:
        """The rule for `table.column`: its own, else the `*.column` one, else exact (case-insensitive)."""
        rules = self._lookup()
        return rules.get(f"{table}.{column}".lower()) or rules.get(f"*.{column}".lower()) or EXACT

    def _lookup(self) -> dict[str, ColumnRule]:
        return {name.lower(): rule for name, rule in self.columns.items()}

    def over(self, defaults: Policy | None) -> Policy:
        """This policy (a task's) layered over `defaults` (the domain's): this one wins every column it names.

        A `*.column` rule here also wins over the defaults' rules for that column in one table.
        """
        if defaults is None:
            return self
        mine = self._lookup()
        kept = {}
        for name, rule in defaults.columns.items():
            column = name.rpartition(".")[2].lower()
            if name.lower() not in mine and f"*.{column}" not in mine:
                kept[name] = rule
        return Policy(columns={**kept, **self.columns})

    def check(self, schema: Schema) -> None:
        """`DiffError` for a rule naming a table or column that `schema` does not have."""
        for name in self.columns:
            table, _, column = name.rpartition(".")
            if table != "*" and not schema.has_table(table):
                raise DiffError(
                    f'policy rule "{name}": no table "{table}".{suggest(table, schema.table_names)} '
                    "Fix the task's (or the domain's) policy."
                )
            tables = schema.tables if table == "*" else [schema.table(table)]
            if not any(t.has_column(column) for t in tables):
                known = sorted({c for t in tables for c in t.column_names})
                raise DiffError(
                    f'policy rule "{name}": no column "{column}" in {"any table" if table == "*" else table}.'
                    f"{suggest(column, known)} Fix the task's (or the domain's) policy."
                )


_SPACE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Text as the `normalized` rule compares it: NFKC, case-folded, punctuation dropped, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    kept = "".join(" " if unicodedata.category(ch).startswith("P") else ch for ch in folded)
    return _SPACE.sub(" ", kept).strip()


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _numeric_close(expected: Any, actual: Any, abs_tol: float, rel_tol: float) -> bool | None:
    e, a = _decimal(expected), _decimal(actual)
    if e is None or a is None:
        return None
    return abs(e - a) <= max(Decimal(str(abs_tol)), Decimal(str(rel_tol)) * abs(e))


def _instant(value: Any) -> dt.datetime | float | None:
    """An ISO 8601 datetime or date as a datetime, a clock time as seconds since midnight; else None."""
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        pass
    try:
        t = dt.time.fromisoformat(value)
    except ValueError:
        return None
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


def _time_close(expected: Any, actual: Any, seconds: float) -> bool | None:
    e, a = _instant(expected), _instant(actual)
    if e is None or a is None or type(e) is not type(a):
        return None
    if isinstance(e, dt.datetime) and isinstance(a, dt.datetime):
        if (e.tzinfo is None) != (a.tzinfo is None):
            return None
        return abs((e - a).total_seconds()) <= seconds
    return abs(e - a) <= seconds
