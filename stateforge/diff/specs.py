"""What to diff: the user tables both catalogs have, with the same columns, and the key of each.

Tables are every base table outside the `stateforge` metadata schema (views are not data). A table in
DuckDB's `main` schema is named by its name alone, one in another schema as `schema.table`: the model's
table identity (`stateforge.schema.model.qualified`). A table on one
side only, or with other columns or types, is an error that names it: rows of different shapes have no
meaningful diff.
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from stateforge.diff.catalog import Catalog, Column, TableName, catalog_keys, read_catalogs, stored_model
from stateforge.diff.keys import table_key
from stateforge.diff.model import DiffError
from stateforge.schema.model import Schema, qualified, suggest
from stateforge.store.sql import quote_ident


@dataclass(frozen=True)
class TableSpec:
    """One table to diff, as both catalogs have it."""

    schema: str
    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] | None
    """The key columns (catalog spelling), or None: compared as a multiset of whole rows."""

    @property
    def label(self) -> str:
        """The table's name in a diff: `songs`, or `audit.events` outside `main` (the model's identity)."""
        return qualified(self.schema, self.name)

    def ref(self, catalog: str) -> str:
        """`"catalog"."schema"."table"`."""
        return ".".join(quote_ident(p) for p in (catalog, self.schema, self.name))

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def values(self) -> list[Column]:
        """The columns outside the key (all of them for a multiset table)."""
        key = {k.lower() for k in self.key or ()}
        return [c for c in self.columns if c.name.lower() not in key]


def _label(table: TableName) -> str:
    return qualified(*table)


def _mismatch(label: str, base: list[Column], after: list[Column], base_name: str, after_name: str) -> str:
    old = {c.name: c.type for c in base}
    new = {c.name: c.type for c in after}
    parts = []
    if gone := [c for c in old if c not in new]:
        parts.append(f"columns only in {base_name}: {', '.join(gone)}")
    if added := [c for c in new if c not in old]:
        parts.append(f"columns only in {after_name}: {', '.join(added)}")
    for c in old:
        if c in new and old[c] != new[c]:
            parts.append(f"column {c} is {old[c]} in {base_name} but {new[c]} in {after_name}")
    return f"table {label}: " + "; ".join(parts)


def _check_same(old: dict, new: dict, base_name: str, after_name: str) -> None:
    problems = []
    for side, keys in ((base_name, old.keys() - new.keys()), (after_name, new.keys() - old.keys())):
        if keys:
            names = sorted(_label(k) for k in keys)
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            verb = "exists" if len(names) == 1 else "exist"
            problems.append(f"{'table' if len(names) == 1 else 'tables'} {shown} {verb} only in {side}")
    for key in sorted(old.keys() & new.keys()):
        if sorted((c.name, c.type) for c in old[key]) != sorted((c.name, c.type) for c in new[key]):
            problems.append(_mismatch(_label(key), old[key], new[key], base_name, after_name))
    if problems:
        raise DiffError(
            "the two databases do not have the same tables and columns, so their rows cannot be compared: "
            + "; ".join(problems)
            + ". Diff two states of one database (the same DDL), or limit the diff with --table."
        )


def _model_key(model: Schema | None, table: TableName, columns: list[Column]) -> tuple[str, ...] | None:
    """The key the model gives, in the catalog's spelling; None when the model does not know the table."""
    if model is None or not model.has_table(_label(table)):
        return None
    key = table_key(model.table(_label(table)))
    names = {c.name.lower(): c.name for c in columns}
    if key is None or not all(k.lower() in names for k in key):
        return None
    return tuple(names[k.lower()] for k in key)


def table_specs(
    con: duckdb.DuckDBPyConnection,
    base: str,
    after: str,
    *,
    schema: str | None = None,
    tables: list[str] | None = None,
    names: tuple[str, str] | None = None,
) -> tuple[list[TableSpec], tuple[Catalog, Catalog]]:
    """The tables to diff between catalogs `base` and `after`, sorted by their diff name, and the catalogs.

    `schema` limits the diff to one DuckDB schema; `tables` to some tables (names as the diff spells them,
    case-insensitive). `names` are how messages call the two sides (file paths; default: catalog names).
    `DiffError` when a catalog is not attached, or a table exists on one side only or its columns differ,
    naming the table and columns.
    """
    base_name, after_name = names = names or (base, after)
    found = read_catalogs(con, base, after, schema, names)
    old, new = found[0].tables, found[1].tables
    if tables:
        known = {_label(k).lower(): k for k in old | new}
        wanted = set()
        for t in tables:
            if t.lower() not in known:
                raise DiffError(
                    f'no table "{t}" in {base_name} or {after_name}.'
                    f"{suggest(t, sorted(_label(k) for k in known.values()))} "
                    "Name a table as the diff does: `table`, or `schema.table` outside the main schema."
                )
            wanted.add(known[t.lower()])
        old = {k: v for k, v in old.items() if k in wanted}
        new = {k: v for k, v in new.items() if k in wanted}
    _check_same(old, new, base_name, after_name)
    model = stored_model(con, found[0]) or stored_model(con, found[1])
    keys = {t: _model_key(model, t, old[t]) for t in old}
    keys |= catalog_keys(con, found[0], [t for t, k in keys.items() if k is None])
    specs = [TableSpec(t[0], t[1], tuple(old[t]), keys[t]) for t in old]
    return sorted(specs, key=lambda s: s.label), found
