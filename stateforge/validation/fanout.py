"""Fan-outs: how many children each parent row has, along every foreign key (median, p90, p99, max).

    stats = fanouts(con, schema)     # [{"table", "fk", "parent", "parents", "median", "p90", "p99", "max"}]

Parents without children count as 0, so a key that reaches few parents shows it. One query per foreign
key, a group-by over the child table and a join to the parent's keys; the build report and the HTML
report show the table so that a pack can see whether its lists are deep enough to need paging.
"""

from __future__ import annotations

from typing import Any

import duckdb

from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import table_ref


def fanout_sql(child: str, columns: tuple[str, ...], parent: str, ref_columns: tuple[str, ...]) -> str:
    """Per-parent child counts of one foreign key, summarised: parents, median, p90, p99, max."""
    keys = ", ".join(_q(c) for c in columns)
    on = " AND ".join(f"p.{_q(r)} = c.{_q(k)}" for k, r in zip(columns, ref_columns, strict=True))
    not_null = " AND ".join(f"{_q(c)} IS NOT NULL" for c in columns)
    counts = (f"SELECT coalesce(c.n, 0) AS n FROM {table_ref(parent)} AS p LEFT JOIN "
              f"(SELECT {keys}, count(*) AS n FROM {table_ref(child)} WHERE {not_null} GROUP BY {keys}) AS c "
              f"ON {on}")
    return (f"SELECT count(*), quantile_disc(n, 0.5), quantile_disc(n, 0.9), quantile_disc(n, 0.99), max(n) "
            f"FROM ({counts})")


def fanouts(con: duckdb.DuckDBPyConnection, schema: Schema) -> list[dict[str, Any]]:
    """Fan-out statistics of every foreign key of `schema` (self-references included), in DDL order."""
    out = []
    for table in schema.tables:
        for fk in table.foreign_keys:
            if not schema.has_table(fk.ref_table):
                continue
            parent = schema.table(fk.ref_table).name
            [(parents, median, p90, p99, top)] = con.execute(
                fanout_sql(table.name, fk.columns, parent, fk.ref_columns)).fetchall()
            out.append({"table": table.name, "fk": ", ".join(fk.columns), "parent": parent,
                        "parents": int(parents), "median": int(median or 0), "p90": int(p90 or 0),
                        "p99": int(p99 or 0), "max": int(top or 0)})
    return out
