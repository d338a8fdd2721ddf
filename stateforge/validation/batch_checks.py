"""CHECK constraints evaluated over a batch with Arrow compute, where that gives SQL's answer exactly.

    rows = arrow_check("price > 0 AND status IN ('a', 'b')", batch)   # failing rows, or None: use SQL

The batch checks run a CHECK as `WHERE NOT (check)` in DuckDB over the registered batch. Most CHECKs
are comparisons of a column with a literal or with another column of the same type, IN lists, BETWEEN,
IS [NOT] NULL, AND, OR and NOT: those are evaluated here, in SQL's three-valued logic (a comparison with
NULL is NULL; AND / OR are Kleene's), and a row fails exactly when the CHECK is FALSE. Anything else
(functions, arithmetic, casts, floating-point columns, whose NaN DuckDB orders above every number,
operands of different types that SQL would cast) answers None, and the caller queries DuckDB as before.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from stateforge.schema.satisfiable import parse_check

_COMPARE = {exp.EQ: "equal", exp.NEQ: "not_equal", exp.GT: "greater", exp.GTE: "greater_equal",
            exp.LT: "less", exp.LTE: "less_equal"}


class _Unsupported(Exception):
    """The expression needs SQL: evaluate it in DuckDB."""


def arrow_check(sql: str, batch: pa.Table) -> np.ndarray | None:
    """The rows of `batch` for which the CHECK `sql` is FALSE (sorted int64), or None when the CHECK is
    not one this module evaluates exactly (then run it in SQL)."""
    tree = parse_check(sql)
    if tree is None:
        return None
    columns = {name.lower(): batch.column(name) for name in batch.column_names}
    try:
        value = _eval(tree, columns)
        if not isinstance(value, pa.ChunkedArray | pa.Array) or not pa.types.is_boolean(value.type):
            return None
    except (_Unsupported, pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return None
    if isinstance(value, pa.ChunkedArray):
        value = value.combine_chunks()
    failed = pc.fill_null(pc.invert(value), False)
    return np.flatnonzero(failed.to_numpy(zero_copy_only=False)).astype(np.int64)


Value = pa.Array | pa.ChunkedArray | pa.Scalar


def _eval(node: exp.Expression, columns: dict[str, pa.ChunkedArray]) -> Value:
    if isinstance(node, exp.Paren):
        return _eval(node.this, columns)
    if isinstance(node, exp.Column):
        found = columns.get(node.name.lower())
        if found is None or node.table:
            raise _Unsupported(node.sql())
        typ = found.type
        if not (pa.types.is_integer(typ) or pa.types.is_string(typ) or pa.types.is_boolean(typ)
                or pa.types.is_decimal(typ) or pa.types.is_date(typ) or pa.types.is_timestamp(typ)):
            raise _Unsupported(f"{node.name}: {typ}")
        return found
    if isinstance(node, exp.Boolean):
        return pa.scalar(bool(node.this), pa.bool_())
    if isinstance(node, exp.And | exp.Or):
        left, right = _bool(_eval(node.this, columns)), _bool(_eval(node.expression, columns))
        return (pc.and_kleene if isinstance(node, exp.And) else pc.or_kleene)(left, right)
    if isinstance(node, exp.Not):
        return pc.invert(_bool(_eval(node.this, columns)))
    if isinstance(node, exp.Is):
        if not isinstance(node.expression, exp.Null):
            raise _Unsupported(node.sql())
        return pc.is_null(_array(_eval(node.this, columns)))
    if type(node) in _COMPARE:
        left, right = _operands(node.this, node.expression, columns)
        return getattr(pc, _COMPARE[type(node)])(left, right)
    if isinstance(node, exp.Between):
        low, high = node.args["low"], node.args["high"]
        x, lo = _operands(node.this, low, columns)
        x, hi = _operands(node.this, high, columns)
        return pc.and_kleene(pc.greater_equal(x, lo), pc.less_equal(x, hi))
    if isinstance(node, exp.In):
        if node.args.get("query") or node.args.get("unnest") or not node.expressions:
            raise _Unsupported(node.sql())
        x = _array(_eval(node.this, columns))
        listed = [_literal(e, x.type) for e in node.expressions]
        if any(not v.is_valid for v in listed):
            raise _Unsupported(node.sql())  # a NULL in the list makes misses NULL: leave it to SQL
        found = pc.is_in(x, value_set=pa.array([v.as_py() for v in listed], x.type))
        return pc.if_else(pc.is_null(x), pa.scalar(None, pa.bool_()), found)
    raise _Unsupported(node.sql())


Columns = dict[str, pa.ChunkedArray]


def _operands(a: exp.Expression, b: exp.Expression, columns: Columns) -> tuple[Value, Value]:
    """Both sides of a comparison, of one Arrow type: a literal takes the other side's type exactly."""
    a_lit, b_lit = _is_literal(a), _is_literal(b)
    if a_lit and b_lit:
        raise _Unsupported("two literals")
    if a_lit or b_lit:
        other = _eval(b if a_lit else a, columns)
        typ = other.type
        lit = _literal(a if a_lit else b, typ)
        return (lit, other) if a_lit else (other, lit)
    left, right = _eval(a, columns), _eval(b, columns)
    if left.type != right.type:
        raise _Unsupported(f"{left.type} against {right.type}")  # SQL would cast one side
    return left, right


def _is_literal(node: exp.Expression) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Literal | exp.Neg | exp.Null)


def _literal(node: exp.Expression, typ: pa.DataType) -> pa.Scalar:
    """A number or string literal as a scalar of `typ`, only where the value is exactly that type's."""
    while isinstance(node, exp.Paren):
        node = node.this
    sign = 1
    if isinstance(node, exp.Neg):
        node, sign = node.this, -1
    if isinstance(node, exp.Null):
        return pa.scalar(None, typ)
    if not isinstance(node, exp.Literal):
        raise _Unsupported(node.sql())
    if node.is_string:
        if sign < 0 or not pa.types.is_string(typ):
            raise _Unsupported(node.sql())  # a date, a time or a number spelt as text: SQL casts it
        return pa.scalar(node.this, typ)
    try:
        number = Decimal(node.this) * sign
    except InvalidOperation as exc:
        raise _Unsupported(node.sql()) from exc
    if pa.types.is_integer(typ) and number == number.to_integral_value():
        value = int(number)
        info = np.iinfo(typ.to_pandas_dtype())
        if not info.min <= value <= info.max:
            raise _Unsupported(node.sql())  # out of the column's range: SQL widens the column
        return pa.scalar(value, typ)
    if pa.types.is_decimal(typ):
        scaled = number.scaleb(typ.scale)
        if scaled != scaled.to_integral_value() or len(str(abs(int(scaled)))) > typ.precision:
            raise _Unsupported(node.sql())  # not exactly a value of the column's type: SQL casts
        return pa.scalar(number, typ)
    raise _Unsupported(node.sql())


def _bool(value: Value) -> Value:
    if not pa.types.is_boolean(value.type):
        raise _Unsupported(f"{value.type} used as a condition")
    return value


def _array(value: Value) -> pa.Array | pa.ChunkedArray:
    if isinstance(value, pa.Scalar):
        raise _Unsupported("a condition on a literal")
    return value
