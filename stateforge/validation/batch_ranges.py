"""Which stored-key checks a batch needs: the value ranges of the key columns written so far.

    written = WrittenRanges(table)
    keys = written.keys_to_check(batch)      # the unique keys a batch may repeat a stored row of
    failures = validate_batch(con, table, batch, stored=keys)
    ...insert the batch...
    written.add(batch)

The batch checks look up each unique key of a batch in the stored table (a semi-join whose cost grows
with the rows stored). A key can only repeat a stored row if every one of its columns does, so when one
column of the key has all the batch's values outside the [min, max] of the values written to it so far,
no row of the batch can equal a stored row on that key and the look-up is skipped. Sequences (ids made
from the row's ordinal) and keys drawn parent by parent advance from batch to batch, so most look-ups go.

Sound only while the writer sees every row written to the table: the fill engine empties the table,
then writes it in one transaction, adding each batch here as it inserts it. Ranges are kept for
integer, string, date and timestamp columns (total orders that agree with SQL equality: equal values
are equal under the order); other types keep their look-ups.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from stateforge.constraints import table_constraints
from stateforge.schema.model import Table


def _ranged(typ: pa.DataType) -> bool:
    return (pa.types.is_integer(typ) or pa.types.is_string(typ) or pa.types.is_large_string(typ)
            or pa.types.is_date(typ) or pa.types.is_timestamp(typ))


class WrittenRanges:
    """The [min, max] of the non-NULL values written to each column of a unique key of one table."""

    def __init__(self, table: Table) -> None:
        self.keys = [k.columns for k in table_constraints(table).unique_keys]
        self.ranges: dict[str, tuple[Any, Any]] = {}
        """Lower-case column -> (min, max) over the rows written; absent: nothing written yet."""
        self.types: dict[str, pa.DataType] = {}
        self.untracked: set[str] = set()
        """Columns whose type has no range kept here (their keys are always looked up)."""

    def add(self, batch: pa.Table) -> None:
        """Record the key values of `batch`, just inserted."""
        for name, column in self._key_columns(batch).items():
            if name in self.untracked:
                continue
            if not _ranged(column.type) or self.types.setdefault(name, column.type) != column.type:
                self.untracked.add(name)
                self.ranges.pop(name, None)
                continue
            low, high = _min_max(column)
            if low is None:
                continue
            if name in self.ranges:
                seen_low, seen_high = self.ranges[name]
                low, high = min(low, seen_low), max(high, seen_high)
            self.ranges[name] = (low, high)

    def keys_to_check(self, batch: pa.Table) -> list[tuple[str, ...]]:
        """The unique keys (as in the table's constraints) whose stored look-up `batch` needs."""
        columns = self._key_columns(batch)
        return [key for key in self.keys if not any(self._apart(c.lower(), columns) for c in key)]

    def _apart(self, name: str, columns: dict[str, pa.ChunkedArray]) -> bool:
        """Every non-NULL value of the batch's column lies outside the range written to it."""
        column = columns.get(name)
        if column is None or name in self.untracked or self.types.get(name, column.type) != column.type:
            return False
        if name not in self.ranges:
            return name in self.types  # rows were written, none with a value here: nothing to repeat
        low, high = _min_max(column)
        if low is None:
            return True  # all NULL: a NULL key part collides with nothing
        seen_low, seen_high = self.ranges[name]
        return low > seen_high or high < seen_low

    def _key_columns(self, batch: pa.Table) -> dict[str, pa.ChunkedArray]:
        wanted = {c.lower() for key in self.keys for c in key}
        return {n.lower(): batch.column(n) for n in batch.column_names if n.lower() in wanted}


def _min_max(column: pa.ChunkedArray | pa.Array) -> tuple[Any, Any]:
    """The least and greatest non-NULL value as Python objects, (None, None) when there is none."""
    found = pc.min_max(column)
    return found["min"].as_py(), found["max"].as_py()


def stored_keys(checked: bool | Collection[tuple[str, ...]], key: tuple[str, ...]) -> bool:
    """Whether the stored look-up of `key` runs: `checked` is True (all), False (none) or the keys."""
    if isinstance(checked, bool):
        return checked
    wanted = sorted(c.lower() for c in key)
    return any(sorted(c.lower() for c in k) == wanted for k in checked)
