"""Validate one batch of generated rows before it is written.

    failures = validate_batch(con, table, batch, batch_no=3, fks=keys.checked)

Two halves, both set-based:

1. a pandera schema derived from the table (`batch_schema`, cached): Arrow dtype per DuckDB type,
   NOT NULL, VARCHAR(n) length, allowed values, the range of integer widths and DECIMAL precision, and
   keys unique within the batch (built-in `unique` for NOT NULL keys, the SQL rule "NULLs never clash"
   for keys with nullable columns);
2. DuckDB queries against what is stored, with the batch registered as Arrow: keys already stored
   (semi-join), foreign keys without a parent (anti-join) and CHECK constraints (`WHERE NOT (check)`).

The result is a list of `Failure`s: the rule, the columns, the batch's row indices and a message that
names the table, the columns and the batch. An empty list means the batch can be inserted.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import duckdb
import numpy as np
import pandas as pd
import pandera.pandas as pandera
import pyarrow as pa

from pipeline.errors import BuildError
from pipeline.schema.model import Column, ForeignKey, Table
from pipeline.store.sql import quote_ident as _q
from pipeline.store.sql import table_ref
from pipeline.types import arrow_type, decimal_params

ROW = "__sf_row"
"""The row-ordinal column added to a batch registered in DuckDB."""

RULES = ("missing_column", "dtype", "not_null", "length", "allowed_values", "range", "unique", "stored",
         "foreign_key", "check")
"""Every failure rule, in the order failures are reported."""


@dataclass(frozen=True)
class Failure:
    """Rows of one batch that break one rule."""

    rule: str
    table: str
    columns: tuple[str, ...]
    rows: np.ndarray
    """Row indices in the batch; empty for a whole-column failure (missing column, wrong dtype)."""
    message: str
    batch: int = 0
    detail: str = ""
    """The CHECK's SQL, the referenced `table(columns)`, or the bounds."""

    @property
    def count(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "table": self.table, "columns": list(self.columns),
                "rows": self.rows[:10].tolist(), "count": self.count, "message": self.message}


# --- the pandera half -----------------------------------------------------------------------------

_SCHEMAS: dict[str, pandera.DataFrameSchema] = {}


def batch_schema(table: Table) -> pandera.DataFrameSchema:
    """The pandera schema of one table's batches (built once per table definition)."""
    key = json.dumps(table.to_dict(), sort_keys=True, default=str)
    if len(_SCHEMAS) > 512:  # many schemas (property tests): start over rather than grow
        _SCHEMAS.clear()
    if key not in _SCHEMAS:
        _SCHEMAS[key] = _build_schema(table)
    return _SCHEMAS[key]


def _build_schema(table: Table) -> pandera.DataFrameSchema:
    pk = {c.lower() for c in table.primary_key}
    single = {k[0].lower() for k in table.unique_keys if len(k) == 1 and not _nullable(table, k)}
    columns = {
        c.name: pandera.Column(
            _dtype(c), _checks(c), nullable=c.nullable and c.name.lower() not in pk,
            unique=c.name.lower() in single, report_duplicates="exclude_first",
            required=not (c.identity or c.default is not None),
        )
        for c in table.columns
        if c.generated is None  # DuckDB computes generated columns: batches do not carry them
    }
    composite = [k for k in table.unique_keys if len(k) > 1 or _nullable(table, k)]
    builtin = composite[0] if composite and not _nullable(table, composite[0]) else None
    checks = [_unique_check(list(k)) for k in composite if k is not builtin]
    return pandera.DataFrameSchema(
        columns, checks=checks, unique=list(builtin) if builtin else None, report_duplicates="exclude_first",
        name=table.name,
    )


def _nullable(table: Table, key: tuple[str, ...]) -> bool:
    pk = {c.lower() for c in table.primary_key}
    return any(table.column(c).nullable and c.lower() not in pk for c in key)


def _dtype(column: Column) -> pd.ArrowDtype | None:
    found = arrow_type(column.type)
    simple = found is not None and not (pa.types.is_nested(found) or pa.types.is_interval(found))
    return pd.ArrowDtype(found) if simple else None


