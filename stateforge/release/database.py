"""The bundle's DuckDB file, byte for byte the same for the same rows.

    write_database(built, target, report=stable_build_report)

A built database is not reproducible as a file: its `stateforge.build_report` and `build_progress` hold
timings, and its tables were written in batches. So the release makes a fresh file: the schema's tables,
metadata and audit views (`create_database`), then every table's rows in fill order, sorted by key, on one
thread, its `build_meta` copied row by row, the stable build report, sequences restarted past the ids, and
one CHECKPOINT.

Measured on DuckDB 2.0.1: written so, two files of the same rows differ only in the main header (the
first 4 KiB block): 16 bytes at offset 124 are a random identifier DuckDB draws for every new file, and
the header's checksum (its first 8 bytes) covers them. Nothing else in the file refers to the identifier
(a WAL would, and a checkpointed file has none), so `fix_identifier` replaces it with 16 bytes of the
sha256 of the rest of the file and writes the checksum again; it first checks that its checksum
reproduces DuckDB's on the header as written, and refuses (`ReleaseError`) a file whose layout it does
not know. The file then opens as before, with the same table hashes (checked), and two releases of the
same inputs are equal byte for byte (tests/release). `build_progress` (what a `--resume` needs) is left
out: a released database is finished.
"""

from __future__ import annotations

import hashlib
import struct
from pathlib import Path
from typing import Any

import duckdb

from stateforge.graph import FillPlan
from stateforge.release.files import ReleaseError
from stateforge.schema.model import Schema
from stateforge.store import table_hashes
from stateforge.store.build_meta import read_build_meta, write_build_meta
from stateforge.store.create import create_database, ordered_tables, reset_sequences
from stateforge.store.sql import column_list, quote_ident, quote_literal, table_ref
from stateforge.validation.views import install_views
from stateforge.values import dumps

HEADER = 4096
"""The main header block: a checksum (8 bytes), then `DUCK`, the storage version, flags and names."""
IDENTIFIER = slice(124, 140)
"""Where DuckDB 2.0 keeps the file's random identifier inside the main header."""
_MAGIC = b"DUCK"
_MASK = (1 << 64) - 1
SOURCE = "built"
"""The catalog the built database is attached as while its rows are copied."""


def storage_version(path: Path) -> str:
    """The DuckDB storage format of a file (e.g. `v1.4.0+`), as DuckDB reports it."""
    with duckdb.connect(":memory:") as con:
        con.execute(f"ATTACH {quote_literal(str(path))} AS probe (READ_ONLY)")
        rows = con.execute(
            "SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = 'probe'"
        ).fetchall()
        con.execute("DETACH probe")
    return str(rows[0][0]) if rows and rows[0][0] is not None else duckdb.__version__


def write_database(
    built: Path, schema: Schema, plan: FillPlan, target: Path, *, report: dict[str, Any]
) -> dict[str, str]:
    """Write the release's database at `target` from the built file `built`; return its table hashes.

    `report` is the (stable) build report stored as `stateforge.build_report`. Raises `ReleaseError`
    when the copy's table hashes differ from the built file's (nothing may be lost on the way).
    """
    create_database(schema, plan, target, setup=install_views)
    with duckdb.connect(str(target), config={"threads": 1}) as con:
        con.execute(f"ATTACH {quote_literal(str(built))} AS {SOURCE} (READ_ONLY)")
        con.execute("USE main")
        con.begin()
        for table in ordered_tables(schema, plan):
            stored = [c.name for c in table.columns if c.generated is None]
            key = table.primary_key or stored
            order = ", ".join(f"{quote_ident(c)} NULLS FIRST" for c in key)
            cols = column_list(stored)
            con.execute(
                f"INSERT INTO {table_ref(table)} ({cols}) "
                f"SELECT {cols} FROM {quote_ident(SOURCE)}.{table_ref(table)} ORDER BY {order}"
            )
        meta = _source_meta(con)
        write_build_meta(con, dict(sorted(meta.items())))
        con.execute("CREATE TABLE stateforge.build_report AS SELECT ?::JSON AS report", [dumps(report)])
        reset_sequences(con, schema)
        con.commit()
        expected = _source_hashes(con, schema)
        con.execute(f"DETACH {SOURCE}")
        con.execute("CHECKPOINT")
    fix_identifier(target)
    with duckdb.connect(str(target), read_only=True) as con:
        got = table_hashes(con, schema)
    lost = sorted(t for t in expected if expected[t] != got.get(t))
    if lost:
        raise ReleaseError(
            f"{target}: the release copy of table(s) {', '.join(lost)} differs from {built}; this is a bug "
            "in Stateforge (a type the copy does not keep): report it with the DDL."
        )
    return got


def _source_meta(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    cursor = con.cursor()
    cursor.execute(f"USE {SOURCE}")
    meta = read_build_meta(cursor)
    cursor.close()
    return meta


def _source_hashes(con: duckdb.DuckDBPyConnection, schema: Schema) -> dict[str, str]:
    cursor = con.cursor()
    cursor.execute(f"USE {SOURCE}")
    hashes = table_hashes(cursor, schema)
    cursor.close()
    return hashes


def header_checksum(block: bytes) -> int:
    """DuckDB's checksum of a header block's body (every 8 bytes after the first, little-endian): the
    xor of each word times 0xbf58476d1ce4e5b9, starting from 5381."""
    result = 5381
    for (word,) in struct.iter_unpack("<Q", block[8:]):
        result ^= (word * 0xBF58476D1CE4E5B9) & _MASK
    return result


def fix_identifier(path: Path) -> None:
    """Replace the random identifier in the main header of the DuckDB file at `path` by one derived from
    the rest of the file, and write the header's checksum again (see the module docstring)."""
    with path.open("r+b") as fh:
        header = bytearray(fh.read(HEADER))
        if len(header) < HEADER or header[8:12] != _MAGIC:
            raise ReleaseError(f"{path}: not a DuckDB file with the header this release knows.")
        if struct.unpack_from("<Q", header)[0] != header_checksum(bytes(header)):
            raise ReleaseError(
                f"{path}: DuckDB {duckdb.__version__} writes a main header this release cannot checksum, "
                "so the database file cannot be made reproducible. Pin the DuckDB version Stateforge "
                "is tested with (pyproject.toml)."
            )
        digest = hashlib.sha256()
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
        header[IDENTIFIER] = digest.digest()[: IDENTIFIER.stop - IDENTIFIER.start]
        struct.pack_into("<Q", header, 0, header_checksum(bytes(header)))
        fh.seek(0)
        fh.write(header)
