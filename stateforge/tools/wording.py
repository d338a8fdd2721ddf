"""How every pack's tools word lists, counts and orderings in results and errors, and the guard against a
bulk call that names nothing.

    raise ToolError(f"{plural(len(rows), 'artist')} are called {name!r}: {choices(rows, label)}. Pass the "
                    "artist_id of the one you mean.", argument="artist")
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from stateforge.tools.errors import ToolError

SHOWN = 5
"""Candidates listed in an ambiguity or not-found message."""


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 song`, `3 songs` (`many`: an irregular plural)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def choices(rows: Sequence[Any], show: Callable[[Any], str], total: int | None = None) -> str:
    """`a; b; c` for the first `SHOWN` candidates, `; and N more` after them (`total`: all there are)."""
    shown = "; ".join(show(r) for r in rows[:SHOWN])
    extra = (total if total is not None else len(rows)) - min(len(rows), SHOWN)
    return shown + (f"; and {extra} more" if extra > 0 else "")


def names(rows: Iterable[dict[str, Any]], column: str) -> str:
    """The values of `column` as prose ("a, b and c"), at most `SHOWN`, then "and N more"."""
    values = [str(r[column]) for r in rows]
    shown, more = values[:SHOWN], len(values) - SHOWN
    if more > 0:
        return ", ".join(shown) + f" and {more} more"
    return ", ".join(shown[:-1]) + " and " + shown[-1] if len(shown) > 1 else "".join(shown)


def order_by(column: str, descending: bool, key: str) -> str:
    """An ORDER BY over a page's output columns: the chosen one (NULLs last), then the key, so that pages
    never overlap."""
    return f"{column} {'DESC' if descending else 'ASC'} NULLS LAST, {key}"


def sorted_by(sort_by: str, descending: bool, key: str, columns: Mapping[str, str] | None = None) -> str:
    """`order_by` on the output column a tool's `sort_by` argument names (or the one `columns` maps it to,
    `{"name": "hero"}`). `sort_by` is one of the tool's `Literal` sorts (validated before it runs); anything
    but a plain column name is refused all the same."""
    column = (columns or {}).get(sort_by, sort_by)
    if not column.isidentifier():
        raise ToolError(f"cannot sort by {sort_by!r}.")
    return order_by(column, descending, key)


def quoted(values: Iterable[Any]) -> str:
    """Values as a readable, quoted list (`'a', 'b' and 'c'`, as `names` shortens it)."""
    return names([{"v": repr(v)} for v in values], "v")


def require_one_of(**selectors: Any) -> None:
    """`ToolError` unless at least one selector of a bulk operation is given (no accidental "everything")."""
    if all(v is None or v == [] for v in selectors.values()):
        raise ToolError(f"say which ones: give at least one of {', '.join(selectors)}.")