def _checks(column: Column) -> list[pandera.Check]:
    out = []
    if column.length:
        out.append(pandera.Check.str_length(max_value=column.length))
    values = [v for v in column.allowed_values or [] if v is not None]
    if values:
        typ = arrow_type(column.type)
        try:
            values = pa.array(values).cast(typ).to_pylist() if typ is not None else values
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        out.append(pandera.Check.isin(values))
    # Integer widths need no check of their own: the exact Arrow dtype (int16 for SMALLINT, ...) cannot
    # hold a value outside the width, and coerce_types clamps when it casts a wider column down.
    if column.base_type in ("DECIMAL", "NUMERIC"):
        precision, scale = decimal_params(column.type)
        bound = Decimal(10) ** (precision - scale) - Decimal(10) ** -scale
        out.append(pandera.Check.in_range(-bound, bound))
    return out


def _unique_check(key: list[str]) -> pandera.Check:
    def unique(frame: pd.DataFrame) -> pd.Series:
        sub = frame[key]
        return ~(sub.duplicated(keep="first") & sub.notna().all(axis=1))

    return pandera.Check(unique, name=f"unique({', '.join(key)})")


_RULE_OF = {"column_in_dataframe": "missing_column", "not_nullable": "not_null", "str_length": "length",
            "isin": "allowed_values", "in_range": "range", "field_uniqueness": "unique",
            "multiple_fields_uniqueness": "unique", "unique": "unique", "dtype": "dtype"}


def schema_failures(table: Table, batch: pa.Table, batch_no: int = 0) -> list[Failure]:
    """What the pandera schema finds wrong with `batch`."""
    frame = batch.to_pandas(types_mapper=pd.ArrowDtype)
    try:
        batch_schema(table).validate(frame, lazy=True)
        return []
    except pandera.errors.SchemaErrors as err:
        cases = err.failure_cases
    out = []
    for (check, column), group in cases.groupby(["check", "column"], sort=False, dropna=False):
        name = str(check)
        rule = _RULE_OF.get(name.split("(")[0], "check")
        if rule == "unique" and name.startswith("unique("):
            columns = tuple(name[7:-1].split(", "))
        elif name == "multiple_fields_uniqueness":
            columns = tuple(batch_schema(table).unique or ())
        elif rule == "missing_column":
            columns = (str(group["failure_case"].iloc[0]),)
        else:
            columns = (str(column),)
        rows = pd.to_numeric(group["index"], errors="coerce").dropna().astype(np.int64).to_numpy()
        idx = np.zeros(0, np.int64) if rule in ("dtype", "missing_column") else np.unique(rows)
        out.append(Failure(rule, table.name, columns, idx, "", batch_no, name))
    merged: dict[tuple[str, tuple[str, ...]], Failure] = {}
    for f in out:
        key = (f.rule, tuple(c.lower() for c in f.columns))
        if key in merged:
            old = merged[key]
            f = Failure(f.rule, f.table, f.columns, np.union1d(old.rows, f.rows), "", batch_no, old.detail)
        merged[key] = f
    return [_with_message(f) for f in sorted(merged.values(), key=lambda f: (RULES.index(f.rule), f.columns))]


_WHAT = {
    "missing_column": "the column is missing from the batch",
    "dtype": "the values have the wrong type",
    "not_null": "NULL in a NOT NULL column",
    "length": "longer than the column allows",
    "allowed_values": "not one of the allowed values",
    "range": "out of the type's range",
    "unique": "duplicate key within the batch",
    "stored": "key already stored",
    "foreign_key": "no parent row",
    "check": "CHECK fails",
}


def _with_message(f: Failure) -> Failure:
    plural = "s" if len(f.columns) > 1 else ""
    where = f"table {f.table}, column{plural} {', '.join(f.columns)}, batch {f.batch}"
    rows = f"{f.count} row(s) (e.g. {f.rows[:5].tolist()}): " if f.count else ""
    message = f"{where}: {rows}{_WHAT[f.rule]} ({f.detail})"
    return Failure(f.rule, f.table, f.columns, f.rows, message, f.batch, f.detail)


