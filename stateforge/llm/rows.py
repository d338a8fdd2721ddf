"""The shape of the rows the LLM writes: a JSON schema and a pydantic model derived from the same
constraints (`stateforge.constraints`), and the check of a reply against the rows that were asked for.

    shape = RowShape.build(table, keys=["song_id"], written=["title"])
    labels = shape.labels([{"song_id": 5}, {"song_id": 9}])      # ["song_id=5", "song_id=9"]
    schema = shape.reply_schema(labels)                          # {"rows": {"song_id=5": {...}, ...}}
    outcomes, kinds = shape.read_reply(reply.data, labels)       # one outcome per requested row

Keys are fixed by construction: a reply is an object whose `rows` has exactly one required property per
requested row, named by the row's label (its key values), and each row holds only the written columns.
A server that decodes under the schema can neither invent, drop nor repeat a row, nor touch a key, even
when it ignores the prompt. Without such decoding (json_object mode), a label that was not asked for is
`invented_key` and a requested row nobody answered `missing_row`. Each answered row is validated by the
pydantic model (`extra="forbid"`): `missing_field`, `wrong_type`, `not_null`, `length`,
`allowed_values`, `range`; an extra field alone is counted (`extra_field`) and dropped, the row is kept.
Accepted values are ready for `pa.array` of the column type.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any, Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from stateforge.constraints import ColumnConstraints, Coverage, table_constraints
from stateforge.schema.model import Table
from stateforge.types import batch_arrow_type

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
_NUMBERS = ("int", "float", "decimal")

_WRITTEN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "type": (("type", "format"), ("the field's type",)),
    "range": (("minimum", "maximum"), ("ge", "le")),
    "max_length": (("maxLength",), ("max_length",)),
    "not_null": (("type without null",), ("a type without None",)),
    "allowed_values": (("enum",), ("Literal",)),
    "check": (("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "minLength", "maxLength"),
              ("ge", "gt", "le", "lt", "min_length", "max_length")),
}
"""Per kind of constraint on a written value: the JSON-schema keywords and the pydantic constraints that
carry it (`ValueRules` renders one description as both)."""
_NOT_WRITTEN = {
    "unique": "no JSON schema says two rows differ: the batch validation finds a duplicate and the row "
    "goes back with the error",
    "foreign_key": "key and foreign-key columns are never written: a row is addressed by its key, a "
    "required property of the reply",
    "default": "identity columns are never written, and a written column is always required",
}
SCHEMA_COVERAGE = Coverage("the LLM's reply schema (stateforge.llm.rows)",
                           {kind: both[0] for kind, both in _WRITTEN.items()}, _NOT_WRITTEN)
"""Which JSON-schema keyword carries each kind of constraint to the model."""
MODEL_COVERAGE = Coverage("the LLM's row model (stateforge.llm.rows)",
                          {kind: both[1] for kind, both in _WRITTEN.items()}, _NOT_WRITTEN)
"""Which pydantic constraint checks each kind of constraint in a reply row."""


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


@dataclass(frozen=True)
class ValueRules:
    """What a written column's values must be, in neutral terms: rendered as JSON-schema keywords for
    the server and as pydantic constraints for the check of the reply, so that the two cannot differ."""

    kind: str
    nullable: bool
    allowed: tuple[Any, ...] = ()
    min_length: int | None = None
    max_length: int | None = None
    bounds: dict[str, Any] = field(default_factory=dict)
    """`minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum` (JSON-schema names)."""

    @classmethod
    def of(cls, column: ColumnConstraints) -> ValueRules:
        """The rules of one column: its type, NULLs, allowed values, lengths and the tightest bounds of
        its type's range and its CHECKs."""
        facts = column.facts
        allowed = column.allowed
        lengths = [n for n in (column.max_length, facts.max_len if facts else None) if n]
        text = column.kind == "str" and not allowed
        return cls(
            kind=column.kind,
            nullable=column.nullable,
            allowed=allowed,
            min_length=(facts.min_len or None) if text and facts else None,
            max_length=min(lengths) if text and lengths else None,
            bounds=_bounds(column) if column.kind in _NUMBERS and not allowed else {},
        )

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the values (strict-mode compatible; nullable as a type list)."""
        schema: dict[str, Any] = {"type": _JSON_TYPES.get(self.kind, "string")}
        if self.min_length:
            schema["minLength"] = self.min_length
        if self.max_length:
            schema["maxLength"] = self.max_length
        if self.kind in _FORMATS:
            schema["format"] = _FORMATS[self.kind]
        schema.update({k: jsonable(v) for k, v in self.bounds.items()})
        if self.allowed:
            schema["enum"] = [jsonable(v) for v in self.allowed] + ([None] if self.nullable else [])
        if self.nullable:
            schema["type"] = [schema["type"], "null"]
        return schema

    def annotation(self, alias: str) -> tuple[Any, Any]:
        """The pydantic type and Field (nullable columns accept None, but must be present)."""
        py: Any = Literal[self.allowed] if self.allowed else _PY_TYPES.get(self.kind, str)
        names = {"minimum": "ge", "exclusiveMinimum": "gt", "maximum": "le", "exclusiveMaximum": "lt"}
        constraints: dict[str, Any] = {names[k]: v for k, v in self.bounds.items()}
        if self.min_length:
            constraints["min_length"] = self.min_length
        if self.max_length:
            constraints["max_length"] = self.max_length
        return (py | None if self.nullable else py), Field(alias=alias, **constraints)


def _bounds(column: ColumnConstraints) -> dict[str, Any]:
    """The tightest of the type's range (inclusive) and the CHECK bounds (`x > 0`, `x BETWEEN 1 AND 60`)."""
    facts = column.facts
    sides = (
        ("Minimum", column.low, facts.lo if facts else None, facts.lo_strict if facts else False, max),
        ("Maximum", column.high, facts.hi if facts else None, facts.hi_strict if facts else False, min),
    )
    out: dict[str, Any] = {}
    for name, typed, checked, strict, tighter in sides:
        candidates = [(Decimal(str(v)), s, v) for v, s in ((typed, False), (checked, strict)) if _number(v)]
        if not candidates:
            continue
        best = tighter(c[0] for c in candidates)
        # at equal values the strict bound is the tighter one
        _, strict, value = max((c for c in candidates if c[0] == best), key=lambda c: c[1])
        out[f"exclusive{name}" if strict else name.lower()] = value
    return out


