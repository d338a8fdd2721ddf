"""A column of the model as a tool parameter: its Python type (with bounds) and a description.

    VARCHAR(60)            -> Annotated[str, Field(max_length=60)]
    SMALLINT               -> Annotated[int, Field(ge=-32768, le=32767)]
    DECIMAL(8,2)           -> Annotated[Decimal, Field(max_digits=8, decimal_places=2)]
    status IN ('a', 'b')   -> Literal['a', 'b']
    DATE / TIMESTAMP / TIME -> date / datetime / time;  BOOLEAN -> bool;  INTEGER[] -> list[int]

The description says what the DDL comment says, then the type in words, the key it belongs to and the
table it references, so an agent sees the constraints before it calls.
"""

from __future__ import annotations

import datetime as dt
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import Field

from stateforge.schema.model import Column, Table
from stateforge.tools.times import DomainDateTime

_INT_RANGES = {
    "TINYINT": (-(2**7), 2**7 - 1),
    "SMALLINT": (-(2**15), 2**15 - 1),
    "INTEGER": (-(2**31), 2**31 - 1),
    "INT": (-(2**31), 2**31 - 1),
    "BIGINT": (-(2**63), 2**63 - 1),
    "HUGEINT": (-(2**127), 2**127 - 1),
    "UTINYINT": (0, 2**8 - 1),
    "USMALLINT": (0, 2**16 - 1),
    "UINTEGER": (0, 2**32 - 1),
    "UBIGINT": (0, 2**64 - 1),
    "UHUGEINT": (0, 2**128 - 1),
}
_FLOATS = {"FLOAT", "REAL", "DOUBLE", "FLOAT4", "FLOAT8"}
_TIMESTAMPS = {
    "TIMESTAMP",
    "DATETIME",
    "TIMESTAMPTZ",
    "TIMESTAMP WITH TIME ZONE",
    "TIMESTAMP_S",
    "TIMESTAMP_MS",
    "TIMESTAMP_NS",
}


def python_type(column: Column) -> Any:
    """The annotation a parameter for `column` gets (never Optional: the caller adds `| None`)."""
    if column.allowed_values:
        values = tuple(v for v in column.allowed_values if v is not None)
        if values:
            return Literal[values]
    return _base_type(column.base_type, column)


def _base_type(base: str, column: Column | None) -> Any:
    if base.endswith("[]"):
        return list[_base_type(base[:-2], None)]
    if base in _INT_RANGES:
        low, high = _INT_RANGES[base]
        if high > 2**40:  # BIGINT and wider: bounds that only clutter the schema; DuckDB still checks
            return Annotated[int, Field(ge=0)] if low == 0 else int
        return Annotated[int, Field(ge=low, le=high)]
    if base in ("DECIMAL", "NUMERIC"):
        if column is not None and column.precision:
            return Annotated[Decimal, Field(max_digits=column.precision, decimal_places=column.scale or 0)]
        return Decimal
    if base in _FLOATS:
        return float
    if base == "BOOLEAN":
        return bool
    if base == "DATE":
        return dt.date
    if base in _TIMESTAMPS:  # naive: the domain's time, a zone converted to it (tools/times.py)
        return dt.datetime if "TZ" in base or "ZONE" in base else DomainDateTime
    if base in ("TIME", "TIMETZ"):
        return dt.time
    if base == "UUID":
        return uuid.UUID
    if column is not None and column.length:
        return Annotated[str, Field(max_length=column.length)]
    return str


def type_words(column: Column) -> str:
    """`text, at most 60 characters`, `integer`, `decimal with 2 decimals`, `one of 'a', 'b'`, ..."""
    base = column.base_type
    if column.allowed_values:
        return "one of " + ", ".join(repr(v) for v in column.allowed_values if v is not None)
    if base in _INT_RANGES:
        return "integer"
    if base in ("DECIMAL", "NUMERIC"):
        return f"decimal with {column.scale or 0} decimals" if column.precision else "decimal"
    if base in _FLOATS:
        return "number"
    if base == "BOOLEAN":
        return "true or false"
    if base == "DATE":
        return "date (YYYY-MM-DD)"
    if base in _TIMESTAMPS:
        return "date and time (YYYY-MM-DDTHH:MM:SS)"
    if base in ("TIME", "TIMETZ"):
        return "time (HH:MM:SS)"
    if base.endswith("[]"):
        return "list"
    return f"text, at most {column.length} characters" if column.length else "text"


def describe_column(table: Table, column: Column) -> str:
    """A parameter description for `column`: its comment, its type in words, keys and references."""
    parts = [
        column.description.rstrip(".") + "."
        if column.description
        else f"The {column.name} column of {table.name}."
    ]
    words = type_words(column)
    parts.append(words[:1].upper() + words[1:] + ".")
    lowered = column.name.lower()
    if any(len(k) == 1 and k[0].lower() == lowered for k in table.unique_keys):
        parts.append("Unique.")
    for fk in table.foreign_keys:
        if lowered in (c.lower() for c in fk.columns):
            ref = fk.ref_columns[[c.lower() for c in fk.columns].index(lowered)]
            parts.append(f"References {fk.ref_table}.{ref}.")
    return " ".join(parts)
