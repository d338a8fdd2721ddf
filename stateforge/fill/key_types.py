"""Foreign keys whose two ends have different types: only the parent keys the child's columns can hold.

    parents = holdable_parents(parents, fk, child_table)   # filtered, and cast to the child's types

A `numeric(12)` or `NUMBER(1)` column may reference an unconstrained `numeric` key, a `VARCHAR(4)` column
an INTEGER key (the parser widens columns of another type family, `stateforge.schema.constraints`): a child
row can point only at a parent whose key it can store. Numbers are checked in bulk (integral where the
child's scale is 0, within its digits or integer width), strings by length; anything else is tried with
Arrow's safe cast, halving the slice that fails, so that no Arrow error ever reaches the user.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.errors import BuildError
from stateforge.schema.model import Column, ForeignKey, Table
from stateforge.types import batch_arrow_type, decimal_params, int_limits, text_length

_CAST_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def holdable_parents(parents: pa.Table, fk: ForeignKey, child: Table, *, parent: str) -> pa.Table:
    """The rows of `parents` (the key values of `fk`, columns `fk.ref_columns`) whose every part the
    child's column can hold, with each part cast to that column's Arrow type.

    Raises BuildError naming the foreign key, both types and the fix when keys exist but none fits.
    """
    if parents.num_rows == 0:
        return parents
    keep = np.ones(parents.num_rows, dtype=bool)
    for name, ref in zip(fk.columns, fk.ref_columns, strict=True):
        keep &= holdable(parents.column(ref).combine_chunks(), child.column(name))
    if not keep.any():
        raise BuildError(
            f"table {child.name}: FOREIGN KEY ({', '.join(fk.columns)}) -> {parent}"
            f"({', '.join(fk.ref_columns)}): none of the {parents.num_rows} keys of {parent} fits in "
            f"{', '.join(child.column(c).type for c in fk.columns)}. Give the referencing column the key's "
            "type in the DDL, or hint the key's values in domain.yaml so that some fit."
        )
    kept = parents if keep.all() else parents.filter(pa.array(keep))
    columns = {}
    for name, ref in zip(fk.columns, fk.ref_columns, strict=True):
        values = kept.column(ref).combine_chunks()
        target = batch_arrow_type(child.column(name).type)
        columns[ref] = values if values.type == target else _cast(values, target)
    return pa.table({ref: columns.get(ref, kept.column(ref)) for ref in kept.column_names})


def holdable(values: pa.Array, column: Column) -> np.ndarray:
    """Per value (non-NULL): `column` can store it unchanged."""
    target = batch_arrow_type(column.type)
    if values.type == target and not pa.types.is_string(target):
        return np.ones(len(values), dtype=bool)
    if pa.types.is_string(target):
        text = values if pa.types.is_string(values.type) else _cast(values, pa.string())
        limit = text_length(column.type, column.length)
        if limit is None:
            return np.ones(len(values), dtype=bool)
        return pc.fill_null(pc.less_equal(pc.utf8_length(text), limit), True).to_numpy(zero_copy_only=False)
    numeric = pa.types.is_integer(values.type) or pa.types.is_decimal(values.type) or \
        pa.types.is_floating(values.type)  # fmt: skip
    if numeric and (pa.types.is_integer(target) or pa.types.is_decimal(target)):
        return _numbers(values, column, target)
    return _tried(values, target)


def _numbers(values: pa.Array, column: Column, target: pa.DataType) -> np.ndarray:
    """Integral where the scale is 0 and within the type's range (compared as float64, then confirmed)."""
    floats = pc.cast(values, pa.float64(), safe=False).to_numpy(zero_copy_only=False)
    limits = int_limits(column.type)
    if limits is not None:
        low, high, scale = float(limits[0]), float(limits[1]), 0
    else:
        precision, scale = decimal_params(column.type)
        high = 10.0 ** (precision - scale) - 10.0**-scale
        low = -high
    scaled = floats * 10.0**scale
    ok = (floats >= low) & (floats <= high) & (np.abs(scaled - np.rint(scaled)) < 1e-6)
    if ok.any():
        ok[ok] = _tried(values.filter(pa.array(ok)), target)  # exact: float64 rounds large decimals
    return ok


def _tried(values: pa.Array, target: pa.DataType) -> np.ndarray:
    """Arrow's safe cast, value by value where a whole slice fails (halving: cheap when most cast)."""
    ok = np.ones(len(values), dtype=bool)
    todo = [(0, len(values))]
    while todo:
        start, stop = todo.pop()
        try:
            pc.cast(values.slice(start, stop - start), target, safe=True)
        except _CAST_ERRORS:
            if stop - start == 1:
                ok[start] = False
            else:
                middle = (start + stop) // 2
                todo += [(start, middle), (middle, stop)]
    return ok


def _cast(values: pa.Array, target: pa.DataType) -> pa.Array:
    return pc.cast(values, target, safe=True)
