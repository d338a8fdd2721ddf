"""The shape of the rows the LLM writes: a JSON schema and a pydantic model derived from the same columns,
and the check of a reply against the rows that were asked for.

    shape = RowShape.build(table, echo=["song_id", "album_id"], written=["title"])
    schema = shape.reply_schema(20)              # strict-mode: every property required, no extras
    outcomes, kinds = shape.read_reply(reply.data, requested)   # one outcome per requested row

A reply row is matched to a requested row by its echoed keys (a reordered reply is fine); a key that was
not asked for is `invented_key`, a key given twice `duplicate_row`, a requested row nobody answered
`missing_row`. Each matched row is validated by the pydantic model (`extra="forbid"`): `missing_field`,
`wrong_type`, `not_null`, `length`, `allowed_values`, `range`; an extra field alone is counted
(`extra_field`) and dropped, the row is kept. Accepted values are ready for `pa.array` of the column type.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from pipeline.constraints.checks import CheckFacts, ColumnFacts, derive_checks
from pipeline.fill.infer import kind_of
from pipeline.schema.model import Column, Table
from pipeline.types import batch_arrow_type, int_limits

_JSON_TYPES = {"str": "string", "int": "integer", "float": "number", "decimal": "number", "bool": "boolean",
               "ts": "string", "date": "string", "time": "string"}
_FORMATS = {"ts": "date-time", "date": "date", "time": "time"}
_PY_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "decimal": Decimal, "bool": bool,
                             "ts": dt.datetime, "date": dt.date, "time": dt.time}
_PLAIN = frozenset({int, str, float, bool, type(None)})
_KINDS = {"missing": "missing_field", "extra_forbidden": "extra_field", "string_too_long": "length",
          "string_too_short": "length", "literal_error": "allowed_values", "enum": "allowed_values",
          "less_than_equal": "range", "greater_than_equal": "range", "less_than": "range",
          "greater_than": "range", "decimal_max_digits": "range",
          "decimal_max_places": "range", "decimal_whole_digits": "range"}


def jsonable(value: Any) -> Any:
    """A value as it is written into a prompt: dates and times as ISO text, decimals as numbers."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return value.hex()
    return value


def _bounds(column: Column, facts: ColumnFacts | None) -> dict[str, Any]:
    """JSON-schema bounds of a number column from its CHECKs (`x >= 0`, `x BETWEEN 1 AND 60`)."""
    if facts is None or kind_of(column) not in ("int", "float", "decimal"):
        return {}
    out = {}
    sides = ((facts.lo, facts.lo_strict, "Minimum"), (facts.hi, facts.hi_strict, "Maximum"))
    for value, strict, name in sides:
        if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
            out[f"exclusive{name}" if strict else name.lower()] = jsonable(value)
    return out


def _max_length(column: Column, facts: ColumnFacts | None) -> int | None:
    lengths = [n for n in (column.length, facts.max_len if facts else None) if n]
    return min(lengths) if lengths and kind_of(column) == "str" else None


def column_schema(column: Column, facts: ColumnFacts | None = None) -> dict[str, Any]:
    """The JSON schema of one column's values: type, maxLength, enum, format, the bounds its CHECKs set
    (`facts`, from `derive_checks`); nullable as a type list."""
    kind = kind_of(column)
    schema: dict[str, Any] = {"type": _JSON_TYPES.get(kind, "string")}
    allowed = [v for v in column.allowed_values or [] if v is not None]
    if (length := _max_length(column, facts)) and not allowed:
        schema["maxLength"] = length
    if kind in _FORMATS:
        schema["format"] = _FORMATS[kind]
    schema.update(_bounds(column, facts))
    if allowed:
        schema["enum"] = [jsonable(v) for v in allowed] + ([None] if column.nullable else [])
    if column.nullable:
        schema["type"] = [schema["type"], "null"]
    return schema


