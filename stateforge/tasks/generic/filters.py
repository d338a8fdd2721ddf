"""Conditions the generic bulk recipes filter on: a value to equal, a threshold to meet, in the SQL a recipe
counts with, the generic search filter the solver sends, and the words a user says.

    cond = equality(ctx, t)                      # plan = 'paid'  (a column with few values)
    bound = threshold(ctx, t)                    # created_at before 2025-03-01 (an existing value's date)
    where, params = sql_of([cond, bound])
    ctx.say("... every {one} {cond}", cond=phrase(...))
    conds, new = state_change(ctx, t, column, most=200)   # stage = 'quoted' and signed_on < ..., 'lost'
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from stateforge.schema.model import Column
from stateforge.store.sql import quote_ident
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.facts import TableFacts, kind, words
from stateforge.tasks.recipes import Skip
from stateforge.tasks.wording import Style, value_text
from stateforge.values import json_value

q = quote_ident
SQL_OPS = {"eq": "=", "ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
NUMBER_WORDS = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}
TIME_WORDS = {"ge": "on or after", "gt": "after", "le": "on or before", "lt": "before"}


@dataclass(frozen=True)
class Condition:
    """`column op value` (op: eq, ge, gt, le, lt)."""

    column: str
    op: str
    value: Any
    temporal: bool = False
    label: str | None = None
    """The column as words (`TableFacts.words`); its identifier's words when None."""

    def sql(self) -> tuple[str, list[Any]]:
        return f"{q(self.column)} {SQL_OPS[self.op]} ?", [self.value]

    def filter(self) -> dict[str, Any]:
        """The generic search filter for it."""
        return {"column": self.column, "op": self.op, "value": json_value(self.value)}

    def words(self, style: Style, *, plural: bool = False) -> str:
        """`whose plan is 'paid'`, `whose price is at least 40`, `whose created at is before May 3, 2026`,
        `that is verified` / `that are verified`."""
        shown = value_text(self.value.date() if isinstance(self.value, dt.datetime) else self.value, style)
        if self.op == "eq" and isinstance(self.value, bool):
            verb, _, rest = self.column.lower().partition("_")
            if verb not in ("is", "has") or not rest:
                verb, rest = "is", self.column
            named = self.label if verb == "is" and self.label else words(rest)
            if verb in ("is", "has") and rest:
                if verb == "is":
                    yes, no = ("are", "are not") if plural else ("is", "is not")
                else:
                    yes, no = ("have", "do not have") if plural else ("has", "does not have")
                return f"that {yes if self.value else no} {named}"
        if self.op == "eq":
            return f"whose {self.label or words(self.column)} is " + (
                f"'{shown}'" if isinstance(self.value, str) else shown
            )
        table = TIME_WORDS if self.temporal else NUMBER_WORDS
        return f"whose {self.label or words(self.column)} is {table[self.op]} {shown}"


def sql_of(conditions: list[Condition]) -> tuple[str, list[Any]]:
    """`a = ? AND b >= ?` and its parameters."""
    parts, params = [], []
    for cond in conditions:
        sql, values = cond.sql()
        parts.append(sql)
        params += values
    return " AND ".join(parts) or "TRUE", params


def phrase(conditions: list[Condition], style: Style, *, plural: bool = False) -> str:
    """The conditions in words, joined with `and`."""
    return " and ".join(c.words(style, plural=plural) for c in conditions)


def _own_columns(t: TableFacts) -> list[Column]:
    """The columns of `t` a request filters on: not the primary key, a foreign key or a generated column."""
    skip = {c.lower() for c in t.table.primary_key} | t.fk_columns
    return [c for c in t.table.columns if c.name.lower() not in skip and c.generated is None]


def equality_columns(t: TableFacts) -> list[str]:
    """Columns with few values a user filters by: a fixed set, booleans, short text (not keys, not ids of
    other rows)."""
    return [c.name for c in _own_columns(t) if c.allowed_values or kind(c) in ("bool", "text", "integer")]


def few_valued(ctx: RecipeContext, t: TableFacts) -> list[str]:
    """The equality columns holding 2 to 12 distinct values (counted once per table)."""
    if t.few is None:
        t.few = []
        for column in equality_columns(t):
            stats = ctx.sql(f"SELECT count(DISTINCT {q(column)}) AS d FROM {t.ref}")[0]
            if 2 <= stats["d"] <= 12:
                t.few.append(column)
    return list(t.few)


def filterable(ctx: RecipeContext, t: TableFacts, exclude: set[str] = frozenset()) -> bool:  # type: ignore[assignment]
    """Whether `two_conditions` can find two columns of `t` outside `exclude`."""
    columns = {c.lower() for c in few_valued(ctx, t) + threshold_columns(t)} - exclude
    return len(columns) >= 2


