"""Shaping generated strings into what a table's CHECKs ask of them (`stateforge.constraints.checks` facts).

    values = shape(values, spec)      # trimmed, padded to min_len, fitted into LIKE patterns, re-cased

Only values that do not already pass are changed, so a realistic value stays as it is when it fits
(`contact LIKE '%_@_%'` keeps every generated e-mail). A value is fitted into `p1%p2%...%pn` as
`p1 + value + p2 + ... + pn` (each `_` a letter), cut so that the whole stays within the column's length.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.spec import ColumnSpec

UNSHAPED = ("values", "constant", "expr")
"""Strategies whose values are taken as they are (a list from the DDL, a hint's constant or expression)."""


def shape(values: pa.Array, spec: ColumnSpec) -> pa.Array:
    """`values` (strings) trimmed, padded, fitted into the LIKE patterns and re-cased as the spec asks."""
    if not pa.types.is_string(values.type) or spec.strategy in UNSHAPED:
        if spec.min_len and pa.types.is_string(values.type):
            values = pc.utf8_rpad(values, width=spec.min_len, padding="x")
        return values
    if spec.trimmed:
        values = pc.utf8_trim_whitespace(values)
    if spec.min_len:
        values = pc.utf8_rpad(values, width=spec.min_len, padding="x")
    for pattern in spec.like:
        values = _fit(values, pattern, spec.max_len)
    if spec.case == "upper":
        values = pc.utf8_upper(values)
    elif spec.case == "lower":
        values = pc.utf8_lower(values)
    return values


def _fit(values: pa.Array, pattern: str, max_len: int | None) -> pa.Array:
    """The values that do not match `pattern` rewritten as `p1 + value + p2 + ... + pn`."""
    passing = pc.fill_null(pc.match_like(values, pattern), True)
    if pc.all(passing).as_py():
        return values
    parts = [p.replace("_", "x") for p in pattern.split("%")]
    head, tail = parts[0], "".join(parts[1:])
    room = None if max_len is None else max(max_len - len(head) - len(tail), 0)
    middle = values if room is None else pc.utf8_slice_codeunits(values, 0, room)
    fitted = pc.binary_join_element_wise(pa.scalar(head), middle, pa.scalar(tail), "")
    return pc.if_else(passing, values, fitted)

