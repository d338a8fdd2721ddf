"""Repairs: an ordered tuple of pure functions, each fixing what it can of a batch's failures.

    REPAIRS = (coerce_types, truncate_to_length, redraw_dangling_keys, redraw_duplicates, drop_invalid)
    outcome = repair_batch(batch, validate, ctx)

A repair is `(batch, failures, ctx) -> (batch, RepairCount)`. It returns a new Arrow table (tables are
immutable) with the same rows in the same places, except `drop_invalid`, which runs last, removes the rows
no earlier repair took care of and appends replacements. `RepairCount.failures` names the failures a
repair dealt with, so later repairs see only the rest. `repair_batch` validates, repairs, and validates
again, at most `MAX_ROUNDS` times; what is still invalid then is dropped and reported as a shortfall.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.errors import BuildError
from stateforge.schema.model import Table
from stateforge.types import batch_arrow_type, decimal_params, int_limits
from stateforge.validation.batch import Failure

MAX_ROUNDS = 5
"""Validate-and-repair rounds per batch before invalid rows are dropped for good."""


@dataclass
class RepairContext:
    """What repairs may draw on: the table, its key sampler, a source of fresh rows, a seeded rng."""

    table: Table
    rng: np.random.Generator
    keys: Any = None
    """A `stateforge.fill.keys.TableKeys` (None: foreign keys are not redrawn)."""
    fresh: Callable[[int, dict[str, pa.Array]], pa.Table] | None = None
    """`fresh(n, keep)`: n replacement rows generated at new ordinals, with the `keep` columns set."""
    keep: tuple[str, ...] = ()
    """Columns a replacement keeps from the row it replaces (per_parent keys, keys planned for a cycle)."""
    source: str | None = None
    """The DDL file, so that a CHECK no generated row passes is named at its file and line."""


@dataclass(frozen=True)
class RepairCount:
    """What one repair did: rows changed (or dropped), and which failures it dealt with."""

    rule: str
    count: int = 0
    failures: tuple[int, ...] = field(default=())


Repaired = tuple[pa.Table, RepairCount]
Repair = Callable[[pa.Table, list[Failure], RepairContext], Repaired]


def _index(batch: pa.Table, name: str) -> int:
    return next(i for i, c in enumerate(batch.column_names) if c.lower() == name.lower())


def put(batch: pa.Table, name: str, rows: np.ndarray, values: pa.Array) -> pa.Table:
    """`batch` with column `name` set to `values` at `rows` (sorted, distinct)."""
    i = _index(batch, name)
    column = batch.column(i).combine_chunks()
    mask = np.zeros(batch.num_rows, dtype=bool)
    mask[rows] = True
    values = values.cast(column.type)
    if pa.types.is_nested(column.type):  # no replace_with_mask kernel for lists and structs: take instead
        order = np.arange(batch.num_rows, dtype=np.int64)
        order[rows] = batch.num_rows + np.arange(len(rows), dtype=np.int64)
        replaced = pa.concat_arrays([column, values]).take(pa.array(order))
    else:
        replaced = pc.replace_with_mask(column, pa.array(mask), values)
    return batch.set_column(i, batch.field(i), replaced)


def _cast(values: pa.Array, column: Any) -> pa.Array:
    """`values` as the column's Arrow type: numbers clamped into its range, what cannot convert NULL."""
    try:
        return _convert(values, column)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        out = []
        for v in values.to_pylist():  # only reached when the column does not convert as a whole
            try:
                out.append(_convert(pa.array([v]), column)[0].as_py())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                out.append(None)
        return pa.array(out, type=batch_arrow_type(column.type))


def _convert(values: pa.Array, column: Any) -> pa.Array:
    target = batch_arrow_type(column.type)
    limits = int_limits(column.type)
    if pa.types.is_decimal(target):
        precision, scale = decimal_params(column.type)
        bound = 10.0 ** (precision - scale) - 10.0**-scale
        values = pc.round(pc.cast(values, pa.float64()), scale)
        return pc.cast(pc.min_element_wise(pc.max_element_wise(values, -bound), bound), target, safe=False)
    if limits is not None and (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)):
        values = pc.round(values) if pa.types.is_floating(values.type) else values
        return pc.cast(pc.min_element_wise(pc.max_element_wise(values, limits[0]), limits[1]), target)
    return pc.cast(values, target)


