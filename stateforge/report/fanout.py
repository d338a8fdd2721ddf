"""Foreign-key fan-out: how many child rows each parent row has, over every parent, in one query a key.

    fanout(con, songs_table, fk_to_albums, orphans=0)   # FanOut: distribution, max, median, childless

Children are grouped by their key, then every parent row is left-joined to its group: parents without
children count as 0, so the distribution covers the whole parent table. Always exact (a group-by and a
join: tens of milliseconds for 1M children).
"""

from __future__ import annotations

import duckdb

from stateforge.report.model import FanOut
from stateforge.schema.model import ForeignKey, Table
from stateforge.store.sql import fk_casts, quote_ident, read_as, table_ref


def fanout(con: duckdb.DuckDBPyConnection, table: Table, fk: ForeignKey, *, orphans: int = 0,
           parent: Table | None = None) -> FanOut:
    """The fan-out of `fk` (a foreign key of `table`); `orphans` comes from the audit. With the `parent`
    table, a column of another type than its key is read as the key's type (`key_cast`)."""
    cols = [quote_ident(c) for c in fk.columns]
    refs = [quote_ident(c) for c in fk.ref_columns]
    casts = fk_casts(table, fk, parent) if parent is not None else (None,) * len(cols)
    set_ = " AND ".join(f"{c} IS NOT NULL" for c in cols)
    keys = ", ".join(f"{read_as(c, casts[i])} AS k{i}" for i, c in enumerate(cols))
    on = " AND ".join(f"p.{r} = g.k{i}" for i, r in enumerate(refs))
    found = con.execute(
        f"WITH g AS (SELECT {keys}, count(*) AS n FROM {table_ref(table.name)} WHERE {set_} GROUP BY ALL) "
        f"SELECT coalesce(g.n, 0) AS children, count(*) AS parents "
        f"FROM {table_ref(fk.ref_table)} AS p LEFT JOIN g ON {on} GROUP BY 1 ORDER BY 1"
    ).fetchall()
    [(nulls,)] = con.execute(
        f"SELECT count(*) FILTER (WHERE NOT ({set_})) FROM {table_ref(table.name)}"
    ).fetchall()
    distribution = [(int(k), int(n)) for k, n in found]
    parents = sum(n for _, n in distribution)
    return FanOut(
        table=table.name, columns=tuple(fk.columns), parent=fk.ref_table, ref_columns=tuple(fk.ref_columns),
        parents=parents, children=sum(k * n for k, n in distribution) + orphans, null_keys=int(nulls),
        orphans=orphans, childless=dict(distribution).get(0, 0),
        max=max((k for k, _ in distribution), default=0), median=_median(distribution, parents),
        distribution=distribution,
    )


def _median(distribution: list[tuple[int, int]], total: int) -> float:
    """The median of a distribution given as ascending (value, count) pairs."""
    if total == 0:
        return 0.0
    lower, upper, seen = (total - 1) // 2, total // 2, 0
    low = high = None
    for value, count in distribution:
        if low is None and seen + count > lower:
            low = value
        if seen + count > upper:
            high = value
            break
        seen += count
    return (float(low) + float(high)) / 2 if low is not None and high is not None else 0.0
