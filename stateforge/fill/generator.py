"""The offline value generator: Arrow batches of realistic rows for one table, deterministic by seed.

    gen = TableGenerator(table, config, seed=7, exclude=["user_id"])   # the engine fills foreign keys
    batch = gen.generate(10_000, start=0)          # rows 0..9999: every column but FKs and expressions
    ...engine adds the foreign key columns...
    batch = apply_sequences(batch, table, config, counters)   # `sequence` hints with `within`
    batch = apply_expressions(batch, table, config)           # `expr` hints

A batch depends only on (seed, table name, start, n, config, table definition): every column draws from
its own numpy generator seeded with (seed, table, start, column), so batches can be made in any order.
Keys and unique columns are distinct across batches by construction (they are made from the global row
numbers `start+1 .. start+n`); composite keys and cross-table rules are the engine's to validate.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.constraints.checks import CheckFacts
from stateforge.domain.config import DomainConfig
from stateforge.errors import SchemaError, guard
from stateforge.fill.columns import choose, plan_columns
from stateforge.fill.convert import to_arrow
from stateforge.fill.numbering import Numbering
from stateforge.fill.pools import stable_hash
from stateforge.fill.shaping import shape
from stateforge.fill.spec import ColumnSpec, Ctx
from stateforge.fill.strategies import SELF_UNIQUE, STRATEGIES, unique_numbers
from stateforge.fill.strategies_time import after
from stateforge.fill.strings import with_suffix
from stateforge.schema.model import Column, Table
from stateforge.types import arrow_type

_UNIQUE_SEPARATOR = {"word": "-", "words": " ", "title": " "}


class TableGenerator:
    """Makes batches of rows for `table`; `exclude` names the columns the engine fills (foreign keys)."""

    def __init__(
        self, table: Table, config: DomainConfig, *, seed: int, exclude: Collection[str] = ()
    ) -> None:
        self.table = table
        self.config = config
        self.seed = seed
        self.specs = plan_columns(table, config, exclude)
        self.columns = [s for s in self.specs if s.generated]
        """Specs of the columns `generate` makes, in generation order."""
        by_key = {s.key for s in self.columns}
        self.output = [c.name for c in table.columns if c.name.lower() in by_key]
        """The columns of every batch, in table order."""
        self._table_key = stable_hash(table.name.lower())

    def generate(self, n: int, start: int) -> pa.Table:
        """Rows with global ordinals `start .. start+n-1`, as an Arrow table of the generated columns."""
        row: dict[str, Any] = {}
        arrays: dict[str, pa.Array] = {}
        nulls: dict[str, np.ndarray] = {}
        for spec in self.columns:
            rng = np.random.default_rng([self.seed, self._table_key, start, stable_hash(spec.key)])
            ctx = Ctx(spec=spec, rng=rng, n=n, start=start, config=self.config, seed=self.seed, row=row)
            with guard(f"generating values ({spec.strategy})", table=self.table.name, column=spec.name):
                raw = make_values(ctx, self.table)
                row[spec.key] = raw
                mask = _null_mask(ctx, nulls)
                nulls[spec.key] = mask
                arrays[spec.key] = _finish(raw, spec, mask, self.table)
        if not self.output:  # every column is filled later: keep the row count all the same
            return pa.table({"_": pa.nulls(n)}).drop_columns(["_"])
        return pa.table({name: arrays[name.lower()] for name in self.output})


def make_values(ctx: Ctx, table: Table) -> Any:
    """The raw values of one column (before NULLs): strategy, `after`, uniqueness."""
    spec = ctx.spec
    if spec.kind == "list":
        return _list_values(ctx, table)
    if spec.arrow_type is None:
        return None
    if spec.after:
        return after(ctx)
    values = STRATEGIES.load(spec.strategy)(ctx)
    if spec.unique and spec.strategy not in SELF_UNIQUE:
        if isinstance(values, pa.Array):
            if pa.types.is_string(values.type):
                sep = _UNIQUE_SEPARATOR.get(spec.strategy, " ")
                values = with_suffix(values, ctx.ordinals, sep, spec.max_len)
        elif spec.domain != "other":
            values = unique_numbers(ctx, values)
    return values


def _null_mask(ctx: Ctx, earlier: dict[str, np.ndarray]) -> np.ndarray:
    """NULLs at the spec's rate; a nullable `after` column is NULL too where its base is NULL."""
    spec = ctx.spec
    if spec.null_rate <= 0:
        return np.zeros(ctx.n, dtype=bool)
    mask = ctx.rng.random(ctx.n) < spec.null_rate
    for base in spec.after:
        if base.lower() in earlier:
            mask |= earlier[base.lower()]
    return mask


def _finish(raw: Any, spec: ColumnSpec, mask: np.ndarray, table: Table) -> pa.Array:
    if spec.arrow_type is None:
        if spec.column.nullable:
            return pa.nulls(len(mask))
        raise SchemaError(
            f"cannot generate values of type {spec.column.type}; "
            "give the column an `expr` hint in domain.yaml",
            table=table.name,
            column=spec.name,
        )
    array = raw if spec.kind == "list" else to_arrow(raw, spec.arrow_type, max_len=spec.max_len)
    array = shape(array, spec)
    if mask.any():
        array = pc.if_else(pa.array(~mask), array, pa.scalar(None, array.type))
    return array


