"""Column types of five dialects, mapped to DuckDB types.

Decisions worth knowing (the rest maps name for name):

- CHAR(n) / NCHAR(n) -> VARCHAR(n) with length n: DuckDB has no blank-padded type; a bare CHAR is CHAR(1)
  in postgres, mysql and oracle, so it becomes VARCHAR(1). DuckDB ignores VARCHAR lengths: `length` is
  what generators and the audit must respect.
- MySQL TINYINT(1) (signed or not) and BIT / BIT(1) -> BOOLEAN. MEDIUMINT -> INTEGER, unsigned integers ->
  the DuckDB unsigned type of the same width (MEDIUMINT UNSIGNED -> UINTEGER). YEAR -> SMALLINT with a
  1901..2155 range (MySQL's), which the caller turns into a CHECK. DECIMAL / DOUBLE / FLOAT / REAL
  UNSIGNED -> the signed type with a `>= 0` CHECK (DuckDB has no unsigned non-integers).
- Oracle NUMBER(p) / NUMBER(p,0): p <= 9 -> INTEGER, p <= 18 -> BIGINT, else DECIMAL(p,0) (precision is
  kept so generators stay within p digits). Other dialects keep DECIMAL(p,0) as written.
- A DECIMAL without precision: DECIMAL(10,0) in mysql and DECIMAL(18,3) in duckdb (their own defaults);
  a bare NUMBER / NUMERIC (oracle, postgres, sqlite) holds any number: DECIMAL(38,10), exact, not DOUBLE.
  Precision is capped at DuckDB's 38.
- FLOAT is 4 bytes in mysql, postgres (REAL), duckdb and Oracle's BINARY_FLOAT; Oracle FLOAT and REAL,
  sqlite REAL and FLOAT(p > 24) are 8 bytes -> DOUBLE.
- Oracle DATE holds a time -> TIMESTAMP. MySQL TIMESTAMP -> TIMESTAMP (naive); only an explicit
  WITH TIME ZONE / TIMESTAMPTZ becomes TIMESTAMPTZ.
- ENUM('a','b') -> VARCHAR with allowed_values. SET('a','b') -> VARCHAR with allowed_values as well, but a
  SET value is a comma-separated subset of them ("a,b"); a note says so. Arrays -> DuckDB lists (`X[]`).
- Types with no DuckDB equivalent (inet, geometry, xml, ...) and unknown names -> VARCHAR with a note.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

_D = exp.DType

_SAME_NAME = {
    _D.TINYINT: "TINYINT", _D.SMALLINT: "SMALLINT", _D.MEDIUMINT: "INTEGER", _D.INT: "INTEGER",
    _D.BIGINT: "BIGINT", _D.INT128: "HUGEINT", _D.UINT128: "UHUGEINT", _D.UTINYINT: "UTINYINT",
    _D.USMALLINT: "USMALLINT", _D.UMEDIUMINT: "UINTEGER", _D.UINT: "UINTEGER", _D.UBIGINT: "UBIGINT",
    _D.DOUBLE: "DOUBLE", _D.BOOLEAN: "BOOLEAN",
    _D.DATE: "DATE", _D.DATE32: "DATE", _D.TIME: "TIME", _D.TIME_NS: "TIME", _D.TIMETZ: "TIMETZ",
    _D.TIMESTAMP: "TIMESTAMP", _D.TIMESTAMPNTZ: "TIMESTAMP", _D.DATETIME: "TIMESTAMP",
    _D.DATETIME2: "TIMESTAMP", _D.DATETIME64: "TIMESTAMP", _D.SMALLDATETIME: "TIMESTAMP",
    _D.TIMESTAMPTZ: "TIMESTAMPTZ", _D.TIMESTAMPLTZ: "TIMESTAMPTZ", _D.TIMESTAMP_S: "TIMESTAMP_S",
    _D.TIMESTAMP_MS: "TIMESTAMP_MS", _D.TIMESTAMP_NS: "TIMESTAMP_NS", _D.INTERVAL: "INTERVAL",
    _D.TEXT: "VARCHAR", _D.TINYTEXT: "VARCHAR", _D.MEDIUMTEXT: "VARCHAR", _D.LONGTEXT: "VARCHAR",
    _D.NAME: "VARCHAR", _D.BLOB: "BLOB", _D.VARBINARY: "BLOB", _D.BINARY: "BLOB", _D.TINYBLOB: "BLOB",
    _D.MEDIUMBLOB: "BLOB", _D.LONGBLOB: "BLOB", _D.IMAGE: "BLOB", _D.JSON: "JSON", _D.JSONB: "JSON",
    _D.UUID: "UUID", _D.BIGNUM: "BIGNUM", _D.ROWVERSION: "BLOB",
}  # fmt: skip
_SERIALS = {_D.SERIAL: "INTEGER", _D.BIGSERIAL: "BIGINT", _D.SMALLSERIAL: "SMALLINT"}
_CHARS = {_D.CHAR, _D.NCHAR, _D.BPCHAR}
_VARCHARS = {_D.VARCHAR, _D.NVARCHAR}
_DECIMALS = {_D.DECIMAL, _D.UDECIMAL, _D.BIGDECIMAL}
_UNSIGNED = {_D.UDECIMAL, _D.UDOUBLE}
_NESTED = {_D.STRUCT, _D.MAP, _D.UNION}
# User-defined names sqlglot leaves opaque (lower case, schema dropped): (type, identity, length).
_NAMED = {
    "citext": ("VARCHAR", False, None), "ntext": ("VARCHAR", False, None),
    "nclob": ("VARCHAR", False, None), "clob": ("VARCHAR", False, None),
    "string": ("VARCHAR", False, None), '"char"': ("VARCHAR", False, 1),
    "serial2": ("SMALLINT", True, None), "serial4": ("INTEGER", True, None),
    "serial8": ("BIGINT", True, None), "raw": ("BLOB", False, None), "bfile": ("BLOB", False, None),
    "varbit": ("BIT", False, None), "bit": ("BIT", False, None), "varint": ("BIGNUM", False, None),
    "uniqueidentifier": ("UUID", False, None),
}  # fmt: skip
INTEGER_TYPES = frozenset({
    "TINYINT", "SMALLINT", "INTEGER", "INT", "BIGINT", "HUGEINT", "INT1", "INT2", "INT4", "INT8", "INT16",
    "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT", "SHORT", "LONG", "SIGNED",
})  # fmt: skip
"""Every name of a DuckDB integer type a column's `base_type` may carry (the mapped names and their
aliases): the one list the diff, the tools, the sizing and the task recipes test integers against."""
MAX_PRECISION = 38
MYSQL_YEARS = (1901, 2155)


@dataclass
class MappedType:
    """A DuckDB type and what else the source type said about its values."""

    type: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    allowed_values: list[Any] | None = None
    identity: bool = False
    value_range: tuple[int, int | None] | None = None
    """Bounds the caller should enforce with a CHECK (MySQL YEAR; no upper bound: UNSIGNED DECIMAL)."""
    note: str | None = None


def user_type_name(dt: exp.DataType | None) -> str | None:
    """The bare, lower-case name of a user-defined type (`public.mood` -> `mood`), else None."""
    if dt is None or dt.this != _D.USERDEFINED:
        return None
    name = dt.args.get("kind")
    text = name.name if isinstance(name, exp.Identifier) else str(name)
    quoted = isinstance(name, exp.Identifier) and name.quoted
    bare = text.rsplit(".", 1)[-1]
    return f'"{bare}"' if quoted and bare == "char" else bare.lower()


def map_type(dt: exp.DataType | None, dialect: str) -> MappedType:
    """The DuckDB type for sqlglot's `dt` read in `dialect` (None: a column written without a type)."""
    if dt is None:
        return MappedType("VARCHAR", note="no type given; read as VARCHAR")
    kind, params = dt.this, _int_params(dt)
    if isinstance(kind, exp.Interval):
        return MappedType("INTERVAL")
    if kind in (_D.TINYINT, _D.UTINYINT) and dialect == "mysql" and params[:1] == [1]:
        return MappedType("BOOLEAN")
    if kind == _D.BIT:
        return MappedType("BOOLEAN") if params in ([], [1]) else MappedType("BIT")
    if kind == _D.TIMESTAMPTZ and dialect == "mysql":
        return MappedType("TIMESTAMP")
    if kind == _D.DATE and dialect == "oracle":
        return MappedType("TIMESTAMP")
    if kind == _D.FLOAT:
        wide = dialect == "sqlite" or (len(params) == 1 and params[0] > 24)
        return MappedType("DOUBLE" if wide else "FLOAT")
    if kind in _SAME_NAME:
        return MappedType(_SAME_NAME[kind])
    if kind in _UNSIGNED:
        mapped = _decimal(params, dialect) if kind == _D.UDECIMAL else MappedType("DOUBLE")
        mapped.value_range = (0, None)
        return mapped
    if kind in _SERIALS:
        return MappedType("UBIGINT" if dialect == "mysql" else _SERIALS[kind], identity=True)
    if kind in _CHARS or kind in _VARCHARS:
        length = params[0] if params else (1 if kind in _CHARS and dialect != "duckdb" else None)
        return MappedType(f"VARCHAR({length})" if length else "VARCHAR", length=length)
    if kind in _DECIMALS:
        return _decimal(params, dialect)
    if kind == _D.MONEY:
        return MappedType("DECIMAL(19,2)", precision=19, scale=2)
    if kind == _D.SMALLMONEY:
        return MappedType("DECIMAL(10,4)", precision=10, scale=4)
    if kind == _D.YEAR:
        return MappedType("SMALLINT", value_range=MYSQL_YEARS)
    if kind in (_D.ENUM, _D.SET):
        values = [e.to_py() for e in dt.expressions if isinstance(e, exp.Literal)]
        note = "a SET value is a comma-separated subset of allowed_values" if kind == _D.SET else None
        return MappedType("VARCHAR", allowed_values=values, note=note)
    if kind in (_D.ARRAY, _D.LIST) and dt.expressions and isinstance(dt.expressions[0], exp.DataType):
        inner = map_type(dt.expressions[0], dialect)
        return MappedType(f"{inner.type}[]", note=inner.note)
    if kind in _NESTED:
        return MappedType(dt.sql("duckdb"))
    name = user_type_name(dt)
    if name in _NAMED:
        duck, identity, length = _NAMED[name]
        return MappedType(f"VARCHAR({length})" if length else duck, length=length, identity=identity)
    return MappedType("VARCHAR", note=f"type {dt.sql(dialect)} has no DuckDB equivalent; read as VARCHAR")


