"""What a build records about itself inside the file: `stateforge.build_meta`, one (key, value) row each.

    read_build_meta(con)["fingerprint"]     # the hash of the build's inputs (resume checks it)
    frozen_now(con)                         # the environment's clock: datetime(2026, 6, 30, 23, 59, 59)

Keys: `fingerprint`, `inputs` (the JSON the fingerprint hashes) and `now`, the domain's frozen "now" as an
ISO timestamp (the end of the pack's `time_window` at noon). Episodes and tools read `now` as the clock of
the environment, never the wall clock, so that a task's expected diff does not depend on when it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import duckdb

from stateforge.errors import StoreError
from stateforge.store.sql import meta_ref

BUILD_META = meta_ref("build_meta")


def write_build_meta(con: duckdb.DuckDBPyConnection, values: Mapping[str, str]) -> None:
    """Create `stateforge.build_meta` and write `values` into it (the `stateforge` schema must exist)."""
    con.execute(f"CREATE TABLE {BUILD_META} (key VARCHAR PRIMARY KEY, value VARCHAR)")
    for key, value in values.items():
        con.execute(f"INSERT INTO {BUILD_META} VALUES (?, ?)", [key, value])


def read_build_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Every (key, value) of `stateforge.build_meta`; empty for a file no build wrote (`init-db`)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'stateforge' AND table_name = 'build_meta'"
    ).fetchall()
    if not found[0][0]:
        return {}
    return dict(con.execute(f"SELECT key, value FROM {BUILD_META} ORDER BY key").fetchall())


def frozen_now(con: duckdb.DuckDBPyConnection) -> datetime:
    """The environment's clock: the `now` a build recorded (a naive timestamp)."""
    value = read_build_meta(con).get("now")
    if value is None:
        raise StoreError(
            "this database records no frozen `now` (stateforge.build_meta): it was not made by "
            "`stateforge build-domain`, or by an older version. Build it again."
        )
    return datetime.fromisoformat(value)
