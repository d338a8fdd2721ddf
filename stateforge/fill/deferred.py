"""The second pass: values for the foreign keys the first pass left NULL (nullable keys closing a cycle).

    filled = fill_deferred(con, schema, plan, config, seed=7)     # once every table has its rows

Per deferred key, in one transaction for all of them, one rewrite of the table each
(`stateforge.store.rewrite_table`: DuckDB's UPDATE of such a key is quadratic when a CHECK reads it with
the primary key); the key's columns are reset first, so a resumed build may run the pass again. A key is
either

- computed from its hints (`expr`, evaluated by DuckDB over the table's rows, so it may read the row's
  other columns; `values` with `weights`; `constant`): values that point at no parent are set NULL, and
  for a self-reference, values that loop (`a -> b -> a`, or a row pointing at itself) are cut at the
  lowest row of each loop (in key order) so that hierarchies stay forests; both are counted; or
- drawn: a self-reference points at an earlier row (ordered by the row's event time when the time order
  runs along it, `stateforge.validation.time_order`, then by the referenced key), the first rows being
  roots (and, with a `shares` hint, a row with the same values of those columns: a reply under the same
  song); another key picks parents with popularity (the parent table's ranking, the key's skew).

Every UNIQUE constraint that holds a deferred key's columns keeps holding (`deferred_unique.py`): rows
whose new values would repeat another row's on such a key are redrawn, then set NULL (counted). All the
deferred keys' columns are reset before any is filled, so a rerun (`--resume`) starts from the first
pass's state.

Then rows left dangling (rows a NOT NULL cycle was promised but that failed validation) are cleaned by
foreign-key semantics.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from functools import partial

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.errors import DomainError, guard
from stateforge.fill.deferred_unique import UniqueKeys, keep_unique
from stateforge.fill.key_kinds import is_unique_fk, key_skew, null_rate, parent_cdf
from stateforge.fill.key_types import holdable_parents
from stateforge.fill.keys import load_keys
from stateforge.fill.sampling import (
    cycle_cuts,
    draw,
    earlier_in_group,
    group_codes,
    lookup,
    match_draw,
    rng_for,
)
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import ForeignKey, Schema, Table
from stateforge.store import rewrite_table
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import table_ref
from stateforge.types import batch_arrow_type
from stateforge.validation.rules import clean_orphans

ROOT_SHARE = 0.02
"""Share of a self-referencing table's first rows that are roots (besides those NULL at the null rate)."""

Pairs = list[tuple[str, str]]
"""(column, referenced column) pairs of a foreign key."""


def fill_deferred(
    con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan, config: DomainConfig, *, seed: int
) -> dict[str, int]:
    """Give the foreign keys left NULL by the first pass their values (see the module docstring).

    Returns the rows given a value per `table(columns) -> parent(columns)`; for keys computed from hints
    also the rows set NULL per `... : no parent, set NULL` and the loops cut per `... : cycles cut`; the
    rows set NULL to keep a UNIQUE constraint per `... : UNIQUE kept, set NULL` (when there are any); and
    the rows cleaned per `orphans: delete table(columns)`.
    """
    out: dict[str, int] = {}
    con.begin()
    try:
        _reset_all(con, schema, plan)
        for d in plan.deferred:
            table, fk = schema.table(d.table), d.fk
            label = f"{table.name}({', '.join(fk.columns)}) -> {fk.ref_table}({', '.join(fk.ref_columns)})"
            with guard("filling a deferred foreign key (second pass)", table=table.name,
                       column=", ".join(fk.columns), passthrough=(duckdb.Error,)):
                if any(_setting(config, table, c) is not None for c, _ in _split(table, fk)[1]):
                    given, dangling, cut, clashed = _compute_key(con, schema, config, table, fk, seed)
                    out[label] = given
                    out[f"{label}: no parent, set NULL"] = dangling
                    if fk.ref_table.lower() == table.name.lower():
                        out[f"{label}: cycles cut"] = cut
                else:
                    out[label], clashed = _draw_key(con, schema, config, table, fk, seed)
                if clashed:
                    out[f"{label}: UNIQUE kept, set NULL"] = clashed
        # Rows promised to a NOT NULL cycle but dropped as invalid leave children pointing nowhere.
        if plan.unbroken:
            cleaned = clean_orphans(con, schema, [d.table for d in plan.unbroken])
            out.update({f"orphans: {what}": n for what, n in cleaned.items()})
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return out


def _split(table: Table, fk: ForeignKey) -> tuple[Pairs, Pairs]:
    """The key's columns shared with other foreign keys (kept), and its own ones (filled here)."""
    others = {c.lower() for k in table.foreign_keys if k is not fk for c in k.columns}
    pairs = list(zip(fk.columns, fk.ref_columns, strict=True))
    return [p for p in pairs if p[0].lower() in others], [p for p in pairs if p[0].lower() not in others]


