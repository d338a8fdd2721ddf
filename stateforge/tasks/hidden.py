"""Nothing hidden: every value a task's expected diff writes is one the solver can know.

A written value (a column of an inserted row, the new value of an updated one) passes when it

1. has a comparison policy that does not demand it (`ignore`, `any_non_null`);
2. was set by a tool rather than passed in an argument of a write call (a timestamp from `env.now`, an
   allocated id, a default, a cascade); a tool's default in the recorded arguments was never passed, and a
   yes/no argument is the choice the instruction's words make ("private", "turn notifications off"), so
   neither counts as passed;
3. is a foreign key to a row that exists (in the base, or inserted by the task) of a table some tool
   reads or writes (the solver finds that row through the tools);
4. is declared derived (`ctx.derived(value, how)`: a count, a sum, a computed date); or
5. is stated in the instruction (`wording.stated`: numbers, dates and times, names, case-insensitive).

Anything else is hidden: the task is rejected as `hidden value: <table>.<column>`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
from pydantic_core import PydanticUndefined

from stateforge.diff import Diff, Policy
from stateforge.schema.model import ForeignKey, Schema, Table
from stateforge.store.sql import key_cast, quote_ident, read_as, table_ref
from stateforge.tasks.draft import Draft
from stateforge.tasks.wording import as_number, same_value, stated
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Coverage, Toolkit
from stateforge.values import dumps, json_value

LOOSE = ("ignore", "any_non_null")


def written(diff: Diff) -> Iterator[tuple[str, str, Any, dict[str, Any] | None]]:
    """(table, column, value, the inserted row or None) of every value the diff writes."""
    for table, change in diff.tables.items():
        for row in change.inserted:
            for column, value in row.items():
                yield table, column, value, row
        for update in change.updated:
            for column, (_, new) in update.changes.items():
                yield table, column, new, None


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar inside a JSON value (lists and objects opened)."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list):
        yield value
        for item in value:
            yield from leaves(item)
    else:
        yield value


class HiddenCheck:
    """The check for one draft (see the module docstring); `hidden()` lists the offending columns."""

    def __init__(
        self, ws: Workspace, toolkit: Toolkit, coverage: Coverage, draft: Draft, diff: Diff, policy: Policy
    ) -> None:
        self.ws, self.schema, self.draft, self.diff, self.policy = ws, ws.schema, draft, diff, policy
        self.readable = {t.table.lower() for t in coverage.tables if t.reads or t.writes}
        writes = [c for c in draft.calls if c.tool in toolkit and toolkit[c.tool].kind == "write"]
        self.arguments = {
            value_key(leaf)
            for c in writes
            for name, value in c.arguments.items()
            if not _is_default(toolkit, c.tool, name, value)
            for leaf in leaves(value)
            if not isinstance(leaf, bool)
        }
        self.derived = [
            v
            for d in draft.derived
            for v in ([d.value, *d.value] if isinstance(d.value, list) else [d.value])
        ]
        self._exists: dict[tuple[str, str], bool] = {}

    def hidden(self) -> list[str]:
        """`table.column` of every hidden written value, in diff order, each once."""
        found: list[str] = []
        for table, column, value, row in written(self.diff):
            name = f"{table}.{column}"
            if name not in found and not self.known(table, column, value, row):
                found.append(name)
        return found

    def known(self, table: str, column: str, value: Any, row: dict[str, Any] | None) -> bool:
        """Whether the solver can know `value` (rules 1-5 of the module docstring)."""
        if self.policy.rule(table, column).rule in LOOSE:
            return True
        if value_key(value) not in self.arguments:
            return True
        model = self.schema.table(table) if self.schema.has_table(table) else None
        if model is not None and value is not None and self.reachable_key(model, column, value, row):
            return True
        if any(same_value(value, d) for d in self.derived):
            return True
        return stated(value, self.draft.instruction)

    def reachable_key(self, table: Table, column: str, value: Any, row: dict[str, Any] | None) -> bool:
        """`value` in a foreign key column names an existing or newly inserted row of a readable table."""
        for fk in table.foreign_keys:
            if column.lower() not in (c.lower() for c in fk.columns):
                continue
            if fk.ref_table.lower() not in self.readable:
                continue
            values = _fk_values(fk, column, value, row)
            if self._new_row(fk, values) or self._base_row(table, fk, values):
                return True
        return False

    def _new_row(self, fk: ForeignKey, values: dict[str, Any]) -> bool:
        change = next((t for n, t in self.diff.tables.items() if n.lower() == fk.ref_table.lower()), None)
        if change is None:
            return False
        return any(all(same_value(r.get(c), v) for c, v in values.items()) for r in change.inserted)

    def _base_row(self, table: Table, fk: ForeignKey, values: dict[str, Any]) -> bool:
        key = (fk.ref_table.lower(), dumps(values))
        if key not in self._exists:
            ref = self.schema.table(fk.ref_table)
            held = {r.lower(): table.column(c).type for c, r in zip(fk.columns, fk.ref_columns, strict=True)}
            casts = {c: key_cast(held[c.lower()], ref.column(c).type) for c in values}  # another type: read
            where = " AND ".join(  # as the key's
                f"{quote_ident(ref.column(c).name)} = {read_as('?', casts[c])}" for c in values)
            sql = f"SELECT count(*) AS n FROM {table_ref(ref.name)} WHERE {where}"
            try:
                self._exists[key] = bool(self.ws.query(sql, list(values.values()))[0]["n"])
            except duckdb.Error:
                self._exists[key] = False  # a value of another type names no row
        return self._exists[key]


def value_key(value: Any) -> tuple[Any, ...]:
    """A key equal for two values exactly when `same_value` holds (numbers and decimal strings by value),
    so that a set of passed arguments answers "was this value passed?" at once."""
    number = as_number(value)
    if number is not None:
        return ("number", number)
    if isinstance(value, list | dict):
        return ("json", dumps(value))
    return ("value", type(value).__name__, value)


def _is_default(toolkit: Toolkit, tool: str, name: str, value: Any) -> bool:
    """Whether `value` is the tool's own default for argument `name` (a value the caller never passed)."""
    field = toolkit[tool].arguments.model_fields.get(name)
    if field is None or field.default is PydanticUndefined:
        return False
    return same_value(json_value(value), json_value(field.default))


def _fk_values(fk: ForeignKey, column: str, value: Any, row: dict[str, Any] | None) -> dict[str, Any]:
    """The referenced columns and values of `fk` that are known: the whole key from an inserted row, else
    the one column."""
    pairs = list(zip(fk.columns, fk.ref_columns, strict=True))
    if row is not None and all(c in row for c, _ in pairs):
        return {ref: row[c] for c, ref in pairs}
    ref = next(r for c, r in pairs if c.lower() == column.lower())
    return {ref: value}


def unreachable(diff: Diff, coverage: Coverage, schema: Schema) -> list[str]:
    """Changed tables that no tool writes, directly or through a cascade."""
    ok = {t.table.lower() for t in coverage.tables if t.writes or t.cascades}
    return [name for name in diff.tables if name.lower() not in ok]
