"""A diff for people: one table per changed table, `+` inserted, `-` deleted, `~` updated (old -> new)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from stateforge.diff.model import Diff, TableDiff
from stateforge.values import dumps

MARKS = {"inserted": ("+", "green"), "deleted": ("-", "red"), "updated": ("~", "yellow")}


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return dumps(value)


def _columns(changes: TableDiff) -> list[str]:
    """Every column the table's changes mention, in the order the rows give them (key columns first)."""
    seen: dict[str, None] = {}
    for update in changes.updated:
        seen.update(dict.fromkeys(update.key))
    for row in (*changes.inserted, *changes.deleted):
        seen.update(dict.fromkeys(row))
    for update in changes.updated:
        seen.update(dict.fromkeys(update.changes))
    return list(seen)


def table_view(name: str, changes: TableDiff, limit: int) -> RichTable:
    """The rich table of one changed table, at most `limit` rows of each kind."""
    counts = changes.counts()
    title = f"{name}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)
    columns = _columns(changes)
    view = RichTable(title=title, title_justify="left", show_lines=False)
    view.add_column("", no_wrap=True)
    for column in columns:
        view.add_column(column, overflow="fold")
    for kind in ("inserted", "deleted", "updated"):
        mark, style = MARKS[kind]
        rows = getattr(changes, kind)
        for row in rows[:limit]:
            if kind == "updated":
                cells = [
                    _cell(row.key[c]) if c in row.key
                    else f"{_cell(row.changes[c][0])} -> {_cell(row.changes[c][1])}" if c in row.changes
                    else ""
                    for c in columns
                ]
            else:
                cells = [_cell(row.get(c)) for c in columns]
            view.add_row(Text(mark, style=style), *cells, style=None)
        if len(rows) > limit:
            view.add_row(Text(mark, style=style), f"... {len(rows) - limit} more {kind} rows (see --json)")
    return view


def render_diff(console: Console, diff: Diff, *, limit: int = 50) -> None:
    """Print `diff` as one table per changed table, then the totals; `no differences` when empty."""
    if diff.empty:
        console.print("no differences")
        return
    for name in sorted(diff.tables):
        console.print(table_view(name, diff.tables[name], limit))
        console.print()
    total = diff.summary
    console.print(
        f"{total['inserted']} inserted, {total['deleted']} deleted, {total['updated']} updated "
        f"in {len(diff.tables)} table{'s' if len(diff.tables) != 1 else ''}"
    )
