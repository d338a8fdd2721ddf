"""Grade an actual diff against an expected one (both from the same base): `compare(...) -> Verdict`.

    verdict = compare(task_diff, episode_diff, schema=schema, policy=task_policy.over(domain_policy),
                      labels=db_labeler(base_path, schema))
    verdict.passed, verdict.explain()

- Inserted rows are paired by content (`pairing.py`), tables in foreign-key order so that parents are
  paired before their children. Values an episode allocates (identity columns, a one-column integer
  primary key: `keys.surrogate_columns`) are not compared; a foreign key that points to a row the diff
  inserted is compared through the pairing (the expected parent's partner must be the actual parent), in
  inserts and updates alike. A reference that closes a cycle (a self-reference, or a table filled before
  the one it points to) is checked once every table is paired.
- Deleted rows are matched by key (whole rows for a table without one); updated rows by key, column by
  column, through the policy's rules.
- Every mismatch is a sentence ("playlist_songs: expected insert (playlist 'Road Trip', song 'Hour',
  position 3) is missing") and a record (kind, table, key, column, expected, actual).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from pipeline.diff.keys import surrogate_columns, table_key
from pipeline.diff.labels import Labeler, label_of
from pipeline.diff.model import Diff, DiffError, RowUpdate
from pipeline.diff.pairing import Cells, Pairing, pair_rows
from pipeline.diff.phrases import changes_phrase, key_phrase, quoted, row_phrase, value_text
from pipeline.diff.policy import EXACT, ColumnRule, Policy
from pipeline.diff.verdict import Mismatch, Verdict
from pipeline.graph import plan_fill
from pipeline.schema.model import ForeignKey, Schema, Table
from pipeline.values import dumps

EXPECTED, ACTUAL = "expected", "actual"


class _Side:
    """One diff, its rows spelled as the model spells columns, and an index of the rows it inserts."""

    def __init__(self, name: str, diff: Diff, schema: Schema) -> None:
        self.name = name
        self.inserted: dict[str, list[dict[str, Any]]] = {}
        self.deleted: dict[str, list[dict[str, Any]]] = {}
        self.updated: dict[str, list[RowUpdate]] = {}
        for table_name, changes in diff.tables.items():
            if not schema.has_table(table_name):
                raise DiffError(
                    f"the {name} diff changes table {table_name}, which the schema model does not have: "
                    "compare diffs of databases built from this schema."
                )
            table = schema.table(table_name)
            self.inserted[table.name] = [self._spell(table, r) for r in changes.inserted]
            self.deleted[table.name] = [self._spell(table, r) for r in changes.deleted]
            self.updated[table.name] = [
                RowUpdate(key=self._spell(table, u.key), changes=self._spell(table, u.changes))
                for u in changes.updated
            ]
        self._index: dict[tuple[str, tuple[str, ...]], dict[tuple, int]] = {}

    def _spell(self, table: Table, row: dict[str, Any]) -> dict[str, Any]:
        spelled = {}
        for column, value in row.items():
            if not table.has_column(column):
                raise DiffError(
                    f'the {self.name} diff has a column "{column}" in table {table.name}, which the schema '
                    "model does not have: compare diffs of databases built from this schema."
                )
            spelled[table.column(column).name] = value
        return spelled

    def new_row(self, table: str, columns: tuple[str, ...], values: tuple) -> int | None:
        """The index of the inserted row of `table` whose `columns` hold `values`, or None."""
        index = self._index.get((table, columns))
        if index is None:
            rows = self.inserted.get(table, [])
            index = {dumps([r.get(c) for c in columns]): i for i, r in enumerate(rows)}
            self._index[(table, columns)] = index
        return index.get(dumps(list(values)))


class _Grader:
    def __init__(self, expected: Diff, actual: Diff, schema: Schema, policy: Policy, labels: Labeler | None):
        policy.check(schema)
        self.schema, self.policy, self.labels = schema, policy, labels
        self.sides = {EXPECTED: _Side(EXPECTED, expected, schema), ACTUAL: _Side(ACTUAL, actual, schema)}
        order = plan_fill(schema).order
        self.position = {name: i for i, name in enumerate(order)}
        touched = {t for side in self.sides.values() for t in (*side.inserted, *side.updated)}
        self.order = [t for t in order if t in touched]
        self.pairings: dict[str, Pairing] = {}
        self.mismatches: list[Mismatch] = []

    # --- cells: what is compared ------------------------------------------------------------------

    def rules(self, table: Table) -> dict[str, ColumnRule]:
        """The rule of every compared column of an inserted row (allocated and ignored columns left out)."""
        skip = surrogate_columns(table)
        rules = {}
        for column in table.columns:
            rule = self.policy.rule(table.name, column.name)
            if column.name not in skip and rule.rule != "ignore":
                rules[column.name] = rule
        return rules

    def _token(self, side: _Side, fk: ForeignKey, values: tuple, pending: bool) -> list[list[Any]]:
        """How each column of a foreign key compares: by value, or by the partner of the new row it names."""
        plain = [["=", v] for v in values]
        if any(v is None for v in values):
            return plain
        ref = self.schema.table(fk.ref_table).name
        index = side.new_row(ref, fk.ref_columns, values)
        if index is None:
            return plain
        if pending:
            return [["new"] for _ in values]
        if side.name == ACTUAL:
            return [["new", v] for v in values]
        partner = self.pairings.get(ref, Pairing()).partner(index)
        if partner is None:
            return [["unpaired", ref, index] for _ in values]
        row = self.sides[ACTUAL].inserted[ref][partner]
        return [["new", row.get(c)] for c in fk.ref_columns]

    def cells(self, side: _Side, table: Table, row: dict[str, Any], rules: dict[str, ColumnRule], *,
              final: bool = True) -> Cells:
        """`row`'s compared values; foreign keys as tokens (cycle-closing ones pending unless `final`)."""
        cells = {c: row.get(c) for c in rules}
        for fk in table.foreign_keys:
            cols = [c for c in fk.columns if c in rules and rules[c].rule != "any_non_null"]
            if not cols or not all(c in row for c in fk.columns):
                continue
            pending = not final and self.late(table, fk)
            tokens = self._token(side, fk, tuple(row[c] for c in fk.columns), pending)
            for column, token in zip(fk.columns, tokens, strict=True):
                if column in cols:
                    cells[column] = token
        return cells

    def late(self, table: Table, fk: ForeignKey) -> bool:
        """Whether `fk` points to a table paired after (or with) `table`: a reference that closes a cycle."""
        ref = self.schema.table(fk.ref_table).name
        return self.position.get(ref, -1) >= self.position.get(table.name, -1)

    # --- words ------------------------------------------------------------------------------------

    def ref_label(self, side: _Side):
        def label(fk: ForeignKey, values: tuple) -> str | None:
            ref = self.schema.table(fk.ref_table)
            index = side.new_row(ref.name, fk.ref_columns, values)
            if index is not None:
                return label_of(ref, side.inserted[ref.name][index])
            if self.labels is not None:
                return self.labels(ref.name, dict(zip(fk.ref_columns, values, strict=True)))
            return None

        return label

    def cell_text(self, side: _Side, table: Table, column: str, row: dict[str, Any]) -> str:
        value = row.get(column)
        single = next((fk for fk in table.foreign_keys if fk.columns == (column,)), None)
        if single is not None and value is not None:
            ref = self.schema.table(single.ref_table)
            label = self.ref_label(side)(single, (value,))
            new = side.new_row(ref.name, single.ref_columns, (value,))
            if new is None:
                return quoted(label) if label is not None else value_text(value, table.column(column))
            if label is not None:
                return f"{quoted(label)} (new)"
            row = side.inserted[ref.name][new]
            return f"new {ref.name} row {row_phrase(ref, row, list(self.rules(ref)), self.ref_label(side))}"
        return value_text(value, table.column(column))

    def add(self, kind: str, table: Table, message: str, **fields: Any) -> None:
        self.mismatches.append(Mismatch(kind=kind, table=table.name, message=message, **fields))

    # --- inserts ----------------------------------------------------------------------------------

    def pair_inserts(self, table: Table) -> None:
        rules = self.rules(table)
        rows = {name: side.inserted.get(table.name, []) for name, side in self.sides.items()}
        cells = {
            name: [self.cells(self.sides[name], table, r, rules, final=False) for r in rows[name]]
            for name in self.sides
        }
        self.pairings[table.name] = pair_rows(cells[EXPECTED], cells[ACTUAL], rules)

    def check_inserts(self, table: Table) -> None:
        pairing = self.pairings[table.name]
        exp, act = self.sides[EXPECTED], self.sides[ACTUAL]
        e_rows, a_rows = exp.inserted.get(table.name, []), act.inserted.get(table.name, [])
        rules = self.rules(table)
        compared = list(rules)
        key = table_key(table)
        for e, a in [*pairing.pairs.items(), *((e, a) for e, (a, _) in pairing.near.items())]:
            e_cells = self.cells(exp, table, e_rows[e], rules)
            a_cells = self.cells(act, table, a_rows[a], rules)
            differ = [c for c in compared if not rules[c].matches(e_cells.get(c), a_cells.get(c))]
            same = [c for c in compared if c not in differ]
            where = row_phrase(table, e_rows[e], same, self.ref_label(exp))
            for column in differ:
                expected = self.cell_text(exp, table, column, e_rows[e])
                got = self.cell_text(act, table, column, a_rows[a])
                rule = rules[column]
                how = "" if rule is EXACT or rule.rule == "exact" else f" ({rule.describe()})"
                self.add(
                    "insert_value", table,
                    f"{table.name}: insert {where}: {column} expected {expected}, got {got}{how}",
                    key={k: a_rows[a].get(k) for k in key} if key else None, column=column,
                    expected=e_rows[e].get(column), actual=a_rows[a].get(column),
                )
        for e in pairing.missing:
            phrase = row_phrase(table, e_rows[e], compared, self.ref_label(exp))
            self.add("missing_insert", table, f"{table.name}: expected insert {phrase} is missing",
                     expected=e_rows[e])
        for a in pairing.unexpected:
            phrase = row_phrase(table, a_rows[a], compared, self.ref_label(act))
            self.add("unexpected_insert", table, f"{table.name}: unexpected insert {phrase}",
                     key={k: a_rows[a].get(k) for k in key} if key else None, actual=a_rows[a])

    # --- deletes ----------------------------------------------------------------------------------

    def check_deletes(self, table: Table) -> None:
        key = table_key(table)
        exp, act = (self.sides[s].deleted.get(table.name, []) for s in (EXPECTED, ACTUAL))

        def ident(row: dict[str, Any]) -> str:
            return dumps([row.get(k) for k in key] if key else row)

        missing = Counter(ident(r) for r in exp) - Counter(ident(r) for r in act)
        unexpected = Counter(ident(r) for r in act) - Counter(ident(r) for r in exp)
        for kind, rows, left in (("missing_delete", exp, missing), ("unexpected_delete", act, unexpected)):
            for row in rows:
                if left[ident(row)] <= 0:
                    continue
                left[ident(row)] -= 1
                what = self.row_name(table, row, key)
                text = f"expected delete of {what} is missing" if kind == "missing_delete" else (
                    f"unexpected delete of {what}")
                side = "expected" if kind == "missing_delete" else "actual"
                self.add(kind, table, text, key={k: row.get(k) for k in key} if key else None, **{side: row})

    def row_name(self, table: Table, row: dict[str, Any], key: tuple[str, ...] | None) -> str:
        """`users 42 ('mike_w')`, `playlist_songs (playlist 'Road Trip', song 'Hour')`, or the whole row."""
        base = self.ref_label(self.sides[EXPECTED])
        if not key:
            return f"{table.name} {row_phrase(table, row, table.column_names, base)}"
        phrase = key_phrase(table, {k: row.get(k) for k in key}, base)
        label = label_of(table, row)
        return f"{table.name} {phrase}" + (f" ({quoted(label)})" if label and len(key) == 1 else "")

    # --- updates ----------------------------------------------------------------------------------

    def check_updates(self, table: Table) -> None:
        exp = {dumps(u.key): u for u in self.sides[EXPECTED].updated.get(table.name, [])}
        act = {dumps(u.key): u for u in self.sides[ACTUAL].updated.get(table.name, [])}
        for ident in [*exp, *(k for k in act if k not in exp)]:
            self.check_update(table, exp.get(ident), act.get(ident))

    def check_update(self, table: Table, e: RowUpdate | None, a: RowUpdate | None) -> None:
        key = (e or a).key
        names = {**(e.changes if e else {}), **(a.changes if a else {})}
        columns = [c.name for c in table.columns if c.name in names]
        base = {c: (e.changes[c][0] if e and c in e.changes else a.changes[c][0]) for c in columns}
        e_new = {c: e.changes[c][1] if e and c in e.changes else base[c] for c in columns}
        a_new = {c: a.changes[c][1] if a and c in a.changes else base[c] for c in columns}
        rules = {c: r for c in columns if (r := self.policy.rule(table.name, c)).rule != "ignore"}
        e_cells = self.cells(self.sides[EXPECTED], table, e_new, rules)
        a_cells = self.cells(self.sides[ACTUAL], table, a_new, rules)
        differ = [c for c in rules if not rules[c].matches(e_cells.get(c), a_cells.get(c))]
        if not differ:
            return
        exp_side, act_side = self.sides[EXPECTED], self.sides[ACTUAL]
        where = f"{table.name} {key_phrase(table, key, self.ref_label(exp_side))}"
        label = self.labels(table.name, key) if self.labels is not None and len(key) == 1 else None
        named = where + (f" ({quoted(label)})" if label else "")
        if e and a:
            for c in differ:
                self.add(
                    "update_value", table,
                    f"{where}.{c}: expected {self.cell_text(exp_side, table, c, e_new)}, "
                    f"got {self.cell_text(act_side, table, c, a_new)}",
                    key=key, column=c, expected=e_new[c], actual=a_new[c],
                )
        elif e:
            wanted = changes_phrase(table, {c: (base[c], e_new[c]) for c in differ})
            self.add("missing_update", table, f"expected update of {named} is missing ({wanted})",
                     key=key, expected={c: e_new[c] for c in differ}, actual={c: base[c] for c in differ})
        else:
            made = changes_phrase(table, {c: (base[c], a_new[c]) for c in differ})
            self.add("unexpected_update", table, f"unexpected update of {named} ({made})",
                     key=key, expected={c: base[c] for c in differ}, actual={c: a_new[c] for c in differ})

    def run(self) -> Verdict:
        tables = [self.schema.table(t) for t in self.order]
        for table in tables:
            self.pair_inserts(table)
        every = sorted(
            {t for side in self.sides.values() for t in (*side.inserted, *side.deleted, *side.updated)},
            key=lambda t: self.position.get(t, len(self.position)),
        )
        for name in every:
            table = self.schema.table(name)
            if name in self.pairings:
                self.check_inserts(table)
            self.check_deletes(table)
            self.check_updates(table)
        return Verdict(passed=not self.mismatches, mismatches=self.mismatches)


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
    return _Grader(expected, actual, schema, policy or Policy(), labels).run()
