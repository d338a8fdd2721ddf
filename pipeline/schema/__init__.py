"""DDL in five dialects -> the schema model.

    parse_ddl(text, dialect=None, source=None) -> Schema
    load_ddl(path, dialect=None) -> Schema
    detect_dialect(text) -> str

A file is split into statements (split.py), each classified by its first words (classify.py); tables,
ALTERs, unique indexes, comments, enum types and domains are parsed with sqlglot (syntax.py) into the
model (builder.py and the modules it calls); everything else is counted in `Schema.skipped`.
`pipeline.graph.schema_report` adds the fill plan (the JSON `stateforge schema` prints).
"""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import SchemaError
from pipeline.schema.builder import Builder
from pipeline.schema.dialects import DIALECTS, detect_dialect, resolve_dialect
from pipeline.schema.model import Check, Column, ForeignKey, Schema, Table
from pipeline.schema.split import split_statements

__all__ = [
    "DIALECTS",
    "Check",
    "Column",
    "ForeignKey",
    "Schema",
    "Table",
    "detect_dialect",
    "load_ddl",
    "parse_ddl",
]


def parse_ddl(text: str, dialect: str | None = None, source: str | None = None) -> Schema:
    """Parse the DDL `text` into a Schema.

    `dialect`: duckdb, postgres, mysql, sqlite or oracle (or an alias such as postgresql, pg, mariadb);
    guessed from the text when None. `source` names the file in messages. Raises SchemaError (with file,
    line, table, column and a hint) for DDL that does not define a consistent set of tables.
    """
    name = resolve_dialect(dialect) if dialect else detect_dialect(text)
    builder = Builder(name, source)
    for statement in split_statements(text, name, source):
        builder.read(statement)
    return builder.finish()


def load_ddl(path: str | Path, dialect: str | None = None) -> Schema:
    """Read and parse the DDL file at `path`; SchemaError naming the file if it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise SchemaError("no such DDL file", file=str(path), hint="Check the path.") from None
    except (OSError, UnicodeDecodeError) as err:
        raise SchemaError(
            f"cannot read the DDL file: {err}", file=str(path), hint="It must be a readable UTF-8 text file."
        ) from None
    return parse_ddl(text, dialect, source=str(path))
