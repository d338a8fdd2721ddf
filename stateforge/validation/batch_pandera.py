"""A table's column rules as a pandera schema (pyarrow backend), derived from its constraint description.

    schema = batch_schema(table)           # a pandera.pyarrow.DataFrameSchema, cached per table
    schema.validate(batch, lazy=True)      # raises pandera's SchemaErrors on a bad batch
    failed = pandera_rules(table, batch)   # {(rule, column), ...} in the batch checks' own rule names

The build does not run it: `stateforge.validation.batch_arrow` checks the same rules with Arrow compute at a
fraction
of the cost (bench/batch_validation.py; the figures and the decision are in docs/BENCHMARKS.md, "Batch
validation"). This is the export for those who validate Arrow tables with pandera: every rule comes from
`stateforge.constraints`, so it says what the batch checks say, and `tests/validation` holds the two to the
same verdicts.

What it carries, per column: required (no identity, no default), the Arrow type (where pandera's
narwhals engine has one: not DECIMAL, TIME, BLOB or UUID, which stay untyped here), NOT NULL, VARCHAR(n),
allowed values, DECIMAL(p, s) bounds, uniqueness of a one-column key; and, table-wide, the keys of more
columns. Only keys none of whose columns may be NULL: pandera counts NULLs as equal values, SQL never
does. `pandera_rules` reads pandera's failure cases back in the batch checks' rule names
(`stateforge.validation.failures.RULES`), so a failure reads the same in both.

The schema reports its failure cases as a `pyarrow.Table` whether or not polars is installed. pandera
0.35 builds a batch whose every failure is a scalar (a missing column, a wrong type) with polars when
polars can be imported and with pyarrow otherwise (`pandera.backends.narwhals.base`,
`failure_cases_metadata`: the scalar branch only takes the pyarrow builder when a frame-carrying error
names the backend, or when polars is absent); this module's `DataFrameSchema` puts every batch on
pyarrow, with the column types of pandera's own pyarrow builders.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
from pandera import pyarrow as pandera_pa
from pandera.api.pyarrow.utils import resolve_dtype
from pandera.backends.narwhals.container import DataFrameSchemaBackend
from pandera.backends.pyarrow.register import register_pyarrow_backends
from pandera.errors import FailureCaseMetadata, SchemaError, SchemaErrors

from stateforge.constraints import (
    ColumnConstraints,
    Coverage,
    TableConstraints,
    UniqueKey,
    table_constraints,
)
from stateforge.schema.model import Table

COVERAGE = Coverage(
    "the pandera export (stateforge.validation.batch_pandera)",
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
        "foreign_key": "needs the stored parents: stateforge.validation.batch_store checks it in DuckDB",
        "check": "a CHECK is SQL over the row: stateforge.validation.batch_store runs it in DuckDB",
    },
)
"""Which named check carries each kind (keys with a nullable column, DECIMAL/TIME/BLOB/UUID types and
what needs the database are the other batch checks' alone)."""

_RULE_OF = {"not_nullable": "not_null", "field_uniqueness": "unique"}


FAILURE_CASES = pa.schema([("failure_case", pa.string()), ("schema_context", pa.string()),
                           ("column", pa.string()), ("check", pa.string()), ("check_number", pa.int32()),
                           ("index", pa.int32())])
"""The columns of `SchemaErrors.failure_cases` (those of pandera's pyarrow builders)."""


class _ArrowFailureCases(DataFrameSchemaBackend):
    """pandera's narwhals backend for `pyarrow.Table`, with the failure cases always a `pyarrow.Table`."""

    def failure_cases_metadata(self, schema_name: str,
                               schema_errors: list[SchemaError]) -> FailureCaseMetadata:
        """pandera's failure cases metadata, the frame converted to `FAILURE_CASES` when it is not Arrow."""
        found = super().failure_cases_metadata(schema_name, schema_errors)
        return found._replace(failure_cases=arrow_failure_cases(found.failure_cases))


def arrow_failure_cases(cases: Any) -> pa.Table:
    """pandera's failure cases (a pyarrow, polars or pandas frame) as a `pyarrow.Table` of `FAILURE_CASES`."""
    if cases is None:
        return FAILURE_CASES.empty_table()
    table = cases if isinstance(cases, pa.Table) else pa.table(cases)
    if set(table.column_names) != set(FAILURE_CASES.names):
        raise TypeError(f"pandera's failure cases have the columns {table.column_names}, not those of "
                        f"{FAILURE_CASES.names}: check the pinned pandera version (pyproject.toml)")
    return table.select(FAILURE_CASES.names).cast(FAILURE_CASES)


class DataFrameSchema(pandera_pa.DataFrameSchema):
    """pandera's pyarrow `DataFrameSchema` whose `SchemaErrors.failure_cases` is a `pyarrow.Table` of
    `FAILURE_CASES` with or without polars installed (its name kept: pandera reports the schema's class
    name as `schema_context`)."""

    @staticmethod
    def register_default_backends(check_obj_cls: type) -> None:
        """pandera's pyarrow backends (columns, checks), and `_ArrowFailureCases` for this schema."""
        register_pyarrow_backends()
        DataFrameSchema.register_backend(pa.Table, _ArrowFailureCases)


_CACHE: dict[str, DataFrameSchema] = {}


def batch_schema(table: Table) -> DataFrameSchema:
    """The pandera (pyarrow backend) schema of `table`'s batches: column rules and non-NULL keys (built
    once per table definition)."""
    key = json.dumps(table.to_dict(), sort_keys=True, default=str)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        found = _CACHE[key] = _schema(table)
    return found


def _schema(table: Table) -> DataFrameSchema:
    tc = table_constraints(table)
    single = {k.columns[0].lower() for k in _keys(tc) if len(k.columns) == 1}
    columns = {c.name: _column(c, unique=c.name.lower() in single) for c in tc.columns}
    return DataFrameSchema(
        columns,
        unique=[list(k.columns) for k in _keys(tc) if len(k.columns) > 1] or None,
        name=tc.table,
        strict=False,  # a batch may carry columns the database fills or computes
        metadata={"source": "stateforge.constraints"},
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
    `stateforge.validation.failures.RULES` (a key is named by its first column); empty when it passes."""
    try:
        batch_schema(table).validate(batch, lazy=True)
    except SchemaErrors as exc:
        rows = arrow_failure_cases(exc.failure_cases).to_pylist()
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
