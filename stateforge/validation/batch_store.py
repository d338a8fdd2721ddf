"""The DuckDB half of the batch checks: what a batch breaks against what is stored, in one query.

    failures = store_failures(con, table, batch, batch_no=3, fks=keys.checked)

The batch is registered as Arrow (with a row-number column) and every test is one set-based query
derived from the table's constraints (`stateforge.constraints`), all run as one UNION ALL: keys already
stored (a semi-join per unique key), foreign keys without a parent (the anti-join of
`stateforge.store.sql.orphans_sql`) and CHECK constraints (`WHERE NOT (check)`). CHECKs that Arrow
compute evaluates exactly (`stateforge.validation.batch_checks`) are evaluated there, without a query.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Sequence

import duckdb
import numpy as np
import pyarrow as pa

from stateforge.constraints import table_constraints
from stateforge.errors import BuildError
from stateforge.schema.model import ForeignKey, Table
from stateforge.store.sql import column_list, key_cast, orphans_sql, table_ref
from stateforge.store.sql import quote_ident as _q
from stateforge.validation.batch_checks import arrow_check
from stateforge.validation.batch_ranges import stored_keys
from stateforge.validation.batch_trust import Enforced
from stateforge.validation.failures import Failure, failure

ROW = "__sf_row"
"""The row-ordinal column added to a batch registered in DuckDB."""

_BATCH = "__sf_batch"

Test = tuple[str, tuple[str, ...], str, str]
"""(rule, columns, detail, the SQL that selects the failing rows' `ROW`)."""


def store_failures(con: duckdb.DuckDBPyConnection, table: Table, batch: pa.Table, batch_no: int = 0,
                   fks: Sequence[ForeignKey] | None = None,
                   stored: bool | Collection[tuple[str, ...]] = True,
                   enforced: Enforced | None = None) -> list[Failure]:
    """Keys already stored, foreign keys without a parent (`fks`, default all) and failed CHECKs.

    `stored=False` skips the stored-key checks (the table is known to be empty); a collection of keys
    (their columns) looks up only those (`batch_ranges.WrittenRanges.keys_to_check`). `enforced` names
    keys and CHECKs left to DuckDB's INSERT (`batch_trust`).
    """
    tests = store_tests(table, batch.column_names, fks, stored, enforced,
                        key_types=lambda fk: _key_types(con, table.name, fk))
    # CHECKs that Arrow evaluates exactly (`batch_checks`) need no query; the others go to DuckDB
    done = {i: rows for i, (rule, _, detail, _) in enumerate(tests)
            if rule == "check" and (rows := arrow_check(detail, batch)) is not None}
    queried = [i for i in range(len(tests)) if i not in done]
    if queried:
        numbered = batch.append_column(ROW, pa.array(np.arange(batch.num_rows, dtype=np.int64)))
        con.register(_BATCH, numbered)
        try:
            found = _run(con, table.name, [tests[i] for i in queried])
        finally:
            with contextlib.suppress(duckdb.Error):
                con.unregister(_BATCH)
        for k, i in enumerate(queried):
            done[i] = np.sort(found[found[:, 0] == k, 1]) if len(found) else np.zeros(0, np.int64)
    out = []
    for i, (rule, columns, detail, _) in enumerate(tests):
        if len(done[i]):
            out.append(failure(rule, table.name, tuple(columns), done[i], batch_no, detail))
    return out


def store_tests(table: Table, columns: Sequence[str], fks: Sequence[ForeignKey] | None = None,
                stored: bool | Collection[tuple[str, ...]] = True, enforced: Enforced | None = None,
                key_types: Callable[[ForeignKey], Sequence[str]] | None = None) -> list[Test]:
    """The tests a batch with `columns` gets: stored keys (all, none, or the keys `stored` lists), `fks`
    (default every foreign key), and the CHECKs whose columns it carries. `key_types` gives the types of the
    columns a foreign key references, so that a column of another type is read as the key's (`key_cast`).
    """
    tc = table_constraints(table)
    have = {c.lower() for c in columns}
    tests: list[Test] = []
    ref = table_ref(table.name)
    for key in tc.unique_keys if stored else ():
        if enforced is not None and enforced.key(key.columns):
            continue
        if all(c.lower() in have for c in key.columns) and stored_keys(stored, key.columns):
            on = " AND ".join(f"b.{_q(c)} = s.{_q(c)}" for c in key.columns)
            tests.append(("stored", key.columns, f"{table.name}({', '.join(key.columns)})",
                          f"SELECT b.{ROW} FROM {_BATCH} b SEMI JOIN {ref} s ON {on}"))
    chosen = [r.fk for r in tc.references] if fks is None else fks
    for fk in chosen:
        if all(c.lower() in have for c in fk.columns):
            casts = None if key_types is None else [
                key_cast(table.column(c).type, t) for c, t in zip(fk.columns, key_types(fk), strict=True)]
            sql = orphans_sql(_BATCH, fk.columns, table_ref(fk.ref_table), fk.ref_columns, f"c.{ROW}", casts)
            tests.append(("foreign_key", fk.columns, f"{fk.ref_table}({', '.join(fk.ref_columns)})", sql))
    for check in tc.checks:
        if enforced is not None and check.sql in enforced.checks:
            continue
        if all(c.lower() in have for c in check.columns):
            tests.append(("check", check.columns or (check.name or "",), check.sql,
                          f"SELECT {ROW} FROM {_BATCH} WHERE NOT ({check.sql})"))
    return tests


def _key_types(con: duckdb.DuckDBPyConnection, table: str, fk: ForeignKey) -> list[str]:
    """The stored types of the columns `fk` (a foreign key of `table`) references."""
    try:
        found = con.execute(f"SELECT {column_list(fk.ref_columns)} FROM {table_ref(fk.ref_table)} LIMIT 0")
    except duckdb.Error as exc:
        raise BuildError(
            f"table {table}: FOREIGN KEY ({', '.join(fk.columns)}) references "
            f"{fk.ref_table}({', '.join(fk.ref_columns)}), which the database does not hold ({exc}). "
            "Create the database from the same DDL (stateforge init-db) before validating batches.") from exc
    return [str(d[1]) for d in found.description]


def _run(con: duckdb.DuckDBPyConnection, table_name: str, tests: list[Test]) -> np.ndarray:
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
