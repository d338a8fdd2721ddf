"""Time order by construction: a batch's times are fitted after its parents' before it is written.

    fit = TimeFit.build(schema, config, table)     # None: nothing to fit at insert time
    batch = fit.apply(con, batch, start)           # one DuckDB query over the batch and its stored parents
    fast = IndexedFit.build(con, fit, keys, seed)  # the same in numpy, from the parents the keys drew
    batch = fast.apply(batch, start)

Parents are filled first (plan order), so when a batch is made its parents' event times are stored. The
orderings `stateforge.validation.time_order` infers along foreign keys to other tables are applied to the
batch with the same set-based map the build's time-order repair uses (a broken row's times, from its event
on, mapped into the range its parents allow), so that repair and its check find next to nothing after the
fill. What is left to them: self-references (the parent row may be in the same batch; the second pass draws
them in time order), keys filled in the second pass, and tables whose time columns a key holds (moving one
could repeat a key; the repair handles that).

`IndexedFit` does the same arithmetic in numpy: the keys (`stateforge.fill.keys.TableKeys`) know each
planned row's parent row, so the parents' times are read once per table and a batch's bounds are array
look-ups (a query a batch cost about 30 ms of CPU at 50,000 rows; this, about 3).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.domain.config import DomainConfig
from stateforge.fill.sampling import group_codes, lookup, rng_for
from stateforge.schema.model import Schema, Table
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import table_ref
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


_DAY = 86_400_000_000
_NONE_LOW = np.iinfo(np.int64).min
_NONE_HIGH = np.iinfo(np.int64).max


def _micros(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Microseconds since the epoch of a date or timestamp column, and where it is NULL."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    null = values.is_null().to_numpy(zero_copy_only=False)
    if pa.types.is_date(values.type):
        days = values.cast(pa.date32()).cast(pa.int32()).fill_null(0).to_numpy(zero_copy_only=False)
        return days.astype(np.int64) * _DAY, null
    stamps = values.cast(pa.timestamp("us")).cast(pa.int64()).fill_null(0)
    return stamps.to_numpy(zero_copy_only=False).astype(np.int64), null


def _back(micros: np.ndarray, like: pa.Array) -> pa.Array:
    """`micros` as an array of `like`'s type (a date keeps the day the time falls on)."""
    if pa.types.is_date(like.type):
        return pa.array(np.floor_divide(micros, _DAY).astype(np.int32)).cast(pa.date32()).cast(like.type)
    return pa.array(micros, type=pa.int64()).cast(pa.timestamp("us")).cast(like.type)


