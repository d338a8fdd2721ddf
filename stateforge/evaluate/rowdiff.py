"""The diff of a few rows in Python: the base's and the episode's rows of a table's changed row groups.

    if python_diffs(spec):
        table_diff = diff_rows(spec, base_rows, episode_rows)     # a `TableDiff`, as `diff_specs` gives

For a keyed table whose key Python orders as DuckDB does (`stateforge.diff.queries.python_orders`), the
diff of the rows of the changed groups (a few hundred at most) costs less in Python than the statements
that would hand them to DuckDB (a table made, filled, joined and read back). It gives what the engine
gives (`stateforge.diff.engine`): a row equal on both sides is no change; a key on one side only is an
insert or a delete of the whole row; a key on both sides is an update of the columns whose canonical
JSON values differ (none: no change, as for a hash that moved while no value did); each list in key
order; values as canonical JSON, times with a zone in UTC (the engine reads in UTC). Tables without a
key, or with a key Python cannot order (ENUM, floats), go to the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from stateforge.diff.model import RowUpdate, TableDiff
from stateforge.diff.queries import python_orders
from stateforge.diff.specs import TableSpec
from stateforge.values import json_value

Row = tuple[Any, ...]
"""A row as DuckDB's Python client returns it, its columns in the table's order."""


def python_diffs(spec: TableSpec) -> bool:
    """Whether `diff_rows` diffs `spec`'s table (a key, which Python orders)."""
    return bool(spec.key) and python_orders(spec)


def _json(spec: TableSpec, row: Row, utc: Any) -> dict[str, Any]:
    return {c.name: json_value(utc(v)) for c, v in zip(spec.columns, row, strict=True)}


def diff_rows(spec: TableSpec, base: Sequence[Row], after: Sequence[Row], utc: Any) -> TableDiff:
    """The changes from `base` to `after`, rows of one keyed table (`python_diffs(spec)`); `utc` moves a
    value with a zone to UTC (the grader's `utc`)."""
    names = spec.column_names
    at = [names.index(k) for k in spec.key or ()]
    old = {tuple(r[i] for i in at): r for r in base}
    new = {tuple(r[i] for i in at): r for r in after}
    inserted, deleted, updated = [], [], []
    for key in sorted(old.keys() | new.keys()):
        b, a = old.get(key), new.get(key)
        if b == a:
            continue
        if b is None:
            inserted.append(_json(spec, a, utc))  # type: ignore[arg-type]
        elif a is None:
            deleted.append(_json(spec, b, utc))
        else:
            was, now = _json(spec, b, utc), _json(spec, a, utc)
            changes = {c.name: (was[c.name], now[c.name]) for c in spec.values if was[c.name] != now[c.name]}
            if changes:
                updated.append(RowUpdate(key={k: was[k] for k in spec.key or ()}, changes=changes))
    return TableDiff(inserted=inserted, deleted=deleted, updated=updated)
