"""Diff two database states: two catalogs of one DuckDB connection, or two DuckDB files.

    diff = diff_files("artifacts/music/music.duckdb", "episode.duckdb")
    diff = diff_catalogs(con, "base", "episode", tables=["playlists", "playlist_songs"])
    print(diff.to_json())

Two statements find and read the changed rows of every keyed table, one more each table without a key
(`queries.py`); only those rows reach Python, where their values become canonical JSON
(`stateforge.values.json_value`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from stateforge.diff.model import Diff, DiffError, RowUpdate, TableDiff
from stateforge.diff.queries import changed_keys_sql, multiset_sql, python_orders, rows_sql
from stateforge.diff.specs import TableSpec, table_specs
from stateforge.store.sql import quote_ident, quote_literal
from stateforge.values import json_value

BASE, AFTER = "sf_diff_base", "sf_diff_after"
"""The catalog names `diff_files` attaches the two files under."""

DUCKDB_MAGIC = b"DUCK"
"""Bytes 8-11 of every DuckDB database file."""


def _keyed(
    con: duckdb.DuckDBPyConnection,
    specs: list[TableSpec],
    base: str,
    after: str,
    where: dict[str, str] | None = None,
) -> dict[str, TableDiff]:
    """The changes of every keyed table: stage 1 finds the changed rows of all of them, stage 2 reads
    those rows (both in one statement each)."""
    if not specs:
        return {}
    found: dict[int, list[tuple[int, int | None, int | None]]] = {}
    sql = changed_keys_sql(specs, base, after, where)
    for table, row_base, row_after, place in con.execute(sql).fetchall():
        found.setdefault(table, []).append((place, row_base, row_after))
    rows = _fetch(con, specs, found, base, after)
    return {
        specs[i].label: _table_diff(i, specs[i], pair_by_key(i, specs[i], places, rows), rows)
        for i, places in found.items()
    }


Rows = dict[tuple[int, bool, int], tuple[dict[str, Any], tuple]]
"""(table index, is the after side, rowid) -> (the row as canonical JSON, its key as DuckDB gave it)."""


def _fetch(
    con: duckdb.DuckDBPyConnection,
    specs: list[TableSpec],
    found: dict[int, list[tuple[int, int | None, int | None]]],
    base: str,
    after: str,
) -> Rows:
    """Every changed row stage 1 found, both sides, in one statement."""
    parts, params = [], []
    for i, places in found.items():
        for is_after, catalog, at in ((False, base, 1), (True, after, 2)):
            rowids = [p[at] for p in places if p[at] is not None]
            if rowids:
                parts.append((i, specs[i], catalog, is_after))
                params.append(rowids)
    if not parts:
        return {}
    result = con.execute(rows_sql(parts), params)
    at = {d[0]: n for n, d in enumerate(result.description)}
    columns = {i: [(c, at[f"{i}:{c}"]) for c in specs[i].column_names] for i in found}
    keys = {i: [at[f"{i}:{k}"] for k in specs[i].key or ()] for i in found}
    rows: Rows = {}
    for row in result.fetchall():
        i = row[0]
        rows[(i, row[1], row[2])] = (
            {c: json_value(row[n]) for c, n in columns[i]},
            tuple(row[n] for n in keys[i]),
        )
    return rows


def pair_by_key(
    i: int, spec: TableSpec, found: list[tuple[int | None, int | None, int | None]], rows: Rows
) -> list[tuple[int | None, int | None, int | None]]:
    """Table `i`'s stage-1 entries with each base-only row and after-only row of the same key made one
    entry (an update): a table stage 1 joined on the whole row's hash (`python_orders`) lists an update
    as both its rows. Tables joined on the key come back as they are."""
    if not python_orders(spec):
        return found
    after = {rows[(i, True, a)][1]: a for _, b, a in found if a is not None}
    out = [(place, b, after.pop(rows[(i, False, b)][1], None)) for place, b, _ in found if b is not None]
    return out + [(None, None, a) for a in after.values()]


def _table_diff(
    i: int, spec: TableSpec, found: list[tuple[int | None, int | None, int | None]], rows: Rows
) -> TableDiff:
    """Table `i`'s changes from stage 1's (place in key order, base rowid, after rowid): whole rows
    inserted and deleted, and for updated rows the columns whose values differ, in key order (DuckDB's
    place, or the key values when stage 1 left the place to Python)."""

    def order(entry: tuple[int | None, int | None, int | None]) -> Any:
        place, b, a = entry
        return place if place is not None else rows[(i, False, b) if b is not None else (i, True, a)][1]

    inserted, deleted, updated = [], [], []
    for _, b, a in sorted(found, key=order):
        if b is None:
            inserted.append(rows[(i, True, a)][0])
        elif a is None:
            deleted.append(rows[(i, False, b)][0])
        else:
            old, new = rows[(i, False, b)][0], rows[(i, True, a)][0]
            changes = {c.name: (old[c.name], new[c.name]) for c in spec.values if old[c.name] != new[c.name]}
            if changes:  # a hash that moved while no value did (-0.0 vs 0.0, say) is no change
                updated.append(RowUpdate(key={k: old[k] for k in spec.key or ()}, changes=changes))
    return TableDiff(inserted=inserted, deleted=deleted, updated=updated)


def _multiset(
    con: duckdb.DuckDBPyConnection, spec: TableSpec, base: str, after: str, where: dict[str, str] | None
) -> TableDiff:
    inserted, deleted = [], []
    for row in con.execute(multiset_sql(spec, base, after, where)).fetchall():
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
    specs: list[TableSpec] | None = None,
) -> Diff:
    """The diff from catalog `base` to catalog `after`, both attached to `con`.

    `schema` limits it to one DuckDB schema (default: every schema but `stateforge`); `tables` to some
    tables. `names` are what messages call the two sides (default: the catalog names). Times with a zone
    are written in UTC (the connection's TimeZone setting is restored afterwards). Unless both catalogs
    are read-only, the diff reads them in one transaction (the caller's, if one is open). `specs`: the
    tables as `table_specs` gave them for an earlier pair of the same tables (the episodes of one base,
    whose tools change rows, never tables), which skips reading the catalogs again.
    """
    if specs is None:
        specs, found = table_specs(con, base, after, schema=schema, tables=tables, names=names)
        readonly = found[0].readonly and found[1].readonly
    else:
        readonly = all(r for (r,) in con.execute(
            "SELECT readonly FROM duckdb_databases() WHERE database_name IN (?, ?)", [base, after]
        ).fetchall())
    zone = None
    if any("WITH TIME ZONE" in c.type for s in specs for c in s.columns):
        zone = con.execute("SELECT current_setting('TimeZone')").fetchall()[0][0]
        con.execute("SET TimeZone = 'UTC'").fetchall()
    own = not readonly and _begin(con)  # read-only: one snapshot anyway
    try:
        diff = diff_specs(con, specs, base, after)
    except BaseException:
        if own:
            con.execute("ROLLBACK").fetchall()
        raise
    else:
        if own:
            con.execute("COMMIT").fetchall()
    finally:
        if zone is not None:
            con.execute(f"SET TimeZone = {quote_literal(zone)}").fetchall()
    return diff


def diff_specs(
    con: duckdb.DuckDBPyConnection,
    specs: list[TableSpec],
    base: str,
    after: str,
    *,
    where: dict[str, str] | None = None,
) -> Diff:
    """The diff of the tables `specs` describe (`table_specs`), from catalog `base` to catalog `after`.

    The core of `diff_catalogs` for a caller that already knows the tables and keys (a grader diffing many
    episodes of one base) and takes care of the rest itself: times with a zone are read in the
    connection's TimeZone, and both stages must see one snapshot (read-only catalogs, a transaction, or
    catalogs no other connection writes). `where` limits the base side of some tables (label -> a
    predicate on their rows, e.g. on rowid) to the rows the caller knows the after side may differ in.
    """
    changed = _keyed(con, [s for s in specs if s.key], base, after, where)
    changed |= {s.label: _multiset(con, s, base, after, where) for s in specs if not s.key}
    return Diff(tables={name: changed[name] for name in sorted(changed) if not changed[name].empty})


def _begin(con: duckdb.DuckDBPyConnection) -> bool:
    """Begin a transaction, so that both stages read one snapshot; False when the caller has one open
    (then the diff reads the caller's snapshot). BEGIN inside a transaction would abort it, so ask first:
    two statements share a transaction id only inside an explicit transaction."""
    first, second = (con.execute("SELECT txid_current()").fetchall()[0][0] for _ in range(2))
    if first == second:
        return False
    con.execute("BEGIN TRANSACTION").fetchall()
    return True


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
        con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(catalog)} (READ_ONLY)").fetchall()
    except duckdb.Error as exc:
        detail: Any = str(exc).splitlines()[0]
        raise DiffError(
            f"{path}: cannot be opened as a DuckDB database: {detail}. If another process (or another "
            "connection of this one) holds it open for writing, close that first."
        ) from None
