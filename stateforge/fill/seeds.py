"""Seed rows: the DDL's `INSERT ... VALUES` rows of a table (`Table.seeds`), inserted as given, first.

    seeded = insert_seeds(con, table, order)   # inside the fill's transaction, after the table is emptied

One INSERT per seed, in file order. An identity column the INSERT leaves out is numbered 1, 2, ... across
the table's seeds (what a fresh database gives them), explicitly, so that refilling the table gives the
same ids. The generator then writes only the planned rows past the seeded ones (`fill_table`), with its
ordinals moved past them. A seed DuckDB refuses (a key repeated, a CHECK broken) or one whose foreign key
points at no row of a parent filled before it is a BuildError naming the INSERT's file:line.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from stateforge.errors import BuildError
from stateforge.fill.key_kinds import deferred_fks
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Schema, Seed, Table
from stateforge.schema.seeds import seed_rows
from stateforge.store.sql import quote_ident, table_ref

_FIX = "fix the rows in the DDL, or build with --ignore-seed-inserts to leave them out"


def _where(seed: Seed) -> str:
    return f"{seed.file or 'the DDL'}:{seed.line}" if seed.line else (seed.file or "the DDL")


def insert_seeds(con: duckdb.DuckDBPyConnection, table: Table, order: list[str]) -> pa.Table | None:
    """Insert `table`'s seed rows; the rows now in the table (its seeds, read back), or None without seeds.

    `order` is the fill order: a foreign key to a parent filled before this table must find its row.
    """
    if not table.seeds:
        return None
    numbered = 0
    for seed in table.seeds:
        listed = {c.lower() for c in seed.columns}
        ids = [c.name for c in table.columns if c.identity and c.name.lower() not in listed]
        cols = [*ids, *seed.columns]
        # The VALUES columns are col0, col1, ... in DuckDB; ids numbered in the order the rows are written.
        picks = [f"{numbered} + row_number() OVER ()" for _ in ids]
        picks += [f"col{i}" for i in range(len(seed.columns))]
        sql = (f"INSERT INTO {table_ref(table.name)} ({', '.join(map(quote_ident, cols))}) "
               f"SELECT {', '.join(picks)} FROM {seed_rows(con, seed)}")
        try:
            con.execute(sql).fetchall()
            con.unregister("__sf_seed")
        except duckdb.Error as exc:
            reason = str(exc).strip().splitlines()[0]
            raise BuildError(
                f"table {table.name}: DuckDB refuses the seed rows of the INSERT at {_where(seed)} "
                f"({reason}); {_FIX}."
            ) from exc
        numbered += seed.rows
    _check_parents(con, table, order)
    return con.sql(f"SELECT * FROM {table_ref(table.name)}").to_arrow_table()


def _check_parents(con: duckdb.DuckDBPyConnection, table: Table, order: list[str]) -> None:
    """Every foreign key of the seeds to a parent already filled finds its row (the audit would fail)."""
    position = {name.lower(): i for i, name in enumerate(order)}
    here = position.get(table.name.lower(), len(order))
    for fk in table.foreign_keys:
        if position.get(fk.ref_table.lower(), len(order)) >= here:
            continue  # a parent filled later (or this table): the second pass and the audit see to it
        pairs = zip(fk.columns, fk.ref_columns, strict=True)
        on = " AND ".join(f"p.{quote_ident(r)} = c.{quote_ident(c)}" for c, r in pairs)
        present = " AND ".join(f"c.{quote_ident(c)} IS NOT NULL" for c in fk.columns)
        picked = ", ".join("c." + quote_ident(c) for c in fk.columns)
        parents = f"SELECT 1 FROM {table_ref(fk.ref_table)} p WHERE {on}"
        orphans = f"FROM {table_ref(table.name)} c WHERE {present} AND NOT EXISTS ({parents})"
        missing = con.execute(f"SELECT {picked} {orphans} LIMIT 1").fetchall()
        if missing:
            raise BuildError(
                f"table {table.name}: a seed row of the INSERT at {_where(table.seeds[0])} has "
                f"{', '.join(fk.columns)} = {', '.join(map(str, missing[0]))}, which no row of "
                f"{fk.ref_table} has; add that row to the DDL's INSERTs into {fk.ref_table}, or {_FIX}."
            )


def seeds_kept(con: duckdb.DuckDBPyConnection, schema: Schema) -> dict[str, dict[str, int]]:
    """Per seeded table, its seed rows and how many of them the table still holds exactly as given (on
    the columns the INSERTs list), once the second pass and the domain's rules have run."""
    out: dict[str, dict[str, int]] = {}
    for table in (t for t in schema.tables if t.seeds):
        missing = 0
        for seed in table.seeds:
            typed = ", ".join(f"CAST(col{i} AS {table.column(c).type}) AS {quote_ident(c)}"
                              for i, c in enumerate(seed.columns))
            cols = ", ".join(map(quote_ident, seed.columns))
            sql = (f"SELECT count(*) FROM (SELECT {typed} FROM {seed_rows(con, seed)} EXCEPT ALL "
                   f"SELECT {cols} FROM {table_ref(table.name)})")
            missing += con.execute(sql).fetchall()[0][0]
            con.unregister("__sf_seed")
        out[table.name] = {"rows": table.seeded_rows, "kept": table.seeded_rows - missing}
    return out


def restore_deferred(con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan) -> int:
    """Give the seed rows back the values their INSERTs write into foreign keys that close a cycle.

    The second pass (`stateforge.fill.deferred`) resets and redraws such keys on every row; a seed row gets
    its own value back wherever it names a row that exists (or is NULL), matched on the primary key. Runs
    after the second pass, before the domain's rules. Returns the rows given back.
    """
    restored = 0
    for table in (t for t in schema.tables if t.seeds and t.primary_key):
        deferred = deferred_fks(table, plan)
        for seed in table.seeds:
            listed = {c.lower(): i for i, c in enumerate(seed.columns)}
            fks = [fk for fk in deferred if all(c.lower() in listed for c in fk.columns)]
            if not fks or not all(k.lower() in listed for k in table.primary_key):
                continue
            key = list(table.primary_key)
            values = [c for fk in fks for c in fk.columns]
            picked = [f"CAST(col{listed[c.lower()]} AS {table.column(c).type}) AS {quote_ident('s_' + c)}"
                      for c in dict.fromkeys(key + values)]
            match = " AND ".join(f"t.{quote_ident(k)} = s.{quote_ident('s_' + k)}" for k in key)
            found = []
            for fk in fks:
                on = " AND ".join(f"p.{quote_ident(r)} = s.{quote_ident('s_' + c)}"
                                  for c, r in zip(fk.columns, fk.ref_columns, strict=True))
                null = " OR ".join(f"s.{quote_ident('s_' + c)} IS NULL" for c in fk.columns)
                found.append(f"({null} OR EXISTS (SELECT 1 FROM {table_ref(fk.ref_table)} p WHERE {on}))")
            sets = ", ".join(f"{quote_ident(c)} = s.{quote_ident('s_' + c)}" for c in dict.fromkeys(values))
            sql = (f"UPDATE {table_ref(table.name)} AS t SET {sets} FROM (SELECT {', '.join(picked)} FROM "
                   f"{seed_rows(con, seed)}) AS s WHERE {match} AND {' AND '.join(found)}")
            try:
                restored += con.execute(sql).fetchall()[0][0]
            except duckdb.Error:
                pass  # a UNIQUE key the drawn values hold: the seeds stay as drawn, and `seeds_kept` says so
            finally:
                con.unregister("__sf_seed")
    return restored
