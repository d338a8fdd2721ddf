"""Inserted rows: paired by content (tables in foreign-key order), then checked pair by pair.

Values an episode allocates (identity columns, a one-column integer primary key) are not compared; a
foreign key that points to a new row is compared through the pairing of that row's table, which is paired
first. Rows of equal content are told apart by what they reference and what references them (`colors`),
so that an episode that inserted the same rows in another order pairs each child with the right parent.
"""

from __future__ import annotations

import hashlib
from typing import Any

from stateforge.diff.grading import Grading
from stateforge.diff.keys import table_key
from stateforge.diff.pairing import Pairing, pair_rows
from stateforge.diff.phrases import row_phrase
from stateforge.diff.policy import PAIRWISE
from stateforge.diff.sides import ACTUAL, EXPECTED, DiffSide
from stateforge.schema.model import ForeignKey, Table
from stateforge.values import dumps

COLOR_ROUNDS = 4
"""Rounds of color refinement that tell apart new rows of equal content (see `colors`)."""


def _digest(data: Any) -> str:
    return hashlib.sha1(dumps(data).encode()).hexdigest()


def colors(g: Grading, side: DiffSide) -> dict[str, list[str]]:
    """A color for every new row of `side`: equal colors for rows that look alike, down to what they
    reference and what references them (color refinement over the graph of new rows).

    Two new playlists with the same title differ by their songs: pairing rows of one color first keeps a
    renumbered episode's children with the right parent. Colors leave out what the pairing leaves out
    (allocated ids, ignored columns, tolerances), so that both sides color alike.
    """
    color: dict[tuple[str, int], str] = {}
    edges: dict[tuple[str, int], list[list[Any]]] = {}
    for name, rows in side.inserted.items():
        table = g.schema.table(name)
        rules = g.rules(table)
        shape = {c: r for c, r in rules.items() if r.rule not in PAIRWISE}
        for i, row in enumerate(rows):
            cells = g.cells(side, table, row, rules, pending="all")
            color[(name, i)] = _digest([name, [r.signature(cells.get(c)) for c, r in shape.items()]])
            for fk in table.foreign_keys:
                ref = g.schema.table(fk.ref_table)
                target = g.new_ref(side, ref, fk, [row.get(c) for c in fk.columns])
                if target is not None:
                    edges.setdefault((name, i), []).append(["to", list(fk.columns), (ref.name, target)])
                    edges.setdefault((ref.name, target), []).append(["from", list(fk.columns), (name, i)])
    for name, updates in side.updated.items():  # an updated row that now points at a new one
        table = g.schema.table(name)
        for update, fk in ((u, fk) for u in updates for fk in table.foreign_keys):
            if all(c in update.changes for c in fk.columns):
                ref = g.schema.table(fk.ref_table)
                target = g.new_ref(side, ref, fk, [update.changes[c][1] for c in fk.columns])
                if target is not None:
                    node = (ref.name, target)
                    color[node] = _digest([color[node], name, list(fk.columns), update.key])
    for _ in range(COLOR_ROUNDS):
        color = {
            node: _digest([own, sorted(dumps([d, cols, color[n]]) for d, cols, n in edges.get(node, []))])
            for node, own in color.items()
        }
    return {name: [color[(name, i)] for i in range(len(rows))] for name, rows in side.inserted.items()}


def pair_inserts(g: Grading, table: Table, hints: dict[str, dict[str, list[str]]]) -> None:
    """Pair the new rows of `table` into `g.pairings`, rows of one color (`hints`) first.

    A table that references itself is paired a generation at a time: rows whose new parents are paired
    already, compared through that pairing; what is left after, with such references pending.
    """
    exp, act = g.sides[EXPECTED], g.sides[ACTUAL]
    rows = (exp.inserted.get(table.name, []), act.inserted.get(table.name, []))
    colored = (hints[EXPECTED].get(table.name, []), hints[ACTUAL].get(table.name, []))
    pairing = g.pairings[table.name] = Pairing()
    left = (list(range(len(rows[0]))), list(range(len(rows[1]))))
    selfs = [fk for fk in table.foreign_keys if g.schema.table(fk.ref_table).name == table.name]
    while selfs and left[0] and left[1]:
        done = (set(pairing.pairs), set(pairing.pairs.values()))
        ready = (
            [i for i in left[0] if _parents_paired(g, exp, table, selfs, rows[0][i], done[0])],
            [j for j in left[1] if _parents_paired(g, act, table, selfs, rows[1][j], done[1])],
        )
        found = _pair_some(g, table, ready, colored, pending="cycles").pairs
        if not found:
            break
        pairing.pairs.update(found)
        left = ([i for i in left[0] if i not in found], [j for j in left[1] if j not in found.values()])
    rest = _pair_some(g, table, left, colored, pending="late")
    pairing.pairs = dict(sorted({**pairing.pairs, **rest.pairs}.items()))
    pairing.near, pairing.missing, pairing.unexpected = rest.near, rest.missing, rest.unexpected