def _setting(config: DomainConfig, table: Table, column: str) -> ColumnHint | None:
    """The column's hint when it gives the values (`expr`, `values`, `constant`)."""
    hint = config.hint(table.name, column)
    return hint if hint is not None and hint.sets_value() else None


def _reset_all(con: duckdb.DuckDBPyConnection, schema: Schema, plan: FillPlan) -> None:
    """Set every deferred key's own columns NULL, table by table (a no-op after a first pass)."""
    columns: dict[str, list[str]] = {}
    for d in plan.deferred:
        table = schema.table(d.table)
        free = columns.setdefault(table.name, [])
        free += [c for c, _ in _split(table, d.fk)[1] if c not in free]
    for name, free in columns.items():
        ref = table_ref(name)
        filled = " OR ".join(f"{_q(c)} IS NOT NULL" for c in free)
        if con.execute(f"SELECT count(*) FROM {ref} WHERE {filled}").fetchall()[0][0]:  # a rerun
            con.execute(f"UPDATE {ref} SET {', '.join(f'{_q(c)} = NULL' for c in free)}").fetchall()


def _ids(table: Table) -> list[str]:
    return list(table.primary_key) or ["rowid"]


def _ident(name: str) -> str:
    return name if name == "rowid" else _q(name)


def _compute_key(con, schema: Schema, config: DomainConfig, table: Table, fk: ForeignKey, seed: int
                 ) -> tuple[int, int, int, int]:
    """Set the key from its columns' hints; (rows given a value, rows without a parent, loops cut, rows
    set NULL because their values would repeat another row's on a UNIQUE key)."""
    shared, free = _split(table, fk)
    ids, own = _ids(table), fk.ref_table.lower() == table.name.lower()
    unique = UniqueKeys(table, [c for c, _ in free])
    select = [f"{_ident(i)} AS {_q('__sf_id_' + i)}" for i in ids]
    select += [f"{_q(c)} AS {_q('__sf_key_' + c)}" for c, _ in shared]
    select += [f"CAST(({h.expr}) AS {table.column(c).type}) AS {_q('__sf_key_' + c)}"
               for c, _ in free if (h := _setting(config, table, c)) is not None and h.expr is not None]
    select += [f"{_q(r)} AS {_q('__sf_ref_' + r)}" for r in fk.ref_columns] if own else []
    select += unique.select()
    order = ", ".join(_ident(i) for i in ids)
    try:
        rows = con.sql(f"SELECT {', '.join(select)} FROM {table_ref(table.name)} ORDER BY {order}"
                       ).to_arrow_table()
    except duckdb.Error as exc:
        exprs = [c for c, _ in free if (h := _setting(config, table, c)) and h.expr is not None]
        raise DomainError(
            f"columns.{table.name}.{exprs[0] if exprs else fk.columns[0]}.expr: DuckDB could not compute it "
            f"over table {table.name} in the second pass: {exc}. An expr may read the row's own columns."
        ) from None
    n = rows.num_rows
    rng = rng_for(seed, table.name, "deferred:" + ",".join(fk.columns))
    key = {c: rows.column("__sf_key_" + c).combine_chunks() for c, _ in shared}
    for c, _ in free:
        hint = _setting(config, table, c)
        assert hint is not None  # check_key_hints: every free column of a computed key has a hint
        key[c] = rows.column("__sf_key_" + c).combine_chunks() if hint.expr is not None \
            else _listed(hint, table, c, n, rng, null_rate(config, table.name, c) if hint.values else 0.0)
    if own:
        parents = [rows.column("__sf_ref_" + r).combine_chunks() for r in fk.ref_columns]
    else:
        stored = load_keys(con, schema.table(fk.ref_table), fk.ref_columns)
        stored = holdable_parents(stored, fk, table, parent=fk.ref_table)
        parents = [stored.column(r).combine_chunks() for r in fk.ref_columns]
    codes, parent_codes = group_codes([key[c] for c in fk.columns], parents)
    ix = lookup(codes, parent_codes)
    dangling = int(((codes >= 0) & (ix < 0)).sum())
    cut = cycle_cuts(ix) if own else np.zeros(n, dtype=bool)
    chosen = (ix >= 0) & ~cut
    clashed = unique.clashes(rows, key, chosen) if unique else np.zeros(n, dtype=bool)
    chosen &= ~clashed
    _update(con, table, ids, rows, chosen, {c: key[c] for c, _ in free})
    return int(chosen.sum()), dangling, int(cut.sum()), int(clashed.sum())


