"""The Arrow half of the batch checks: what one batch says about itself, checked with Arrow compute.

    failures = schema_failures(table, batch, batch_no=3)

Read from the table's constraints (`stateforge.constraints`): columns the batch must carry (no identity, no
default), the Arrow type of each, NOT NULL, VARCHAR(n), allowed values, DECIMAL(p, s) precision, and keys
unique within the batch (NULLs never clash). Integer widths need no check of their own: the exact Arrow
type (int16 for SMALLINT, ...) cannot hold a value outside the width, and a batch of another type fails
`dtype`. Every check is a vectorised kernel over the batch's own buffers (no copy to pandas): NOT NULL is
the null count, uniqueness a hash count with a slow path only when a key repeats.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.constraints import ColumnConstraints, TableConstraints, table_constraints
from stateforge.schema.model import Table
from stateforge.store.sql import quote_literal
from stateforge.validation.batch_trust import Enforced
from stateforge.validation.failures import Failure, failure, in_rule_order

_NONE = np.zeros(0, np.int64)


def schema_failures(table: Table, batch: pa.Table, batch_no: int = 0, enforced: Enforced | None = None
                    ) -> list[Failure]:
    """What `batch` breaks of the table's column constraints and within-batch keys, in `RULES` order.

    `enforced` names the NOT NULL columns and unique keys left to DuckDB's INSERT (`batch_trust`)."""
    tc = table_constraints(table)
    names = {c.lower(): c for c in batch.column_names}
    out: list[Failure] = []
    typed: set[str] = set()
    for column in tc.columns:
        present = names.get(column.name.lower())
        if present is None:
            if column.required:
                detail = "no identity and no default fills it"
                out.append(failure("missing_column", tc.table, (column.name,), _NONE, batch_no, detail))
            continue
        values = batch.column(present)
        expected = _checked_type(column)
        if expected is not None and values.type != expected:
            detail = f"expected {expected}, got {values.type}"
            out.append(failure("dtype", tc.table, (column.name,), _NONE, batch_no, detail))
            continue
        typed.add(column.name.lower())
        nulls_checked = enforced is None or column.name.lower() not in enforced.not_null
        for rule, rows, detail in _column_checks(column, values, nulls_checked):
            if len(rows):
                out.append(failure(rule, tc.table, (column.name,), rows, batch_no, detail))
    out += _unique_failures(tc, batch, names, typed, batch_no, enforced)
    return in_rule_order(out)


def _checked_type(column: ColumnConstraints) -> pa.DataType | None:
    """The Arrow type a batch must carry the column in (None: any, for nested and interval types)."""
    typ = column.arrow
    if typ is None or pa.types.is_nested(typ) or pa.types.is_interval(typ):
        return None
    return typ


def _column_checks(column: ColumnConstraints, values: pa.ChunkedArray, nulls: bool = True
                   ) -> list[tuple[str, np.ndarray, str]]:
    """(rule, offending rows, detail) of every single-column check, the empty ones included (NOT NULL
    only if `nulls`)."""
    out = []
    if nulls and not column.nullable and values.null_count:
        out.append(("not_null", _rows(pc.is_null(values)), "NOT NULL"))
    if column.max_length and pa.types.is_string(values.type):
        too_long = pc.greater(pc.utf8_length(values), column.max_length)
        out.append(("length", _rows(too_long), f"at most {column.max_length} characters"))
    if column.allowed:
        allowed = _as_type(list(column.allowed), values.type)
        outside = pc.invert(pc.is_in(values, value_set=allowed))
        listed = ", ".join(quote_literal(v) for v in column.allowed)
        out.append(("allowed_values", _rows(pc.and_(outside, pc.is_valid(values))), f"IN ({listed})"))
    if column.kind == "decimal" and column.low is not None and pa.types.is_decimal(values.type):
        bound = pa.decimal128(38, values.type.scale)
        low, high = pa.scalar(column.low, bound), pa.scalar(column.high, bound)
        outside = pc.or_(pc.less(values, low), pc.greater(values, high))
        out.append(("range", _rows(outside), f"between {column.low} and {column.high}"))
    return out


def _as_type(values: list[object], typ: pa.DataType) -> pa.Array:
    """The allowed values as an array of the column's type (as given when they do not convert)."""
    try:
        return pa.array(values).cast(typ)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        return pa.array(values)


