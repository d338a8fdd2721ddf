"""The SQL of a diff: one query per table, all the work inside DuckDB.

Keyed table (a primary key, or a UNIQUE key of NOT NULL columns):

    WITH changed AS MATERIALIZED (                       -- the keys that differ, found by a row hash
        SELECT <key>, in_base, in_after FROM (SELECT <key>, hash(<values>) FROM base) b
        FULL JOIN (SELECT <key>, hash(<values>) FROM after) a ON <key>
        WHERE only on one side OR the hashes differ)
    SELECT in_base, in_after, b.*, a.*, b.<v> IS DISTINCT FROM a.<v> ...   -- only those rows, both sides
    FROM changed LEFT JOIN base b ON <key> LEFT JOIN after a ON <key> ORDER BY <key>

The hash only narrows the search: a row is reported as updated when some column IS DISTINCT FROM its old
value (so NULL = NULL is unchanged, and -0.0 = 0.0 as in SQL). A change hidden by a collision of the 64-bit
hash of two versions of the same row is the one thing it can miss (about 1 in 10^19 per changed row).

Multiset table (no key): rows are counted per hash on each side; only the rows whose hash has different
counts are grouped exactly (IS NOT DISTINCT FROM on every column) and reported, each as many times as its
count moved (a row present twice in base and once after is one delete).

Rows come back in the key's own type order (numbers as numbers, ENUMs in declaration order), whole rows
of a multiset table in the order of all their columns.
"""

from __future__ import annotations

from pipeline.diff.catalog import Column, TableSpec
from pipeline.store.sql import quote_ident

IN_BASE = "__sf_in_base"
IN_AFTER = "__sf_in_after"
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


def keyed_sql(spec: TableSpec, base: str, after: str) -> str:
    """The changed rows of a keyed table: flags, base columns, after columns, per-value "differs" flags."""
    assert spec.key
    keys = ", ".join(quote_ident(k) for k in spec.key)
    h = row_hash(spec.values)
    coalesced = ", ".join(
        f"coalesce(b.{quote_ident(k)}, a.{quote_ident(k)}) AS {quote_ident(k)}" for k in spec.key
    )
    first = quote_ident(spec.key[0])
    changed = (
        f"SELECT {coalesced}, b.__p IS NOT NULL AS {IN_BASE}, a.__p IS NOT NULL AS {IN_AFTER} "
        f"FROM (SELECT {keys}, {h} AS __h, true AS __p FROM {spec.ref(base)}) AS b "
        f"FULL JOIN (SELECT {keys}, {h} AS __h, true AS __p FROM {spec.ref(after)}) AS a "
        f"ON {_on(spec.key, 'b', 'a')} "
        f"WHERE b.{first} IS NULL OR a.{first} IS NULL OR b.__h <> a.__h"
    )
    both = ", ".join(f"{side}.{quote_ident(c)}" for side in "ba" for c in spec.column_names)
    differs = "".join(
        f", b.{quote_ident(c.name)} IS DISTINCT FROM a.{quote_ident(c.name)}" for c in spec.values
    )
    order = ", ".join(f"k.{quote_ident(k)}" for k in spec.key)
    return (
        f"WITH k AS MATERIALIZED ({changed}) "
        f"SELECT k.{IN_BASE}, k.{IN_AFTER}, {both}{differs} FROM k "
        f"LEFT JOIN {spec.ref(base)} AS b ON k.{IN_BASE} AND {_on(spec.key, 'b', 'k')} "
        f"LEFT JOIN {spec.ref(after)} AS a ON k.{IN_AFTER} AND {_on(spec.key, 'a', 'k')} "
        f"ORDER BY {order}"
    )


def multiset_sql(spec: TableSpec, base: str, after: str) -> str:
    """The rows of a table without a key whose count differs: the row, its count in base and after."""
    h = row_hash(list(spec.columns))
    cols = ", ".join(quote_ident(c) for c in spec.column_names)
    moved = (
        "SELECT coalesce(b.__h, a.__h) AS __h "
        f"FROM (SELECT {h} AS __h, count(*) AS __n FROM {spec.ref(base)} GROUP BY ALL) AS b "
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
        f"b AS (SELECT {cols}, count(*) AS __n FROM {spec.ref(base)} WHERE {h} IN (SELECT __h FROM m) "
        "GROUP BY ALL), "
        f"a AS (SELECT {cols}, count(*) AS __n FROM {spec.ref(after)} WHERE {h} IN (SELECT __h FROM m) "
        "GROUP BY ALL) "
        f"SELECT {picked}, coalesce(b.__n, 0) AS {COUNT_BASE}, coalesce(a.__n, 0) AS {COUNT_AFTER} "
        f"FROM b FULL JOIN a ON {same} WHERE coalesce(b.__n, 0) <> coalesce(a.__n, 0) ORDER BY {order}"
    )