def equality(ctx: RecipeContext, t: TableFacts, *, exclude: set[str] = frozenset()) -> Condition:  # type: ignore[assignment]
    """`column = value` on a column with 2 to 12 values, the value held by at least two rows."""
    columns = [c for c in few_valued(ctx, t) if c.lower() not in exclude]
    if not columns:
        raise Skip("no column with a few values")
    column = ctx.choice(columns)
    row = ctx.pick(
        f"SELECT {q(column)} AS v FROM {t.ref} WHERE {q(column)} IS NOT NULL GROUP BY 1 HAVING count(*) >= 2",
        what=f"repeated {column}",
    )
    return Condition(column, "eq", row["v"], label=t.words(column))


def two_conditions(ctx: RecipeContext, t: TableFacts, *, exclude: set[str] = frozenset()) -> list[Condition]:  # type: ignore[assignment]
    """Two conditions on two columns (not in `exclude`): a value and a threshold when the table has both,
    else two of a kind."""
    equal = [c for c in few_valued(ctx, t) if c.lower() not in exclude]
    bounded = [c for c in threshold_columns(t) if c.lower() not in exclude]
    shapes = [
        s for s, ok in (("et", equal and bounded), ("tt", len(bounded) >= 2), ("ee", len(equal) >= 2)) if ok
    ]
    if not shapes:
        raise Skip("no two columns to filter on")
    shape = ctx.choice(shapes)
    first = equality(ctx, t, exclude=exclude) if shape[0] == "e" else threshold(ctx, t, exclude=exclude)
    used = {first.column.lower(), *exclude}
    second = equality(ctx, t, exclude=used) if shape[1] == "e" else threshold(ctx, t, exclude=used)
    return [first, second]


def threshold_columns(t: TableFacts) -> list[str]:
    """Numbers and dates (not keys or foreign keys) a user draws a line on."""
    return [
        c.name
        for c in _own_columns(t)
        if kind(c) in ("integer", "number", "temporal") and not c.allowed_values
    ]


def threshold(ctx: RecipeContext, t: TableFacts, *, exclude: set[str] = frozenset()) -> Condition:  # type: ignore[assignment]
    """`column op value` where value is one the column holds (so inclusive or exclusive matters); for a
    timestamp, the midnight of one of its dates (on or after / before)."""
    columns = [c for c in threshold_columns(t) if c.lower() not in exclude]
    if not columns:
        raise Skip("no number or date column")
    column = ctx.choice(columns)
    col = t.column(column)
    base = col.base_type
    value = ctx.pick(
        f"SELECT {q(column)} AS v FROM {t.ref} WHERE {q(column)} IS NOT NULL", what=f"{column} value"
    )["v"]
    if base.startswith("TIMESTAMP"):
        op = ctx.choice(["ge", "lt"])
        midnight = dt.datetime.combine(value.date(), dt.time(0), tzinfo=value.tzinfo)
        return Condition(column, op, midnight, temporal=True, label=t.words(column))
    if isinstance(value, float):
        value = round(value, 2)
    return Condition(
        column, ctx.choice(["ge", "gt", "le", "lt"]), value, temporal=base == "DATE", label=t.words(column)
    )


def changes_state(ctx: RecipeContext, t: TableFacts, column: Any) -> bool:
    """Whether `column` holds a state (a fixed set of values or a boolean, 2 to 12 of them in use) that a
    request can move rows out of, with another column to narrow the rows down."""
    if not (column.allowed_values or kind(column) == "bool"):
        return False
    if column.name not in few_valued(ctx, t):
        return False
    others = {c.lower() for c in few_valued(ctx, t) + threshold_columns(t)} - {column.name.lower()}
    return bool(others)


def state_change(ctx: RecipeContext, t: TableFacts, column: Any, *, most: int) -> tuple[list[Condition], Any]:
    """A state change: rows whose `column` is one value (held by 2+ rows) and that meet one condition on
    another column (2 to `most` of them) move to another value of the column. The conditions and the new
    value; the draft exercises precise boundary judgment only when the other condition is a threshold."""
    name = column.name
    for _ in range(8):
        current = ctx.pick(
            f"SELECT {q(name)} AS v FROM {t.ref} WHERE {q(name)} IS NOT NULL GROUP BY 1 HAVING count(*) >= 2",
            what=f"repeated {name}",
        )["v"]
        exclude = {name.lower()}
        kinds = [
            make
            for make, ok in (
                (threshold, [c for c in threshold_columns(t) if c.lower() not in exclude]),
                (equality, [c for c in few_valued(ctx, t) if c.lower() not in exclude]),
            )
            if ok
        ]
        try:
            other = ctx.choice(kinds)(ctx, t, exclude=exclude)
        except Skip:
            continue
        conds = [Condition(name, "eq", current, label=t.words(name)), other]
        where, params = sql_of(conds)
        if 2 <= ctx.scalar(f"SELECT count(*) FROM {t.ref} WHERE {where}", params) <= most:
            break
    else:
        raise Skip("no state change of the right size")
    if other.op == "eq" and "precise_boundary_judgment" in ctx.capabilities:
        ctx.capabilities.remove("precise_boundary_judgment")
    if kind(column) == "bool":
        return conds, not current
    choices = sorted({v for v in column.allowed_values if v is not None and v != current}, key=str)
    if not choices:
        raise Skip("no other state")
    return conds, ctx.choice(choices)