# --- the DuckDB half ------------------------------------------------------------------------------


def store_failures(
    con: duckdb.DuckDBPyConnection,
    table: Table,
    batch: pa.Table,
    batch_no: int = 0,
    fks: Sequence[ForeignKey] | None = None,
    stored: bool = True,
) -> list[Failure]:
    """Keys already stored, foreign keys without a parent (`fks`, default all) and failed CHECKs.

    `stored=False` skips the stored-key checks (the table is known to be empty).
    """
    have = {c.lower() for c in batch.column_names}
    tests: list[tuple[str, tuple[str, ...], str, str]] = []
    ref = table_ref(table.name)
    for key in table.unique_keys if stored else []:
        if all(c.lower() in have for c in key):
            on = " AND ".join(f"b.{_q(c)} = s.{_q(c)}" for c in key)
            tests.append(("stored", key, f"{table.name}({', '.join(key)})",
                          f"SELECT b.{ROW} FROM __sf_batch b SEMI JOIN {ref} s ON {on}"))
    for fk in table.foreign_keys if fks is None else fks:
        if all(c.lower() in have for c in fk.columns):
            pairs = zip(fk.columns, fk.ref_columns, strict=True)
            on = " AND ".join(f"b.{_q(c)} = p.{_q(r)}" for c, r in pairs)
            present = " AND ".join(f"b.{_q(c)} IS NOT NULL" for c in fk.columns)
            tests.append(("foreign_key", fk.columns, f"{fk.ref_table}({', '.join(fk.ref_columns)})",
                          f"SELECT b.{ROW} FROM __sf_batch b ANTI JOIN {table_ref(fk.ref_table)} p ON {on} "
                          f"WHERE {present}"))
    for check in table.checks:
        if all(c.lower() in have for c in check.columns):
            tests.append(("check", check.columns or (check.name or "",), check.sql,
                          f"SELECT {ROW} FROM __sf_batch WHERE NOT ({check.sql})"))
    if not tests:
        return []
    numbered = batch.append_column(ROW, pa.array(np.arange(batch.num_rows, dtype=np.int64)))
    con.register("__sf_batch", numbered)
    try:
        found = _run(con, table.name, tests)
    finally:
        with contextlib.suppress(duckdb.Error):
            con.unregister("__sf_batch")
    out = []
    for i, (rule, columns, detail, _) in enumerate(tests):
        rows = found[found[:, 0] == i, 1] if len(found) else np.zeros(0, np.int64)
        if len(rows):
            failure = Failure(rule, table.name, tuple(columns), np.sort(rows), "", batch_no, detail)
            out.append(_with_message(failure))
    return out


def _run(con: duckdb.DuckDBPyConnection, table_name: str, tests: list[tuple[str, tuple[str, ...], str, str]]
         ) -> np.ndarray:
    query = " UNION ALL ".join(f"SELECT {i} AS t, * FROM ({sql})" for i, (*_, sql) in enumerate(tests))
    try:
        result = con.sql(query).fetchnumpy()
    except duckdb.Error:
        # Find the test that fails to run and name it; a valid DDL's CHECK runs on a well-typed batch.
        for rule, columns, detail, sql in tests:
            try:
                con.sql(sql).fetchall()
            except duckdb.Error as exc:
                what = f"{rule} on {', '.join(columns)} ({detail})"
                raise BuildError(f"table {table_name}: {what} cannot run on a batch: {exc}") from exc
        raise
    return np.stack([np.asarray(result["t"], np.int64), np.asarray(result[ROW], np.int64)], axis=1)


def validate_batch(
    con: duckdb.DuckDBPyConnection,
    table: Table,
    batch: pa.Table,
    *,
    batch_no: int = 0,
    fks: Sequence[ForeignKey] | None = None,
    stored: bool = True,
) -> list[Failure]:
    """Every failure of `batch`: the pandera schema's, then (when the dtypes are right) the store's."""
    failures = schema_failures(table, batch, batch_no)
    if any(f.rule in ("dtype", "missing_column") for f in failures):
        return failures
    return failures + store_failures(con, table, batch, batch_no, fks, stored)
