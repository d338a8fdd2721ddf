"""DuckDB column types as Arrow types, and their limits: the one mapping the generator, the batch
validation, the repairs and the LLM's row schemas share.

    arrow_type("DECIMAL(8,2)")       # decimal128(8, 2); None for a type the generator cannot make
    batch_arrow_type("GEOMETRY")     # string(): how a batch carries a column of any type
    int_limits("SMALLINT")           # (-32768, 32767)
    type_kind("VARCHAR(20)")         # "str": the family a generator or a JSON schema works in

Turning generated values into arrays of these types is the generator's job (`stateforge.fill.convert`).
"""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa

_INTS: dict[str, tuple[pa.DataType, int, int]] = {}
for _names, _type in (
    (("TINYINT", "INT1"), pa.int8()),
    (("SMALLINT", "INT2", "SHORT"), pa.int16()),
    (("INTEGER", "INT", "INT4", "SIGNED", "MEDIUMINT"), pa.int32()),
    (("BIGINT", "INT8", "LONG"), pa.int64()),
    (("UTINYINT",), pa.uint8()),
    (("USMALLINT",), pa.uint16()),
    (("UINTEGER",), pa.uint32()),
    (("UBIGINT",), pa.uint64()),
):
    _info = np.iinfo(f"{'int' if pa.types.is_signed_integer(_type) else 'uint'}{_type.bit_width}")
    for _name in _names:
        _INTS[_name] = (_type, int(_info.min), int(min(_info.max, np.iinfo(np.int64).max)))
_HUGE = ("HUGEINT", "INT128", "UHUGEINT")  # DuckDB hands these to Arrow as decimal128(38, 0)

_SIMPLE: dict[str, pa.DataType] = {
    **{n: pa.float32() for n in ("FLOAT", "REAL", "FLOAT4")},
    **{n: pa.float64() for n in ("DOUBLE", "FLOAT8", "DOUBLE PRECISION")},
    **{n: pa.bool_() for n in ("BOOLEAN", "BOOL", "LOGICAL")},
    **{
        n: pa.timestamp("us")
        for n in ("TIMESTAMP", "DATETIME", "TIMESTAMP_US", "TIMESTAMP WITHOUT TIME ZONE")
    },
    "TIMESTAMP_MS": pa.timestamp("ms"),
    "TIMESTAMP_S": pa.timestamp("s"),
    "TIMESTAMP_NS": pa.timestamp("ns"),
    **{n: pa.timestamp("us", tz="UTC") for n in ("TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE")},
    "DATE": pa.date32(),
    **{n: pa.time64("us") for n in ("TIME", "TIMETZ", "TIME WITH TIME ZONE", "TIME WITHOUT TIME ZONE")},
    "INTERVAL": pa.month_day_nano_interval(),
    **{n: pa.binary() for n in ("BLOB", "BYTEA", "BINARY", "VARBINARY")},
}
_STRINGS = (
    "VARCHAR",
    "TEXT",
    "STRING",
    "CHAR",
    "BPCHAR",
    "NVARCHAR",
    "NCHAR",
    "CHARACTER VARYING",
    "CHARACTER",
    "UUID",
    "JSON",
    "BIT",
    "BITSTRING",
    "ENUM",
)


def base_type(type_string: str) -> str:
    """`DECIMAL(10,2)` -> `DECIMAL`; `varchar(20)[]` -> `VARCHAR[]`."""
    return re.sub(r"\s+", " ", re.sub(r"\(.*?\)", "", type_string)).strip().upper()


def arrow_type(type_string: str) -> pa.DataType | None:
    """The Arrow type DuckDB uses for a column type, or None for types the generator cannot make."""
    base = base_type(type_string)
    if base.endswith("[]"):
        inner = arrow_type(type_string.strip()[:-2])
        return pa.list_(inner) if inner is not None else None
    if base in _INTS:
        return _INTS[base][0]
    if base in _HUGE:
        return pa.decimal128(38, 0)
    if base in ("DECIMAL", "NUMERIC", "DEC"):
        precision, scale = decimal_params(type_string)
        return pa.decimal128(precision, scale)
    if base in _SIMPLE:
        return _SIMPLE[base]
    if base in _STRINGS:
        return pa.string()
    return None


def decimal_params(type_string: str) -> tuple[int, int]:
    """(precision, scale) of a DECIMAL type; DuckDB's default is (18, 3)."""
    found = re.search(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", type_string)
    if not found:
        return 18, 3
    return int(found.group(1)), int(found.group(2) or 0)


def text_length(column_type: str, length: int | None = None) -> int | None:
    """The n of VARCHAR(n) / CHAR(n): `length` when the parser set it, else read from the type string."""
    if length is not None:
        return length
    found = re.match(
        r"\s*(?:N?VARCHAR|N?CHAR|BPCHAR|CHARACTER(?: VARYING)?|STRING|TEXT)\s*\(\s*(\d+)\s*\)\s*$",
        column_type,
        re.IGNORECASE,
    )
    return int(found.group(1)) if found else None


def int_limits(type_string: str) -> tuple[int, int] | None:
    """The value range of an integer type (HUGEINT is kept within int64)."""
    base = base_type(type_string)
    if base in _INTS:
        return _INTS[base][1], _INTS[base][2]
    if base in _HUGE:
        return (0 if base.startswith("U") else -(2**63), 2**63 - 1)
    return None


def batch_arrow_type(type_string: str) -> pa.DataType:
    """The Arrow type a batch carries a column of this DuckDB type in: `arrow_type`, else a string."""
    return arrow_type(type_string) or pa.string()


_SPECIAL_KINDS = {"UUID": "uuid", "JSON": "json", "BIT": "bit", "BITSTRING": "bit", "INTERVAL": "interval"}
_ARROW_KINDS = (
    (pa.types.is_floating, "float"),
    (pa.types.is_decimal, "decimal"),
    (pa.types.is_string, "str"),
    (pa.types.is_boolean, "bool"),
    (pa.types.is_timestamp, "ts"),
    (pa.types.is_date, "date"),
    (pa.types.is_time, "time"),
    (pa.types.is_binary, "bytes"),
)


def type_kind(type_string: str) -> str:
    """int, float, decimal, str, bool, ts, date, time, interval, bytes, uuid, json, bit, list or other."""
    base = base_type(type_string)
    if base.endswith("[]"):
        return "list"
    if int_limits(type_string) is not None:
        return "int"
    if base in _SPECIAL_KINDS:
        return _SPECIAL_KINDS[base]
    typ = arrow_type(type_string)
    if typ is None:
        return "other"
    return next((kind for test, kind in _ARROW_KINDS if test(typ)), "other")


_UNINDEXABLE = re.compile(r"(\[\d*\]\s*$)|^\s*(STRUCT|MAP|UNION|INTERVAL)\b", re.IGNORECASE)


def indexable(duckdb_type: str) -> bool:
    """Whether DuckDB can index a column of `duckdb_type` (a PRIMARY KEY or UNIQUE over it): not a list
    (`INTEGER[]`, `INTEGER[3]`), a STRUCT, a MAP, a UNION or an INTERVAL."""
    return _UNINDEXABLE.search(duckdb_type) is None
