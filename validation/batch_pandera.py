"""A table's column rules as a pandera schema (pyarrow backend), derived from its constraint description.

    schema = batch_schema(table)           # pandera.pyarrow.DataFrameSchema, cached per table
    schema.validate(batch, lazy=True)      # raises pandera's SchemaErrors on a bad batch
    failed = pandera_rules(table, batch)   # {(rule, column), ...} in the batch checks' own rule names

The build does not run it: `validation.batch_arrow` checks the same rules with Arrow compute at a fraction
of the cost (bench/batch_validation.py; the figures and the decision are in docs/BENCHMARKS.md, "Batch
validation"). This is the export for those who validate Arrow tables with pandera: every rule comes from
`pipeline.constraints`, so it says what the batch checks say, and `tests/validation` holds the two to the
same verdicts.

What it carries, per column: required (no identity, no default), the Arrow type (where pandera's
narwhals engine has one: not DECIMAL, TIME, BLOB or UUID, which stay untyped here), NOT NULL, VARCHAR(n),
allowed values, DECIMAL(p, s) bounds, uniqueness of a one-column key; and, table-wide, the keys of more
columns. Only keys none of whose columns may be NULL: pandera counts NULLs as equal values, SQL never
does. `pandera_rules` reads pandera's failure cases back in the batch checks' rule names
(`validation.failures.RULES`), so a failure reads the same in both.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
from pandera import pyarrow as pandera_pa
from pandera.api.pyarrow.utils import resolve_dtype
from pandera.errors import SchemaErrors

from pipeline.constraints import (
    ColumnConstraints,
    Coverage,
    TableConstraints,
    UniqueKey,
    table_constraints,
)
from pipeline.schema.model import Table

COVERAGE = Coverage(
    "the pandera export (validation.batch_pandera)",
    enforces={
        "type": ("dtype",),
        "range": ("range", "dtype"),
        "max_length": ("length",),
        "not_null": ("not_null",),
        "allowed_values": ("allowed_values",),
        "unique": ("unique",),
        "default": ("missing_column",),
    },
    leaves={
        "foreign_key": "needs the stored parents: validation.batch_store checks it in DuckDB",
        "check": "a CHECK is SQL over the row: validation.batch_store runs it in DuckDB",
    },
)
"""Which named check carries each kind (keys with a nullable column, DECIMAL/TIME/BLOB/UUID types and
what needs the database are the other batch checks' alone)."""

_RULE_OF = {"not_nullable": "not_null", "field_uniqueness": "unique"}


_CACHE: dict[str, pandera_pa.DataFrameSchema] = {}


def batch_schema(table: Table) -> pandera_pa.DataFrameSchema:
    """The pandera (pyarrow backend) schema of `table`'s batches: column rules and non-NULL keys (built
    once per table definition)."""
    key = json.dumps(table.to_dict(), sort_keys=True, default=str)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        found = _CACHE[key] = _schema(table)
    return found


def _schema(table: Table) -> pandera_pa.DataFrameSchema:
    tc = table_constraints(table)
    single = {k.columns[0].lower() for k in _keys(tc) if len(k.columns) == 1}
    columns = {c.name: _column(c, unique=c.name.lower() in single) for c in tc.columns}
    return pandera_pa.DataFrameSchema(
        columns,
        unique=[list(k.columns) for k in _keys(tc) if len(k.columns) > 1] or None,
        name=tc.table,
        strict=False,  # a batch may carry columns the database fills or computes
        metadata={"source": "pipeline.constraints"},
    )


def _check_rules(c: ColumnConstraints) -> list[str]:
    """The rules of the column's checks, in the order `_column` lists them (pandera reports a check by
    its position)."""
    return [rule for rule, present in (("length", bool(c.max_length)), ("allowed_values", bool(c.allowed)),
                                       ("range", c.kind == "decimal" and c.low is not None)) if present]


def _column(c: ColumnConstraints, *, unique: bool) -> pandera_pa.Column:
    made = {
        "length": lambda: pandera_pa.Check.str_length(max_value=c.max_length),
        "allowed_values": lambda: pandera_pa.Check.isin(list(c.allowed)),
        "range": lambda: pandera_pa.Check.in_range(c.low, c.high),
    }
    return pandera_pa.Column(
        _dtype(c.arrow), [made[rule]() for rule in _check_rules(c)], nullable=c.nullable, unique=unique,
        required=c.required, name=c.name, description=c.type,
    )


def _dtype(typ: pa.DataType | None) -> pa.DataType | None:
    """The Arrow type when pandera's engine knows it (None: the column goes untyped)."""
    if typ is None or pa.types.is_interval(typ):
        return None
    try:
        resolve_dtype(typ)
    except TypeError:
        return None
    return typ


def _keys(tc: TableConstraints) -> list[UniqueKey]:
    """Unique keys none of whose columns may be NULL (pandera counts NULLs as equal)."""
    return [k for k in tc.unique_keys if not k.nullable]


def pandera_rules(table: Table, batch: pa.Table) -> set[tuple[str, str]]:
    """The (rule, column) pairs that `batch` fails under `batch_schema(table)`, in the rule names of
    `validation.failures.RULES` (a key is named by its first column); empty when it passes."""
    try:
        batch_schema(table).validate(batch, lazy=True)
    except SchemaErrors as exc:
        cases = exc.failure_cases
        rows = cases.to_pylist() if isinstance(cases, pa.Table) else cases.to_dict("records")
        tc = table_constraints(table)
        return {_named(r, tc) for r in rows if not _null_key(r)}
    return set()


def _null_key(case: dict[str, Any]) -> bool:
    """A "duplicate" key that is NULL (in a part): pandera counts NULLs as equal, SQL never does, and the
    NULL is a `not_null` failure of its own."""
    if case["check"] == "field_uniqueness":
        return case["failure_case"] is None
    if case["check"] == "multiple_fields_uniqueness":
        return None in json.loads(str(case["failure_case"])).values()
    return False


def _named(case: dict[str, Any], tc: TableConstraints) -> tuple[str, str]:
    """(rule, column) of one of pandera's failure cases."""
    check, column = str(case["check"]), str(case["column"])
    if check == "column_in_dataframe":
        return "missing_column", str(case["failure_case"])
    if check == "multiple_fields_uniqueness":  # the duplicated values, as JSON keyed by column
        shown = {c.lower() for c in json.loads(str(case["failure_case"]))}
        key = next(k for k in _keys(tc) if {c.lower() for c in k.columns} == shown)
        return "unique", key.columns[0]
    if check.startswith("dtype("):
        return "dtype", column
    if check in _RULE_OF:
        return _RULE_OF[check], column
    return _check_rules(tc.column(column))[int(case["check_number"])], column
