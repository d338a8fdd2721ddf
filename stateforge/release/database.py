"""The bundle's DuckDB file, the same rows for the same inputs.

    write_database(built, target, report=stable_build_report)

A built database is not reproducible as a file: its `stateforge.build_report` and `build_progress` hold
timings, and its tables were written in batches. So the release makes a fresh file: the schema's tables,
metadata and audit views (`create_database`), then every table's rows in fill order, sorted by key, on one
thread, its `build_meta` copied row by row, the stable build report, sequences restarted past the ids, and
one CHECKPOINT.

The file is identified by its content, not its bytes: DuckDB's file format is its own (a new file gets a
random identifier, and nothing promises the same layout twice), so the manifest lists the database by its
table hashes (`stateforge.store.table_hashes`, the md5 of each table's rows in key order) and their
fingerprint, which `verify-release` checks, and leaves it out of the files it hashes byte for byte.
`build_progress` (what a `--resume` needs) is left out: a released database is finished.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from stateforge.graph import FillPlan
from stateforge.release.files import ReleaseError
from stateforge.schema.model import Schema
from stateforge.store import table_hashes
from stateforge.store.build_meta import read_build_meta, write_build_meta
from stateforge.store.create import create_database, ordered_tables, reset_sequences
from stateforge.store.sql import column_list, quote_ident, quote_literal, table_ref
from stateforge.validation.views import install_views
from stateforge.values import dumps

SOURCE = "built"
"""The catalog the built database is attached as while its rows are copied."""


def storage_version(path: Path) -> str:
    """The DuckDB storage format of a file (e.g. `v1.4.0+`), as DuckDB reports it."""
    with duckdb.connect(":memory:") as con:
        con.execute(f"ATTACH {quote_literal(str(path))} AS probe (READ_ONLY)")
        rows = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = 'probe'"
        ).fetchall()
        con.execute("DETACH probe")
    return str(rows[0][0]) if rows and rows[0][0] is not None else duckdb.__version__


def write_database(
    built: Path, schema: Schema, plan: FillPlan, target: Path, *, report: dict[str, Any]
) -> dict[str, str]:
    """Write the release's database at `target` from the built file `built`; return its table hashes.

    `report` is the (stable) build report stored as `stateforge.build_report`. Raises `ReleaseError`
    when the copy's table hashes differ from the built file's (nothing may be lost on the way).
    """
    create_database(schema, plan, target, setup=install_views)
    with duckdb.connect(str(target), config={"threads": 1}) as con:
        con.execute(f"ATTACH {quote_literal(str(built))} AS {SOURCE} (READ_ONLY)")
        con.execute("USE main")
        con.begin()
        for table in ordered_tables(schema, plan):
            stored = [c.name for c in table.columns if c.generated is None]
            key = table.primary_key or stored
            order = ", ".join(f"{quote_ident(c)} NULLS FIRST" for c in key)
            cols = column_list(stored)
            con.execute(
                f"INSERT INTO {table_ref(table)} ({cols}) "
                f"SELECT {cols} FROM {quote_ident(SOURCE)}.{table_ref(table)} ORDER BY {order}"
            )
        meta = _source_meta(con)
        write_build_meta(con, dict(sorted(meta.items())))
        con.execute("CREATE TABLE stateforge.build_report AS SELECT ?::JSON AS report", [dumps(report)])
        reset_sequences(con, schema)
        con.commit()
        expected = _source_hashes(con, schema)
        con.execute(f"DETACH {SOURCE}")
        con.execute("CHECKPOINT")
    with duckdb.connect(str(target), read_only=True) as con:
        got = table_hashes(con, schema)
    lost = sorted(t for t in expected if expected[t] != got.get(t))
    if lost:
        raise ReleaseError(
            f"{target}: the release copy of table(s) {', '.join(lost)} differs from {built}; this is a bug "
            "in Stateforge (a type the copy does not keep): report it with the DDL."
        )
    return got


def _source_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    cursor = con.cursor()
    cursor.execute(f"USE {SOURCE}")
    meta = read_build_meta(cursor)
    cursor.close()
    return meta


def _source_hashes(con: duckdb.DuckDBPyConnection, schema: Schema) -> dict[str, str]:
    cursor = con.cursor()
    cursor.execute(f"USE {SOURCE}")
    hashes = table_hashes(cursor, schema)
    cursor.close()
    return hashes
