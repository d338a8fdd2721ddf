"""Generic recipes that change one row, found by the text people name it by: rename it, set a choice, a
number or nothing, copy a value from another row, delete it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from stateforge.store.sql import fk_match_sql, quote_ident, table_ref
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.facts import (
    TableFacts,
    article,
    find_by_name,
    key_args,
    kind,
    named_row,
    new_text,
    pick_table,
    tables_with,
    uniquely_named,
)
from stateforge.tasks.generic.names import bookkeeping, identifying
from stateforge.tasks.recipes import Skip, recipe
from stateforge.values import json_value

q = quote_ident


def _update(ctx: RecipeContext, t: TableFacts, found: dict[str, Any], changes: dict[str, Any]) -> None:
    ctx.call(t.tools["update"], {**key_args(t, found), **{k: json_value(v) for k, v in changes.items()}})


def _set_by_name(ctx: RecipeContext, t: TableFacts, name: Any, column: Any, value: Any, done: str) -> None:
    """Find the row called `name`, set its `column` to `value` through the update tool, and expect the
    column to read `value` afterwards (the goal is "the <column> is <done>")."""
    assert t.name is not None
    _update(ctx, t, find_by_name(ctx, t, name), {column.name: value})
    ctx.goal(
        f"the {t.words(column.name)} is {done}",
        f"SELECT {q(column.name)} AS value FROM {t.ref} WHERE {q(t.name)} = ?",
        [name],
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def rename_row(ctx: RecipeContext) -> None:
    """Rename a row: find it by its name, give it a new one (a UNIQUE name collision is its infeasible
    variant)."""
    t = pick_table(ctx, "search", "update", named=True)
    assert t.name is not None
    if t.name.lower() in {c.lower() for c in t.key}:
        raise Skip("the name is the key")
    if set(t.words(t.name).split()) & {"email", "code", "sku", "number", "slug", "url", "path"}:
        raise Skip("the name is a code, not renamed with words")
    row = named_row(ctx, t)
    old = row[t.name]
    new = new_text(ctx, t, t.name, old)
    ctx.say(
        [
            "Rename the {one} {old:q} to {new:q}.",
            "Please change the {col} of the {one} {old:q} to {new:q}.",
            "The {one} called {old:q} should be called {new:q} from now on.",
        ],
        one=t.one,
        col=t.words(t.name),
        old=old,
        new=new,
    )
    _update(ctx, t, find_by_name(ctx, t, old), {t.name: new})
    ctx.goal(f"the {t.one} is renamed", f"SELECT count(*) AS n FROM {t.ref} WHERE {q(t.name)} = ?", [new])
    if any(u == (t.name,) for u in t.table.unique):
        other = ctx.scalar(f"SELECT min({q(t.name)}) FROM {t.ref} WHERE {q(t.name)} <> ?", [old])
        if other is not None:
            ctx.infeasible(
                "forbidden",
                swap={new: other},
                because=f"another {t.one} is already called {other!r}, and {t.words(t.name)}s are unique",
            )


def _choice_columns(t: TableFacts) -> list[Any]:
    return [
        c
        for c in t.settable()
        if c.allowed_values and len({v for v in c.allowed_values if v is not None}) > 1
    ]


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def set_choice(ctx: RecipeContext) -> None:
    """Set a column with a fixed set of values (a status, a plan) on a row found by its name."""
    t = ctx.choice([t for t in tables_with(ctx, "search", "update", named=True) if _choice_columns(t)])
    assert t.name is not None
    column = ctx.choice(_choice_columns(t))
    row = named_row(ctx, t, f"{q(column.name)} IS NOT NULL")
    value = ctx.choice(
        sorted({v for v in column.allowed_values if v is not None and v != row[column.name]}, key=str)
    )
    ctx.say(
        [
            "Set the {col} of the {one} {name:q} to {value:q}.",
            "Change the {col} of the {one} {name:q} to {value:q}, please.",
            "The {one} {name:q} should have {col} {value:q} from now on.",
        ],
        one=t.one,
        col=t.words(column.name),
        name=row[t.name],
        value=value,
    )
    _set_by_name(ctx, t, row[t.name], column, value, "set")


def _number_columns(t: TableFacts) -> list[Any]:
    unique = {c.lower() for u in t.table.unique for c in u}
    return [
        c
        for c in t.settable()
        if kind(c) in ("integer", "number")
        and c.name.lower() not in unique
        and not c.allowed_values
        and not identifying(t.words(c.name))
    ]


def _breaking(ctx: RecipeContext, t: TableFacts, column: Any, current: Any) -> Any:
    """A value of the column's type that one of its single-column CHECKs refuses, or None."""
    checks = [c for c in t.table.checks if [x.lower() for x in c.columns] == [column.name.lower()]]
    if not checks:
        return None
    top = ctx.scalar(f"SELECT max({q(column.name)}) FROM {t.ref}") or 0
    for candidate in (-1, 0, int(top) + 1, int(top) * 10 + 1000, 10**6):
        probe = " AND ".join(f"({c.sql})" for c in checks)
        ok = ctx.scalar(
            f"SELECT {probe} FROM (SELECT CAST(? AS {column.type}) AS {q(column.name)})", [candidate]
        )
        if ok is False and candidate != current:
            return candidate
    return None


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def set_number(ctx: RecipeContext) -> None:
    """Set a number on a row found by its name (a value its CHECK refuses is the infeasible variant)."""
    t = ctx.choice([t for t in tables_with(ctx, "search", "update", named=True) if _number_columns(t)])
    assert t.name is not None
    column = ctx.choice(_number_columns(t))
    row = named_row(ctx, t, f"{q(column.name)} IS NOT NULL")
    value = ctx.scalar(
        f"SELECT {q(column.name)} FROM {t.ref} WHERE {q(column.name)} IS NOT NULL AND {q(column.name)} <> ? "
        f"GROUP BY 1 ORDER BY 1 LIMIT 1 OFFSET ?",
        [row[column.name], ctx.rng.randrange(8)],
    )
    if value is None:
        raise Skip("no other value")
    if isinstance(value, float):
        value = round(value, 2)
    ctx.say(
        [
            "Set the {col} of the {one} {name:q} to {value}.",
            "Change the {col} of the {one} {name:q} to {value}.",
            "Please make the {col} of the {one} {name:q} {value}.",
        ],
        one=t.one,
        col=t.words(column.name),
        name=row[t.name],
        value=value,
    )
    _set_by_name(ctx, t, row[t.name], column, value, "set")
    bad = _breaking(ctx, t, column, row[column.name])
    if bad is not None:
        bigger = Decimal(str(bad)) > Decimal(str(value))
        ctx.infeasible(
            "capacity" if bigger else "forbidden",
            swap={value: bad},
            because=f"the {t.words(column.name)} of {article(t.one)} cannot be {bad}: "
            "a constraint of the service",
        )


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def clear_value(ctx: RecipeContext) -> None:
    """Clear an optional column of a row found by its name."""
    options = [
        (t, c)
        for t in tables_with(ctx, "search", "update", named=True)
        for c in t.settable()
        if c.nullable and c.name != t.name
    ]
    t, column = ctx.choice(options) if options else (None, None)
    if t is None:
        raise Skip("no optional column")
    assert t.name is not None
    present = f"{q(column.name)} IS NOT NULL"
    if kind(column) == "list":  # the diff cannot tell [] from NULL (both hash alike in DuckDB)
        present += f" AND len({q(column.name)}) > 0"
    row = named_row(ctx, t, present)
    ctx.say(
        [
            "Clear the {col} of the {one} {name:q}.",
            "Remove the {col} from the {one} {name:q}; leave it empty.",
            "The {one} {name:q} should have no {col} any more.",
        ],
        one=t.one,
        col=t.words(column.name),
        name=row[t.name],
    )
    _update(ctx, t, find_by_name(ctx, t, row[t.name]), {column.name: None})
    ctx.derived(None, f"clearing the {t.words(column.name)} leaves it empty (NULL)")
    ctx.goal(
        f"the {t.words(column.name)} is empty",
        f"SELECT count(*) AS n FROM {t.ref} WHERE {q(t.name)} = ? AND {q(column.name)} IS NULL",
        [row[t.name]],
    )


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def copy_value(ctx: RecipeContext) -> None:
    """Give one row the value another row has (the solver reads the second row first)."""
    options = [
        (t, c)
        for t in tables_with(ctx, "search", "update", named=True)
        for c in t.settable()
        if c.name != t.name
        and kind(c) in ("text", "integer", "number", "temporal")
        and not (kind(c) in ("integer", "number") and identifying(t.words(c.name)))
        and not bookkeeping(c.name)
        and not any(c.name.lower() in [x.lower() for x in u] for u in t.table.unique)
    ]
    if not options:
        raise Skip("no column to copy")
    t, column = ctx.choice(options)
    assert t.name is not None
    target = named_row(ctx, t, f"{q(column.name)} IS NOT NULL")
    source = named_row(
        ctx,
        t,
        f"{q(column.name)} IS NOT NULL AND {q(column.name)} IS DISTINCT FROM ? AND {q(t.name)} <> ?",
        [target[column.name], target[t.name]],
    )
    ctx.say(
        [
            "Give the {one} {a:q} the same {col} as the {one} {b:q}.",
            "Copy the {col} of the {one} {b:q} over to the {one} {a:q}.",
            "The {one} {a:q} should have the {col} that the {one} {b:q} has.",
        ],
        one=t.one,
        col=t.words(column.name),
        a=target[t.name],
        b=source[t.name],
    )
    shown = find_by_name(ctx, t, source[t.name])
    value = ctx.derived(shown[column.name], f"the {t.words(column.name)} of {source[t.name]!r}, read from it")
    _set_by_name(ctx, t, target[t.name], column, value, "copied")


