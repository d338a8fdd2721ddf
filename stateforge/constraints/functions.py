"""Facts from CHECKs over functions of one column (`stateforge.constraints.checks` dispatches here).

    UPPER(kind) IN ('A', 'B')   -> values A, B (the listed values v with UPPER(v) = v; none: impossible)
    LOWER(x) = x, TRIM(x) = x   -> a case, trimmed values;  ROUND(x, 2) = x -> at most 2 decimals
    x LIKE 'AB-%'               -> a LIKE pattern to shape values into (a code pattern when fully fixed)
    regexp_matches(x, '^..$')   -> a code pattern, where the expression is simple
    ABS(x) <= 10, EXTRACT(YEAR FROM d) >= 2020 -> bounds
"""

from __future__ import annotations

import re
from datetime import date
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from stateforge.constraints import shapes
from stateforge.constraints.shapes import NOT_LITERAL as _NOT_LITERAL
from stateforge.constraints.shapes import literal as _literal
from stateforge.schema.model import Check

if TYPE_CHECKING:
    from stateforge.constraints.checks import CheckFacts


def derive(node: exp.Expression, out: CheckFacts) -> bool | None:
    """Record the facts of one conjunct over a function of a column: True when read, False when it has
    such a shape but says more than facts can, None when it is not one of these shapes."""
    if isinstance(node, exp.EQ):
        for this, other in ((node.this, node.expression), (node.expression, node.this)):
            found = shapes.applied(this)
            if found is not None and _literal(other) is not _NOT_LITERAL:
                return applied_in(this, [_literal(other)], out)
            if (found or _round(this)) and shapes.column_of(other) == (found or _round(this))[1]:  # type: ignore[index]
                return _idempotent(found or _round(this), out)  # type: ignore[arg-type]
    col = shapes.column_of(node.this) if isinstance(node, exp.Binary) else None
    if isinstance(node, (exp.Like, exp.ILike)) and col and not node.args.get("negate"):
        text = _literal(node.expression)
        if not isinstance(text, str):
            return False
        like, code = shapes.like_shape(text)
        facts = out.facts(shapes.column_of(node.this))  # type: ignore[arg-type]
        facts.like += [like] if like else []
        facts.pattern = code or facts.pattern
        return True
    if isinstance(node, (exp.RegexpLike, exp.RegexpFullMatch, exp.SimilarTo)) and shapes.column_of(node.this):
        text = _literal(node.expression)
        anchored = not isinstance(node, exp.RegexpLike)
        plain = isinstance(text, str) and not re.search(r"[\[\]{}()|*+?\\^$]", text)
        if isinstance(node, exp.SimilarTo) and plain:  # only % and _: a LIKE pattern
            return derive(exp.Like(this=node.this, expression=node.expression), out)
        code = shapes.regex_code(text, anchored=anchored) if isinstance(text, str) else None
        if code is None:
            return False
        out.facts(shapes.column_of(node.this)).pattern = code  # type: ignore[arg-type]
        return True
    return None


def applied_in(node: exp.Expression, values: list[Any], out: CheckFacts) -> bool:
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
        why = f"no value v has {function.upper()}(v) among ({listed})"
        out.impossible.append((out.current or Check(""), col, why))
    facts.values = kept
    return True


def _round(node: exp.Expression) -> tuple[str, str] | None:
    node = shapes.unwrap(node)
    if isinstance(node, exp.Round) and shapes.column_of(node.this):
        places = _literal(node.args.get("decimals")) if node.args.get("decimals") is not None else 0
        if isinstance(places, int) and not isinstance(places, bool):
            return f"round{places}", shapes.column_of(node.this)  # type: ignore[return-value]
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


def absolute(op: type, col: str, value: float, out: CheckFacts) -> bool:
    """`ABS(col) op value`: an interval around 0 (`>=`: the positive side only)."""
    facts = out.facts(col)
    if op in (exp.LT, exp.LTE, exp.EQ):
        facts.lower_hi(value, op is exp.LT)
        if op is not exp.EQ:
            facts.raise_lo(-value, op is exp.LT)
    if op in (exp.GT, exp.GTE, exp.EQ):
        facts.raise_lo(value, op is exp.GT)
    return True


def year(op: type, col: str, value: float, out: CheckFacts) -> bool:
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


