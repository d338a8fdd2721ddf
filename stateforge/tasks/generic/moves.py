"""Generic recipes on one row and its foreign keys: move a named child to another named parent, delete a
named parent whose children the schema's ON DELETE CASCADE / SET NULL takes along."""

from __future__ import annotations

from stateforge.store.sql import fk_match_sql, quote_ident, table_ref
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.generic.bulk import _child_links
from stateforge.tasks.generic.facts import find_by_name, key_args, named_row, table_facts, tables_with
from stateforge.tasks.recipes import Skip, recipe

q = quote_ident


@recipe(capabilities=("cross_step_dependency",), difficulty="medium")
def move_child(ctx: RecipeContext) -> None:
    """Move one child row, named by its name, under another parent named by its name (both looked up)."""
    links = [
        (p, c, fk, ref)
        for p, c, fk, ref in _child_links(ctx, "update")
        if c.key and c.name and p.table is not c.table and fk.lower() not in {k.lower() for k in c.key}
    ]
    if not links:
        raise Skip("no named child to move")
    parent, child, fk, ref = ctx.choice(links)
    assert parent.name is not None and child.name is not None
    row = named_row(ctx, child, f"r.{q(fk)} IS NOT NULL", what=f"{child.one} with a {parent.one}")
    target = named_row(
        ctx, parent, f"r.{q(ref)} IS DISTINCT FROM ?", [row[fk]], what=f"another {parent.one}"
    )
    ctx.say(
        [
            "Move the {child} {name:q} to the {one} {to:q}.",
            "The {child} {name:q} should belong to the {one} {to:q} from now on.",
            "Please put the {child} {name:q} under the {one} {to:q}.",
        ],
        child=child.one,
        one=parent.one,
        name=row[child.name],
        to=target[parent.name],
    )
    found = find_by_name(ctx, child, row[child.name])
    new = find_by_name(ctx, parent, target[parent.name])
    ctx.call(child.tools["update"], {**key_args(child, found), fk: new[ref]})
    ctx.goal(
        f"the {child.one} is under the new {parent.one}",
        f"SELECT count(*) AS n FROM {child.ref} WHERE {q(child.name)} = ? AND {q(fk)} = ?",
        [row[child.name], target[ref]],
    )


@recipe(capabilities=("cross_step_dependency", "full_data_acquisition"), difficulty="medium")
def delete_with_dependents(ctx: RecipeContext) -> None:
    """Delete a named row that other rows refer to with ON DELETE CASCADE or SET NULL (the tool takes them
    along as the schema says); the instruction says what happens to them. A row that a RESTRICT / NO
    ACTION reference still holds is the refused variant."""
    facts = table_facts(ctx)
    options = []
    for t in tables_with(ctx, "search", "delete", named=True):
        follows, blocks = [], []
        for child in ctx.schema.tables:
            for fk in child.foreign_keys:
                if fk.ref_table.lower() != t.table.name.lower() or child.name.lower() not in facts:
                    continue
                match = fk_match_sql("c", child, fk, "r", t.table)
                exists = f"EXISTS (SELECT 1 FROM {table_ref(child)} c WHERE {match})"
                if fk.on_delete in ("CASCADE", "SET NULL"):
                    follows.append((facts[child.name.lower()], fk.on_delete, exists))
                elif fk.on_delete in ("RESTRICT", "NO ACTION"):
                    blocks.append(exists)
        if follows:
            options.append((t, follows, blocks))
    if not options:
        raise Skip("no ON DELETE CASCADE or SET NULL reference")
    t, follows, blocks = ctx.choice(options)
    assert t.name is not None
    child, action, exists = ctx.choice(follows)
    free = " AND ".join(f"NOT {b}" for b in blocks) or "TRUE"
    row = named_row(ctx, t, f"{exists} AND {free}", what=f"{t.one} with {child.many}")
    consequence = (
        f"its {child.many} go with it" if action == "CASCADE" else f"its {child.many} stay, with no {t.one}"
    )
    ctx.say(
        [
            "Delete the {one} {name:q}; {consequence}.",
            "Please remove the {one} {name:q} ({consequence}).",
        ],
        one=t.one,
        name=row[t.name],
        consequence=consequence,
    )
    found = find_by_name(ctx, t, row[t.name])
    ctx.call(t.tools["delete"], key_args(t, found))
    if action == "SET NULL":
        ctx.derived(None, f"the {child.many} keep no {t.one} (ON DELETE SET NULL)")
    ctx.goal(
        f"the {t.one} is gone", f"SELECT count(*) AS n FROM {t.ref} WHERE {q(t.name)} = ?", [row[t.name]]
    )
    if blocks:
        blocked = ctx.sql(
            f"SELECT * FROM {t.ref} r WHERE {exists} AND ({' OR '.join(blocks)}) ORDER BY ALL LIMIT 1"
        )
        if blocked and blocked[0][t.name] is not None:
            other = blocked[0]
            swap = {row[t.name]: other[t.name]}
            ctx.infeasible(
                "forbidden",
                swap=swap,
                because=f"other records still refer to the {t.one} {other[t.name]!r}, "
                "so it cannot be deleted",
            )
