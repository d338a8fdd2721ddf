"""The batch checks DuckDB makes again on INSERT: what a writer that can redo a refused batch may skip.

    enforced = enforced_constraints(con, table)          # from the file's catalog
    light = validate_batch(con, table, batch, enforced=enforced)

DuckDB refuses an INSERT that breaks a PRIMARY KEY, UNIQUE, NOT NULL or CHECK declared on the table
(`stateforge.validation.declared` reads which are declared in the file). The batch checks look for the same
violations before the INSERT only to know which rows to repair. A writer that, when DuckDB refuses a
batch, starts the table again with every check (the fill engine, `stateforge.fill.engine`) can leave
these to DuckDB: foreign keys, VARCHAR(n) lengths, allowed values, types and decimal ranges are still
checked before the INSERT, and a batch that fails any of them is checked in full before it is repaired,
so the rows written are the ones a fill with every check writes.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from stateforge.constraints import table_constraints
from stateforge.schema.model import Table
from stateforge.validation.declared import declared, declared_constraints


@dataclass(frozen=True)
class Enforced:
    """The constraints of one table that DuckDB enforces on every INSERT into it."""

    keys: frozenset[tuple[str, ...]] = frozenset()
    """Unique keys (sorted lower-case columns): duplicates in a batch or against stored rows."""
    not_null: frozenset[str] = frozenset()
    """NOT NULL columns (lower case)."""
    checks: frozenset[str] = frozenset()
    """CHECK constraints, by their SQL as the model holds it."""

    def key(self, columns: tuple[str, ...] | list[str]) -> bool:
        """Whether DuckDB refuses a repeat of the unique key over `columns`."""
        return tuple(sorted(c.lower() for c in columns)) in self.keys


def enforced_constraints(con: duckdb.DuckDBPyConnection, table: Table) -> Enforced:
    """What DuckDB enforces on `table` in the file behind `con`, read from its catalog (a constraint the
    catalog does not show, such as a UNIQUE index, is not in it: the batch checks keep checking it)."""
    catalog = declared_constraints(con)
    tc = table_constraints(table)
    keys = frozenset(
        tuple(sorted(c.lower() for c in k.columns)) for k in tc.unique_keys
        if declared(table.name, "PRIMARY KEY" if k.primary else "UNIQUE", k.columns) in catalog
    )
    not_null = frozenset(c.name.lower() for c in tc.columns
                         if not c.nullable and declared(table.name, "NOT NULL", (c.name,)) in catalog)
    checks = frozenset(c.sql for c in tc.checks if declared(table.name, "CHECK", check_sql=c.sql) in catalog)
    return Enforced(keys, not_null, checks)
