"""DDL in six dialects (duckdb, postgres, mysql, sqlite, oracle, tsql) -> the schema model.

    parse_ddl(text, dialect=None, source=None, drop_missing_references=False, skip_missing_includes=False,
              ignore_seed_inserts=False) -> Schema
    load_ddl(path, dialect=None, ...same options) -> Schema
    detect_dialect(text) -> str

A file is split into statements (split.py; T-SQL batches and CREATE SCHEMA elements by batches.py),
include commands are followed (includes.py), each statement is classified by its first words
(classify.py); tables, ALTERs, unique indexes, comments, types, domains and partitions are parsed with
sqlglot (syntax.py) into the model (builder.py and the modules it calls); everything else is counted in
`Schema.skipped`. At the end, foreign keys are resolved and every default, CHECK and generated column is
tried against DuckDB (enforce.py). What was approximated or left out is in `Schema.notes`, with its
file and line. `stateforge.graph.schema_report` adds the fill plan (the JSON `stateforge schema` prints).
"""

from __future__ import annotations

from pathlib import Path

from stateforge.errors import SchemaError
from stateforge.schema.builder import Builder
from stateforge.schema.dialects import DIALECTS, detect_dialect, resolve_dialect
from stateforge.schema.includes import read_statements
from stateforge.schema.model import Check, Column, ForeignKey, Note, Schema, Table, Unenforced
from stateforge.schema.syntax import warn_once_from_now

__all__ = [
    "DIALECTS",
    "Check",
    "Column",
    "ForeignKey",
    "Note",
    "Schema",
    "Table",
    "Unenforced",
    "detect_dialect",
    "load_ddl",
    "parse_ddl",
]


def parse_ddl(
    text: str,
    dialect: str | None = None,
    source: str | None = None,
    *,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> Schema:
    """Parse the DDL `text` into a Schema.

    `dialect`: duckdb, postgres, mysql, sqlite, oracle or tsql (or an alias such as postgresql, pg, mariadb,
    mssql, sqlserver); guessed from the text when None. `source` names the file in messages and anchors
    included files. `drop_missing_references` drops (with a note) foreign keys to tables the DDL does
    not define, instead of failing. `skip_missing_includes` goes on past an include command whose file
    is missing (a note at its line) instead of failing. `ignore_seed_inserts` leaves the DDL's
    `INSERT ... VALUES` rows out (they are seeds of their tables otherwise: `Table.seeds`). Raises
    SchemaError (with file, line, table, column and a hint) for DDL that does not define a consistent set
    of tables.
    """
    name = resolve_dialect(dialect) if dialect else detect_dialect(text)
    warn_once_from_now()
    builder = Builder(name, source, drop_missing_references=drop_missing_references,
                      ignore_seed_inserts=ignore_seed_inserts)
    notes = builder.ctx.schema.notes
    skip = notes.append if skip_missing_includes else None  # a note per missing include, in file order
    for statement in read_statements(text, name, source, skip_missing=skip):
        builder.read(statement)
    return builder.finish()


def load_ddl(
    path: str | Path,
    dialect: str | None = None,
    *,
    drop_missing_references: bool = False,
    skip_missing_includes: bool = False,
    ignore_seed_inserts: bool = False,
) -> Schema:
    """Read and parse the DDL file at `path` (see `parse_ddl`); SchemaError naming the file if it cannot be
    read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SchemaError("no such DDL file", file=str(path), hint="Check the path.") from None
    except (OSError, UnicodeDecodeError) as err:
        raise SchemaError(
            f"cannot read the DDL file: {err}", file=str(path), hint="It must be a readable UTF-8 text file."
        ) from None
    return parse_ddl(text, dialect, source=str(path), drop_missing_references=drop_missing_references,
                     skip_missing_includes=skip_missing_includes, ignore_seed_inserts=ignore_seed_inserts)