def _parents_paired(
    g: Grading, side: DiffSide, table: Table, selfs: list[ForeignKey], row: dict[str, Any], paired: set[int]
) -> bool:
    """Whether every new row of `table` that `row` references is paired already."""
    for fk in selfs:
        index = g.new_ref(side, table, fk, [row.get(c) for c in fk.columns])
        if index is not None and index not in paired:
            return False
    return True


def _pair_some(
    g: Grading, table: Table, rows: tuple[list[int], list[int]], hints: tuple[list[str], ...], pending: str
) -> Pairing:
    """`pair_rows` over some new rows of `table` (indices into each side's rows), in those indices."""
    rules = g.rules(table)
    sides = (g.sides[EXPECTED], g.sides[ACTUAL])
    cells = tuple(
        [g.cells(sides[s], table, sides[s].inserted[table.name][i], rules, pending=pending) for i in rows[s]]
        for s in (0, 1)
    )
    colored = ([hints[0][i] for i in rows[0]], [hints[1][i] for i in rows[1]])
    sub = pair_rows(cells[0], cells[1], rules, colored)
    e, a = rows
    return Pairing(
        pairs={e[x]: a[y] for x, y in sub.pairs.items()},
        near={e[x]: (a[y], cols) for x, (y, cols) in sub.near.items()},
        missing=[e[x] for x in sub.missing],
        unexpected=[a[y] for y in sub.unexpected],
    )


def check_inserts(g: Grading, table: Table) -> None:
    """Record the mismatches of `table`'s new rows: values of paired rows, rows missing or unexpected."""
    pairing = g.pairings[table.name]
    exp, act = g.sides[EXPECTED], g.sides[ACTUAL]
    e_rows, a_rows = exp.inserted.get(table.name, []), act.inserted.get(table.name, [])
    rules = g.rules(table)
    key = table_key(table)

    def key_of(row: dict[str, Any]) -> dict[str, Any] | None:
        return {k: row.get(k) for k in key} if key else None

    for e, a in [*pairing.pairs.items(), *((e, a) for e, (a, _) in pairing.near.items())]:
        e_cells, a_cells = g.cells(exp, table, e_rows[e], rules), g.cells(act, table, a_rows[a], rules)
        differ = [c for c, rule in rules.items() if not rule.matches(e_cells.get(c), a_cells.get(c))]
        where = row_phrase(table, e_rows[e], [c for c in rules if c not in differ], g.ref_label(exp))
        for column in differ:
            expected = g.cell_text(exp, table, column, e_rows[e])
            got = g.cell_text(act, table, column, a_rows[a])
            rule = rules[column]
            how = "" if rule.rule == "exact" else f" ({rule.describe()})"
            g.add(
                "insert_value", table,
                f"{table.name}: insert {where}: {column} expected {expected}, got {got}{how}",
                key=key_of(a_rows[a]), column=column,
                expected=e_rows[e].get(column), actual=a_rows[a].get(column),
            )
    for e in pairing.missing:
        phrase = row_phrase(table, e_rows[e], list(rules), g.ref_label(exp))
        g.add("missing_insert", table, f"{table.name}: expected insert {phrase} is missing",
              expected=e_rows[e])
    for a in pairing.unexpected:
        phrase = row_phrase(table, a_rows[a], list(rules), g.ref_label(act))
        g.add("unexpected_insert", table, f"{table.name}: unexpected insert {phrase}", key=key_of(a_rows[a]),
              actual=a_rows[a])