def _listed(hint: ColumnHint, table: Table, column: str, n: int, rng: np.random.Generator, nulls: float
            ) -> pa.Array:
    """`n` values of a `values` hint (NULL at the rate `nulls`, as the generator does), or a `constant`."""
    listed = hint.values if hint.values is not None else [hint.constant]
    p = np.asarray(hint.weights, dtype=float) / sum(hint.weights) if hint.weights else None
    picks = rng.choice(len(listed), size=n, p=p)
    typ = batch_arrow_type(table.column(column).type)
    try:
        values = pa.array(listed).cast(typ).take(pa.array(picks))
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise DomainError(
            f"columns.{table.name}.{column}: the listed values are not of the column's type "
            f"{table.column(column).type}: {exc}."
        ) from None
    keep = pa.array(rng.random(n) >= nulls)
    return values if not nulls else pc.if_else(keep, values, pa.scalar(None, typ))


def _draw_key(con, schema: Schema, config: DomainConfig, table: Table, fk: ForeignKey, seed: int
              ) -> tuple[int, int]:
    """Draw the key like the first pass would; returns the rows given a value, and the rows set NULL
    because every draw for them repeated another row's values on a UNIQUE key."""
    shared, free = _split(table, fk)
    ids, own = _ids(table), fk.ref_table.lower() == table.name.lower()
    unique = UniqueKeys(table, [c for c, _ in free])
    order = [r for _, r in zip(fk.columns, fk.ref_columns, strict=True)] + ids if own else ids
    event = _self_event(schema, config, table, fk) if own else None
    if event is not None:  # an earlier row is an earlier event: a reply comes after what it answers
        order = [event, *order]
    select = [f"{_ident(i)} AS {_q('__sf_id_' + i)}" for i in ids]
    select += [f"{_q(c)} AS {_q('__sf_shared_' + c)}" for c, _ in shared]
    select += [f"{_q(r)} AS {_q('__sf_ref_' + r)}" for r in fk.ref_columns] if own else []
    select += [f"{_q(c)} AS {_q('__sf_alike_' + c)}" for c in _shares(config, table, fk)] if own else []
    select += unique.select()
    ordering = ", ".join(_ident(o) + " NULLS LAST" for o in order)
    child = con.sql(f"SELECT {', '.join(select)} FROM {table_ref(table.name)} ORDER BY {ordering}"
                    ).to_arrow_table()
    n = child.num_rows
    if not n:
        return 0, 0
    rng = rng_for(seed, table.name, "deferred:" + ",".join(fk.columns))
    mine = [child.column("__sf_shared_" + c).combine_chunks() for c, _ in shared]
    redraw: Callable[[], np.ndarray] | None = None  # a fresh draw for every row, for rows that clash
    if own:
        parents = pa.table({r: child.column("__sf_ref_" + r) for r in fk.ref_columns})
        alike = mine + [child.column("__sf_alike_" + c).combine_chunks() for c in _shares(config, table, fk)]
        codes = group_codes(alike, alike)[0] if alike else np.zeros(n, dtype=np.int64)
        # inside groups of rows alike (a song's comments) every group's first row is a root already
        roots = 1 if _shares(config, table, fk) else max(1, math.ceil(n * ROOT_SHARE))
        ix = earlier_in_group(codes, rng, chain=is_unique_fk(table, fk), roots=roots)
        redraw = partial(earlier_in_group, codes, rng, chain=False, roots=roots)
    else:
        parents = load_keys(con, schema.table(fk.ref_table), fk.ref_columns)
        parents = holdable_parents(parents, fk, table, parent=fk.ref_table)
        cdf = parent_cdf(config, table.name, fk, parents.num_rows, seed)
        if shared:
            theirs = [parents.column(r).combine_chunks() for _, r in shared]
            weights = np.diff(cdf, prepend=0.0) if key_skew(config, table.name, fk) is not None else None
            redraw = partial(match_draw, *group_codes(mine, theirs), rng, weights)
            ix = redraw()
        elif is_unique_fk(table, fk):
            ix = np.r_[rng.permutation(parents.num_rows), np.full(max(n - parents.num_rows, 0), -1)][:n]
        elif parents.num_rows:
            redraw = partial(draw, cdf, n, rng)
            ix = redraw()
        else:
            ix = np.full(n, -1)
    ix = np.where(rng.random(n) < null_rate(config, table.name, fk.columns[0]), -1, ix).astype(np.int64)

    def values_at(at: np.ndarray) -> dict[str, pa.Array]:
        taken = pa.array(np.where(at >= 0, at, 0))
        return {c: parents.column(r).take(taken) for c, r in free}

    ix, clashed = keep_unique(unique, child, ix, values_at, redraw)
    chosen = ix >= 0
    if chosen.any():
        values = parents.take(pa.array(ix[chosen]))
        _update(con, table, ids, child, chosen, {c: values.column(r) for c, r in free}, rows_taken=True)
    return int(chosen.sum()), clashed