def _list_values(ctx: Ctx, table: Table) -> pa.Array:
    """0 to 3 elements a row, each made as the element type's own column would be."""
    spec = ctx.spec
    inner = Column(name=spec.name, type=spec.column.type.strip()[:-2], nullable=False)
    element = choose(inner, table, ctx.config, CheckFacts())
    element.values = element.values or spec.values
    if element.reason == "type" and element.kind == "str":
        element.strategy = "word"  # tags, labels, keywords: lists of single words
    counts = ctx.rng.integers(0, 4, ctx.n)
    offsets = pa.array(np.concatenate([[0], np.cumsum(counts)]).astype(np.int32))
    total = int(offsets[-1].as_py())
    inner_ctx = Ctx(spec=element, rng=ctx.rng, n=total, start=0, config=ctx.config, seed=ctx.seed, row={})
    values = _finish(make_values(inner_ctx, table), element, np.zeros(total, dtype=bool), table)
    return pa.ListArray.from_arrays(offsets, values)


def strategy_for(table: Table, column: str, config: DomainConfig) -> str:
    """The name of the strategy that fills `column` ("foreign_key" for columns the engine fills)."""
    col = table.column(column)
    if any(col.name.lower() in (c.lower() for c in fk.columns) for fk in table.foreign_keys):
        return "foreign_key"
    return _spec(table, config, col.name).strategy


def column_specs(table: Table, config: DomainConfig, exclude: Collection[str] = ()) -> list[ColumnSpec]:
    """Every column's plan, in table order (for the build report)."""
    by_key = {s.key: s for s in plan_columns(table, config, exclude)}
    return [by_key[c.name.lower()] for c in table.columns if c.name.lower() in by_key]


def _spec(table: Table, config: DomainConfig, column: str) -> ColumnSpec:
    return next(s for s in plan_columns(table, config) if s.key == column.lower())


def expression_columns(table: Table, config: DomainConfig) -> list[str]:
    """Columns computed by `apply_expressions` (hints with `expr`), in table order."""
    return [c.name for c in table.columns if (h := config.hint(table.name, c.name)) and h.expr is not None]


def sequence_columns(table: Table, config: DomainConfig) -> list[str]:
    """Columns numbered 1..n inside groups by `apply_sequences` (`sequence` hints with `within`)."""
    return [
        c.name
        for c in table.columns
        if (h := config.hint(table.name, c.name))
        and h.within
        and h.expr is None
        and (h.strategy in (None, "sequence"))
    ]


def apply_expressions(batch: pa.Table, table: Table, config: DomainConfig) -> pa.Table:
    """Add (or replace) the `expr` columns, computed by DuckDB over the batch, cast to the column types.

    Expressions are evaluated in table order, so one may read an expression column defined before it.
    """
    names = expression_columns(table, config)
    if not names:
        return batch
    con = _scratch_connection()
    try:
        for name in names:
            column = table.column(name)
            expr = config.hint(table.name, name).expr  # type: ignore[union-attr]
            con.register(
                "batch", batch.drop_columns([c for c in batch.column_names if c.lower() == name.lower()])
            )
            try:
                result = con.sql(f"SELECT CAST(({expr}) AS {column.type}) AS v FROM batch").to_arrow_table()
            except duckdb.Error as exc:
                raise SchemaError(f"expr {expr!r} failed: {exc}", table=table.name, column=name) from None
            batch = _put(batch, column.name, result.column("v"))
    finally:
        con.unregister("batch")
    return _in_table_order(batch, table)


_local = threading.local()


def _scratch_connection() -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB for expressions, one per thread: opening one costs ~50 ms, a batch far less."""
    con = getattr(_local, "con", None)
    if con is None:
        con = _local.con = duckdb.connect(":memory:")
    return con


def apply_sequences(
    batch: pa.Table, table: Table, config: DomainConfig, counters: dict[str, Any]
) -> pa.Table:
    """Add (or replace) the grouped `sequence` columns: 1..n inside each group of the `within` columns.

    `counters` is the engine's per-table state across batches, mutated in place: `counters[column]` is
    the column's `Numbering` (the last number given in each group). Start it as `{}` for each table and
    pass the same dict for every batch of that table; rows are numbered in batch order.
    """
    for name in sequence_columns(table, config):
        hint = config.hint(table.name, name)
        assert hint is not None and hint.within
        groups = [_batch_column(batch, g, table) for g in hint.within]
        first = hint.min if isinstance(hint.min, int) else 1
        numbering = counters.get(name.lower())
        if numbering is None or numbering.first != first:
            numbering = counters[name.lower()] = Numbering(first)
        numbers = numbering.next(groups)
        column = table.column(name)
        target = arrow_type(column.type) or pa.int64()
        with guard("numbering a grouped sequence", table=table.name, column=column.name):
            batch = _put(batch, column.name, to_arrow(numbers, target))
    return _in_table_order(batch, table)


def _batch_column(batch: pa.Table, name: str, table: Table) -> pa.ChunkedArray:
    for present in batch.column_names:
        if present.lower() == name.lower():
            return batch.column(present)
    raise SchemaError(
        f"apply_sequences needs the group column {name} in the batch; fill it first",
        table=table.name,
        column=name,
    )


def _put(batch: pa.Table, name: str, values: pa.Array | pa.ChunkedArray) -> pa.Table:
    for i, present in enumerate(batch.column_names):
        if present.lower() == name.lower():
            return batch.set_column(i, name, values)
    return batch.append_column(name, values)


def _in_table_order(batch: pa.Table, table: Table) -> pa.Table:
    order = {c.name.lower(): i for i, c in enumerate(table.columns)}
    names = sorted(batch.column_names, key=lambda c: order.get(c.lower(), len(order)))
    return batch.select(names)
