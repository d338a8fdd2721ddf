"""CHECKs that no value can satisfy, found at parse time where a simple reading can tell.

The reading is deliberately small: the top-level ANDs of a CHECK, and in them comparisons, BETWEEN, `=`
and IN lists of one column against number literals, IN lists against the column's allowed values and
length, and CHECKs that read no column at all (DuckDB evaluates those). Anything else is assumed
satisfiable: this names impossible CHECKs, it does not prove possible ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sqlglot
from sqlglot import exp

from stateforge.schema.model import Check, Column, Table

_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ}


@dataclass
class _Range:
    lo: float | None = None
    lo_strict: bool = False
    hi: float | None = None
    hi_strict: bool = False
    sets: list[set] = field(default_factory=list)

    def above(self, value: float, strict: bool) -> None:
        if self.lo is None or value > self.lo or (value == self.lo and strict):
            self.lo, self.lo_strict = value, strict

    def below(self, value: float, strict: bool) -> None:
        if self.hi is None or value < self.hi or (value == self.hi and strict):
            self.hi, self.hi_strict = value, strict

    def empty(self, column: Column | None) -> str | None:
        if self.lo is not None and self.hi is not None:
            if self.lo > self.hi or (self.lo == self.hi and (self.lo_strict or self.hi_strict)):
                return f"no value is both {'>' if self.lo_strict else '>='} {_num(self.lo)} and " \
                       f"{'<' if self.hi_strict else '<='} {_num(self.hi)}"  # fmt: skip
        if not self.sets:
            return None
        values = set.intersection(*self.sets)
        if not values:
            return "the values it allows have none in common"
        if not {v for v in values if not isinstance(v, float) or self.admits(v)}:
            return "none of the values it allows is within its bounds"
        if column is not None and column.allowed_values is not None:
            values &= set(column.allowed_values)
            if not values:
                listed = ", ".join(map(str, column.allowed_values))
                return f"none of the values it allows is among the column's ({listed})"
        if column is not None and column.length is not None:
            if all(isinstance(v, str) and len(v) > column.length for v in values):
                return f"every value it allows is longer than the column's {column.length} characters"
        return None

    def admits(self, value: float) -> bool:
        if self.lo is not None and (value < self.lo or (value == self.lo and self.lo_strict)):
            return False
        return not (self.hi is not None and (value > self.hi or (value == self.hi and self.hi_strict)))


@lru_cache(maxsize=4096)
def parse_check(sql: str) -> exp.Expr | None:
    """A CHECK's condition as a sqlglot tree, cached (read only: dumps repeat the same CHECK on many tables,
    and the fill evaluates each batch's CHECKs from it); None when sqlglot cannot read it."""
    try:
        return sqlglot.parse_one(sql, read="duckdb")
    except sqlglot.errors.SqlglotError:
        return None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _literal(node: exp.Expr) -> object:
    node = node.unnest()
    if isinstance(node, exp.Neg) and isinstance(node.this.unnest(), exp.Literal):
        inner = _literal(node.this)
        return -inner if isinstance(inner, (int, float)) else None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


def impossible(check: Check, table: Table) -> str | None:
    """Why `check` (DuckDB SQL over columns of `table`) can hold for no non-NULL values, or None."""
    tree = parse_check(check.sql)
    if tree is None:
        return None
    ranges: dict[str, _Range] = {}
    for part in _conjuncts(tree):
        _read(part, ranges)
    for name, found in ranges.items():
        column = table.column(name) if table.has_column(name) else None
        reason = found.empty(column)
        if reason:
            return f"{column.name if column else name}: {reason}"
    return None


def _conjuncts(node: exp.Expr) -> list[exp.Expr]:
    node = node.unnest()
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _read(part: exp.Expr, ranges: dict[str, _Range]) -> None:
    if isinstance(part, exp.Between) and isinstance(part.this, exp.Column):
        low, high = _literal(part.args["low"]), _literal(part.args["high"])
        if isinstance(low, float) and isinstance(high, float):
            found = ranges.setdefault(part.this.name.lower(), _Range())
            found.above(low, False)
            found.below(high, False)
        return
    if isinstance(part, exp.In) and isinstance(part.this, exp.Column) and part.expressions:
        values = [_literal(v) for v in part.expressions]
        if all(v is not None for v in values):
            ranges.setdefault(part.this.name.lower(), _Range()).sets.append(set(values))
        return
    kind = type(part)
    if kind not in _FLIP:
        return
    left, right = part.this.unnest(), part.expression.unnest()
    if isinstance(right, exp.Column) and not isinstance(left, exp.Column):
        left, right, kind = right, left, _FLIP[kind]
    value = _literal(right)
    if not isinstance(left, exp.Column) or value is None:
        return
    found = ranges.setdefault(left.name.lower(), _Range())
    if kind is exp.EQ:
        found.sets.append({value})
    elif isinstance(value, float):
        if kind in (exp.GT, exp.GTE):
            found.above(value, kind is exp.GT)
        else:
            found.below(value, kind is exp.LT)

