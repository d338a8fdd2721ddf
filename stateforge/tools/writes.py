"""Inserts and updates that enforce the model's foreign keys (DESIGN.md decision 1: not declared to DuckDB).

`insert_rows`: missing single-column integer keys get max+1 ids (`KeyAllocator`), identity columns their
sequence's next value; every written foreign key must find its parent.
`update_rows`: the new values of written foreign keys must find their parents; when a column that other
tables reference changes, each referencing key follows its ON UPDATE action: RESTRICT / NO ACTION refuse and
name the blocking rows, CASCADE carries the new value over (recursively), SET NULL / SET DEFAULT set.

Identifiers come from the model and are quoted; values travel only as parameters.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import duckdb

from stateforge.schema.model import ForeignKey, Table
from stateforge.store.sql import fk_casts, quote_ident, read_as, table_ref
from stateforge.tools.constraints import check_lengths, check_parents, describe, row_key, translate
from stateforge.tools.context import Expr, Frag, WriteContext
from stateforge.tools.errors import ConstraintError, ToolDefinitionError

MAX_DEPTH = 32
"""Cascades deeper than this are refused (a cycle of ON UPDATE CASCADE)."""


def resolve_columns(table: Table, names: Sequence[str], where: str) -> list[str]:
    """The model's spelling of each column name; `ToolDefinitionError` for an unknown one."""
    out = []
    for name in names:
        try:
            out.append(table.column(name).name)
        except KeyError as exc:
            raise ToolDefinitionError(f"{where}: {exc.args[0]}") from None
    return out


def insert_rows(
    ctx: WriteContext, table: Table, rows: Sequence[Mapping[str, Any]], *, direct: bool = True
) -> list[dict[str, Any]]:
    """Insert `rows` (column -> value) into `table`; the inserted rows as stored (defaults and ids filled)."""
    if not rows:
        return []
    where = f"env.insert({table.name})"
    rows = [dict(zip(resolve_columns(table, list(r), where), r.values(), strict=True)) for r in rows]
    key = ctx.index.allocated_key(table)
    if key is not None:
        missing = [r for r in rows if r.get(key) is None]
        given = [r[key] for r in rows if r.get(key) is not None]
        ctx.allocator.observe(table, key, given)
        for row, value in zip(
            missing, ctx.allocator.allocate(ctx.con, table, key, len(missing)) if missing else [], strict=True
        ):
            row[key] = value
    check_lengths(table, rows)
    stored: list[dict[str, Any]] = []
    for group in _runs(rows):
        names = list(group[0])
        cols = ", ".join(quote_ident(c) for c in names)
        placeholders = ", ".join(["(" + ", ".join("?" * len(names)) + ")"] * len(group))
        params = [row[c] for row in group for c in names]
        if names:
            sql = f"INSERT INTO {table_ref(table.name)} ({cols}) VALUES {placeholders} RETURNING *"
        else:
            sql = f"INSERT INTO {table_ref(table.name)} DEFAULT VALUES RETURNING *"
        try:
            stored += ctx.fetch(sql, params)
        except duckdb.Error as exc:
            raise translate(exc, ctx, table, group[0] if len(group) == 1 else None) from None
    for fk in table.foreign_keys:
        check_parents(ctx, table, fk, stored)
    ctx.changes.add(table.name, "inserted", len(stored), direct=direct)
    return stored


