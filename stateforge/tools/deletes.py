"""Deletes that apply every foreign key's ON DELETE action, set-based.

The rows to delete are followed through the keys that reference them until nothing new turns up: CASCADE
adds the referencing rows to the deletion (and follows them in turn), SET NULL / SET DEFAULT mark them for
an update, RESTRICT / NO ACTION mark them as blockers. Only then is anything written: if a blocker is not
itself being deleted, the whole delete is refused with a message that names the blocking rows and, for a
blocker reached through cascades, the path; otherwise every doomed row goes, then the marked keys are set.
Rows are tracked by DuckDB's `rowid`, which stays put while other rows are deleted.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from stateforge.schema.model import ForeignKey, Table
from stateforge.store.sql import fk_match_sql, quote_ident, table_ref
from stateforge.tools.constraints import describe, row_key
from stateforge.tools.context import Expr, Frag, WriteContext
from stateforge.tools.errors import ConstraintError
from stateforge.tools.writes import update_rows

IDS = "(SELECT unnest(?::BIGINT[]))"


@dataclass
class _Plan:
    doomed: dict[str, set[int]] = field(default_factory=dict)
    tables: dict[str, Table] = field(default_factory=dict)
    via: dict[str, tuple[Table, ForeignKey]] = field(default_factory=dict)
    """How each cascaded table was reached: (parent, key)."""
    marked: dict[str, dict[str, tuple[str, set[int]]]] = field(default_factory=dict)
    """child -> column -> (SET NULL or SET DEFAULT, the rowids whose column is set)."""
    blockers: list[tuple[Table, ForeignKey, Table, set[int]]] = field(default_factory=list)


def delete_rows(ctx: WriteContext, table: Table, where: Frag, *, direct: bool = True) -> int:
    """Delete the rows of `table` matching `where`, with every ON DELETE action; rows of `table` deleted."""
    first = {
        r
        for (r,) in ctx.con.execute(
            f"SELECT rowid FROM {table_ref(table.name)} WHERE {where[0]}", where[1]
        ).fetchall()
    }
    if not first:
        ctx.changes.add(table.name, "deleted", 0, direct=direct)
        return 0
    plan = _Plan(doomed={table.name: set(first)}, tables={table.name: table})
    frontier = deque([(table, first)])
    while frontier:
        parent, ids = frontier.popleft()
        for child, fk in ctx.index.children(parent):
            hits = _referencing(ctx, parent, ids, child, fk)
            if not hits:
                continue
            action = fk.on_delete
            if action == "CASCADE":
                new = hits - plan.doomed.setdefault(child.name, set())
                if new:
                    plan.doomed[child.name] |= new
                    plan.tables[child.name] = child
                    plan.via.setdefault(child.name, (parent, fk))
                    frontier.append((child, new))
            elif action in ("SET NULL", "SET DEFAULT"):
                for column in fk.columns:
                    plan.marked.setdefault(child.name, {}).setdefault(column, (action, set()))[1].update(hits)
                plan.tables[child.name] = child
            else:
                plan.blockers.append((parent, fk, child, hits))
    _refuse_blocked(ctx, table, first, plan)
    target = _rows(ctx, table, first) if plan.marked else []
    for name, ids in plan.doomed.items():
        if not ids:
            continue
        [(n,)] = ctx.con.execute(
            f"DELETE FROM {table_ref(name)} WHERE rowid IN {IDS}", [sorted(ids)]
        ).fetchall()
        ctx.changes.add(name, "deleted", int(n), direct=direct and name == table.name)
    for name, columns in plan.marked.items():
        try:
            _set_marked(ctx, plan.tables[name], columns, plan.doomed.get(name, set()))
        except ConstraintError as exc:
            actions = sorted({action for action, _ in columns.values()})
            raise ConstraintError(
                f"cannot delete {describe(table, target, len(first))}: the rows of {name} that reference it "
                f"are set by ON DELETE {' / '.join(actions)}, and then: {exc}"
            ) from None
    return len(first)


def _referencing(ctx: WriteContext, parent: Table, ids: set[int], child: Table, fk: ForeignKey) -> set[int]:
    """Rowids of `child` rows whose key `fk` points at the `parent` rows `ids`."""
    match = fk_match_sql("c", child, fk, "p", parent)
    sql = (
        f"SELECT DISTINCT c.rowid FROM {table_ref(child.name)} AS c JOIN {table_ref(parent.name)} AS p "
        f"ON {match} WHERE p.rowid IN {IDS}"
    )
    return {r for (r,) in ctx.con.execute(sql, [sorted(ids)]).fetchall()}


def _refuse_blocked(ctx: WriteContext, table: Table, first: set[int], plan: _Plan) -> None:
    for parent, fk, child, hits in plan.blockers:
        blocking = hits - plan.doomed.get(child.name, set())
        if not blocking:
            continue
        target = _rows(ctx, table, first)
        shown = _rows(ctx, child, blocking)
        n = len(blocking)
        refs = f"{n} row{'s' if n != 1 else ''} of {child.name} reference"
        rule = f"({', '.join(fk.columns)}; ON DELETE {fk.on_delete})"
        what = describe(table, target, len(first))
        if parent.name == table.name:
            reason = f"{refs} {'it' if len(first) == 1 else 'them'} {rule}"
        else:
            reason = f"{_path(plan, parent, table)}, and {refs} those {rule}"
        raise ConstraintError(
            f"cannot delete {what}: {reason}: {describe(child, shown, n)}. Delete or change those rows first."
        )


def _path(plan: _Plan, parent: Table, root: Table) -> str:
    """`it would also delete orders (ON DELETE CASCADE from customers)`: how `parent` gets deleted."""
    steps = []
    name = parent.name
    while name != root.name and name in plan.via:
        via_parent, fk = plan.via[name]
        steps.append(f"{len(plan.doomed[name])} rows of {name} ({', '.join(fk.columns)}; ON DELETE CASCADE)")
        name = via_parent.name
    return "it would also delete " + ", then ".join(reversed(steps))


def _rows(ctx: WriteContext, table: Table, ids: set[int]) -> list[dict]:
    cols = ", ".join(quote_ident(c) for c in row_key(table))
    return ctx.fetch(
        f"SELECT {cols} FROM {table_ref(table.name)} WHERE rowid IN {IDS} ORDER BY {cols} LIMIT 6",
        [sorted(ids)],
    )


def _set_marked(
    ctx: WriteContext, child: Table, columns: dict[str, tuple[str, set[int]]], doomed: set[int]
) -> None:
    """One UPDATE per child table: each marked column set NULL or to its default on its marked rows."""
    changes: dict[str, Expr] = {}
    every: set[int] = set()
    for column, (action, marked) in columns.items():
        ids = marked - doomed
        if not ids:
            continue
        every |= ids
        value = "NULL" if action == "SET NULL" else (child.column(column).default or "NULL")
        changes[column] = Expr(
            f"CASE WHEN rowid IN {IDS} THEN {value} ELSE {quote_ident(column)} END", [sorted(ids)]
        )
    if changes:
        update_rows(ctx, child, (f"rowid IN {IDS}", [sorted(every)]), changes, direct=False)
