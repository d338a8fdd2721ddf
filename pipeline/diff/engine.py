"""Diff two database states: two catalogs of one DuckDB connection, or two DuckDB files.

    diff = diff_files("artifacts/music/music.duckdb", "episode.duckdb")
    diff = diff_catalogs(con, "base", "episode", tables=["playlists", "playlist_songs"])
    print(diff.to_json())

One query per table finds and fetches the changed rows (`queries.py`); only those rows reach Python, where
their values become canonical JSON (`pipeline.values.json_value`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from pipeline.diff.catalog import TableSpec, table_specs
from pipeline.diff.model import Diff, DiffError, RowUpdate, TableDiff
from pipeline.diff.queries import keyed_sql, multiset_sql
from pipeline.store.sql import quote_ident, quote_literal
from pipeline.values import json_value

BASE, AFTER = "sf_diff_base", "sf_diff_after"
"""The catalog names `diff_files` attaches the two files under."""

DUCKDB_MAGIC = b"DUCK"
"""Bytes 8-11 of every DuckDB database file."""


def _keyed(con: duckdb.DuckDBPyConnection, spec: TableSpec, base: str, after: str) -> TableDiff:
    rows = con.execute(keyed_sql(spec, base, after)).fetchall()
    names = spec.column_names
    n = len(names)
    values = [(i, c.name) for i, c in enumerate(spec.columns) if c in spec.values]
    key_at = [names.index(k) for k in spec.key or ()]
    inserted, deleted, updated = [], [], []
    for row in rows:
        in_base, in_after = row[0], row[1]
        old, new, differs = row[2 : 2 + n], row[2 + n : 2 + 2 * n], row[2 + 2 * n :]
        if in_base and in_after:
            changes = {
                name: (json_value(old[i]), json_value(new[i]))
                for (i, name), changed in zip(values, differs, strict=True)
                if changed
            }
            if changes:  # a hash that moved while no value did (-0.0 vs 0.0, say) is no change
                updated.append(RowUpdate(key={names[i]: json_value(old[i]) for i in key_at}, changes=changes))
        elif in_after:
            inserted.append({name: json_value(v) for name, v in zip(names, new, strict=True)})
        else:
            deleted.append({name: json_value(v) for name, v in zip(names, old, strict=True)})
    return TableDiff(inserted=inserted, deleted=deleted, updated=updated)


def _multiset(con: duckdb.DuckDBPyConnection, spec: TableSpec, base: str, after: str) -> TableDiff:
    inserted, deleted = [], []
    for row in con.execute(multiset_sql(spec, base, after)).fetchall():
        *values, n_base, n_after = row
        doc = {name: json_value(v) for name, v in zip(spec.column_names, values, strict=True)}
        target = inserted if n_after > n_base else deleted
        target.extend(dict(doc) for _ in range(abs(n_after - n_base)))
    return TableDiff(inserted=inserted, deleted=deleted)


def diff_catalogs(
    con: duckdb.DuckDBPyConnection,
    base: str,
    after: str,
    *,
    schema: str | None = None,
    tables: list[str] | None = None,
    names: tuple[str, str] | None = None,
) -> Diff:
    """The diff from catalog `base` to catalog `after`, both attached to `con`.

    `schema` limits it to one DuckDB schema (default: every schema but `stateforge`); `tables` to some
    tables. `names` are what messages call the two sides (default: the catalog names). Times with a zone
    are written in UTC; the connection's TimeZone setting is restored afterwards.
    """
    for catalog, shown in zip((base, after), names or (base, after), strict=True):
        found = con.execute("SELECT count(*) FROM duckdb_databases() WHERE database_name = ?", [catalog])
        if not found.fetchone()[0]:
            raise DiffError(f"no catalog {catalog} ({shown}) is attached to this connection: ATTACH it.")
    specs = table_specs(con, base, after, schema=schema, tables=tables, names=names)
    zone = con.execute("SELECT current_setting('TimeZone')").fetchone()[0]
    con.execute("SET TimeZone = 'UTC'")
    try:
        changed: dict[str, TableDiff] = {}
        for spec in specs:
            table = _keyed(con, spec, base, after) if spec.key else _multiset(con, spec, base, after)
            if not table.empty:
                changed[spec.label] = table
    finally:
        con.execute(f"SET TimeZone = {quote_literal(zone)}")
    return Diff(tables=changed)


def check_database_file(path: str | Path) -> Path:
    """`path` if it is a DuckDB database file; `DiffError` naming the file and the problem otherwise."""
    path = Path(path)
    if not path.exists():
        raise DiffError(f"{path}: no such file. Give the path of a DuckDB database (e.g. a built domain).")
    if not path.is_file():
        raise DiffError(f"{path}: not a file. Give the path of a DuckDB database file, not a folder.")
    with path.open("rb") as fh:
        head = fh.read(12)
    if head[8:12] != DUCKDB_MAGIC:
        raise DiffError(
            f"{path}: not a DuckDB database (it does not start with DuckDB's header). "
            "Give a .duckdb file written by DuckDB, e.g. artifacts/<domain>/<domain>.duckdb."
        )
    return path


def diff_files(
    base_path: str | Path,
    after_path: str | Path,
    *,
    schema: str | None = None,
    tables: list[str] | None = None,
) -> Diff:
    """The diff from the DuckDB file `base_path` to `after_path`, both opened read-only.

    Neither file is changed. `DiffError` (naming the file) when one is missing or not a DuckDB database, or
    when their tables or columns differ (naming the table and columns).
    """
    base_path, after_path = check_database_file(base_path), check_database_file(after_path)
    same = base_path.resolve() == after_path.resolve()
    config = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}
    with duckdb.connect(config=config) as con:
        for catalog, path in ((BASE, base_path), (AFTER, after_path))[: 1 if same else 2]:
            _attach(con, catalog, path)
        names = (str(base_path), str(after_path))
        return diff_catalogs(con, BASE, BASE if same else AFTER, schema=schema, tables=tables, names=names)


def _attach(con: duckdb.DuckDBPyConnection, catalog: str, path: Path) -> None:
    try:
        con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(catalog)} (READ_ONLY)")
    except duckdb.Error as exc:
        detail: Any = str(exc).splitlines()[0]
        raise DiffError(
            f"{path}: cannot be opened as a DuckDB database: {detail}. If another process (or another "
            "connection of this one) holds it open for writing, close that first."
        ) from None
