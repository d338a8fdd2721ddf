"""The SQL of a diff: one query per table, all the work inside DuckDB.

Keyed tables (a primary key, or a UNIQUE key of NOT NULL columns), in two stages:

    SELECT <table>, b.rowid, a.rowid, row_number() OVER (ORDER BY <key>)   -- 1. the keys that differ,
    FROM (SELECT <key>, hash(<values>), rowid FROM base) b                 --    found by a row hash
    FULL JOIN (SELECT <key>, hash(<values>), rowid FROM after) a ON <key>
    WHERE only on one side OR the hashes differ
    UNION ALL ...                                        --    every keyed table in one statement

    SELECT rowid, * FROM base WHERE rowid = ANY([...])   -- 2. only those rows, for the tables that
    UNION ALL BY NAME                                    --    changed, each side that has some, in
    SELECT rowid, * FROM after WHERE rowid = ANY([...])  --    one statement
    UNION ALL BY NAME ...

Stage 1 does what the reference formulation does (`keyed_counts_sql`), for all tables at once; most
tables of an episode have no change, and stage 2 reads none of their rows. Where Python can order the
key, stage 1 joins on a hash of the whole row instead of on the key (`changed_keys_sql`): an update then
comes as its old and its new row, paired by key in Python. Stage 2 fetches rows by rowid
(a semi-join DuckDB pushes into the scan), and they are put in the key's order. Both stages
run in one snapshot (read-only catalogs, or one transaction), so the rowids stay valid between them.

Multiset table (no key): rows are counted per hash on each side; only the rows whose hash has different
counts are grouped exactly (IS NOT DISTINCT FROM on every column) and reported, each as many times as its
count moved (a row present twice in base and once after is one delete).

Rows come back in the key's own type order (numbers as numbers, ENUMs in declaration order), whole rows
of a multiset table in the order of all their columns.
"""

from __future__ import annotations

import re

from stateforge.diff.catalog import Column
from stateforge.diff.specs import TableSpec
from stateforge.store.sql import quote_ident

TABLE = "__sf_table"
ROW_BASE = "__sf_row_base"
ROW_AFTER = "__sf_row_after"
PLACE = "__sf_place"
IS_AFTER = "__sf_is_after"
ROWID = "__sf_rowid"
COUNT_BASE = "__sf_n_base"
COUNT_AFTER = "__sf_n_after"


def _hashed(column: Column, alias: str | None = None) -> str:
    """A column as it enters the row hash: ENUMs by their label (their stored index depends on the type)."""
    ref = (f"{alias}." if alias else "") + quote_ident(column.name)
    return f"CAST({ref} AS VARCHAR)" if column.type.startswith("ENUM(") else ref


def row_hash(columns: list[Column], alias: str | None = None) -> str:
    """`hash(a, b, ...)` over `columns`; a constant when there are none."""
    if not columns:
        return "0::UBIGINT"
    return "hash(" + ", ".join(_hashed(c, alias) for c in columns) + ")"


def _base_rows(spec: TableSpec, where: dict[str, str] | None, joiner: str = "WHERE") -> str:
    """` WHERE (<predicate>)` (or ` AND (...)`) limiting the base side of `spec`'s table, or nothing."""
    found = (where or {}).get(spec.label)
    return f" {joiner} ({found})" if found is not None else ""


def _on(key: tuple[str, ...], left: str, right: str) -> str:
    return " AND ".join(f"{left}.{quote_ident(k)} = {right}.{quote_ident(k)}" for k in key)


def keyed_counts_sql(spec: TableSpec, base: str, after: str) -> str:
    """The reference formulation, counts only: rows inserted, deleted and (by hash) updated.

    What `bench/diff.py` measures the diff against; the diff's own query finds the same keys.
    """
    assert spec.key
    keys = ", ".join(quote_ident(k) for k in spec.key)
    first = quote_ident(spec.key[0])
    h = row_hash(spec.values)
    return (
        f"SELECT count(*) FILTER (WHERE b.{first} IS NULL), count(*) FILTER (WHERE a.{first} IS NULL), "
        "count(*) FILTER (WHERE b.__h <> a.__h) "
        f"FROM (SELECT {keys}, {h} AS __h FROM {spec.ref(base)}) AS b "
        f"FULL JOIN (SELECT {keys}, {h} AS __h FROM {spec.ref(after)}) AS a ON {_on(spec.key, 'b', 'a')}"
    )


