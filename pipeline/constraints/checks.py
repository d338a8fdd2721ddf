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

A CHECK with any other conjunct is "unhandled": its derivable facts are still used, and the engine's
validation checks the rest. A CHECK whose facts leave a column no value (`UPPER(kind) IN ('a')`) is
`impossible`: the generator names it instead of making rows that fail.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import sqlglot
from sqlglot import exp

from pipeline.constraints import shapes
from pipeline.errors import SchemaError
from pipeline.schema.model import Check, Schema, Table


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
        before = len(result.impossible)
        handled = [_derive(part, result) for part in _conjuncts(tree)]
        result.impossible[before:] = [(check, col, why) for _, col, why in result.impossible[before:]]
        if not all(handled):
            result.unhandled.append(check)
    return result


_APPLIED = re.compile(r"\b(upper|lower|l?trim|rtrim)\s*\(", re.IGNORECASE)


def require_satisfiable(schema: Schema) -> None:
    """Raise a SchemaError naming the first CHECK whose facts leave a NOT NULL column no value at all
    (`UPPER(kind) IN ('a', 'b')`): no row of its table could ever be stored. A nullable column with such
    a CHECK is filled with NULL (`pipeline.fill.columns`)."""
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
        return _applied_in(node.this, values, out)
    if isinstance(node, exp.EQ):
        for this, other in ((node.this, node.expression), (node.expression, node.this)):
            found = shapes.applied(this)
            if found is not None and _literal(other) is not _NOT_LITERAL:
                return _applied_in(this, [_literal(other)], out)
            if (found or _round(this)) and _column(other) == (found or _round(this))[1]:  # type: ignore[index]
                return _idempotent(found or _round(this), out)  # type: ignore[arg-type]
    if isinstance(node, (exp.Like, exp.ILike)) and _column(node.this) and not node.args.get("negate"):
        text = _literal(node.expression)
        if not isinstance(text, str):
            return False
        like, code = shapes.like_shape(text)
        facts = out.facts(_column(node.this))  # type: ignore[arg-type]
        facts.like += [like] if like else []
        facts.pattern = code or facts.pattern
        return True
    if isinstance(node, (exp.RegexpLike, exp.RegexpFullMatch, exp.SimilarTo)) and _column(node.this):
        text = _literal(node.expression)
        anchored = not isinstance(node, exp.RegexpLike)
        plain = isinstance(text, str) and not re.search(r"[\[\]{}()|*+?\\^$]", text)
        if isinstance(node, exp.SimilarTo) and plain:  # only % and _: a LIKE pattern
            return _derive(exp.Like(this=node.this, expression=node.expression), out)
        code = shapes.regex_code(text, anchored=anchored) if isinstance(text, str) else None
        if code is None:
            return False
        out.facts(_column(node.this)).pattern = code  # type: ignore[arg-type]
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
        return (_abs if what == "abs" else _year)(op, col, value, out)
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


def _applied_in(node: exp.Expression, values: list[Any], out: CheckFacts) -> bool:
    """`f(col) IN (values)`: the values v with f(v) = v; none of them -> the CHECK is impossible."""
    found = shapes.applied(node)
    if found is None:
        return False
    function, col = found
    kept = [v for v in values if shapes.fixed_point(function, v)]
    facts = out.facts(col)
    if facts.values is not None:
        kept = [v for v in kept if v in facts.values]
    if not kept:
        listed = ", ".join(repr(v) for v in values)
        out.impossible.append((Check(""), col, f"no value v has {function.upper()}(v) among ({listed})"))
    facts.values = kept
    return True


def _round(node: exp.Expression) -> tuple[str, str] | None:
    node = _unparen(node)
    if isinstance(node, exp.Round) and _column(node.this):
        places = _literal(node.args.get("decimals")) if node.args.get("decimals") is not None else 0
        if isinstance(places, int) and not isinstance(places, bool):
            return f"round{places}", _column(node.this)  # type: ignore[return-value]
    return None


def _idempotent(found: tuple[str, str], out: CheckFacts) -> bool:
    """`f(col) = col`: values in upper / lower case, trimmed, or rounded to n decimals."""
    function, col = found
    facts = out.facts(col)
    if function in ("upper", "lower"):
        facts.case = function
    elif function.startswith("round"):
        places = int(function[5:])
        facts.decimals = places if facts.decimals is None else min(facts.decimals, places)
    else:
        facts.trimmed = True
    return True


def _abs(op: type, col: str, value: float, out: CheckFacts) -> bool:
    """`ABS(col) op value`: an interval around 0 (`>=`: the positive side only)."""
    facts = out.facts(col)
    if op in (exp.LT, exp.LTE, exp.EQ):
        facts.lower_hi(value, op is exp.LT)
        if op is not exp.EQ:
            facts.raise_lo(-value, op is exp.LT)
    if op in (exp.GT, exp.GTE, exp.EQ):
        facts.raise_lo(value, op is exp.GT)
    return True


def _year(op: type, col: str, value: float, out: CheckFacts) -> bool:
    """`EXTRACT(YEAR FROM col) op y`: the first or last day of the years allowed."""
    year = int(value)
    if year != value or not 1 <= year <= 9998:
        return False
    facts = out.facts(col)
    if op in (exp.GT, exp.GTE, exp.EQ):
        facts.raise_lo(date(year + (op is exp.GT), 1, 1), False)
    if op in (exp.LT, exp.LTE, exp.EQ):
        facts.lower_hi(date(year - (op is exp.LT), 12, 31), False)
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
