"""Generic recipes across a foreign key: add a child row under a named parent, update the parent with the
most children, store a count of children in the parent."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.bulk import MOST, _child_links
from stateforge.tasks.generic.facts import (
    TableFacts,
    article,
    derive_yes_no,
    find_all,
    find_by_name,
    key_args,
    kind,
    named_row,
    new_text,
    new_uuid,
    refer_by_name,
    shown_value,
    uniquely_named,
    varying_default,
    words,
)
from stateforge.tasks.generic.names import counts_children, identifying
from stateforge.tasks.recipes import Skip, recipe
from stateforge.tools.context import SchemaIndex
from stateforge.values import json_value

q = quote_ident
SCANNED = 2000
"""The most child rows a recipe asks the solver to page through to count them (20 pages)."""
COUNTED = 30
"""The most parents a recipe asks the solver to count children of one search each (when there are more
child rows than `SCANNED`)."""
CHANGED = 40
"""The most parents one aggregation task updates (one call each with the generic toolkit)."""


def _fresh_number(ctx: RecipeContext, t: TableFacts, column: str, within: tuple[str, Any] | None) -> int:
    where, params = ("TRUE", []) if within is None else (f"{q(within[0])} = ?", [within[1]])
    top = ctx.scalar(f"SELECT max({q(column)}) FROM {t.ref} WHERE {where}", params)
    return int(top or 0) + 1


def _values(
    ctx: RecipeContext, child: TableFacts, fk: str, parent_key: Any
) -> tuple[dict[str, Any], list[str]]:
    """Values for the required columns of a new child row (from an existing row, fresh where unique), and
    the columns whose values the solver cannot be told (UUIDs: compared loosely)."""
    table = child.table
    allocated = SchemaIndex(Schema(tables=[table])).allocated_key(table)
    template = ctx.pick(f"SELECT * FROM {child.ref}", what=child.one)
    pk = {c.lower() for c in table.primary_key}
    singles = {u[0].lower() for u in table.unique_keys if len(u) == 1}
    values: dict[str, Any] = {}
    loose: list[str] = []
    for col in table.columns:
        name = col.name
        if col.identity or col.generated is not None or name == allocated or name.lower() == fk.lower():
            continue
        required = (not col.nullable and col.default is None) or varying_default(col)
        if not required and name.lower() not in pk and name != child.name:
            continue
        if name.lower() in child.fk_columns:
            raise Skip("another required reference")
        if kind(col) == "uuid":
            values[name], _ = new_uuid(ctx), loose.append(name)
            continue
        value = template[name]
        if value is None and varying_default(col):
            value = ctx.now.replace(second=0, microsecond=0) if kind(col) == "temporal" else None
        if name.lower() in singles or name.lower() in pk or name == child.name:
            if kind(col) == "text":
                value = new_text(ctx, child, name, str(value))
            elif kind(col) == "integer":
                value = _fresh_number(ctx, child, name, (fk, parent_key) if fk.lower() in pk else None)
            else:
                raise Skip("a unique value of another type")
        if isinstance(value, dt.datetime):
            value = value.replace(second=0, microsecond=0)
        if isinstance(value, float):
            value = round(value, 2)
        if value is None or kind(col) in ("list", "other") or isinstance(value, dict):
            raise Skip("a required value users do not type")
        values[name] = value
    return values, loose


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def create_child(ctx: RecipeContext) -> None:
    """Add a row under a parent named by its name, every required value stated (a taken unique value is
    the infeasible variant)."""
    links = [link for link in _child_links(ctx, "create")]
    if not links:
        raise Skip("no parent and child tables")
    parent, child, fk, ref = ctx.choice(links)
    assert parent.name is not None
    row = named_row(ctx, parent)
    values, loose = _values(ctx, child, fk, row[ref])
    stated = [c for c in values if c not in loose]
    fields = {f"v{i}": values[c] for i, c in enumerate(stated)}
    pairs = ", ".join(
        f"{child.words(c)} {{v{i}:q}}" if isinstance(values[c], str) else f"{child.words(c)} {{v{i}}}"
        for i, c in enumerate(stated)
    )
    with_values = f" with {pairs}" if pairs else ""
    role = words(re.sub(r"_(id|no|code|key)$", "", fk, flags=re.I) or fk)
    if role == parent.one and parent.table is not child.table:
        phrasings = [
            f"Add {article(child.one)} to the {{one}} {{parent:q}}{with_values}.",
            f"Please create {article(child.one)} for the {{one}} {{parent:q}}{with_values}.",
            f"The {{one}} {{parent:q}} needs a new {child.one}{with_values}.",
        ]
    else:
        phrasings = [
            f"Add {article(child.one)} whose {role} is the {{one}} {{parent:q}}{with_values}.",
            f"Please create {article(child.one)} with the {{one}} {{parent:q}} as its {role}"
            f"{with_values.replace(' with ', ', and with ', 1)}.",
        ]
    ctx.say(phrasings, one=parent.one, parent=row[parent.name], **fields)
    for column in loose:
        ctx.policy(f"{child.table.name}.{column}", "any_non_null")
    found = find_by_name(ctx, parent, row[parent.name])
    ctx.call(child.tools["create"], {fk: found[ref], **{c: json_value(v) for c, v in values.items()}})
    checked = [c for c in stated if kind(child.column(c)) in ("text", "integer")][:2]
    where = " AND ".join([f"{q(fk)} = ?", *(f"{q(c)} = ?" for c in checked)])
    ctx.goal(
        f"the new {child.one} is there",
        f"SELECT count(*) AS n FROM {child.ref} WHERE {where}",
        [row[ref], *(values[c] for c in checked)],
    )
    unique_text = [
        c
        for c in stated
        if isinstance(values[c], str)
        and any(len(u) == 1 and u[0].lower() == c.lower() for u in child.table.unique_keys)
    ]
    if unique_text:
        column = unique_text[0]
        taken = ctx.scalar(f"SELECT min({q(column)}) FROM {child.ref}")
        if taken is not None:
            ctx.infeasible(
                "forbidden",
                swap={values[column]: taken},
                because=f"another {child.one} already has {child.words(column)} {taken!r}, "
                "and it must be unique",
            )


def _parent_targets(t: TableFacts) -> list[Any]:
    unique = {c.lower() for u in t.table.unique_keys for c in u}
    return [
        c
        for c in t.settable()
        if c.name != t.name
        and c.name.lower() not in unique
        and (c.allowed_values or kind(c) in ("bool", "integer", "number"))
        and not (kind(c) in ("integer", "number") and identifying(t.words(c.name)))
    ]


def _target_value(ctx: RecipeContext, t: TableFacts, column: Any, current: Any) -> Any:
    """Another value for `column`: of its fixed set, the other boolean, or one the column already holds."""
    if kind(column) == "bool":
        return not current if current is not None else True
    if column.allowed_values:
        return ctx.choice(
            sorted({v for v in column.allowed_values if v is not None and v != current}, key=str)
        )
    value = ctx.scalar(
        f"SELECT {q(column.name)} FROM {t.ref} WHERE {q(column.name)} IS DISTINCT FROM ? "
        f"AND {q(column.name)} IS NOT NULL GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET ?",
        [current, ctx.rng.randrange(5)],
    )
    if value is None:
        raise Skip("no other value")
    return round(value, 2) if isinstance(value, float) else value


def _aggregation_links(ctx: RecipeContext) -> list[tuple[TableFacts, TableFacts, str, str]]:
    """Parent and child tables whose children the solver can count: every child row in at most
    `SCANNED` rows, or one count per parent for at most `COUNTED` parents."""
    out = []
    for parent, child, fk, ref in _child_links(ctx):
        if not ("update" in parent.tools and parent.key and _parent_targets(parent)):
            continue
        children = ctx.scalar(f"SELECT count(*) FROM {child.ref}")
        parents = ctx.scalar(f"SELECT count(*) FROM {parent.ref}")
        if children and (children <= SCANNED or parents <= COUNTED):
            out.append((parent, child, fk, ref))
    return out


def count_children(
    ctx: RecipeContext, parent: TableFacts, child: TableFacts, fk: str, ref: str
) -> dict[Any, int]:
    """How many children each parent has, counted through the tools as the solver would (recorded reads):
    every child row page by page when there are few, else every parent then one count search each."""
    if ctx.scalar(f"SELECT count(*) FROM {child.ref}") <= SCANNED:
        rows = find_all(ctx, child, [], what=f"{child.one}, to count them per {parent.one}")
        counts: dict[Any, int] = {}
        for row in rows:
            if row[fk] is not None:
                counts[row[fk]] = counts.get(row[fk], 0) + 1
        return counts
    parents = find_all(ctx, parent, [], what=parent.one)
    counts = {}
    for row in parents:
        found = ctx.read(
            child.tools["search"], {"filters": [{"column": fk, "op": "eq", "value": row[ref]}], "limit": 1}
        )
        counts[row[ref]] = found["total"]
    return counts


def _per_parent_sql(child: TableFacts, fk: str) -> str:
    return (
        f"SELECT {q(fk)} AS k, count(*) AS n FROM {child.ref} "
        f"WHERE {q(fk)} IS NOT NULL GROUP BY 1"
    )


@recipe(capabilities=("aggregation_computation", "full_data_acquisition"), difficulty="hard")
def top_parent_update(ctx: RecipeContext) -> None:
    """Find the parent with the most child rows (by counting them through the tools) and set a value on it."""
    links = _aggregation_links(ctx)
    if not links:
        raise Skip("no parent whose children can be counted")
    parent, child, fk, ref = ctx.choice(links)
    counts = _per_parent_sql(child, fk)
    top = ctx.sql(f"SELECT k, n FROM ({counts}) c ORDER BY n DESC, k LIMIT 2")
    if not top or (len(top) > 1 and top[0]["n"] == top[1]["n"]):
        raise Skip("no single parent with the most children")
    ctx.refer(
        f"the {parent.one} with the most {child.many}",
        f"SELECT count(*) FROM ({counts}) c WHERE c.n = (SELECT max(n) FROM ({counts}) m)",
    )
    row = ctx.one(f"SELECT * FROM {parent.ref} WHERE {q(ref)} = ?", [top[0]["k"]])
    if row is None:
        raise Skip("the top parent is missing")
    column = ctx.choice(_parent_targets(parent))
    value = _target_value(ctx, parent, column, row[column.name])
    shown = shown_value(ctx, value)
    ctx.say(
        [
            "Find the {one} with the most {children} and set its {col} to {value}.",
            "Whichever {one} has the most {children} should get {col} {value}; please set it.",
            "Count the {children} of each {one}; the {one} with the most of them gets {col} {value}.",
        ],
        one=parent.one,
        children=child.many,
        col=parent.words(column.name),
        value=shown,
    )
    derive_yes_no(ctx, column, value, shown)
    tally = count_children(ctx, parent, child, fk, ref)
    winner = max(tally, key=lambda k: tally[k])
    key = {parent.column(c).name: json_value(row[parent.column(c).name]) for c in parent.key}
    if "get" in parent.tools:
        ctx.read(
            parent.tools["get"],
            key,
            step=f"Look up the {parent.one} with the most {child.many} ({tally[winner]})",
        )
    ctx.call(parent.tools["update"], {**key, column.name: json_value(value)})
    ctx.goal(
        f"the top {parent.one} has the new {parent.words(column.name)}",
        f"SELECT {q(column.name)} AS value FROM {parent.ref} WHERE {q(ref)} = ?",
        [top[0]["k"]],
    )


AT_LEAST = {
    "ge": ("at least", ">="),
    "gt": ("more than", ">"),
    "le": ("at most", "<="),
    "lt": ("fewer than", "<"),
}


@recipe(
    capabilities=("aggregation_computation", "precise_boundary_judgment", "full_data_acquisition"),
    difficulty="hard",
)
def busy_parents_update(ctx: RecipeContext) -> None:
    """Set a value on every parent with at least / more than / at most / fewer than N children, where some
    parent has exactly N (so the boundary matters)."""
    links = _aggregation_links(ctx)
    if not links:
        raise Skip("no parent whose children can be counted")
    parent, child, fk, ref = ctx.choice(links)
    column = ctx.choice(_parent_targets(parent))
    value = _target_value(ctx, parent, column, None)
    counts = (
        f"SELECT p.{q(ref)} AS k, p.{q(column.name)} AS v, coalesce(c.n, 0) AS n FROM {parent.ref} p "
        f"LEFT JOIN ({_per_parent_sql(child, fk)}) c ON c.k = p.{q(ref)}"
    )
    level = ctx.pick(
        f"SELECT n FROM ({counts}) t WHERE n > 0 GROUP BY n HAVING count(*) >= 1", what="child count"
    )["n"]
    op = ctx.choice(sorted(AT_LEAST))
    words_, sql_op = AT_LEAST[op]
    changing = ctx.sql(
        f"SELECT k FROM ({counts}) t WHERE n {sql_op} ? AND v IS DISTINCT FROM ? ORDER BY k", [level, value]
    )
    if not 2 <= len(changing) <= CHANGED:
        raise Skip("threshold of the wrong size")
    shown = shown_value(ctx, value)
    ctx.say(
        [
            "Every {one} with {cmp} {level} {children} should have {col} {value}; please update them.",
            "Set the {col} to {value} for each {one} that has {cmp} {level} {children}.",
        ],
        one=parent.one,
        children=child.one if level == 1 else child.many,
        col=parent.words(column.name),
        value=shown,
        cmp=words_,
        level=level,
    )
    derive_yes_no(ctx, column, value, shown)
    tally = count_children(ctx, parent, child, fk, ref)
    check = {
        "ge": lambda n: n >= level,
        "gt": lambda n: n > level,
        "le": lambda n: n <= level,
        "lt": lambda n: n < level,
    }[op]
    for k in [r["k"] for r in changing]:
        if not check(tally.get(json_value(k), 0)):
            raise Skip("the tools count differently")  # the base and the tools disagree: no task
        row = ctx.one(f"SELECT * FROM {parent.ref} WHERE {q(ref)} = ?", [k])
        ctx.call(parent.tools["update"], {**key_args(parent, row), column.name: json_value(value)})
    ctx.goal(
        f"every such {parent.one} has the new {parent.words(column.name)}",
        f"SELECT count(*) AS n FROM ({counts}) t WHERE n {sql_op} ? AND v IS DISTINCT FROM ?",
        [level, value],
    )


def _count_columns(t: TableFacts, child: TableFacts) -> list[Any]:
    """The integer columns of `t` whose words say they count `child` rows (`track count`)."""
    singles = {u[0].lower() for u in t.table.unique_keys if len(u) == 1}
    return [
        c
        for c in t.settable()
        if kind(c) == "integer"
        and not c.allowed_values
        and c.name.lower() not in singles
        and counts_children(t.words(c.name), child.many)
    ]


@recipe(
    capabilities=("aggregation_computation", "cross_step_dependency", "full_data_acquisition"),
    difficulty="medium",
)
def count_into_parent(ctx: RecipeContext) -> None:
    """Store in a parent's number column how many child rows it has (counted through the tools)."""
    links = [
        (p, c, fk, ref) for p, c, fk, ref in _child_links(ctx) if "update" in p.tools and _count_columns(p, c)
    ]
    if not links:
        raise Skip("no parent with a number column")
    parent, child, fk, ref = ctx.choice(links)
    assert parent.name is not None
    column = ctx.choice(_count_columns(parent, child))
    row = ctx.pick(
        f"SELECT p.*, c.n AS sf_children FROM {parent.ref} p JOIN (SELECT {q(fk)} AS k, count(*) AS n FROM "
        f"{child.ref} GROUP BY 1) c ON c.k = p.{q(ref)} WHERE c.n BETWEEN 1 AND {MOST} AND "
        f"p.{q(column.name)} IS DISTINCT FROM c.n AND {uniquely_named(parent, 'p')}",
        what=f"{parent.one} with {child.many}",
    )
    refer_by_name(ctx, parent, row)
    ctx.say(
        [
            "Set the {col} of the {one} {name:q} to the number of {children} it has.",
            "Count the {children} of the {one} {name:q} and store that number as its {col}.",
            "The {col} of the {one} {name:q} should equal how many {children} it has; please update it.",
        ],
        one=parent.one,
        children=child.many,
        col=parent.words(column.name),
        name=row[parent.name],
    )
    found = find_by_name(ctx, parent, row[parent.name])
    rows = find_all(ctx, child, [{"column": fk, "op": "eq", "value": found[ref]}], what=f"{child.one} of it")
    count = ctx.derived(len(rows), f"the number of {child.many} of {row[parent.name]!r}")
    ctx.call(parent.tools["update"], {**key_args(parent, found), column.name: count})
    ctx.goal(
        f"the {parent.words(column.name)} holds the count",
        f"SELECT {q(column.name)} AS value FROM {parent.ref} WHERE {q(parent.name)} = ?",
        [row[parent.name]],
    )
