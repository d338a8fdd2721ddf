"""What a comparison knows while it runs: both sides, the policy, the pairing of new rows so far, and how
a value is compared (its cell) and written (its words). `inserts.py` and `compare.py` do the checks."""

from __future__ import annotations

from typing import Any

from stateforge.diff.keys import surrogate_columns
from stateforge.diff.labels import Labeler, label_of
from stateforge.diff.model import Diff
from stateforge.diff.pairing import Cells, Pairing
from stateforge.diff.phrases import RefLabel, quoted, row_phrase, value_text
from stateforge.diff.policy import ColumnRule, Policy
from stateforge.diff.sides import ACTUAL, EXPECTED, DiffSide
from stateforge.diff.verdict import Mismatch
from stateforge.graph import plan_fill
from stateforge.schema.model import ForeignKey, Schema, Table

_ORDERS: dict[int, tuple[Schema, list[str]]] = {}
"""id(schema) -> (the schema, its tables in foreign-key order): a grader compares many episodes of one."""


def fill_order(schema: Schema) -> list[str]:
    """The tables of `schema` in foreign-key order (`plan_fill`), worked out once per schema object."""
    found = _ORDERS.get(id(schema))
    if found is None or found[0] is not schema:
        if len(_ORDERS) >= 8:
            _ORDERS.clear()
        found = _ORDERS[id(schema)] = (schema, list(plan_fill(schema).order))
    return found[1]


class Grading:
    """The state of one `compare` call."""

    def __init__(
        self, expected: Diff, actual: Diff, schema: Schema, policy: Policy, labels: Labeler | None
    ) -> None:
        policy.check(schema)
        self.schema, self.policy, self.labels = schema, policy, labels
        self.sides = {
            EXPECTED: DiffSide(EXPECTED, expected, schema),
            ACTUAL: DiffSide(ACTUAL, actual, schema),
        }
        order = fill_order(schema)
        self.position = {name: i for i, name in enumerate(order)}
        touched = {t for side in self.sides.values() for t in (*side.inserted, *side.updated)}
        self.order = [t for t in order if t in touched]
        self.pairings: dict[str, Pairing] = {}
        """Table -> how its new rows pair (filled in foreign-key order by `inserts.pair_inserts`)."""
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

    def token(self, side: DiffSide, fk: ForeignKey, values: tuple, pending: bool) -> list[list[Any]]:
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

    def cells(
        self, side: DiffSide, table: Table, row: dict[str, Any], rules: dict[str, ColumnRule], *,
        pending: str = "none",
    ) -> Cells:
        """`row`'s compared values, foreign keys as tokens. References to new rows are left pending for
        every foreign key (`pending="all"`), for those that close a cycle (`"late"`), for those that close
        a cycle through other tables (`"cycles"`: a self-reference is compared through the pairing made so
        far), or for none."""
        cells = {c: row.get(c) for c in rules}
        for fk in table.foreign_keys:
            cols = [c for c in fk.columns if c in rules and rules[c].rule != "any_non_null"]
            if not cols or not all(c in row for c in fk.columns):
                continue
            same = self.schema.table(fk.ref_table).name == table.name
            late = pending in ("late", "cycles") and self.late(table, fk)
            wait = pending == "all" or (late and not (pending == "cycles" and same))
            tokens = self.token(side, fk, tuple(row[c] for c in fk.columns), wait)
            for column, token in zip(fk.columns, tokens, strict=True):
                if column in cols:
                    cells[column] = token
        return cells

    def late(self, table: Table, fk: ForeignKey) -> bool:
        """Whether `fk` points to a table paired after (or with) `table`: a reference that closes a cycle."""
        ref = self.schema.table(fk.ref_table).name
        return self.position.get(ref, -1) >= self.position.get(table.name, -1)

    # --- words ------------------------------------------------------------------------------------

    def ref_label(self, side: DiffSide) -> RefLabel:
        """Labels of the rows `side`'s references point to: a new row by its values, others by `labels`."""

        def label(fk: ForeignKey, values: tuple) -> str | None:
            ref = self.schema.table(fk.ref_table)
            index = side.new_row(ref.name, fk.ref_columns, values)
            if index is not None:
                return label_of(ref, side.inserted[ref.name][index])
            if self.labels is not None:
                return self.labels(ref.name, dict(zip(fk.ref_columns, values, strict=True)))
            return None

        return label

    def cell_text(self, side: DiffSide, table: Table, column: str, row: dict[str, Any]) -> str:
        """A value of `row` in words; a reference as the label (or the values) of the row it points to."""
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
        """Record a mismatch."""
        self.mismatches.append(Mismatch(kind=kind, table=table.name, message=message, **fields))

    def new_ref(self, side: DiffSide, table: Table, fk: ForeignKey, values: list[Any]) -> int | None:
        """The index of the new row of `table` that `values` (of `fk`) point to, or None."""
        if any(v is None for v in values):
            return None
        return side.new_row(table.name, fk.ref_columns, tuple(values))

