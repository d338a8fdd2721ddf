"""Time-relative CHECKs: now(), CURRENT_DATE, SYSDATE, GETDATE() read the build's clock, not the wall clock.

A CHECK such as `d <= now() + INTERVAL '1 day'` holds or fails depending on when it is evaluated. A built
database must not start failing its own audit as days pass, and the generator must know the bound it
draws under, so the model keeps the CHECK as written (`Check.relative`) and enforces it with the clock
pinned to a constant (`Check.sql`): the end of the build's time window (`Schema.pin_clock`).
"""

from __future__ import annotations

from datetime import datetime

import sqlglot
from sqlglot import exp

# The clock readers sqlglot produces in DuckDB SQL (the translation maps every vendor spelling to them).
_TIMESTAMPS = (exp.CurrentTimestamp, exp.CurrentDatetime, exp.Localtimestamp, exp.UtcTimestamp)
_CLOCK = (*_TIMESTAMPS, exp.CurrentDate, exp.CurrentTime)


def reads_clock(expr: exp.Expr) -> bool:
    """Whether `expr` reads the wall clock anywhere."""
    return any(True for _ in expr.find_all(*_CLOCK))


def pin(expr: exp.Expr, when: datetime) -> exp.Expr:
    """`expr` with every clock reader replaced by the constant `when` (a DATE, TIME or TIMESTAMP literal)."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        inner = node.this if isinstance(node, exp.AtTimeZone) else node  # SYSDATE: now() AT TIME ZONE 'UTC'
        if isinstance(inner, exp.CurrentDate):
            return exp.cast(exp.Literal.string(when.date().isoformat()), exp.DType.DATE)
        if isinstance(inner, exp.CurrentTime):
            return exp.cast(exp.Literal.string(when.time().isoformat()), exp.DType.TIME)
        if isinstance(inner, _TIMESTAMPS):
            return exp.cast(exp.Literal.string(when.isoformat(sep=" ")), exp.DType.TIMESTAMP)
        return node

    return expr.copy().transform(rewrite)


def pinned_sql(relative: str, when: datetime) -> str:
    """The DuckDB SQL `relative` (which reads the clock) with the clock pinned to `when`."""
    return pin(sqlglot.parse_one(relative, read="duckdb"), when).sql("duckdb")
