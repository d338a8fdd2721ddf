"""Validate one batch of generated rows before it is written.

    failures = validate_batch(con, table, batch, batch_no=3, fks=keys.checked)

Two halves, both set-based and both derived from the table's constraints (`stateforge.constraints`):

1. Arrow compute over the batch itself (`batch_arrow.schema_failures`): the columns it must carry, the
   Arrow type of each, NOT NULL, VARCHAR(n), allowed values, DECIMAL precision, keys unique within the
   batch;
2. DuckDB queries against what is stored, with the batch registered as Arrow
   (`batch_store.store_failures`): keys already stored, foreign keys without a parent, CHECK constraints.

The result is a list of `Failure`s: the rule, the columns, the batch's row indices and a message that
names the table, the columns and the batch. An empty list means the batch can be inserted.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import duckdb
import pyarrow as pa

from stateforge.constraints import Coverage
from stateforge.schema.model import ForeignKey, Table
from stateforge.validation.batch_arrow import schema_failures
from stateforge.validation.batch_store import ROW, store_failures
from stateforge.validation.batch_trust import Enforced
from stateforge.validation.failures import RULES, Failure

__all__ = ["COVERAGE", "ROW", "RULES", "Failure", "schema_failures", "store_failures", "validate_batch"]

COVERAGE = Coverage(
    "the batch checks (stateforge.validation.batch)",
    enforces={
        "type": ("dtype",),
        "range": ("range", "dtype"),
        "max_length": ("length",),
        "not_null": ("not_null",),
        "allowed_values": ("allowed_values",),
        "unique": ("unique", "stored"),
        "foreign_key": ("foreign_key",),
        "check": ("check",),
        "default": ("missing_column",),
    },
    leaves={},
)
"""Which failure rule enforces each kind of constraint (integer widths: `dtype`, decimals: `range`; a
column without identity or default must be in the batch: `missing_column`)."""


def validate_batch(
    con: duckdb.DuckDBPyConnection,
    table: Table,
    batch: pa.Table,
    *,
    batch_no: int = 0,
    fks: Sequence[ForeignKey] | None = None,
    stored: bool | Collection[tuple[str, ...]] = True,
    enforced: Enforced | None = None,
) -> list[Failure]:
    """Every failure of `batch`: the Arrow half's, then (when the types are right) the store's.

    `stored`: which unique keys to look up among the stored rows: all (True), none (False: the table is
    empty) or the keys listed (`batch_ranges.WrittenRanges.keys_to_check`). `enforced`: the keys, NOT
    NULLs and CHECKs to leave to DuckDB's INSERT, for a caller that redoes a refused batch with every
    check (`batch_trust`)."""
    failures = schema_failures(table, batch, batch_no, enforced)
    if any(f.rule in ("dtype", "missing_column") for f in failures):
        return failures
    return failures + store_failures(con, table, batch, batch_no, fks, stored, enforced)
