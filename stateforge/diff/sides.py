"""One side of a comparison: a diff's rows spelled as the schema model spells columns, indexed by key."""

from __future__ import annotations

from typing import Any

from stateforge.diff.model import Diff, DiffError, RowUpdate
from stateforge.schema.model import Schema, Table
from stateforge.values import dumps

EXPECTED, ACTUAL = "expected", "actual"


class DiffSide:
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
