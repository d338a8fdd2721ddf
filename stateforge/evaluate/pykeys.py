"""A changed table's foreign keys and lengths counted in Python, from the rows of its changed row groups.

    n = orphans(child, parent, check, counts)       # the orphan rows the check's SQL would count
    n = too_long(child, check, limit)               # the rows longer than VARCHAR(n) it would count

What 'keys and constraints' of a changed table leaves to check once DuckDB's own constraints are trusted
(`Grader._keys`). Its rows outside the changed groups are the base's (`delta.py`), whose checks all count
0 (the grader makes sure once per verifier), so:

- a VARCHAR(n) length is broken only by a row of the changed groups: `length(v::VARCHAR) > n` counts
  code points, as Python's `len` does;
- a foreign key is broken by a row of the changed groups whose key the parent no longer holds, and by an
  unchanged row whose key was one of the parent's keys the episode removed. The parent's keys on the end
  state are counted from the base's (once per base) moved by its own changed groups, and the unchanged
  rows holding a removed key from the child's base counts less those of its changed groups: all exact
  (multisets), whatever the keys' uniqueness.

Rows are what the grader read for the diff (`rowdiff.py`): nothing more is read from the episode.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from stateforge.evaluate.narrow import CannotNarrow
from stateforge.evaluate.rowdiff import Row
from stateforge.validation.checks import CheckQuery

Key = tuple[Any, ...]
Counts = Callable[[str, Sequence[str]], Counter[Key]]
"""(table, columns) -> how many base rows hold each value of those columns (NULLs left out)."""


class Rows:
    """A table's rows of its changed groups: the base's and the episode's, and where its columns are."""

    def __init__(self, table: str, columns: Sequence[str], base: Sequence[Row], end: Sequence[Row]) -> None:
        self.table = table
        self.at = {c.lower(): i for i, c in enumerate(columns)}
        self.base = base
        self.end = end

    def keys(self, rows: Sequence[Row], columns: Sequence[str]) -> list[Key]:
        """The values of `columns` in each of `rows`, those with a NULL left out (MATCH SIMPLE)."""
        try:
            at = [self.at[c.lower()] for c in columns]
        except KeyError as exc:
            raise CannotNarrow(f"{self.table} has no column {exc}") from None
        out = [tuple(r[i] for i in at) for r in rows]
        return [k for k in out if None not in k]


def orphans(child: Rows, parent: Rows | None, check: CheckQuery, counts: Counts) -> int:
    """The rows of the end state whose foreign key `check` matches no parent row (see the module
    docstring); `parent` is None when the parent has no changed group (it is the base's)."""
    assert check.ref_table is not None
    held = counts(check.ref_table, check.ref_columns)
    moved: Counter[Key] = Counter()
    if parent is not None:
        moved.update(parent.keys(parent.end, check.ref_columns))
        moved.subtract(parent.keys(parent.base, check.ref_columns))
    n = sum(1 for k in child.keys(child.end, check.columns) if held[k] + moved[k] <= 0)
    removed = [k for k, d in moved.items() if d < 0 and held[k] + d <= 0]
    if removed:
        mine = counts(check.table, check.columns)
        changed = Counter(child.keys(child.base, check.columns))
        n += sum(mine[k] - changed[k] for k in removed)
    return n


def too_long(child: Rows, column: str, limit: int) -> int:
    """The rows of the changed groups whose `column` is longer than `limit` characters."""
    values = [k[0] for k in child.keys(child.end, [column])]
    if not all(isinstance(v, str) for v in values):
        raise CannotNarrow(f"{child.table}.{column} holds values that are not text")
    return sum(1 for v in values if len(v) > limit)
