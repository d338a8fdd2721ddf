"""The integrity audit: does a database keep every constraint of its model?

    report = audit(con)            # the model is read from the file's stateforge.model
    if not report.clean:
        print(report.summary())

Every check (`stateforge.validation.checks`) is one set-based query that returns the number of offences and
up to
`sample` of them, smallest keys first, so that reports are deterministic. PRIMARY KEY, UNIQUE, NOT NULL
and CHECK are declared to DuckDB by `create_database`, which refuses those violations on insert; the audit
checks them anyway, for databases made by other tools or with constraints dropped. Foreign-key orphans,
VARCHAR(n) lengths and allowed values are where it earns its keep.

`trust_declared=True` (the build's own audit of the file it just wrote) leaves to DuckDB the checks that
the file's catalog shows it enforces on every write (`stateforge.validation.declared`): the guarantee is the
same,
since a table whose catalog declares a constraint cannot hold a row that breaks it, and the cost drops
by the group-bys of every key. What the catalog does not declare (foreign keys, lengths, a CHECK left out
of the database, a table made without constraints) is queried as always.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import duckdb

from stateforge.errors import StoreError, guard
from stateforge.schema.model import Schema, qualified
from stateforge.store.metadata import read_model
from stateforge.store.sql import METADATA_SCHEMA
from stateforge.validation.checks import CheckQuery, build_checks, row_count_sql
from stateforge.validation.declared import declared_constraints
from stateforge.validation.orphans import orphan_queries

__all__ = ["AuditReport", "Violation", "audit", "row_counts", "run_check"]


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.date | dt.datetime | dt.time):
        return value.isoformat()
    if isinstance(value, Decimal | uuid.UUID | dt.timedelta):
        return str(value)
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


@dataclass
class Violation:
    """One check's outcome: how many offences and a few of them (`count` 0 means it passed)."""

    check: str
    """The kind: primary_key, unique, not_null, check, foreign_key or allowed_values."""
    table: str
    constraint: str
    """The DDL's constraint name, else a readable form such as `orders(customer_id) -> customers(id)`."""
    columns: tuple[str, ...]
    count: int
    """Offending rows; for primary_key and unique, duplicated key values."""
    samples: list[dict[str, Any]] = field(default_factory=list)
    """Up to `sample` offences: the row's key (primary key, else `rowid`) and the constrained columns;
    for duplicates, the duplicated key values."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: dates as ISO strings, decimals and UUIDs as strings."""
        return {
            "check": self.check,
            "table": self.table,
            "constraint": self.constraint,
            "columns": list(self.columns),
            "count": self.count,
            "samples": _jsonable(self.samples),
        }


