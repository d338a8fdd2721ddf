"""The second pass keeps every UNIQUE constraint that holds a deferred key's columns.

`UNIQUE (item_id, previous_version_id)` with `previous_version_id` a self-reference filled in the second
pass: two versions of one item may not point at the same previous version. The first pass left the
column NULL (NULLs never clash), so only the second pass can break the constraint, and DuckDB would
refuse the rewritten table as a whole. `UniqueKeys` finds, among the rows given a value, those whose
values repeat an earlier row's on such a key (with the row's other columns of the key as stored); the
caller redraws them a few times and sets the rest NULL (a deferred key is nullable), so the rewrite
always holds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from stateforge.fill.sampling import duplicated, group_codes
from stateforge.schema.model import Table
from stateforge.store.sql import quote_ident

REDRAW_ROUNDS = 8
"""Redraws of the clashing rows before the rows still clashing are set NULL."""

PREFIX = "__sf_uq_"
"""Prefix of the stored columns `UniqueKeys.select` reads beside the key."""


class UniqueKeys:
    """The UNIQUE keys (and primary key) of `table` that hold some of `free`, the columns a deferred key
    sets; the key's other columns are read as stored (`select`)."""

    def __init__(self, table: Table, free: list[str]) -> None:
        own = {c.lower() for c in free}
        self.keys = [
            ([c for c in key if c.lower() not in own], [c for c in key if c.lower() in own])
            for key in table.unique_keys
            if any(c.lower() in own for c in key)
        ]
        self.fixed = list(dict.fromkeys(c for fixed, _ in self.keys for c in fixed))

    def __bool__(self) -> bool:
        return bool(self.keys)

    def select(self) -> list[str]:
        """The SELECT items that read the keys' other columns (as `__sf_uq_<column>`)."""
        return [f"{quote_ident(c)} AS {quote_ident(PREFIX + c)}" for c in self.fixed]

    def clashes(self, rows: pa.Table, values: dict[str, pa.Array], chosen: np.ndarray) -> np.ndarray:
        """True for each chosen row whose key values (`values` for the free columns, `rows` for the others)
        repeat those of an earlier chosen row on one of the keys; a NULL in the key never clashes."""
        bad = np.zeros(len(chosen), dtype=bool)
        for fixed, own in self.keys:
            arrays = [rows.column(PREFIX + c).combine_chunks() for c in fixed]
            arrays += [_flat(values[c]) for c in own]
            codes = group_codes(arrays, [a.slice(0, 0) for a in arrays])[0]
            live = np.flatnonzero(chosen & (codes >= 0))
            bad[live[duplicated(codes[live])]] = True
        return bad


def keep_unique(
    keys: UniqueKeys,
    rows: pa.Table,
    ix: np.ndarray,
    values_at: Callable[[np.ndarray], dict[str, pa.Array]],
    redraw: Callable[[], np.ndarray] | None,
) -> tuple[np.ndarray, int]:
    """Parent indices `ix` (-1: NULL) with no clash on `keys`: clashing rows are redrawn from `redraw()`
    (a fresh index for every row) up to `REDRAW_ROUNDS` times, then set NULL. `values_at(ix)` gives the
    free columns' values per row. Returns the indices and the rows set NULL."""
    if not keys:
        return ix, 0
    ix = ix.copy()
    bad = keys.clashes(rows, values_at(ix), ix >= 0)
    for _ in range(REDRAW_ROUNDS if redraw is not None else 0):
        if not bad.any():
            return ix, 0
        assert redraw is not None
        ix[bad] = redraw()[bad]
        bad = keys.clashes(rows, values_at(ix), ix >= 0)
    ix[bad] = -1
    return ix, int(bad.sum())


def _flat(array: pa.Array | pa.ChunkedArray) -> pa.Array:
    return array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