def _decimal(params: list[int], dialect: str) -> MappedType:
    if not params:
        default = {"mysql": (10, 0), "duckdb": (18, 3)}.get(dialect, (MAX_PRECISION, 10))
        precision, scale = default
    else:
        precision, scale = params[0], params[1] if len(params) > 1 else 0
    note = None
    if precision > MAX_PRECISION:
        note = f"precision {precision} is above DuckDB's {MAX_PRECISION}; capped"
        precision = MAX_PRECISION
    scale = max(0, min(scale, precision))
    if dialect == "oracle" and scale == 0 and params:
        if precision <= 9:
            return MappedType("INTEGER", precision=precision, scale=0, note=note)
        if precision <= 18:
            return MappedType("BIGINT", precision=precision, scale=0, note=note)
    return MappedType(f"DECIMAL({precision},{scale})", precision=precision, scale=scale, note=note)


def _int_params(dt: exp.DataType) -> list[int]:
    """The integer parameters of a type: VARCHAR(20) -> [20], DECIMAL(10,2) -> [10, 2]."""
    out = []
    for param in dt.expressions:
        value = param.this if isinstance(param, exp.DataTypeParam) else None
        if isinstance(value, exp.Literal) and not value.is_string:
            try:
                out.append(int(value.this))
            except ValueError:
                return out
    return out