@dataclass
class AuditReport:
    """What the audit found: the violated checks, every table's row count, and what it cost."""

    violations: list[Violation]
    """Checks with at least one offence, in the order they ran."""
    tables: dict[str, int]
    """Row count of every audited table."""
    checks_run: int
    seconds: float
    enforced: int = 0
    """Checks not queried because DuckDB enforces them in this file (`trust_declared`)."""

    @property
    def total(self) -> int:
        """Offences over all checks."""
        return sum(v.count for v in self.violations)

    @property
    def clean(self) -> bool:
        """No check found anything."""
        return self.total == 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: `violations` is the total, `checks` the violated checks, `tables` the row counts."""
        return {
            "violations": self.total,
            "clean": self.clean,
            "checks_run": self.checks_run,
            "enforced_by_duckdb": self.enforced,
            "checks": [v.to_dict() for v in self.violations],
            "tables": dict(self.tables),
            "seconds": round(self.seconds, 6),
        }

    def summary(self) -> str:
        """A few lines for people: the verdict, then one line per violated check with its samples."""
        rows = sum(self.tables.values())
        head = (
            f"audit: {len(self.tables)} tables, {rows} rows, {self.checks_run} checks"
            + (f" (and {self.enforced} DuckDB enforces)" if self.enforced else "") + ", "
            f"{self.total} violations ({self.seconds * 1000:.0f} ms)"
        )
        lines = [head]
        for v in self.violations:
            lines.append(f"  {v.check} {v.table}: {v.constraint}: {v.count}, e.g. {_jsonable(v.samples)}")
        return "\n".join(lines)


def run_check(con: duckdb.DuckDBPyConnection, query: CheckQuery, sample: int = 5) -> Violation:
    """Run one check: a single query for the count and up to `sample` offences."""
    try:
        [(count, samples)] = con.sql(query.sample_sql(sample)).fetchall()
    except duckdb.Error as exc:
        raise StoreError(
            f"audit of table {query.table}, {query.kind} {query.constraint}: the query failed ({exc}). "
            "The database does not match its model (a table or column is missing or has another type)."
        ) from exc
    return Violation(query.kind, query.table, query.constraint, query.columns, int(count), samples or [])


def offence_counts(con: duckdb.DuckDBPyConnection, queries: Sequence[CheckQuery]) -> list[int]:
    """How many offences each check finds, in few queries: one per table for its own checks (fewer round
    trips than one per check; one for the whole database would hold every table's hash tables at once),
    and one per parent key for the foreign keys to it (`stateforge.validation.orphans`: one anti-join
    whatever the
    number of children, or a range check for dense integer keys). A check that cannot run is named by
    `run_check`."""
    counts = [0] * len(queries)
    by_table: dict[str, list[int]] = {}
    fk_positions: list[int] = []
    for i, q in enumerate(queries):
        if q.kind == "foreign_key" and q.ref_table is not None and q.column_types:
            fk_positions.append(i)
        else:
            by_table.setdefault(q.table, []).append(i)
    groups = [
        (
            "auditing the table",
            table,
            positions,
            " UNION ALL ".join(
                f"SELECT {i} AS i, count(*) AS n FROM ({queries[i].offenders}) AS o" for i in positions
            ),
        )
        for table, positions in by_table.items()
    ]
    groups += [
        ("auditing the foreign keys to the table", parent, positions, sql)
        for parent, positions, sql in orphan_queries(con, queries, fk_positions)
    ]
    for stage, table, positions, sql in groups:
        with guard(stage, table=table, passthrough=(duckdb.Error,)):
            try:
                found = dict(con.execute(sql).fetchall())
            except duckdb.Error:
                for i in positions:
                    run_check(con, queries[i], 0)  # raises StoreError naming the check
                raise
            for i in positions:
                counts[i] = int(found.get(i, 0))
    return counts


def row_counts(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> dict[str, int]:
    """Every table's row count, in one query, keyed and ordered as `tables`."""
    counts = {name: int(n) for name, n in con.sql(row_count_sql(tables)).fetchall()}
    return {t: counts[t] for t in tables}


def _missing_tables(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> list[str]:
    present = {
        qualified(namespace, name).lower()
        for namespace, name in con.sql(
            "SELECT schema_name, table_name FROM duckdb_tables() "
            f"WHERE database_name = current_database() AND schema_name <> '{METADATA_SCHEMA}'"
        ).fetchall()
    }
    return [t for t in tables if t.lower() not in present]


def audit(
    con: duckdb.DuckDBPyConnection,
    schema: Schema | None = None,
    *,
    sample: int = 5,
    tables: list[str] | None = None,
    trust_declared: bool = False,
) -> AuditReport:
    """Check the database behind `con` against `schema` (default: the model stored in the file).

    `tables` limits the audit to those tables (their own constraints and outgoing foreign keys).
    `trust_declared` skips the checks that DuckDB enforces in this file (see the module docstring).
    Raises `StoreError` if a table of the model is missing from the database or a check cannot run.
    """
    start = time.perf_counter()
    if schema is None:
        schema, _ = read_model(con)
    try:
        names = [schema.table(t).name for t in tables] if tables is not None else schema.table_names
    except KeyError as exc:
        raise StoreError(f"audit: {exc.args[0]}") from exc
    missing = _missing_tables(con, names)
    if missing:
        raise StoreError(
            f"audit: the database lacks table(s) {', '.join(missing)} that its model defines; "
            "rebuild it or pass tables=[...] to audit the others."
        )
    queries = build_checks(schema, names)
    enforced = 0
    if trust_declared:
        catalog = declared_constraints(con)
        kept = [q for q in queries if q.declared is None or q.declared not in catalog]
        enforced, queries = len(queries) - len(kept), kept
    counts = offence_counts(con, queries)
    results = [run_check(con, q, sample) if n else Violation(q.kind, q.table, q.constraint, q.columns, 0, [])
               for q, n in zip(queries, counts, strict=True)]
    return AuditReport(
        violations=[v for v in results if v.count],
        tables=row_counts(con, names),
        checks_run=len(queries),
        seconds=time.perf_counter() - start,
        enforced=enforced,
    )