def _number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


@dataclass
class Outcome:
    """What became of one requested row: its accepted values, or the errors to send back."""

    values: dict[str, Any] | None = None
    """Column -> value, ready for Arrow (None: rejected or not answered)."""
    errors: list[str] = field(default_factory=list)
    """Exact errors, as the repair prompt lists them."""


@dataclass(frozen=True)
class RowShape:
    """The label columns and written columns of one table's reply rows, as a schema and a model."""

    table: Table
    keys: tuple[str, ...]
    """The columns whose values label a row (empty: rows are labelled by position)."""
    written: tuple[str, ...]
    model: type[BaseModel]
    types: dict[str, pa.DataType]
    rules: dict[str, ValueRules]

    @classmethod
    def build(cls, table: Table, keys: Sequence[str], written: Sequence[str]) -> RowShape:
        """The shape for `table` (field names are `f0, f1, ...` aliased to the columns, so that any
        column name works, even one that shadows a pydantic attribute)."""
        tc = table_constraints(table)
        columns = [table.column(c) for c in written]
        rules = {c.name: ValueRules.of(tc.column(c.name)) for c in columns}
        fields = {f"f{i}": rules[c.name].annotation(c.name) for i, c in enumerate(columns)}
        config = ConfigDict(extra="forbid", populate_by_name=False, str_strip_whitespace=False)
        model = create_model(f"{table.name}_row", __config__=config, **fields)
        types = {c.name: batch_arrow_type(c.type) for c in columns}
        return cls(table, tuple(keys), tuple(c.name for c in columns), model, types, rules)

    def labels(self, keys: Sequence[dict[str, Any]]) -> list[str]:
        """A distinct label per requested row: `song_id=5` (`a=1, b=2` for a composite key; `row 3` for a
        table without one); a repeated key gets ` #2`, ` #3`, ... in order."""
        out, seen = [], Counter[str]()
        for i, row in enumerate(keys):
            base = ", ".join(f"{c}={_text(row.get(c))}" for c in self.keys) if self.keys else f"row {i + 1}"
            seen[base] += 1
            out.append(base if seen[base] == 1 else f"{base} #{seen[base]}")
        return out

    def row_schema(self) -> dict[str, Any]:
        """The JSON schema of one reply row: the written columns, all required, nothing else."""
        props = {c: self.rules[c].json_schema() for c in self.written}
        return {"type": "object", "properties": props, "required": list(self.written),
                "additionalProperties": False}

    def reply_schema(self, labels: Sequence[str]) -> dict[str, Any]:
        """The JSON schema of a reply for the rows `labels`: `{"rows": {label: row, ...}}`, every label
        required and no other (strict-mode compatible; the row schema once, in `$defs`)."""
        rows = {"type": "object", "properties": {label: {"$ref": "#/$defs/row"} for label in labels},
                "required": list(labels), "additionalProperties": False}
        return {"type": "object", "properties": {"rows": rows}, "required": ["rows"],
                "additionalProperties": False, "$defs": {"row": self.row_schema()}}

    def read_reply(self, data: Any, labels: Sequence[str]) -> tuple[list[Outcome], Counter[str]]:
        """Find each of `labels` in `data` and validate its row; count what went wrong, by kind."""
        kinds: Counter[str] = Counter()
        outcomes = [Outcome() for _ in labels]
        rows = data.get("rows") if isinstance(data, dict) else None
        if not isinstance(rows, dict):
            kinds["bad_shape"] += 1
            for out in outcomes:
                out.errors.append('the answer was not an object with a "rows" object of rows by label')
            return outcomes, kinds
        invented = [label for label in rows if label not in set(labels)]
        kinds["invented_key"] += len(invented)
        for label, out in zip(labels, outcomes, strict=True):
            if label in rows:
                self._validate(rows[label], out, kinds)
                continue
            kinds["missing_row"] += 1
            wrong = f"; the answer had labels that were not asked for ({_show(invented)})" if invented else ""
            out.errors.append(f"the row was missing from the answer{wrong}: answer under the label exactly")
        return outcomes, +kinds

    def _validate(self, row: Any, out: Outcome, kinds: Counter[str]) -> None:
        if not isinstance(row, dict):
            kinds["wrong_type"] += 1
            out.errors.append(f"the row was not an object (got {_show(row)})")
            return
        known = set(self.written)
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


def _text(value: Any) -> str:
    value = jsonable(value)
    return "null" if value is None else str(value)


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
