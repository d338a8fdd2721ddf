"""Turning generated values into Arrow arrays of a column's type (`stateforge.types.arrow_type`).

Strategies produce values in a few native forms: numpy int64/float64/bool arrays, numpy datetime64[us]
(timestamps), datetime64[D] (dates), timedelta64[us] (times of day, durations), or Arrow arrays (strings,
binary, picked values). `to_arrow` converts any of them to the column's Arrow type, enforcing the type's
limits (integer width, DECIMAL(p,s), VARCHAR(n)).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def to_arrow(values: Any, target: pa.DataType, *, max_len: int | None = None) -> pa.Array:
    """Convert generated values to `target`, truncating strings to `max_len` characters."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_string(target):
        return _to_string(values, max_len)
    if isinstance(values, pa.Array):
        if pa.types.is_decimal(target) and (
            pa.types.is_integer(values.type) or pa.types.is_floating(values.type)
        ):
            return _decimal(values.to_numpy(zero_copy_only=False), target)
        return values if values.type == target else values.cast(target)
    values = np.asarray(values)
    if pa.types.is_integer(target):
        if values.dtype.kind == "M":
            values = values.astype("datetime64[s]").astype(np.int64)
        elif values.dtype.kind == "m":
            values = values.astype("timedelta64[s]").astype(np.int64)
        elif values.dtype.kind == "f":
            values = np.rint(values)
        info = np.iinfo(target.to_pandas_dtype())
        low, high = max(int(info.min), -(2**63)), min(int(info.max), 2**63 - 1)
        return pa.array(np.clip(values.astype(np.int64), low, high).astype(target.to_pandas_dtype()))
    if pa.types.is_floating(target):
        return pa.array(values.astype(np.float64)).cast(target)
    if pa.types.is_decimal(target):
        return _decimal(values, target)
    if pa.types.is_boolean(target):
        return pa.array(values.astype(bool))
    if pa.types.is_timestamp(target):
        naive = pa.array(values.astype("datetime64[us]"))
        return naive.cast(target, safe=False)
    if pa.types.is_date32(target):
        return pa.array(values.astype("datetime64[D]")).cast(pa.date32())
    if pa.types.is_time64(target):
        micros = values.astype("timedelta64[us]").astype(np.int64) % 86_400_000_000
        return pa.array(micros).cast(target)
    if pa.types.is_interval(target):
        return _interval(values)
    return pa.array(values).cast(target)


def _to_string(values: Any, max_len: int | None) -> pa.Array:
    if not isinstance(values, pa.Array):
        values = np.asarray(values)
        if values.dtype.kind == "M":
            unit = "D" if values.dtype == np.dtype("datetime64[D]") else "s"
            values = values.astype(f"datetime64[{unit}]")
        elif values.dtype.kind == "m":
            values = values.astype("timedelta64[us]").astype(np.int64) % 86_400_000_000
            values = pa.array(values).cast(pa.time64("us")).cast(pa.time32("s"))
        values = pa.array(values) if not isinstance(values, pa.Array) else values
    if pa.types.is_boolean(values.type):
        values = pc.if_else(values, "true", "false")
    if not pa.types.is_string(values.type):
        values = values.cast(pa.string())
    if max_len is not None:
        values = pc.utf8_slice_codeunits(values, 0, max_len)
    return values


def _decimal(values: np.ndarray, target: pa.Decimal128Type) -> pa.Array:
    """Round to the scale and keep within the precision, then build the 16-byte values directly."""
    digits = min(target.precision - target.scale, 18 - target.scale)
    bound = 10.0**digits - 10.0**-target.scale
    units = np.rint(np.clip(values.astype(np.float64), -bound, bound) * 10.0**target.scale).astype(np.int64)
    pairs = np.empty((len(units), 2), dtype=np.int64)
    pairs[:, 0] = units
    pairs[:, 1] = units >> 63  # sign extension: two's complement across 128 bits
    return pa.Array.from_buffers(target, len(units), [None, pa.py_buffer(pairs.tobytes())])


def _interval(values: np.ndarray) -> pa.Array:
    """Durations (timedelta64 or seconds) as month-day-nano intervals: whole days plus nanoseconds."""
    if values.dtype.kind == "m":
        nanos = values.astype("timedelta64[ns]").astype(np.int64)
    else:
        nanos = (values.astype(np.float64) * 1e9).astype(np.int64)
    packed = np.zeros(len(nanos), dtype=[("months", "<i4"), ("days", "<i4"), ("nanos", "<i8")])
    packed["days"] = nanos // 86_400_000_000_000
    packed["nanos"] = nanos % 86_400_000_000_000
    return pa.Array.from_buffers(
        pa.month_day_nano_interval(), len(nanos), [None, pa.py_buffer(packed.tobytes())]
    )
