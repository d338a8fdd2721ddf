"""The constraints DuckDB itself enforces in a file: what the build's audit need not query again.

    enforced = declared_constraints(con)           # {(table, "UNIQUE", ("email",), None), ...}
    query.declared in enforced                     # DuckDB refused every violating insert and update

A PRIMARY KEY, UNIQUE, NOT NULL or CHECK that the file's catalog (`duckdb_constraints()`) declares on a
table was enforced by DuckDB on every row written into that table since it was created (constraints
cannot be added to a DuckDB table afterwards), so its table cannot hold a violation. Read from the file
itself, not from the model: a table made without constraints, a CHECK left out of the database, or one
whose SQL DuckDB stores in another form (not matched below) is simply not in the set, and the audit
queries it. Foreign keys, VARCHAR(n) lengths and the domain's rules are never declared to DuckDB.
"""

from __future__ import annotations

from functools import lru_cache

import duckdb
import sqlglot
from sqlglot import exp

from stateforge.schema.model import qualified
from stateforge.store.sql import METADATA_SCHEMA

Declared = tuple[str, str, tuple[str, ...], str | None]
"""(table, constraint type, sorted lower-case columns (keys, NOT NULL) or (), the normalised CHECK or
None)."""


def declared(table: str, kind: str, columns: tuple[str, ...] = (), check_sql: str | None = None) -> Declared:
    """The catalog entry that would enforce a constraint: `kind` is PRIMARY KEY, UNIQUE, NOT NULL or CHECK."""
    cols = tuple(sorted(c.lower() for c in columns)) if kind != "CHECK" else ()
    return (table.lower(), kind, cols, normalise(check_sql) if check_sql is not None else None)


def declared_constraints(con: duckdb.DuckDBPyConnection) -> set[Declared]:
    """Every PRIMARY KEY, UNIQUE, NOT NULL and CHECK declared on the tables of the file behind `con`."""
    rows = con.sql(
        "SELECT schema_name, table_name, constraint_type, constraint_column_names, expression "
        "FROM duckdb_constraints() WHERE database_name = current_database() "
        f"AND schema_name <> '{METADATA_SCHEMA}' "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE', 'NOT NULL', 'CHECK')"
    ).fetchall()
    return {declared(qualified(ns, name), kind, tuple(cols or ()), sql if kind == "CHECK" else None)
            for ns, name, kind, cols, sql in rows}


@lru_cache(maxsize=4096)
def normalise(sql: str) -> str | None:
    """A CHECK's expression as the structure of its syntax tree, the same however it is spelled
    (parentheses, case, quoting of identifiers, `!=` or `<>`), or None when it does not parse (then it
    matches nothing, and the audit queries it). The tree, not SQL text: without its parentheses the
    text of `(a OR b) AND c` would read like `a OR (b AND c)`, their trees never do. Cached: the fill
    reads the catalog once per table, and the same CHECKs come back each time."""
    try:
        tree = sqlglot.parse_one(sql, dialect="duckdb")
    except sqlglot.errors.SqlglotError:
        return None

    while isinstance(tree, exp.Paren):
        tree = tree.this
    for paren in list(tree.find_all(exp.Paren)):
        paren.replace(paren.this)
    for ident in tree.find_all(exp.Identifier):  # DuckDB's identifiers ignore case, quoted or not
        ident.set("this", ident.name.lower())
        ident.set("quoted", False)
    return repr(tree)