def refusing(ctx: RecipeContext, t: TableFacts) -> list[str]:
    """SQL conditions (over alias r) that hold for rows of `t` no ON DELETE RESTRICT / NO ACTION blocks."""
    out = []
    for child in ctx.schema.tables:
        for fk in child.foreign_keys:
            if fk.ref_table.lower() != t.table.name.lower() or fk.on_delete not in ("RESTRICT", "NO ACTION"):
                continue
            match = fk_match_sql("c", child, fk, "r", t.table)
            out.append(f"EXISTS (SELECT 1 FROM {table_ref(child)} c WHERE {match})")
    return out


@recipe(capabilities=("cross_step_dependency",), difficulty="easy")
def delete_named(ctx: RecipeContext) -> None:
    """Delete a row found by its name (one that other rows still need is the infeasible variant)."""
    t = pick_table(ctx, "search", "delete", named=True)
    assert t.name is not None
    blocks = refusing(ctx, t)
    free = " AND ".join(f"NOT {b}" for b in blocks) or "TRUE"
    row = named_row(ctx, t, free, what=f"deletable {t.one}")
    ctx.say(
        [
            "Delete the {one} {name:q}.",
            "Please remove the {one} {name:q}.",
            "Get rid of the {one} called {name:q}.",
        ],
        one=t.one,
        name=row[t.name],
    )
    found = find_by_name(ctx, t, row[t.name])
    ctx.call(t.tools["delete"], key_args(t, found))
    ctx.goal(
        f"the {t.one} is gone", f"SELECT count(*) AS n FROM {t.ref} WHERE {q(t.name)} = ?", [row[t.name]]
    )
    if blocks:
        blocked = ctx.sql(
            f"SELECT * FROM {t.ref} r WHERE ({' OR '.join(blocks)}) AND {uniquely_named(t)} "
            "ORDER BY ALL LIMIT 1"
        )
        if blocked:
            other = blocked[0]
            swap = {row[t.name]: other[t.name]}
            swap |= {json_value(row[c]): json_value(other[c]) for c in t.key if row[c] != other[c]}
            ctx.infeasible(
                "forbidden",
                swap=swap,
                because=f"other records still refer to the {t.one} {other[t.name]!r}, "
                "so it cannot be deleted",
            )