def coerce_types(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:
    """Cast columns of the wrong type; clamp numbers into their type's range; add missing nullable columns."""
    done, count = [], 0
    for i, f in enumerate(failures):
        column = ctx.table.column(f.columns[0])
        if f.rule == "missing_column" and (column.nullable or column.default is not None):
            if column.nullable:
                nulls = pa.nulls(batch.num_rows, batch_arrow_type(column.type))
                batch = batch.append_column(column.name, nulls)
            done.append(i)
        elif f.rule == "dtype":
            j = _index(batch, column.name)
            batch = batch.set_column(j, column.name, _cast(batch.column(j).combine_chunks(), column))
            done.append(i)
            count += batch.num_rows
        elif f.rule == "range":
            j = _index(batch, column.name)
            values = batch.column(j).combine_chunks().take(pa.array(f.rows))
            batch = put(batch, column.name, f.rows, _cast(values, column))
            done.append(i)
            count += f.count
    return batch, RepairCount("coerce_types", count, tuple(done))


def truncate_to_length(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:
    """Cut strings longer than VARCHAR(n) to n characters."""
    done, count = [], 0
    for i, f in enumerate(failures):
        if f.rule == "length":
            column = ctx.table.column(f.columns[0])
            values = batch.column(_index(batch, column.name)).combine_chunks().take(pa.array(f.rows))
            batch = put(batch, column.name, f.rows, pc.utf8_slice_codeunits(values, 0, column.length))
            done.append(i)
            count += f.count
    return batch, RepairCount("truncate_to_length", count, tuple(done))


def redraw_dangling_keys(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:
    """Give rows whose foreign key points nowhere a new parent, drawn like the others."""
    done, count = [], 0
    for i, f in enumerate(failures):
        position = ctx.keys.position(f.columns) if f.rule == "foreign_key" and ctx.keys is not None else None
        if position is None or _kept(ctx, f.columns):
            continue
        for name, values in ctx.keys.redraw(position, f.count, ctx.rng).items():
            batch = put(batch, name, f.rows, values)
        done.append(i)
        count += f.count
    return batch, RepairCount("redraw_dangling_keys", count, tuple(done))


def redraw_duplicates(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:
    """Give rows whose key is taken (in the batch or in the table) new key values.

    Foreign-key parts are redrawn from the parents, the other parts taken from fresh generated rows.
    Keys made only of kept columns are left to `drop_invalid`.
    """
    done, count = [], 0
    for i, f in enumerate(failures):
        if f.rule not in ("unique", "stored") or not f.count or _kept(ctx, f.columns):
            continue
        lowered = {c.lower() for c in f.columns}
        fk_parts = [] if ctx.keys is None else [p for p, fk in enumerate(ctx.keys.fks)
                                                if {c.lower() for c in fk.columns} & lowered]
        covered = {c.lower() for p in fk_parts for c in ctx.keys.fks[p].columns}
        rest = [c for c in f.columns if c.lower() not in covered and c.lower() not in _lower(ctx.keep)]
        for p in fk_parts:
            for name, values in ctx.keys.redraw(p, f.count, ctx.rng, uniform=True).items():
                batch = put(batch, name, f.rows, values)
        if rest and ctx.fresh is not None:
            new = ctx.fresh(f.count, {})
            for name in rest:
                if name.lower() in _lower(new.column_names):
                    batch = put(batch, name, f.rows, new.column(_index(new, name)).combine_chunks())
        done.append(i)
        count += f.count
    return batch, RepairCount("redraw_duplicates", count, tuple(done))


def drop_invalid(batch: pa.Table, failures: list[Failure], ctx: RepairContext) -> Repaired:
    """Drop the rows that no earlier repair dealt with, and append as many fresh replacement rows."""
    whole = [f for f in failures if not f.count]
    if whole:
        f = whole[0]
        raise BuildError(
            f"{f.message}. The column is NOT NULL without a default and the generator made no values for it: "
            "give it a column hint in domain.yaml."
        )
    rows = np.unique(np.concatenate([f.rows for f in failures])) if failures else np.zeros(0, np.int64)
    if not len(rows):
        return batch, RepairCount("drop_invalid")
    mask = np.zeros(batch.num_rows, dtype=bool)
    mask[rows] = True
    kept = batch.filter(pa.array(~mask))
    if ctx.fresh is not None:
        dropped = batch.filter(pa.array(mask))
        keep = {c: dropped.column(_index(dropped, c)).combine_chunks() for c in ctx.keep}
        new = ctx.fresh(len(rows), keep)
        kept = pa.concat_tables([kept, new.select(kept.column_names).cast(kept.schema)])
    return kept, RepairCount("drop_invalid", len(rows), tuple(range(len(failures))))


REPAIRS: tuple[Repair, ...] = (
    coerce_types, truncate_to_length, redraw_dangling_keys, redraw_duplicates, drop_invalid,
)
"""The repairs, in the order they run on each round's failures."""


def _lower(names: Any) -> set[str]:
    return {n.lower() for n in names}


def _kept(ctx: RepairContext, columns: tuple[str, ...]) -> bool:
    return bool(columns) and _lower(columns) <= _lower(ctx.keep)


def _unsatisfied(f: Failure, ctx: RepairContext, rounds: int) -> str:
    """The sentence for a CHECK that generated rows keep failing: where it is and what to do."""
    table, line = ctx.table, ctx.table.line
    where = f"{ctx.source}:{line}: " if ctx.source and line else (f"{ctx.source}: " if ctx.source else "")
    columns = [c for c in f.columns if ctx.table.has_column(c)]
    hint = (f"give column {columns[0]} a `values` or `expr` hint in domain.yaml (columns.{table.name}."
            f"{columns[0]})" if columns else "give its columns `values` or `expr` hints in domain.yaml")
    return (
        f"{where}table {table.name}: the generator cannot satisfy CHECK ({f.detail}): {f.count} of the first "
        f"batch's rows failed it and no row passed after {rounds} rounds of repairs. Simplify the CHECK, or "
        f"{hint}."
    )


@dataclass
class RepairOutcome:
    """A batch after repairs: the rows to insert, repairs by rule, and rows given up on."""

    batch: pa.Table
    repairs: Counter[str]
    shortfall: int = 0
    rounds: int = 0


def repair_batch(
    batch: pa.Table,
    validate: Callable[[pa.Table], list[Failure]],
    ctx: RepairContext,
    *,
    rounds: int = MAX_ROUNDS,
    repairs: tuple[Repair, ...] = REPAIRS,
    first: bool = True,
) -> RepairOutcome:
    """Validate and repair until the batch is clean or `rounds` are spent; then drop what is still bad.

    Raises `BuildError` (naming the table, columns and check) when no row of the batch can be made valid
    and it is the table's `first` batch (nothing valid can be produced at all); a later batch that ends
    empty is a shortfall.
    """
    counts: Counter[str] = Counter()
    checks: list[Failure] = []
    for round_ in range(rounds + 1):
        failures = validate(batch)
        if not failures:
            return RepairOutcome(batch, counts, 0, round_)
        if round_ == 0:
            checks = [f for f in failures if f.rule == "check"]
        if round_ == rounds:
            break
        for repair in repairs:
            batch, done = repair(batch, failures, ctx)
            if done.count:
                counts[done.rule] += done.count
            handled = set(done.failures)
            failures = [f for i, f in enumerate(failures) if i not in handled]
    bad = np.unique(np.concatenate([f.rows if f.count else np.arange(batch.num_rows) for f in failures]))
    if len(bad) == batch.num_rows and first:
        f = failures[0]
        stuck = [c for c in checks if any(x.rule == "check" and x.detail == c.detail for x in failures)]
        if stuck:  # the CHECK is the cause: replacing its rows is what made the other failures
            raise BuildError(_unsatisfied(stuck[0], ctx, rounds))
        raise BuildError(
            f"{f.message}: no valid row after {rounds} rounds of repairs. Check the column hints and CHECK "
            f"constraints of table {f.table} in domain.yaml and the DDL: they may contradict each other."
        )
    mask = np.ones(batch.num_rows, dtype=bool)
    mask[bad] = False
    counts["drop_invalid"] += len(bad)
    return RepairOutcome(batch.filter(pa.array(mask)), counts, len(bad), rounds)