def changed_keys_sql(
    specs: list[TableSpec], base: str, after: str, where: dict[str, str] | None = None
) -> str:
    """Stage 1, every keyed table in one statement: (table index, base rowid, after rowid, place in key
    order) of the rows that changed.

    A table whose key Python orders as DuckDB does (`python_orders`) is joined on the hash of its whole
    row (key included): a row found on one side only is in the diff, with the other rowid NULL, and an
    updated row comes as two such rows, its old and its new one, which Python pairs by key once stage 2 has
    read them (`pair_by_key`); it puts them in order from their key values, so the place is NULL. One
    64-bit join column instead of the key's columns plus a hash makes this the cheapest pass (0.93x the
    CPU of the reference on the music pack). Other tables are joined on the key, a row whose hash differs
    is one row with both rowids, and DuckDB numbers them in key order.

    `where`: a predicate per table label limiting the base side to some of its rows (`_base_rows`)."""
    branches = []
    for i, spec in enumerate(specs):
        assert spec.key
        cut = _base_rows(spec, where)
        if python_orders(spec):
            h = row_hash(list(spec.columns))
            branches.append(
                f"SELECT {i} AS {TABLE}, b.__r AS {ROW_BASE}, a.__r AS {ROW_AFTER}, NULL::BIGINT AS {PLACE} "
                f"FROM (SELECT {h} AS __h, rowid AS __r FROM {spec.ref(base)}{cut}) AS b "
                f"FULL JOIN (SELECT {h} AS __h, rowid AS __r FROM {spec.ref(after)}) AS a ON b.__h = a.__h "
                "WHERE b.__h IS NULL OR a.__h IS NULL"
            )
            continue
        keys = ", ".join(quote_ident(k) for k in spec.key)
        h = row_hash(spec.values)
        first = quote_ident(spec.key[0])
        order = ", ".join(f"coalesce(b.{quote_ident(k)}, a.{quote_ident(k)})" for k in spec.key)
        branches.append(
            f"SELECT {i} AS {TABLE}, b.__r AS {ROW_BASE}, a.__r AS {ROW_AFTER}, "
            f"row_number() OVER (ORDER BY {order}) AS {PLACE} "
            f"FROM (SELECT {keys}, {h} AS __h, rowid AS __r FROM {spec.ref(base)}{cut}) AS b "
            f"FULL JOIN (SELECT {keys}, {h} AS __h, rowid AS __r FROM {spec.ref(after)}) AS a "
            f"ON {_on(spec.key, 'b', 'a')} "
            f"WHERE b.{first} IS NULL OR a.{first} IS NULL OR b.__h <> a.__h"
        )
    return " UNION ALL ".join(branches)


PYTHON_ORDERED = re.compile(
    r"(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|VARCHAR|DATE"
    r"|TIMESTAMP|TIMESTAMP WITH TIME ZONE|TIME|BOOLEAN|UUID|BLOB|DECIMAL\(\d+,\d+\))"
)
"""Key types whose Python values sort as DuckDB sorts them (text: code points = UTF-8 bytes; UUID: by
value). Others (ENUM in declaration order, floats with NaN, nested types, ...) are placed by DuckDB."""


def python_orders(spec: TableSpec) -> bool:
    """Whether Python can put rows of `spec` in key order from the key values alone."""
    types = {c.name: c.type for c in spec.columns}
    return all(PYTHON_ORDERED.fullmatch(types[k]) for k in spec.key or ())


def rows_sql(parts: list[tuple[int, TableSpec, str, bool]]) -> str:
    """Stage 2, in one statement: for each (table index, table, catalog, is the after side), the rows at
    the rowids of the next parameter (`$1`, `$2`, ...). Columns are named `<index>:<column>`, so that
    tables of different shapes share one result (UNION ALL BY NAME; a row's other columns are NULL)."""
    branches = []
    for n, (i, spec, catalog, is_after) in enumerate(parts, start=1):
        cols = ", ".join(f"{quote_ident(c)} AS {quote_ident(f'{i}:{c}')}" for c in spec.column_names)
        branches.append(
            f"SELECT {i} AS {TABLE}, {str(is_after).lower()} AS {IS_AFTER}, rowid AS {ROWID}, {cols} "
            f"FROM {spec.ref(catalog)} WHERE rowid = ANY(${n}::BIGINT[])"
        )
    return " UNION ALL BY NAME ".join(branches)


def multiset_sql(spec: TableSpec, base: str, after: str, where: dict[str, str] | None = None) -> str:
    """The rows of a table without a key whose count differs: the row, its count in base and after
    (`where`: as for `changed_keys_sql`)."""
    cut = _base_rows(spec, where)
    h = row_hash(list(spec.columns))
    cols = ", ".join(quote_ident(c) for c in spec.column_names)
    moved = (
        "SELECT coalesce(b.__h, a.__h) AS __h "
        f"FROM (SELECT {h} AS __h, count(*) AS __n FROM {spec.ref(base)}{cut} GROUP BY ALL) AS b "
        f"FULL JOIN (SELECT {h} AS __h, count(*) AS __n FROM {spec.ref(after)} GROUP BY ALL) AS a "
        "ON b.__h = a.__h WHERE b.__n IS DISTINCT FROM a.__n"
    )
    same = " AND ".join(
        f"b.{quote_ident(c)} IS NOT DISTINCT FROM a.{quote_ident(c)}" for c in spec.column_names
    )
    picked = ", ".join(
        f"CASE WHEN b.__n IS NULL THEN a.{quote_ident(c)} ELSE b.{quote_ident(c)} END AS {quote_ident(c)}"
        for c in spec.column_names
    )
    order = ", ".join(f"{i + 1} NULLS FIRST" for i in range(len(spec.columns)))
    return (
        f"WITH m AS MATERIALIZED ({moved}), "
        f"b AS (SELECT {cols}, count(*) AS __n FROM {spec.ref(base)} WHERE {h} IN (SELECT __h FROM m)"
        f"{_base_rows(spec, where, 'AND')} "
        "GROUP BY ALL), "
        f"a AS (SELECT {cols}, count(*) AS __n FROM {spec.ref(after)} WHERE {h} IN (SELECT __h FROM m) "
        "GROUP BY ALL) "
        f"SELECT {picked}, coalesce(b.__n, 0) AS {COUNT_BASE}, coalesce(a.__n, 0) AS {COUNT_AFTER} "
        f"FROM b FULL JOIN a ON {same} WHERE coalesce(b.__n, 0) <> coalesce(a.__n, 0) ORDER BY {order}"
    )
