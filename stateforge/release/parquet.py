"""One Parquet file per table, byte for byte the same for the same rows.

    written = export_tables(con, schema, plan, folder)     # {table: ParquetTable}

Rows are sorted by the table's primary key (every column when it has none); the Arrow table is made one
chunk and written with a fixed row-group size, fixed compression and no varying metadata (pyarrow writes
no timestamp; its `created_by` names the pyarrow version, which the manifest records). Times with a zone
are written in UTC. Types that Parquet readers do not share (INTERVAL, UUID, ENUM, JSON, MAP, UNION, ...)
are written as text and named in the manifest; the release database is made from these files and must
give the same table hashes, so nothing is lost on the way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from stateforge.graph import FillPlan
from stateforge.schema.model import Schema, Table
from stateforge.store.create import ordered_tables
from stateforge.store.sql import quote_ident, table_ref

ROW_GROUP = 100_000
"""Rows per row group: the same boundaries every time (and a few MB per group at most here)."""
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 3
FOLDER = "data"
"""Where the Parquet files go inside the bundle (the Hugging Face convention)."""
_UNSAFE = re.compile(r"[^0-9A-Za-z_.-]+")


@dataclass(frozen=True)
class ParquetTable:
    """One written table."""

    table: str
    path: str
    """Relative to the bundle."""
    rows: int
    columns: list[str]
    cast_to_text: list[str]


def file_names(tables: list[str]) -> dict[str, str]:
    """A distinct, filesystem-safe file name per table (`data/<table>.parquet`), stable for a schema."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in tables:
        stem = _UNSAFE.sub("_", name).strip("._") or "table"
        candidate, n = stem, 1
        while candidate.lower() in used:
            n += 1
            candidate = f"{stem}_{n}"
        used.add(candidate.lower())
        out[name] = f"{FOLDER}/{candidate}.parquet"
    return out


def portable(kind: pa.DataType) -> bool:
    """Whether Parquet readers (pandas, polars, DuckDB, Hugging Face datasets) all read this Arrow type."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return portable(kind.value_type)
    if pa.types.is_struct(kind):
        return all(portable(kind.field(i).type) for i in range(kind.num_fields))
    return any(
        check(kind)
        for check in (
            pa.types.is_integer, pa.types.is_floating, pa.types.is_boolean, pa.types.is_string,
            pa.types.is_large_string, pa.types.is_binary, pa.types.is_date32, pa.types.is_timestamp,
            pa.types.is_time, pa.types.is_decimal,
        )
    ) and not isinstance(kind, pa.ExtensionType)


def table_query(con: duckdb.DuckDBPyConnection, table: Table) -> tuple[str, list[str], list[str]]:
    """(SELECT in key order, its columns, the columns cast to text) for one table."""
    probe = con.sql(f"SELECT * FROM {table_ref(table.name)} LIMIT 0").to_arrow_table().schema
    select, cast = [], []
    for field in probe:
        if portable(field.type):
            select.append(quote_ident(field.name))
        else:
            select.append(f"CAST({quote_ident(field.name)} AS VARCHAR) AS {quote_ident(field.name)}")
            cast.append(field.name)
    key = table.primary_key or [f.name for f in probe]
    order = ", ".join(f"{quote_ident(c)} NULLS FIRST" for c in key)
    sql = f"SELECT {', '.join(select)} FROM {table_ref(table.name)} ORDER BY {order}"
    return sql, [f.name for f in probe], cast


def export_tables(
    con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan, folder: Path
) -> dict[str, ParquetTable]:
    """Write every table of the connected database to `folder/data/<table>.parquet`, in fill order."""
    con.execute("SET TimeZone = 'UTC'")
    tables = ordered_tables(schema, plan)
    names = file_names([t.name for t in tables])
    out: dict[str, ParquetTable] = {}
    for table in tables:
        sql, columns, cast = table_query(con, table)
        data = con.sql(sql).to_arrow_table().combine_chunks()
        target = folder / names[table.name]
        target.parent.mkdir(parents=True, exist_ok=True)
        write_parquet(data, target)
        out[table.name] = ParquetTable(table.name, names[table.name], data.num_rows, columns, cast)
    return out


def write_parquet(data: pa.Table, path: Path) -> None:
    """Write one Arrow table to Parquet with the settings every bundle uses."""
    pq.write_table(
        data,
        path,
        row_group_size=ROW_GROUP,
        compression=COMPRESSION,
        compression_level=COMPRESSION_LEVEL,
        use_dictionary=True,
        write_statistics=True,
        version="2.6",
        data_page_version="1.0",
        store_schema=True,
    )
