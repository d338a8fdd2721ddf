"""Generic recipes that change every row a filter (or a parent) picks out: set a value, delete, move rows
to another parent, raise a number. The solver must page through every match (100 a page)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from stateforge.store.sql import key_cast, quote_ident, read_as
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.edits import refusing
from stateforge.tasks.generic.facts import (
    TableFacts,
    derive_yes_no,
    find_all,
    find_by_name,
    key_args,
    kind,
    named_row,
    refer_by_name,
    shown_value,
    tables_with,
    uniquely_named,
)
from stateforge.tasks.generic.filters import (
    Condition,
    changes_state,
    equality,
    few_valued,
    filterable,
    phrase,
    sql_of,
    state_change,
    threshold,
    threshold_columns,
    two_conditions,
)
from stateforge.tasks.generic.names import bookkeeping, identifying, reads_as_quantity
from stateforge.tasks.recipes import Skip, recipe
from stateforge.values import json_value

q = quote_ident
MOST = 200
"""The most rows one generic bulk task changes."""


def _conditions(
    ctx: RecipeContext,
    t: TableFacts,
    extra: str = "TRUE",
    *,
    low: int = 2,
    exclude: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[Condition]:
    """Two conditions matching `low`..MOST rows that all satisfy `extra` (SQL over alias r); the draft
    exercises precise boundary judgment only when one of them is a threshold."""
    for _ in range(8):
        try:
            conds = two_conditions(ctx, t, exclude=exclude)
        except Skip:
            continue
        where, params = sql_of(conds)
        counts = ctx.sql(
            f"SELECT count(*) AS n, count(*) FILTER (WHERE {extra}) AS ok FROM {t.ref} r WHERE {where}",
            params,
        )[0]
        if low <= counts["n"] <= MOST and counts["ok"] == counts["n"]:
            if all(c.op == "eq" for c in conds) and "precise_boundary_judgment" in ctx.capabilities:
                ctx.capabilities.remove("precise_boundary_judgment")
            return conds
    raise Skip("no two-condition filter of the right size")


def _targets(t: TableFacts, exclude: set[str]) -> list[Any]:
    unique = {c.lower() for u in t.table.unique_keys for c in u}
    return [
        c
        for c in t.settable()
        if c.name.lower() not in exclude | unique
        and (c.allowed_values or kind(c) in ("bool", "integer", "number", "temporal"))
        and not (kind(c) in ("integer", "number") and identifying(t.words(c.name)))
        and not (kind(c) == "temporal" and bookkeeping(c.name))
    ]


def _target_value(ctx: RecipeContext, t: TableFacts, column: Any) -> Any:
    """A value to set: one of a fixed set, true or false, or a value the column already holds."""
    if kind(column) == "bool":
        return ctx.choice([True, False])
    if column.allowed_values:
        return ctx.choice(sorted({v for v in column.allowed_values if v is not None}, key=str))
    value = ctx.pick(
        f"SELECT DISTINCT {q(column.name)} AS v FROM {t.ref} WHERE {q(column.name)} IS NOT NULL",
        what=f"{column.name} value",
    )["v"]
    if isinstance(value, dt.datetime):
        value = value.replace(second=0, microsecond=0)
    return round(value, 2) if isinstance(value, float) else value


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "precise_boundary_judgment"),
    difficulty="hard",
)
def bulk_update_filter(ctx: RecipeContext) -> None:
    """Set a value on every row matching two conditions (one of them a threshold on a number or a date), or
    move every row in one state that meets another condition to another state ("every 'quoted' order
    signed before May 3 becomes 'lost'")."""
    options = [
        (t, c, transition)
        for t in tables_with(ctx, "search", "update")
        if t.key
        for c in _targets(t, set())
        for transition in (False, True)
        if (changes_state(ctx, t, c) if transition else filterable(ctx, t, {c.name.lower()}))
    ]
    if not options:
        raise Skip("no table with a column to set and two to filter on")
    t, column, transition = ctx.choice(options)
    if transition:
        conds, value = state_change(ctx, t, column, most=MOST)
    else:
        conds = _conditions(ctx, t, exclude={column.name.lower()})
        value = _target_value(ctx, t, column)
    where, params = sql_of(conds)
    changing = ctx.scalar(
        f"SELECT count(*) FROM {t.ref} WHERE {where} AND {q(column.name)} IS DISTINCT FROM ?",
        [*params, value],
    )
    if not changing or changing < 2:
        raise Skip("nothing to change")
    shown = shown_value(ctx, value)
    ctx.say(
        [
            "Set the {col} to {value} for every {one} {cond}.",
            "For all {many} {conds}, change the {col} to {value}.",
            "Every {one} {cond} should have {col} {value}; please update them all.",
        ],
        one=t.one,
        many=t.many,
        col=t.words(column.name),
        value=shown,
        cond=phrase(conds, ctx.style),
        conds=phrase(conds, ctx.style, plural=True),
    )
    derive_yes_no(ctx, column, value, shown)
    rows = find_all(ctx, t, [c.filter() for c in conds], what=f"{t.one} {phrase(conds, ctx.style)}")
    for row in rows:
        if row[column.name] != json_value(value):
            ctx.call(t.tools["update"], {**key_args(t, row), column.name: json_value(value)})
    ctx.goal(
        f"every matching {t.one} has the new {t.words(column.name)}",
        f"SELECT count(*) AS n FROM {t.ref} WHERE {where} AND {q(column.name)} IS DISTINCT FROM ?",
        [*params, value],
    )
    if changing >= 50:
        ctx.difficulty = "hard"


@recipe(
    capabilities=("multi_condition_filtering", "full_data_acquisition", "precise_boundary_judgment"),
    difficulty="hard",
)
def bulk_delete_filter(ctx: RecipeContext) -> None:
    """Delete every row matching two conditions (none of them still needed by other rows)."""
    options = [t for t in tables_with(ctx, "search", "delete") if t.key and filterable(ctx, t)]
    if not options:
        raise Skip("no table with search and delete tools")
    t = ctx.choice(options)
    blocks = refusing(ctx, t)
    free = " AND ".join(f"NOT {b}" for b in blocks) or "TRUE"
    conds = _conditions(ctx, t, free)
    where, params = sql_of(conds)
    ctx.say(
        [
            "Delete every {one} {cond}.",
            "Please remove all {many} {conds}.",
            "Get rid of the {many} {conds} - all of them.",
        ],
        one=t.one,
        many=t.many,
        cond=phrase(conds, ctx.style),
        conds=phrase(conds, ctx.style, plural=True),
    )
    rows = find_all(ctx, t, [c.filter() for c in conds], what=f"{t.one} {phrase(conds, ctx.style)}")
    for row in rows:
        ctx.call(t.tools["delete"], key_args(t, row))
    ctx.goal(f"no {t.one} matches any more", f"SELECT count(*) AS n FROM {t.ref} WHERE {where}", params)


def _child_links(ctx: RecipeContext, *ops: str) -> list[tuple[TableFacts, TableFacts, str, str]]:
    """(parent, child, child's foreign key column, parent's column) for single-column foreign keys from a
    table with `ops` tools to a named table with search tools."""
    facts = {t.table.name.lower(): t for t in tables_with(ctx)}
    out = []
    for child in tables_with(ctx, "search", *ops):
        for fk in child.table.foreign_keys:
            parent = facts.get(fk.ref_table.lower())
            if len(fk.columns) == 1 and parent is not None and parent.name and "search" in parent.tools:
                out.append((parent, child, fk.columns[0], fk.ref_columns[0]))
    return out


def _parent_with(
    ctx: RecipeContext,
    parent: TableFacts,
    child: TableFacts,
    fk: str,
    ref: str,
    extra: str = "TRUE",
    low: int = 2,
) -> dict[str, Any]:
    """A uniquely named parent row with `low`..MOST children (all satisfying `extra`)."""
    assert parent.name is not None
    held = read_as(q(fk), key_cast(child.table.column(fk).type, parent.table.column(ref).type))
    sql = (
        f"SELECT p.* FROM {parent.ref} p JOIN (SELECT {held} AS k, count(*) AS n, "
        f"count(*) FILTER (WHERE {extra}) "
        f"AS ok FROM {child.ref} r GROUP BY 1) c ON c.k = p.{q(ref)} WHERE c.n BETWEEN {low} AND {MOST} "
        f"AND c.ok = c.n AND {uniquely_named(parent, 'p')}"
    )
    row = ctx.pick(sql, what=f"{parent.one} with {low} to {MOST} {child.many}")
    refer_by_name(ctx, parent, row)
    return row


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def delete_children(ctx: RecipeContext) -> None:
    """Delete every child row of a parent named by its name (found first, then paged through)."""
    links = [link for link in _child_links(ctx, "delete") if link[1].key]
    if not links:
        raise Skip("no parent and child tables")
    parent, child, fk, ref = ctx.choice(links)
    assert parent.name is not None
    blocks = refusing(ctx, child)
    row = _parent_with(ctx, parent, child, fk, ref, " AND ".join(f"NOT {b}" for b in blocks) or "TRUE")
    ctx.say(
        [
            "Delete every {child} of the {one} {name:q}.",
            "Remove all {children} of the {one} {name:q}.",
            "The {one} {name:q} should have no {children} left; delete them all.",
        ],
        one=parent.one,
        child=child.one,
        children=child.many,
        name=row[parent.name],
    )
    found = find_by_name(ctx, parent, row[parent.name])
    rows = find_all(ctx, child, [{"column": fk, "op": "eq", "value": found[ref]}], what=f"{child.one} of it")
    for item in rows:
        ctx.call(child.tools["delete"], key_args(child, item))
    ctx.goal(
        f"the {parent.one} has no {child.many}",
        f"SELECT count(*) AS n FROM {child.ref} WHERE {q(fk)} = ?",
        [row[ref]],
    )
    if len(rows) >= 50:
        ctx.difficulty = "hard"


@recipe(capabilities=("full_data_acquisition", "cross_step_dependency"), difficulty="medium")
def reassign_children(ctx: RecipeContext) -> None:
    """Move every child row of one named parent to another named parent."""
    links = [
        (p, c, fk, ref)
        for p, c, fk, ref in _child_links(ctx, "update")
        if c.key and fk.lower() not in {k.lower() for k in c.key}
    ]
    if not links:
        raise Skip("no movable child rows")
    parent, child, fk, ref = ctx.choice(links)
    assert parent.name is not None
    source = _parent_with(ctx, parent, child, fk, ref)
    target = named_row(
        ctx, parent, f"{q(parent.name)} <> ?", [source[parent.name]], what=f"another {parent.one}"
    )
    ctx.say(
        [
            "Move every {child} of the {one} {a:q} to the {one} {b:q}.",
            "All {children} of the {one} {a:q} should belong to the {one} {b:q} instead; please move them.",
            "Reassign the {children} of the {one} {a:q} to the {one} {b:q}, all of them.",
        ],
        one=parent.one,
        child=child.one,
        children=child.many,
        a=source[parent.name],
        b=target[parent.name],
    )
    old = find_by_name(ctx, parent, source[parent.name])
    new = find_by_name(ctx, parent, target[parent.name])
    rows = find_all(
        ctx, child, [{"column": fk, "op": "eq", "value": old[ref]}], what=f"{child.one} of the first"
    )
    for item in rows:
        ctx.call(child.tools["update"], {**key_args(child, item), fk: new[ref]})
    ctx.goal(
        f"{child.many} left the first {parent.one}",
        f"SELECT count(*) AS n FROM {child.ref} WHERE {q(fk)} = ?",
        [source[ref]],
    )
    ctx.goal(
        f"{child.many} joined the second {parent.one}",
        f"SELECT count(*) AS n FROM {child.ref} WHERE {q(fk)} = ?",
        [target[ref]],
    )


@recipe(capabilities=("aggregation_computation", "full_data_acquisition"), difficulty="hard")
def shift_numbers(ctx: RecipeContext) -> None:
    """Raise (or lower) a number by a stated amount on every row matching a condition."""
    options = [
        (t, c)
        for t in tables_with(ctx, "search", "update")
        if t.key
        for c in t.settable()
        if kind(c) in ("integer", "number")
        and not c.allowed_values
        and reads_as_quantity(t.words(c.name))
        and not any(c.name.lower() in [x.lower() for x in u] for u in t.table.unique)
    ]
    if not options:
        raise Skip("no quantity to change")
    t, column = ctx.choice(options)
    used = {column.name.lower()}
    makers = [m for m, ok in ((equality, few_valued(ctx, t)), (threshold, threshold_columns(t))) if ok]
    cond = ctx.choice(makers)(ctx, t, exclude=used) if makers else None
    if cond is None:
        raise Skip("nothing to filter on")
    if cond.op != "eq":
        ctx.also("precise_boundary_judgment")
    where, params = sql_of([cond])
    count = ctx.scalar(f"SELECT count(*) FROM {t.ref} WHERE {where} AND {q(column.name)} IS NOT NULL", params)
    if not 2 <= (count or 0) <= MOST:
        raise Skip("filter of the wrong size")
    step = ctx.choice([1, 2, 5, 10]) * ctx.choice([1, 1, -1])
    amount = Decimal(step) if kind(column) == "number" and column.scale else step
    ctx.say(
        [
            "{verb} the {col} of every {one} {cond} by {amount}.",
            "For all {many} {conds}, {verb_lower} the {col} by {amount}.",
        ],
        verb="Increase" if step > 0 else "Decrease",
        verb_lower="increase" if step > 0 else "decrease",
        one=t.one,
        many=t.many,
        col=t.words(column.name),
        amount=abs(amount),
        cond=phrase([cond], ctx.style),
        conds=phrase([cond], ctx.style, plural=True),
    )
    rows = find_all(ctx, t, [cond.filter()], what=f"{t.one} {phrase([cond], ctx.style)}")
    news = []
    for row in rows:
        old = row[column.name]
        if old is None:
            continue
        new = (
            Decimal(str(old)) + amount
            if isinstance(amount, Decimal)
            else (old + step if isinstance(old, int) else round(float(old) + step, 10))
        )
        news.append(json_value(new))
        ctx.call(t.tools["update"], {**key_args(t, row), column.name: json_value(new)})
    ctx.derived(news, f"each {t.words(column.name)} {'plus' if step > 0 else 'minus'} {abs(step)}")
    ctx.goal(
        f"the {t.words(column.name)}s are shifted",
        f"SELECT sum({q(column.name)}) AS total FROM {t.ref} WHERE {where}",
        params,
    )
