"""What CHECK constraints say about a column's values, so that generated rows pass them by construction.

A CHECK is parsed with sqlglot and split at its top-level ANDs. Each conjunct that has one of these
shapes becomes a fact about one column:

    col IN (a, b, ...)              -> values
    col >= x, col > x, x < col, ... -> bounds (numbers, or ISO dates and timestamps)
    col BETWEEN a AND b             -> bounds
    col = x                         -> values [x]
    length(col) <= n (and >=, <, >, =, BETWEEN) -> length bounds
    col <> ''                       -> at least one character
    col IS NOT NULL                 -> never NULL
    a > b, a >= b, a >= b + k       -> a is generated after b (with a least gap k)
    c IS NULL OR <one of the above> -> the fact (generated values may always satisfy it)

A CHECK with any other conjunct is "unhandled": its derivable facts are still used, and the engine's
validation checks the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import sqlglot
from sqlglot import exp

from pipeline.schema.model import Check, Table


@dataclass(frozen=True)
class After:
    """This column is greater than `column` (strictly when `strict`), by at least `gap`."""

    column: str
    strict: bool
    gap: float = 0.0


@dataclass
class ColumnFacts:
    """Everything the table's CHECKs say about one column."""

    lo: Any = None
    lo_strict: bool = False
    hi: Any = None
    hi_strict: bool = False
    values: list[Any] | None = None
    min_len: int | None = None
    max_len: int | None = None
    after: list[After] = field(default_factory=list)
    not_null: bool = False

    def raise_lo(self, value: Any, strict: bool) -> None:
        if self.lo is None or _greater(value, self.lo) or (value == self.lo and strict):
            self.lo, self.lo_strict = value, strict

    def lower_hi(self, value: Any, strict: bool) -> None:
        if self.hi is None or _greater(self.hi, value) or (value == self.hi and strict):
            self.hi, self.hi_strict = value, strict


@dataclass
class CheckFacts:
    columns: dict[str, ColumnFacts] = field(default_factory=dict)
    """Lower-cased column name -> facts."""
    unhandled: list[Check] = field(default_factory=list)

    def get(self, column: str) -> ColumnFacts | None:
        return self.columns.get(column.lower())

    def facts(self, column: str) -> ColumnFacts:
        return self.columns.setdefault(column.lower(), ColumnFacts())


def derive_checks(table: Table) -> CheckFacts:
    """The facts of every CHECK of `table`, and the CHECKs that could not be fully derived."""
    result = CheckFacts()
    for check in table.checks:
        try:
            tree = sqlglot.parse_one(check.sql, read="duckdb")
        except sqlglot.errors.ParseError:
            result.unhandled.append(check)
            continue
        handled = [_derive(part, result) for part in _conjuncts(tree)]
        if not all(handled):
            result.unhandled.append(check)
    return result


def unhandled_checks(table: Table) -> list[Check]:
    """The CHECKs of `table` that generation does not guarantee (the engine validates them)."""
    return derive_checks(table).unhandled


def _conjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = _unparen(node)
    if isinstance(node, exp.And):
        return _conjuncts(node.this) + _conjuncts(node.expression)
    return [node]


def _disjuncts(node: exp.Expression) -> list[exp.Expression]:
    node = _unparen(node)
    if isinstance(node, exp.Or):
        return _disjuncts(node.this) + _disjuncts(node.expression)
    return [node]


def _unparen(node: exp.Expression) -> exp.Expression:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


_FLIP = {exp.GT: exp.LT, exp.GTE: exp.LTE, exp.LT: exp.GT, exp.LTE: exp.GTE, exp.EQ: exp.EQ}


def _derive(node: exp.Expression, out: CheckFacts) -> bool:
    """Record the facts of one conjunct; False when its shape is not understood."""
    node = _unparen(node)
    if isinstance(node, exp.Boolean) and node.this:
        return True
    if isinstance(node, exp.Or):
        rest = [d for d in _disjuncts(node) if not _is_null_test(d)]
        return len(rest) == 1 and _derive(rest[0], out)
    if isinstance(node, exp.Not) and _is_null_test(node.this):
        out.facts(_column(node.this.this)).not_null = True  # type: ignore[arg-type]
        return True
    if isinstance(node, exp.In) and _column(node.this) and not node.args.get("query"):
        values = [_literal(v) for v in node.expressions]
        if any(v is _NOT_LITERAL for v in values):
            return False
        out.facts(_column(node.this)).values = values  # type: ignore[arg-type]
        return True
    if isinstance(node, exp.Between):
        return _compare(exp.GTE, node.this, node.args["low"], out) and _compare(
            exp.LTE, node.this, node.args["high"], out
        )
    if isinstance(node, exp.NEQ):
        col = _column(node.this)
        if col and _literal(node.expression) == "":
            facts = out.facts(col)
            facts.min_len = max(facts.min_len or 0, 1)
            return True
        return False
    if type(node) in _FLIP:
        return _compare(type(node), node.this, node.expression, out)
    return False


