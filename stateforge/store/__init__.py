"""The DuckDB store: one file per built domain, with the model and the audit inside it.

    path = create_database(schema, plan, "artifacts/music/music.duckdb")
    con = connect(path)
    schema, plan = read_model(con)

Tables carry their PRIMARY KEY, UNIQUE, NOT NULL, CHECK and defaults; foreign keys are kept in the
`stateforge` metadata tables and audited, not declared (DESIGN.md, decision 1). The audit and its views
inside the file belong to `validation` (`stateforge.validation.install_views`), which sits above the store.
"""

from __future__ import annotations

from stateforge.store.create import (
    create_database,
    create_tables,
    reset_sequences,
    rewrite_table,
    table_ddl,
)
from stateforge.store.hashes import table_hashes
from stateforge.store.metadata import (
    FORMAT_VERSION,
    METADATA_TABLES,
    connect,
    is_stateforge,
    plan_from_dict,
    read_model,
    write_metadata,
)
from stateforge.store.sql import METADATA_SCHEMA, quote_ident, sequence_name, table_ref

__all__ = [
    "FORMAT_VERSION",
    "METADATA_SCHEMA",
    "METADATA_TABLES",
    "connect",
    "create_database",
    "create_tables",
    "is_stateforge",
    "plan_from_dict",
    "quote_ident",
    "read_model",
    "reset_sequences",
    "rewrite_table",
    "sequence_name",
    "table_hashes",
    "table_ddl",
    "table_ref",
    "write_metadata",
]
