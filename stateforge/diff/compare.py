"""Grade an actual diff against an expected one (both from the same base): `compare(...) -> Verdict`.

    verdict = compare(task_diff, episode_diff, schema=schema, policy=task_policy.over(domain_policy),
                      labels=db_labeler(base_path, schema))
    verdict.passed, verdict.explain()

- Inserted rows are paired by content (`inserts.py`, `pairing.py`), tables in foreign-key order so that
  parents are paired before their children. Values an episode allocates (identity columns, a one-column
  integer primary key: `keys.surrogate_columns`) are not compared; a foreign key that points to a row the
  diff inserted is compared through the pairing (the expected parent's partner must be the actual
  parent), in inserts and updates alike. A reference that closes a cycle through other tables is checked
  once every table is paired.
- Deleted rows are matched by key (whole rows for a table without one); updated rows by key, column by
  column, through the policy's rules.
- Every mismatch is a sentence ("playlist_songs: expected insert (playlist 'Road Trip', song 'Hour',
  position 3) is missing") and a record (kind, table, key, column, expected, actual).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from stateforge.diff.grading import Grading
from stateforge.diff.inserts import check_inserts, colors, pair_inserts
from stateforge.diff.keys import table_key
from stateforge.diff.labels import Labeler, label_of
from stateforge.diff.model import Diff, RowUpdate
from stateforge.diff.phrases import changes_phrase, key_phrase, quoted, row_phrase
from stateforge.diff.policy import Policy
from stateforge.diff.sides import ACTUAL, EXPECTED
from stateforge.diff.verdict import Verdict
from stateforge.schema.model import Schema, Table
from stateforge.values import dumps


def compare(
    expected: Diff,
    actual: Diff,
    *,
    schema: Schema,
    policy: Policy | None = None,
    labels: Labeler | None = None,
) -> Verdict:
    """Grade `actual` against `expected` (two diffs from the same base) under `policy` (default: exact).

    `labels(table, key)` names base rows in messages (see `db_labeler`); rows a diff inserts are named from
    their own values. `DiffError` when a diff names a table or column the schema does not have, or the
    policy does.
    """
    g = Grading(expected, actual, schema, policy or Policy(), labels)
    hints = {name: colors(g, side) for name, side in g.sides.items()}
    for name in g.order:
        pair_inserts(g, schema.table(name), hints)
    touched = {t for side in g.sides.values() for t in (*side.inserted, *side.deleted, *side.updated)}
    for name in sorted(touched, key=lambda t: g.position.get(t, len(g.position))):
        table = schema.table(name)
        if name in g.pairings:
            check_inserts(g, table)
        check_deletes(g, table)
        check_updates(g, table)
    return Verdict(passed=not g.mismatches, mismatches=g.mismatches)


def check_deletes(g: Grading, table: Table) -> None:
    """Record deletes one side has and the other not: by key, or whole rows for a table without one."""
    key = table_key(table)
    exp, act = (g.sides[s].deleted.get(table.name, []) for s in (EXPECTED, ACTUAL))

    def ident(row: dict[str, Any]) -> str:
        return dumps([row.get(k) for k in key] if key else row)

    missing = Counter(ident(r) for r in exp) - Counter(ident(r) for r in act)
    unexpected = Counter(ident(r) for r in act) - Counter(ident(r) for r in exp)
    for kind, rows, left in (("missing_delete", exp, missing), ("unexpected_delete", act, unexpected)):
        for row in rows:
            if left[ident(row)] <= 0:
                continue
            left[ident(row)] -= 1
            what = row_name(g, table, row, key)
            if kind == "missing_delete":
                text, side = f"expected delete of {what} is missing", "expected"
            else:
                text, side = f"unexpected delete of {what}", "actual"
            g.add(kind, table, text, key={k: row.get(k) for k in key} if key else None, **{side: row})


def row_name(g: Grading, table: Table, row: dict[str, Any], key: tuple[str, ...] | None) -> str:
    """`users 42 ('mike_w')`, `playlist_songs (playlist 'Road Trip', song 'Hour')`, or the whole row."""
    base = g.ref_label(g.sides[EXPECTED])
    if not key:
        return f"{table.name} {row_phrase(table, row, table.column_names, base)}"
    phrase = key_phrase(table, {k: row.get(k) for k in key}, base)
    label = label_of(table, row)
    return f"{table.name} {phrase}" + (f" ({quoted(label)})" if label and len(key) == 1 else "")


def check_updates(g: Grading, table: Table) -> None:
    """Record the updated rows of `table` that differ, matched by key, column by column."""
    exp = {dumps(u.key): u for u in g.sides[EXPECTED].updated.get(table.name, [])}
    act = {dumps(u.key): u for u in g.sides[ACTUAL].updated.get(table.name, [])}
    for ident in [*exp, *(k for k in act if k not in exp)]:
        check_update(g, table, exp.get(ident), act.get(ident))


def check_update(g: Grading, table: Table, e: RowUpdate | None, a: RowUpdate | None) -> None:
    """One row updated by either side. A column only one side changed keeps its base value on the other
    (its old value, which both diffs share)."""
    key = (e or a).key
    names = {**(e.changes if e else {}), **(a.changes if a else {})}
    columns = [c.name for c in table.columns if c.name in names]
    base = {c: (e.changes[c][0] if e and c in e.changes else a.changes[c][0]) for c in columns}
    e_new = {c: e.changes[c][1] if e and c in e.changes else base[c] for c in columns}
    a_new = {c: a.changes[c][1] if a and c in a.changes else base[c] for c in columns}
    rules = {c: r for c in columns if (r := g.policy.rule(table.name, c)).rule != "ignore"}
    exp, act = g.sides[EXPECTED], g.sides[ACTUAL]
    e_cells, a_cells = g.cells(exp, table, e_new, rules), g.cells(act, table, a_new, rules)
    differ = [c for c in rules if not rules[c].matches(e_cells.get(c), a_cells.get(c))]
    if not differ:
        return
    where = f"{table.name} {key_phrase(table, key, g.ref_label(exp))}"
    label = g.labels(table.name, key) if g.labels is not None and len(key) == 1 else None
    named = where + (f" ({quoted(label)})" if label else "")
    if e and a:
        for c in differ:
            expected, got = g.cell_text(exp, table, c, e_new), g.cell_text(act, table, c, a_new)
            g.add("update_value", table, f"{where}.{c}: expected {expected}, got {got}",
                  key=key, column=c, expected=e_new[c], actual=a_new[c])
    elif e:
        wanted = changes_phrase(table, {c: (base[c], e_new[c]) for c in differ})
        g.add("missing_update", table, f"expected update of {named} is missing ({wanted})",
              key=key, expected={c: e_new[c] for c in differ}, actual={c: base[c] for c in differ})
    else:
        made = changes_phrase(table, {c: (base[c], a_new[c]) for c in differ})
        g.add("unexpected_update", table, f"unexpected update of {named} ({made})",
              key=key, expected={c: base[c] for c in differ}, actual={c: a_new[c] for c in differ})
