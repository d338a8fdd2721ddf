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
    f(col) IN (...), f(col) = x     -> values v with f(v) = v, for f in UPPER, LOWER, TRIM, LTRIM, RTRIM
    UPPER(col) = col (LOWER, TRIM)  -> values generated in that case (trimmed)
    length(f(col)), CHAR_LENGTH, LEN -> length bounds (trimmed values for TRIM)
    ABS(col) <= x                   -> bounds -x .. x
    EXTRACT(YEAR FROM col) >= y, YEAR(col), date_part('year', col) -> date bounds
    ROUND(col, n) = col             -> at most n decimals
    col LIKE / ILIKE 'p%'           -> values shaped into the pattern
    regexp_matches(col, '^...$'), col ~ '^...$', SIMILAR TO -> a code pattern, where the expression is
                                       simple (literals, [A-Z], [0-9], \\d, {n})
    bounds that read no column (`now() + INTERVAL 1 DAY`, pinned to the build's clock) are folded first.

The shapes over functions are read by `stateforge.constraints.functions`, from trees read by `shapes`.

A CHECK with any other conjunct is "unhandled": its derivable facts are still used, and the engine's
validation checks the rest. A CHECK whose facts leave a column no value (`UPPER(kind) IN ('a')`) is
`impossible`: the generator names it instead of making rows that fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from stateforge.constraints import functions, shapes
from stateforge.constraints.shapes import NOT_LITERAL as _NOT_LITERAL
from stateforge.constraints.shapes import literal as _literal
from stateforge.errors import SchemaError
from stateforge.schema.model import Check, Schema, Table


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
    case: str | None = None
    """"upper" or "lower": values must equal their upper (lower) case."""
    trimmed: bool = False
    """Values must have no leading or trailing spaces."""
    like: list[str] = field(default_factory=list)
    """LIKE patterns every value must match (values are shaped into them)."""
    pattern: str | None = None
    """A code pattern (`?` letter, `#` digit, other characters literal) that only makes valid values."""
    decimals: int | None = None
    """At most this many digits after the point."""

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
    impossible: list[tuple[Check, str, str]] = field(default_factory=list)
    """(CHECK, column, why no value of the column can pass it)."""
    current: Check | None = field(default=None, repr=False)
    """The CHECK being derived (what `impossible` names)."""

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
        result.current = check
        handled = [_derive(part, result) for part in _conjuncts(tree)]
        if not all(handled):
            result.unhandled.append(check)
    return result


_APPLIED = re.compile(r"\b(upper|lower|l?trim|rtrim)\s*\(", re.IGNORECASE)


def require_satisfiable(schema: Schema) -> None:
    """Raise a SchemaError naming the first CHECK whose facts leave a NOT NULL column no value at all
    (`UPPER(kind) IN ('a', 'b')`): no row of its table could ever be stored. A nullable column with such
    a CHECK is filled with NULL (`stateforge.fill.columns`)."""
    for table in schema.tables:
        if not any(_APPLIED.search(c.sql) for c in table.checks):  # only `f(col) IN` can be impossible here
            continue
        for check, col, why in derive_checks(table).impossible:
            column = table.column(col) if table.has_column(col) else None
            in_key = col in {k.lower() for k in table.primary_key}
            if column is not None and (in_key or not column.nullable):
                raise SchemaError(
                    f"CHECK {check.name + ' ' if check.name else ''}({check.sql}) can never hold: {why}, so "
                    f"no row of {table.name} can be stored",
                    file=schema.source, line=table.line, table=table.name, column=column.name,
                    hint="Fix the CHECK's list (or drop the CHECK).",
                )


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
    if isinstance(node, exp.In) and not node.args.get("query"):
        values = [_literal(v) for v in node.expressions]
        if any(v is _NOT_LITERAL for v in values):
            return False
        if _column(node.this):
            out.facts(_column(node.this)).values = values  # type: ignore[arg-type]
            return True
        return functions.applied_in(node.this, values, out)
    found = functions.derive(node, out)
    if found is not None:
        return found
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
    if shapes.subject(left) is None and (shapes.subject(right) is not None or isinstance(right, exp.Add)):
        op, left, right = _FLIP[op], right, left
    measured = shapes.subject(left)
    if measured is None:
        return False
    what, col = measured
    if what == "length":
        value = _literal(right)
        if shapes.trims(left):
            out.facts(col).trimmed = True
        return isinstance(value, int) and not isinstance(value, bool) and _length(op, col, value, out)
    if what in ("abs", "year"):
        value = _literal(right)
        if not isinstance(value, int | float) or isinstance(value, bool):
            return False
        return (functions.absolute if what == "abs" else functions.year)(op, col, value, out)
    other, gap = _column_plus(right)
    if other:
        return _relate(op, col, other, gap, out)
    value = _literal(right)
    if value is _NOT_LITERAL:
        value = shapes.constant(right)
        value = _NOT_LITERAL if value is shapes.NOT_CONSTANT else value
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
    return shapes.column_of(node)


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


def _greater(a: Any, b: Any) -> bool:
    try:
        return bool(a > b)
    except TypeError:
        return True