def _rows(mask: pa.ChunkedArray | pa.Array) -> np.ndarray:
    """The row indices where `mask` is true (NULL counts as false)."""
    if isinstance(mask, pa.ChunkedArray):
        mask = mask.combine_chunks()
    return np.flatnonzero(pc.fill_null(mask, False).to_numpy(zero_copy_only=False)).astype(np.int64)


def _unique_failures(tc: TableConstraints, batch: pa.Table, names: dict[str, str], typed: set[str],
                     batch_no: int, enforced: Enforced | None = None) -> list[Failure]:
    """Rows whose key repeats an earlier row's of the batch (a key with a NULL part collides with nothing)."""
    out = []
    for key in tc.unique_keys:
        if not all(c.lower() in typed for c in key.columns):
            continue
        if enforced is not None and enforced.key(key.columns):
            continue
        rows = duplicate_rows(batch.select([names[c.lower()] for c in key.columns]))
        if len(rows):
            detail = f"{'PRIMARY KEY' if key.primary else 'UNIQUE'} ({', '.join(key.columns)})"
            out.append(failure("unique", tc.table, key.columns, rows, batch_no, detail))
    return out


def duplicate_rows(keys: pa.Table) -> np.ndarray:
    """The rows of `keys` (the key's columns) equal to an earlier row with no NULL part, sorted."""
    keys = _hashable(keys)
    valid = None
    for i in range(keys.num_columns):
        column = pc.is_valid(keys.column(i))
        valid = column if valid is None else pc.and_(valid, column)
    complete = keys.filter(valid) if valid is not None and keys.num_rows else keys
    if complete.num_rows < 2 or _all_distinct(complete):
        return _NONE
    row = "__sf_row"
    numbered = keys.rename_columns([f"k{i}" for i in range(keys.num_columns)])
    numbered = numbered.append_column(row, pa.array(np.arange(keys.num_rows, dtype=np.int64)))
    numbered = numbered.filter(valid) if valid is not None else numbered
    firsts = numbered.group_by(numbered.column_names[:-1], use_threads=False).aggregate([(row, "min")])
    kept = firsts.column(f"{row}_min").to_numpy()
    return np.setdiff1d(numbered.column(row).to_numpy(), kept).astype(np.int64)


def _hashable(keys: pa.Table) -> pa.Table:
    """`keys` with nested columns (a list such as INTEGER[], a struct, a map: Arrow cannot hash or group
    them) written as text, equal exactly when the values are; NULLs stay NULL. Such keys are rare (a
    UNIQUE over an array): the per-value encoding is the price of checking them at all."""
    nested = [i for i in range(keys.num_columns) if pa.types.is_nested(keys.column(i).type)]
    for i in nested:
        text = pa.array([None if v is None else repr(v) for v in keys.column(i).to_pylist()], pa.string())
        keys = keys.set_column(i, keys.field(i).name, text)
    return keys


def _all_distinct(keys: pa.Table) -> bool:
    """No two rows of `keys` (no NULLs) are equal: a pass over one int64 when the key fits in one (keys
    made in order, the common case, need no hashing at all), else a hash count."""
    packed = _packed(keys)
    if packed is not None:
        if bool(np.all(packed[1:] > packed[:-1])):
            return True
        return pc.count_distinct(pa.array(packed)).as_py() == keys.num_rows
    if keys.num_columns == 1:
        return pc.count_distinct(keys.column(0), mode="only_valid").as_py() == keys.num_rows
    return keys.group_by(keys.column_names, use_threads=False).aggregate([]).num_rows == keys.num_rows


def _packed(keys: pa.Table) -> np.ndarray | None:
    """Integer key columns packed into one int64 per row (mixed radix over their ranges), or None when a
    column is not an integer or the ranges do not fit in 63 bits."""
    packed: np.ndarray | None = None
    span = 1
    for i in range(keys.num_columns):
        column = keys.column(i)
        if not pa.types.is_integer(column.type):
            return None
        values = column.to_numpy().astype(np.int64, copy=False)
        low, high = int(values.min()), int(values.max())
        width = high - low + 1
        span *= width
        if span >= 2**62:
            return None
        packed = values - low if packed is None else packed * width + (values - low)
    return packed