def _runs(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive rows with the same columns, each run one INSERT statement (order kept)."""
    runs: list[list[dict[str, Any]]] = []
    for row in rows:
        if runs and list(runs[-1][0]) == list(row):
            runs[-1].append(row)
        else:
            runs.append([row])
    return runs


def update_rows(
    ctx: WriteContext,
    table: Table,
    where: Frag,
    changes: Mapping[str, Any],
    *,
    direct: bool = True,
    depth: int = 0,
) -> int:
    """Set `changes` (column -> value or `Expr`) on the rows of `table` matching `where`; rows matched."""
    if depth > MAX_DEPTH:
        raise ConstraintError(
            f"table {table.name}: ON UPDATE CASCADE runs deeper than {MAX_DEPTH} tables; "
            "the foreign keys form a cycle of cascades."
        )
    if not changes:
        raise ToolDefinitionError(f"env.update({table.name}): give at least one column to change.")
    names = resolve_columns(table, list(changes), f"env.update({table.name})")
    new = dict(zip(names, changes.values(), strict=True))
    constants = {c: v for c, v in new.items() if not isinstance(v, Expr)}
    check_lengths(table, [constants])
    changed = {c.lower() for c in new}
    sets, set_params = _assignments(new)
    followers = [
        (child, fk)
        for child, fk in ctx.index.children(table)
        if changed & {c.lower() for c in fk.ref_columns}
    ]
    moves = _key_moves(ctx, table, where, new, followers) if followers else []
    own = [fk for fk in table.foreign_keys if changed & {c.lower() for c in fk.columns}]
    returning = list(dict.fromkeys([*new, *(c for fk in own for c in fk.columns), *row_key(table)]))
    sql = (
        f"UPDATE {table_ref(table.name)} SET {sets} WHERE {where[0]} "
        f"RETURNING {', '.join(quote_ident(c) for c in returning)}"
    )
    try:
        rows = ctx.fetch(sql, set_params + where[1])
    except duckdb.Error as exc:
        raise translate(exc, ctx, table, constants) from None
    check_lengths(table, [{c: r[c] for c in new if isinstance(new[c], Expr)} for r in rows])
    for fk in own:
        check_parents(ctx, table, fk, rows)
    ctx.changes.add(table.name, "updated", len(rows), direct=direct, columns=changed)
    for child, fk, pairs in moves:
        _follow(ctx, table, child, fk, pairs, depth)
    return len(rows)


def _assignments(new: Mapping[str, Any]) -> Frag:
    parts, params = [], []
    for column, value in new.items():
        if isinstance(value, Expr):
            parts.append(f"{quote_ident(column)} = ({value.sql})")
            params += value.params
        else:
            parts.append(f"{quote_ident(column)} = ?")
            params.append(value)
    return ", ".join(parts), params


def _key_moves(
    ctx: WriteContext,
    table: Table,
    where: Frag,
    new: Mapping[str, Any],
    followers: list[tuple[Table, ForeignKey]],
) -> list[tuple[Table, ForeignKey, list[tuple]]]:
    """Per referencing key: the (old, new) values of the referenced columns that the update changes."""
    lowered = {c.lower(): c for c in new}
    selects, params = [], []
    for _, fk in followers:
        for column in fk.ref_columns:
            selects.append(quote_ident(column))
        for column in fk.ref_columns:
            target = lowered.get(column.lower())
            value = new[target] if target is not None else None
            if target is None:
                selects.append(quote_ident(column))
            elif isinstance(value, Expr):
                selects.append(f"({value.sql})")
                params += value.params
            else:
                selects.append("?")
                params.append(value)
    sql = f"SELECT {', '.join(selects)} FROM {table_ref(table.name)} WHERE {where[0]}"
    rows = ctx.con.execute(sql, params + where[1]).fetchall()
    moves: list[tuple[Table, ForeignKey, list[tuple]]] = []
    offset = 0
    for child, fk in followers:
        width = len(fk.ref_columns)
        pairs = []
        for row in rows:
            old, updated = (
                tuple(row[offset : offset + width]),
                tuple(row[offset + width : offset + 2 * width]),
            )
            if old != updated and all(v is not None for v in old):
                pairs.append((old, updated))
        moves.append((child, fk, pairs))
        offset += 2 * width
    return moves


def _follow(
    ctx: WriteContext, parent: Table, child: Table, fk: ForeignKey, pairs: list[tuple], depth: int
) -> None:
    """Apply `fk`'s ON UPDATE action to the rows of `child` that reference the old values in `pairs`."""
    if not pairs:
        return
    width = len(fk.columns)
    olds = [[old[i] for old, _ in pairs] for i in range(width)]
    news = [[new[i] for _, new in pairs] for i in range(width)]
    names = ", ".join(f"unnest(?) AS o{i}" for i in range(width))
    casts = fk_casts(child, fk, parent)  # a column of another type is read as its key's (key_cast)
    match = " AND ".join(
        f"m.o{i} = {read_as(f'{quote_ident(child.name)}.{quote_ident(c)}', casts[i])}"
        for i, c in enumerate(fk.columns)
    )
    where: Frag = (f"EXISTS (SELECT 1 FROM (SELECT {names}) AS m WHERE {match})", [*olds])
    action = fk.on_update
    if action in ("RESTRICT", "NO ACTION"):
        key = row_key(child)
        blocking = ctx.fetch(
            f"SELECT {', '.join(quote_ident(c) for c in key)} FROM {table_ref(child.name)} "
            f"WHERE {where[0]} LIMIT 6",
            where[1],
        )
        if blocking:
            [(total,)] = ctx.con.execute(
                f"SELECT count(*) FROM {table_ref(child.name)} WHERE {where[0]}", where[1]
            ).fetchall()
            old = dict(zip(fk.ref_columns, pairs[0][0], strict=True))
            raise ConstraintError(
                f"cannot change {describe(parent, [old], len(pairs))}: {total} row"
                f"{'s' if total != 1 else ''} of {child.name} reference it ({', '.join(fk.columns)}; "
                f"ON UPDATE {action}): {describe(child, blocking, total)}. Change or delete those rows first."
            )
        return
    if action == "CASCADE":
        both = ", ".join(
            [f"unnest(?) AS o{i}" for i in range(width)] + [f"unnest(?) AS n{i}" for i in range(width)]
        )
        changes = {
            c: Expr(f"(SELECT m.n{i} FROM (SELECT {both}) AS m WHERE {match})", [*olds, *news])
            for i, c in enumerate(fk.columns)
        }
    elif action == "SET NULL":
        changes = {c: None for c in fk.columns}
    else:  # SET DEFAULT
        changes = {c: Expr(child.column(c).default or "NULL") for c in fk.columns}
    update_rows(ctx, child, where, changes, direct=False, depth=depth + 1)
