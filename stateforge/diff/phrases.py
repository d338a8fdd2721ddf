"""Words for values and rows in a verdict: `'Road Trip'`, `12.50`, `NULL`, `(playlist 'Road Trip', ...)`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from stateforge.diff.labels import human_column
from stateforge.schema.model import Column, ForeignKey, Table
from stateforge.values import dumps

NUMERIC_TYPES = ("DECIMAL", "NUMERIC", "REAL", "FLOAT", "DOUBLE")
MAX_TEXT = 60
MAX_ITEMS = 6

RefLabel = Callable[[ForeignKey, tuple[Any, ...]], str | None]
"""(foreign key, its values in a row) -> the referenced row's label, or None."""


def value_text(value: Any, column: Column | None = None) -> str:
    """A value as a verdict writes it: text quoted (and cut at 60 characters), numbers bare, NULL."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        if column is not None and column.base_type.startswith(NUMERIC_TYPES):
            return value  # a DECIMAL travels as a string; it reads as a number
        text = value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 3] + "..."
        return repr(text)
    if isinstance(value, int | float):
        return repr(value)
    return dumps(value)


def fk_name(fk: ForeignKey) -> str:
    """How a single-column foreign key reads in a phrase: `playlist_id` -> `playlist`."""
    column = fk.columns[0]
    for suffix in ("_id", "_no", "_code", "_key"):
        if column.lower().endswith(suffix) and len(column) > len(suffix):
            return column[: -len(suffix)]
    return column


def quoted(label: str) -> str:
    return repr(label if len(label) <= MAX_TEXT else label[: MAX_TEXT - 3] + "...")


def row_items(table: Table, row: dict[str, Any], columns: list[str], ref_label: RefLabel) -> list[str]:
    """`["playlist 'Road Trip'", "song 'Hour'", "position 3"]` for the non-NULL `columns` of `row`.

    A single-column foreign key with a label reads as the label of the row it points to; the others read
    as `column value`. References come first, then the column people name the row by, then the rest in
    the table's order.
    """
    wanted = {c.lower() for c in columns}
    refs, done = [], set()
    for fk in table.foreign_keys:
        if len(fk.columns) != 1 or fk.columns[0].lower() not in wanted:
            continue
        value = row.get(fk.columns[0])
        if value is None:
            continue
        label = ref_label(fk, (value,))
        if label is not None:
            refs.append(f"{fk_name(fk)} {quoted(label)}")
            done.add(fk.columns[0].lower())
    human = human_column(table)
    first = {c.lower() for c in (human if isinstance(human, tuple) else (human,) if human else ())}
    columns = sorted(table.columns, key=lambda c: c.name.lower() not in first)  # stable: table order kept
    rest = [
        f"{c.name} {value_text(row.get(c.name), c)}"
        for c in columns
        if c.name.lower() in wanted and c.name.lower() not in done and row.get(c.name) is not None
    ]
    return refs + rest


def row_phrase(table: Table, row: dict[str, Any], columns: list[str], ref_label: RefLabel) -> str:
    """`(playlist 'Road Trip', song 'Hour', position 3)`, cut after six items."""
    items = row_items(table, row, columns, ref_label)
    if len(items) > MAX_ITEMS:
        items = items[:MAX_ITEMS] + ["..."]
    return "(" + ", ".join(items) + ")" if items else "(a row of NULLs)"


def key_phrase(table: Table, key: dict[str, Any], ref_label: RefLabel) -> str:
    """`17` for a one-column key, `(playlist 'Road Trip', song 'Hour')` for a composite one."""
    if len(key) == 1:
        (name, value), = key.items()
        column = table.column(name) if table.has_column(name) else None
        if column is not None and any(fk.columns == (column.name,) for fk in table.foreign_keys):
            return row_phrase(table, key, list(key), ref_label)
        return value_text(value, column)
    return row_phrase(table, key, list(key), ref_label)


def changes_phrase(table: Table, changes: dict[str, tuple[Any, Any]]) -> str:
    """`title 'Old' -> 'New', plays 3 -> 4`."""
    parts = []
    for name, (old, new) in changes.items():
        column = table.column(name) if table.has_column(name) else None
        parts.append(f"{name} {value_text(old, column)} -> {value_text(new, column)}")
    return ", ".join(parts)