def _annotation(column: Column, facts: ColumnFacts | None) -> tuple[Any, Any]:
    """The pydantic type and Field of one column (nullable columns accept None, but must be present)."""
    kind = kind_of(column)
    allowed = [v for v in column.allowed_values or [] if v is not None]
    constraints: dict[str, Any] = {}
    py: Any = Literal[tuple(allowed)] if allowed else _PY_TYPES.get(kind, str)
    if (length := _max_length(column, facts)) and not allowed:
        constraints["max_length"] = length
    if kind == "int" and (limits := int_limits(column.type)) is not None:
        constraints.update(ge=limits[0], le=limits[1])
    names = {"minimum": "ge", "exclusiveMinimum": "gt", "maximum": "le", "exclusiveMaximum": "lt"}
    constraints.update({names[k]: v for k, v in _bounds(column, facts).items()})
    if column.nullable:
        py = py | None
    return py, Field(alias=column.name, **constraints)


@dataclass
class Outcome:
    """What became of one requested row: its accepted values, or the errors to send back."""

    values: dict[str, Any] | None = None
    """Column -> value, ready for Arrow (None: rejected or not answered)."""
    errors: list[str] = field(default_factory=list)
    """Exact errors, as the repair prompt lists them."""


@dataclass(frozen=True)
class RowShape:
    """The echoed keys and written columns of one table's reply rows, as a schema and a model."""

    table: Table
    echo: tuple[str, ...]
    written: tuple[str, ...]
    model: type[BaseModel]
    types: dict[str, pa.DataType]
    facts: CheckFacts

    @classmethod
    def build(cls, table: Table, echo: list[str] | tuple[str, ...], written: list[str] | tuple[str, ...]
              ) -> RowShape:
        """The shape for `table` (field names are `f0, f1, ...` aliased to the columns, so that any
        column name works, even one that shadows a pydantic attribute)."""
        columns = [table.column(c) for c in (*echo, *written)]
        facts = derive_checks(table)
        fields = {f"f{i}": _annotation(c, facts.get(c.name)) for i, c in enumerate(columns)}
        config = ConfigDict(extra="forbid", populate_by_name=False, str_strip_whitespace=False)
        model = create_model(f"{table.name}_row", __config__=config, **fields)
        types = {c.name: batch_arrow_type(c.type) for c in columns}
        return cls(table, tuple(echo), tuple(written), model, types, facts)

    @property
    def columns(self) -> tuple[str, ...]:
        return self.echo + self.written

    def row_schema(self) -> dict[str, Any]:
        """The JSON schema of one reply row (strict-mode compatible)."""
        props = {c: column_schema(self.table.column(c), self.facts.get(c)) for c in self.columns}
        return {"type": "object", "properties": props, "required": list(self.columns),
                "additionalProperties": False}

    def reply_schema(self, n: int) -> dict[str, Any]:
        """The JSON schema of a reply of exactly `n` rows: `{"rows": [row, ...]}`."""
        rows = {"type": "array", "items": self.row_schema(), "minItems": n, "maxItems": n}
        return {"type": "object", "properties": {"rows": rows}, "required": ["rows"],
                "additionalProperties": False}

    def read_reply(self, data: Any, requested: list[dict[str, Any]]) -> tuple[list[Outcome], Counter[str]]:
        """Match `data`'s rows to `requested` (each the echo keys in prompt form) and validate them."""
        kinds: Counter[str] = Counter()
        outcomes = [Outcome() for _ in requested]
        rows = data.get("rows") if isinstance(data, dict) else None
        if not isinstance(rows, list):
            kinds["bad_shape"] += 1
            for out in outcomes:
                out.errors.append('the answer was not an object with a "rows" array')
            return outcomes, kinds
        waiting: dict[tuple[Any, ...], list[int]] = {}
        for i, keys in enumerate(requested):
            waiting.setdefault(self._key(keys), []).append(i)
        answered: set[int] = set()
        for position, row in enumerate(rows):
            target = self._match(row, waiting, answered, position, requested, outcomes, kinds)
            if target is not None:
                answered.add(target)
                self._validate(row, outcomes[target], kinds)
        for i, out in enumerate(outcomes):
            if i not in answered and not out.errors:
                kinds["missing_row"] += 1
                out.errors.append("the row was missing from the answer")
        return outcomes, kinds

    def _key(self, row: Any) -> tuple[Any, ...]:
        if not isinstance(row, dict):
            return ("\0not-an-object",)
        return tuple(_hashable(row.get(c, "\0missing")) for c in self.echo)

    def _match(self, row: Any, waiting: dict[tuple[Any, ...], list[int]], answered: set[int], position: int,
               requested: list[dict[str, Any]], outcomes: list[Outcome], kinds: Counter[str]) -> int | None:
        """The requested row that `row` answers, or None (counting why)."""
        key = self._key(row)
        free = [i for i in waiting.get(key, []) if i not in answered]
        if free:
            return free[0]
        if key in waiting:
            kinds["duplicate_row"] += 1
        elif position < len(requested) and position not in answered and not outcomes[position].errors:
            asked = requested[position]
            got = {c: row.get(c) for c in self.echo if c in row} if isinstance(row, dict) else row
            if isinstance(got, dict) and len(got) < len(self.echo):
                kinds["missing_field"] += 1
            elif isinstance(got, dict) and any(_type_differs(got[c], asked.get(c)) for c in self.echo):
                kinds["wrong_type"] += 1
            else:
                kinds["invented_key"] += 1
            outcomes[position].errors.append(
                f"keys {_show(got)} were not the ones asked for ({_show(asked)}): copy the keys exactly"
            )
        else:
            kinds["extra_row"] += 1
        return None

    def _validate(self, row: dict[str, Any], out: Outcome, kinds: Counter[str]) -> None:
        known = set(self.columns)
        extras = sorted(k for k in row if k not in known)
        if extras:
            kinds["extra_field"] += 1
            row = {k: v for k, v in row.items() if k in known}
        try:
            parsed = self.model.model_validate(row)
        except ValidationError as error:
            for problem in error.errors(include_url=False):
                column = str(problem["loc"][0]) if problem["loc"] else "row"
                kind = _KINDS.get(problem["type"], "wrong_type")
                if problem.get("input", 0) is None and kind == "wrong_type":
                    kind = "not_null"
                kinds[kind] += 1
                out.errors.append(f"{column}: {problem['msg']} (got {_show(problem.get('input'))})")
            return
        values = parsed.model_dump(by_alias=True)
        accepted = {}
        for column in self.written:
            value = _for_arrow(values[column], self.types[column])
            if isinstance(value, Decimal):  # 4.25 in a DECIMAL(3,1) is 4.2, as the database would store it
                value = value.quantize(Decimal(1).scaleb(-self.types[column].scale), ROUND_HALF_EVEN)
            try:
                pa.scalar(value, self.types[column])
            except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError) as error:
                kinds["range"] += 1
                out.errors.append(f"{column}: does not fit {self.table.column(column).type} ({error})")
                return
            accepted[column] = value
        out.values = accepted


def _type_differs(got: Any, asked: Any) -> bool:
    number = (int, float)
    if isinstance(asked, bool) or isinstance(got, bool):
        return type(got) is not type(asked)
    return not (isinstance(got, number) and isinstance(asked, number)) and type(got) is not type(asked)


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | bool | type(None)) else repr(value)


def _for_arrow(value: Any, typ: pa.DataType) -> Any:
    """Timestamps made to match the column: naive UTC for TIMESTAMP, aware for TIMESTAMPTZ."""
    if isinstance(value, dt.datetime) and pa.types.is_timestamp(typ):
        if typ.tz is None and value.tzinfo is not None:
            return value.astimezone(dt.UTC).replace(tzinfo=None)
        if typ.tz is not None and value.tzinfo is None:
            return value.replace(tzinfo=dt.UTC)
    return value


def _show(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(str(value))} characters)"
