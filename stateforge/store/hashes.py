"""Content digests of tables: the fingerprint behind determinism tests and release manifests."""

from __future__ import annotations

import duckdb

from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident, table_ref


def table_hashes(con: duckdb.DuckDBPyConnection, schema: Schema) -> dict[str, str]:
    """An md5 of every table's rows in key order (primary key, else every column), by table name.

    Two databases with the same hashes hold the same rows, value for value, whatever their file bytes.
    """
    out = {}
    for t in schema.tables:
        order = ", ".join(f"t.{quote_ident(c)}" for c in (t.primary_key or t.column_names))
        rows = f"coalesce(string_agg(t::VARCHAR, '|' ORDER BY {order}), '')"
        sql = f"SELECT md5({rows}) FROM {table_ref(t.name)} t"
        out[t.name] = con.sql(sql).fetchall()[0][0]
    return out