def _shares(config: DomainConfig, table: Table, fk: ForeignKey) -> list[str]:
    """The columns a self-reference's row shares with the row it points at (`shares` hints)."""
    out: list[str] = []
    for c in fk.columns:
        hint = config.hint(table.name, c)
        for name in (hint.shares or []) if hint is not None else []:
            if not any(col.name.lower() == name.lower() for col in table.columns):
                raise DomainError(f"columns.{table.name}.{c}.shares: table {table.name} has no column "
                                  f"{name!r}; name columns of the table itself.")
            out.append(table.column(name).name)
    return out


def _self_event(schema: Schema, config: DomainConfig, table: Table, fk: ForeignKey) -> str | None:
    """The event column a self-reference's time order runs along (`stateforge.validation.time_order`),
    or None when it has none."""
    from stateforge.validation.time_order import infer_time_order

    for o in infer_time_order(schema, config):
        if o.kind == "after_parent" and o.table == table.name and tuple(o.fk) == tuple(fk.columns) \
                and (o.ref_table or "").lower() == table.name.lower():
            return o.column
    return None


def in_place(table: Table, columns: list[str] | tuple[str, ...]) -> bool:
    """Whether an UPDATE of `columns` is cheap in DuckDB: the table has a primary key and no generated
    column, and no CHECK, primary or UNIQUE key reads the columns. Otherwise DuckDB 2.0.1 runs the UPDATE
    as a delete and re-insert of every row, in time that grows with the square of the rows, and the table
    is rewritten instead (bench/second_pass.py); an UPDATE in place of 15,000 keys of a 25,000-row table
    takes 4 ms of CPU where the rewrite takes 53."""
    wanted = {c.lower() for c in columns}
    read = {c.lower() for check in table.checks for c in check.columns}
    keyed = {c.lower() for key in table.unique_keys for c in key}
    return (bool(table.primary_key) and not any(c.generated is not None for c in table.columns)
            and not wanted & (read | keyed))


def _update(con, table: Table, ids: list[str], rows: pa.Table, chosen: np.ndarray,
            values: dict[str, pa.Array | pa.ChunkedArray], *, rows_taken: bool = False,
            rewrite: bool | None = None) -> None:
    """Set `values` (one per row, or per chosen row with `rows_taken`) on the chosen rows, the other rows
    unchanged: an UPDATE of the chosen rows where that is cheap (`in_place`), else the table is rewritten
    with the new values paired with its rows by position (rows in their stored order). `rewrite` forces
    one way (tests)."""
    if not chosen.any():
        return
    rewrite = not in_place(table, list(values)) if rewrite is None else rewrite
    mask = pa.array(chosen)
    update = rows.filter(mask).select([f"__sf_id_{i}" for i in ids])
    for column, array in values.items():
        update = update.append_column(column, array if rows_taken else array.filter(mask))
    update = update.append_column("__sf_hit", pa.array(np.ones(update.num_rows, dtype=bool)))
    con.register("__sf_update", update)
    try:
        changed = {c.lower() for c in values}
        columns = ", ".join(
            f"CASE WHEN u.__sf_hit THEN u.{_q(c.name)} ELSE t.{_q(c.name)} END" if c.name.lower() in changed
            else f"t.{_q(c.name)}"
            for c in table.columns
            if c.generated is None  # DuckDB computes generated columns
        )
        match = " AND ".join(f"t.{_ident(i)} = u.{_q('__sf_id_' + i)}" for i in ids)
        if rewrite:
            # The new values lined up with the stored rows (rowid order), then paired with them by
            # position: a scan in stored order, no join or sort of the whole rows (0.22 s where a join of
            # them sorted by rowid took 0.37 for music's 127,000 users at scale 12.7).
            new = ", ".join(["u.__sf_hit", *(f"u.{_q(c)}" for c in values)])
            lined = (f"SELECT {new} FROM {table_ref(table.name)} AS t LEFT JOIN __sf_update AS u ON {match} "
                     "ORDER BY t.rowid")
            rewrite_table(con, table, f"SELECT {columns} FROM {table_ref(table.name)} AS t "
                                      f"POSITIONAL JOIN ({lined}) AS u")
        else:
            sets = ", ".join(f"{_q(c)} = u.{_q(c)}" for c in values)
            con.execute(f"UPDATE {table_ref(table.name)} AS t SET {sets} FROM __sf_update AS u "
                        f"WHERE {match}").fetchall()
    finally:
        with contextlib.suppress(duckdb.Error):
            con.unregister("__sf_update")