def _compare(op: type, left: exp.Expression, right: exp.Expression, out: CheckFacts) -> bool:
    left, right = _unparen(left), _unparen(right)
    if _column(right) or isinstance(right, exp.Length) or isinstance(right, exp.Add):
        if not (_column(left) or isinstance(left, exp.Length)):
            op, left, right = _FLIP[op], right, left
    if isinstance(left, exp.Length) and _column(left.this):
        value = _literal(right)
        return isinstance(value, int) and _length(op, _column(left.this), value, out)  # type: ignore[arg-type]
    col = _column(left)
    if not col:
        return False
    other, gap = _column_plus(right)
    if other:
        return _relate(op, col, other, gap, out)
    value = _literal(right)
    if value is _NOT_LITERAL or value is None:
        return False
    facts = out.facts(col)
    if op is exp.EQ:
        facts.values = [value]
    if op in (exp.GT, exp.GTE, exp.EQ):
        facts.raise_lo(value, op is exp.GT)
    if op in (exp.LT, exp.LTE, exp.EQ):
        facts.lower_hi(value, op is exp.LT)
    return True


def _relate(op: type, col: str, other: str, gap: float, out: CheckFacts) -> bool:
    """`col op other + gap` -> an `After` on the greater side."""
    if op is exp.EQ:
        return False
    if op in (exp.GT, exp.GTE):
        out.facts(col).after.append(After(other, op is exp.GT, gap))
        return True
    if gap:
        return False  # `a < b + k`: b > a - k, not a least gap
    out.facts(other).after.append(After(col, op is exp.LT))
    return True


def _length(op: type, col: str, value: int, out: CheckFacts) -> bool:
    facts = out.facts(col)
    if op in (exp.LT, exp.LTE, exp.EQ):
        limit = value - 1 if op is exp.LT else value
        facts.max_len = limit if facts.max_len is None else min(facts.max_len, limit)
    if op in (exp.GT, exp.GTE, exp.EQ):
        limit = value + 1 if op is exp.GT else value
        facts.min_len = limit if facts.min_len is None else max(facts.min_len, limit)
    return True


def _column(node: exp.Expression | None) -> str | None:
    node = _unparen(node) if node is not None else None
    return node.name.lower() if isinstance(node, exp.Column) else None


def _column_plus(node: exp.Expression) -> tuple[str | None, float]:
    """`b` -> (b, 0); `b + 3` -> (b, 3); anything else -> (None, 0)."""
    if _column(node):
        return _column(node), 0.0
    if isinstance(node, exp.Add) and _column(node.this):
        gap = _literal(node.expression)
        if isinstance(gap, int | float) and not isinstance(gap, bool):
            return _column(node.this), float(gap)
    return None, 0.0


def _is_null_test(node: exp.Expression) -> bool:
    node = _unparen(node)
    return isinstance(node, exp.Is) and isinstance(node.expression, exp.Null) and bool(_column(node.this))


_NOT_LITERAL = object()


def _literal(node: exp.Expression) -> Any:
    """The Python value of a literal (numbers, strings, booleans, NULL, typed date/time strings)."""
    node = _unparen(node)
    if isinstance(node, exp.Neg):
        value = _literal(node.this)
        return -value if isinstance(value, int | float) and not isinstance(value, bool) else _NOT_LITERAL
    if isinstance(node, exp.Null):
        return None
    if isinstance(node, exp.Boolean):
        return bool(node.this)
    if isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string:
        return _iso(node.this.this)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return node.this
        text = str(node.this)
        try:
            return int(text)
        except ValueError:
            return float(text)
    return _NOT_LITERAL


def _iso(text: str) -> Any:
    for parse in (date.fromisoformat, datetime.fromisoformat):
        try:
            return parse(text)
        except ValueError:
            continue
    return text


def _greater(a: Any, b: Any) -> bool:
    try:
        return bool(a > b)
    except TypeError:
        return True
