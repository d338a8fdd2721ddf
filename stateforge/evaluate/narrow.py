"""A 'keys and constraints' verifier of a table whose rows the episode did not change, with the full
SQL's rows.

The verifier counts, per constraint of one table, the offending rows of the whole table
(`stateforge.validation.checks`). On a base where every count is 0 (the grader checks that once per
verifier), a
table whose rows are all the base's (no row group differs: `delta.py`) can break only its foreign keys,
and only in the rows whose key is one its parent's changed groups no longer hold (`removed`): those rows
are counted against the whole parent; every other constraint counts 0 without a query, and so does a
foreign key whose parent lost no key. The narrowed SQL returns the same (violated, n) rows.

A table the episode did change is checked whole: at the sizes an episode sees (tens of thousands of
rows), the narrowed checks of its changed rows cost what the whole ones do (each check is an operator
over a scan either way: measured 4.8 against 4.5 ms for playlist_songs at scale 1).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from stateforge.store.sql import orphans_sql, quote_ident, table_ref
from stateforge.tasks.verifiers import constraints_sql, literal
from stateforge.validation.checks import CheckQuery

LOCAL = frozenset({"primary_key", "unique", "not_null", "max_length", "check", "allowed_values"})
"""Checks an unchanged table passes as the base does (they read the table alone)."""
LITERAL_TYPES = (bool, int, str, Decimal, dt.date, dt.time, uuid.UUID)
"""Python values `verifiers.literal` writes back as the same DuckDB value (a datetime is a date)."""

Removed = Callable[[str, Sequence[str]], list[tuple[Any, ...]] | None]
"""(parent table, its referenced columns) -> the key values its changed groups no longer hold; None when
the parent is not changed."""


class CannotNarrow(Exception):
    """The verifier's SQL is not of a shape this module rewrites: run it whole."""


def _values(keys: list[tuple[Any, ...]]) -> str:
    if not all(isinstance(v, LITERAL_TYPES) for key in keys for v in key):
        raise CannotNarrow("a key value without a literal")
    return ", ".join("(" + ", ".join(literal(v) for v in key) + ")" for key in keys)


def _foreign_sql(q: CheckQuery, removed: list[tuple[Any, ...]]) -> str:
    assert q.ref_table is not None
    names = [f"k{i}" for i in range(len(q.columns))]
    match = " AND ".join(f"x.{quote_ident(c)} = r.{k}" for c, k in zip(q.columns, names, strict=True))
    child = (
        f"(SELECT x.* FROM {table_ref(q.table)} AS x WHERE EXISTS (SELECT 1 FROM (VALUES {_values(removed)}) "
        f"AS r({', '.join(names)}) WHERE {match}))"
    )
    return orphans_sql(child, q.columns, table_ref(q.ref_table), q.ref_columns, "1")


def narrowed_sql(checks: list[CheckQuery], removed: Removed) -> str | None:
    """The narrowed verifier of the `checks` of a table the episode did not change (see the module
    docstring); None when no constraint has anything to look at (no offence: no row). Raises
    `CannotNarrow` for a check of an unknown kind or a key value with no literal."""
    parts = []
    for q in checks:
        if q.kind == "foreign_key":
            gone = removed(q.ref_table or "", q.ref_columns)
            if gone:
                parts.append((q.constraint, _foreign_sql(q, gone)))
        elif q.kind not in LOCAL:
            raise CannotNarrow(q.kind)
    return constraints_sql(parts) if parts else None