@dataclass
class IndexedFit:
    """A `TimeFit` computed in numpy from the parent row of each planned row (`TableKeys.index`)."""

    fit: TimeFit
    bounds: list[tuple[int, np.ndarray, np.ndarray | None]]
    """Per ordering: the key's drawing position, each parent's event (micros; int64 min for NULL), and for
    a window each parent's end (micros, a DATE end at its last second; int64 max for an open period)."""
    index: list[np.ndarray]
    clock: int
    seed: int

    @classmethod
    def build(cls, con: duckdb.DuckDBPyConnection, fit: TimeFit, keys, seed: int) -> IndexedFit | None:  # noqa: ANN001
        """The fit of `keys`' rows (a `stateforge.fill.keys.TableKeys`); None when a key it needs is not
        drawn from stored parents (the query fit then applies)."""
        bounds = []
        for o in fit.orderings:
            p = keys.position(o.fk)
            if p is None or keys.parents[p].num_rows == 0:
                return None
            parent = keys.parents[p]
            cols = [_q(c) for c in o.ref_key] + [_q(o.ref_column)] + ([_q(o.ref_end)] if o.ref_end else [])
            order = ", ".join(_q(c) for c in o.ref_key)
            stored = con.sql(f"SELECT {', '.join(cols)} FROM {table_ref(o.ref_table)} ORDER BY {order}"
                             ).to_arrow_table()
            width = len(o.ref_key)
            mine = [parent.column(i).combine_chunks() for i in range(width)]
            theirs = [stored.column(i).combine_chunks() for i in range(width)]
            if len(mine[0]) == len(theirs[0]) and all(a.equals(b.cast(a.type)) for a, b in zip(mine, theirs,
                                                                                                strict=True)):
                at = np.arange(len(mine[0]))  # the keys drew from every parent, in key order
            else:
                at = lookup(*group_codes(mine, theirs))
            found = at >= 0
            take = pa.array(np.where(found, at, 0))
            low, low_null = _micros(stored.column(len(o.ref_key)).take(take))
            low = np.where(found & ~low_null, low, _NONE_LOW)
            high = None
            if o.ref_end:
                end = stored.column(len(o.ref_key) + 1).take(take)
                high, high_null = _micros(end)
                if pa.types.is_date(end.type):
                    high = high + _DAY - 1_000_000  # a DATE end means the whole day
                high = np.where(found & ~high_null, high, _NONE_HIGH)
            bounds.append((p, low, high))
        clock = int(_micros(pa.array([fit.config.time_window.clock], pa.timestamp("us")))[0][0])
        return cls(fit, bounds, keys.index, clock, seed)

    def apply(self, batch: pa.Table, start: int) -> pa.Table:
        """`batch` (planned rows `start`.. as the keys drew them) with its broken rows' times fitted."""
        table, n = self.fit.table, batch.num_rows
        names = {c.lower(): c for c in batch.column_names}
        times = [c.name for c in table.columns if is_time(c)]
        if not n or any(t.lower() not in names for t in times):
            return batch
        event = self.fit.orderings[0].column
        x0, x0_null = _micros(batch.column(names[event.lower()]))
        low = np.full(n, _NONE_LOW, dtype=np.int64)
        high = np.full(n, _NONE_HIGH, dtype=np.int64)
        for p, p_low, p_high in self.bounds:
            ix = self.index[p][start:start + n]
            has = ix >= 0
            safe = np.where(has, ix, 0)
            low = np.maximum(low, np.where(has, p_low[safe], _NONE_LOW))
            if p_high is not None:
                high = np.minimum(high, np.where(has, p_high[safe], _NONE_HIGH))
        bounded = low > _NONE_LOW
        if pa.types.is_date(batch.column(names[event.lower()]).type):
            # a DATE event keeps the day: a parent's time on that day is not after it (as fit_sql says)
            low = np.where(bounded, np.floor_divide(low, _DAY) * _DAY, low)
        closed = high < _NONE_HIGH
        bad = ~x0_null & ((bounded & (x0 < low)) | (closed & (x0 > high)))
        lo = np.where(bounded, low, x0)
        hi = np.where(closed, high, np.maximum(self.clock, lo))
        bad &= lo <= hi  # a row that cannot fit is left to the repair (which removes it)
        if not bad.any():
            return batch
        columns = {t: _micros(batch.column(names[t.lower()])) for t in times}
        later = [np.where(~null & (x >= x0), x, x0) for x, null in columns.values()]
        span = (np.max(later, axis=0) - x0).astype(float)
        k = np.where(span > 0, np.minimum(1.0, (hi - lo) / np.where(span > 0, span, 1.0)), 1.0)
        room = (hi - lo) - span * k
        u = rng_for(self.seed, table.name, "time-fit", start).random(n)
        target = lo + np.maximum(0.0, room) * u
        # the row moves by whole days when the range allows (times of day, weekdays stay plausible)
        days = x0 + np.round((target - x0) / _DAY) * _DAY
        days = np.where(days < lo, days + _DAY, np.where(days + span * k > hi, days - _DAY, days))
        nx0 = np.where(room >= 2 * _DAY, days, target)
        out = batch
        for t, (x, null) in columns.items():
            move = bad & ~null & (x >= x0)
            if not move.any():
                continue
            new = np.where(move, np.round(nx0 + (x - x0) * k), x).astype(np.int64)
            i = out.column_names.index(names[t.lower()])
            like = out.column(i).combine_chunks()
            out = out.set_column(i, names[t.lower()], pc.if_else(pa.array(move), _back(new, like), like))
        return out
