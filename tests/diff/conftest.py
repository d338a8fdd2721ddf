"""Helpers for the diff's tests: two real DuckDB files made from one DDL, the second one then changed."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb


def make_pair(
    folder: Path, ddl: str, rows: str = "", changes: str = "", name: str = "db"
) -> tuple[Path, Path]:
    """`<name>-base.duckdb` (the DDL and `rows`) and `<name>-after.duckdb` (a copy with `changes` run)."""
    base, after = folder / f"{name}-base.duckdb", folder / f"{name}-after.duckdb"
    with duckdb.connect(str(base)) as con:
        con.execute(ddl)
        if rows:
            con.execute(rows)
    shutil.copy(base, after)
    if changes:
        with duckdb.connect(str(after)) as con:
            con.execute(changes)
    return base, after
