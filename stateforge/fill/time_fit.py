"""Time order by construction: a batch's times are fitted after its parents' before it is written.

    fit = TimeFit.build(schema, config, table)     # None: nothing to fit at insert time
    batch = fit.apply(con, batch, start)           # one DuckDB query over the batch and its stored parents

Parents are filled first (plan order), so when a batch is made its parents' event times are stored. The
orderings `stateforge.validation.time_order` infers along foreign keys to other tables are applied to the
batch with the same set-based map the build's time-order repair uses (a broken row's times, from its event
on, mapped into the range its parents allow), so that repair and its check find next to nothing after the
fill. What is left to them: self-references (the parent row may be in the same batch; the second pass draws
them in time order), keys filled in the second pass, and tables whose time columns a key holds (moving one
could repeat a key; the repair handles that).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from stateforge.domain.config import DomainConfig
from stateforge.schema.model import Schema, Table
from stateforge.store.sql import quote_ident as _q
from stateforge.validation.time_order import (
    Ordering,
    fit_sql,
    fittable,
    infer_time_order,
    is_time,
    keyed_times,
    mapped,
)

_BATCH = "__sf_fit"
_ROW = "__sf_fit_row"


@dataclass(frozen=True)
class TimeFit:
    """The time orderings one table's batches are fitted to at insert time."""

    table: Table
    config: DomainConfig
    orderings: tuple[Ordering, ...]

    @classmethod
    def build(cls, schema: Schema, config: DomainConfig, table: Table) -> TimeFit | None:
        """The fit of `table`'s batches; None when there is nothing to fit at insert time."""
        if keyed_times(table):
            return None
        orderings = fittable(infer_time_order(schema, config), table)
        return cls(table, config, tuple(orderings)) if orderings else None

    def apply(self, con: duckdb.DuckDBPyConnection, batch: pa.Table, start: int) -> pa.Table:
        """`batch` (rows `start`.. of the table) with the times of rows that break the order fitted; the
        other rows, and every other column, as they are."""
        have = {c.lower() for c in batch.column_names}
        usable = [o for o in self.orderings if all(c.lower() in have for c in o.fk)
                  and o.column.lower() in have]
        times = {c.name.lower(): c for c in self.table.columns if is_time(c)}
        if not usable or not batch.num_rows or not set(times) <= have:
            return batch
        sub, joins, _, _ = fit_sql(self.config, self.table, usable, _BATCH, f"c.{_ROW}")
        columns = [f"{mapped(f'c.{_q(n)}', times[n.lower()].type)} AS {_q(n)}" if n.lower() in times
                   else f"c.{_q(n)}" for n in batch.column_names]
        ordinals = np.arange(start, start + batch.num_rows, dtype=np.int64)
        numbered = batch.append_column(_ROW, pa.array(ordinals))
        con.register(_BATCH, numbered)
        try:
            fitted = con.sql(f"SELECT {', '.join(columns)} FROM {_BATCH} AS c LEFT JOIN ({sub}) AS m "
                             f"ON m.rid = c.{_ROW} ORDER BY c.{_ROW}").to_arrow_table()
        finally:
            with contextlib.suppress(duckdb.Error):
                con.unregister(_BATCH)
        return fitted.cast(batch.schema)
