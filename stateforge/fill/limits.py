"""Numbers not above their parent's (`at_most` hints): a limit rule that holds by construction.

    limits = parent_limits(con, config, table, keys)    # once per table: each parent's value
    raw = cap(raw, limits, keys, start)                  # a batch's generated values cut to them

The parents are stored (plan order), and `TableKeys.index` knows each planned row's parent, so a batch's
limits are array look-ups. The cut comes before the row's expressions (a play's `skipped` reads its
length). The domain's rule stays the check (and the repair of what the fill did not draw: replacement
rows, keys of the second pass).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.domain.config import DomainConfig
from stateforge.fill.keys import TableKeys
from stateforge.schema.model import Table
from stateforge.store.sql import quote_ident as _q


@dataclass(frozen=True)
class Limit:
    """One `at_most` hint: the column, the key's drawing position, each drawn parent's limit (NaN: none)."""

    column: str
    position: int
    values: np.ndarray


def parent_limits(con: duckdb.DuckDBPyConnection, config: DomainConfig, table: Table, keys: TableKeys
                  ) -> list[Limit]:
    """The limits of `table`'s `at_most` hints, per parent its key drew from."""
    out = []
    for c in table.columns:
        hint = config.hint(table.name, c.name)
        if hint is None or hint.at_most is None:
            continue
        where = f"columns.{table.name}.{c.name}.at_most"
        p = keys.via(hint.at_most.via, where)
        parent = keys.fks[p].ref_table
        stored, at = keys.parent_rows(con, p, f"CAST({_q(hint.at_most.column)} AS DOUBLE)", where,
                                      f"name a number column of {parent} ({hint.at_most.column}).")
        if keys.parents[p].num_rows == 0:
            continue
        values = stored.column(1).combine_chunks().to_numpy(zero_copy_only=False).astype(float)
        out.append(Limit(c.name, p, np.where(at >= 0, values[np.maximum(at, 0)], np.nan)))
    return out


def cap(batch: pa.Table, limits: list[Limit], keys: TableKeys, start: int) -> pa.Table:
    """`batch` (planned rows `start`.. as the keys drew them) with each limited column cut to its parent's
    value where it is above it."""
    names = {n.lower(): n for n in batch.column_names}
    for limit in limits:
        name = names.get(limit.column.lower())
        if name is None or not batch.num_rows:
            continue
        ix = keys.index[limit.position][start:start + batch.num_rows]
        bound = np.where(ix >= 0, limit.values[np.maximum(ix, 0)], np.nan)
        column = batch.column(name).combine_chunks()
        x = column.cast(pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False)
        over = ~np.isnan(bound) & ~np.isnan(x) & (x > bound)
        if over.any():
            cut = pa.array(np.where(over, bound, 0.0)).cast(column.type, safe=False)
            i = batch.column_names.index(name)
            batch = batch.set_column(i, name, pc.if_else(pa.array(over), cut, column))
    return batch
