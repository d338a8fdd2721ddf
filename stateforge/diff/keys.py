"""Which columns identify a row of a table, for diffing and for comparing diffs.

One rule, used by the diff (over a database's model or DuckDB's catalog) and by `compare` (over the schema
model), so both sides of a comparison agree on what a row's key is:

    the primary key; else the first UNIQUE key whose columns are all NOT NULL; else no key (the table is
    compared as a multiset of whole rows).

A UNIQUE key with a nullable column cannot identify rows: SQL lets any number of rows hold NULL there.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from stateforge.schema.model import Table
from stateforge.schema.types import INTEGER_TYPES


def choose_key(
    primary_key: Sequence[str], unique: Iterable[Sequence[str]], not_null: Iterable[str]
) -> tuple[str, ...] | None:
    """The key rule on names: `primary_key`, else the first UNIQUE key inside `not_null`, else None."""
    if primary_key:
        return tuple(primary_key)
    required = {c.lower() for c in not_null}
    for key in unique:
        if key and all(c.lower() in required for c in key):
            return tuple(key)
    return None


def table_key(table: Table) -> tuple[str, ...] | None:
    """The columns that identify a row of `table` in the model, or None for a multiset table."""
    not_null = [c.name for c in table.columns if not c.nullable]
    return choose_key(table.primary_key, table.unique, not_null)


def surrogate_columns(table: Table) -> frozenset[str]:
    """Columns whose values an episode allocates (identity columns, a single-column integer primary key).

    Rows inserted during an episode are paired by content, not by these values: an agent that inserts the
    same rows in another order gets other ids and must still pass. A primary key that is also a foreign
    key (a one-to-one extension of another table) is not allocated: it names its parent row.
    """
    in_fk = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    names = {c.name for c in table.columns if c.identity and c.name.lower() not in in_fk}
    if len(table.primary_key) == 1 and table.primary_key[0].lower() not in in_fk:
        column = table.column(table.primary_key[0])
        if column.base_type in INTEGER_TYPES:
            names.add(column.name)
    return frozenset(names)
