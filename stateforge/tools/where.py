"""`Where`: the AND of a query's filters with their `?` parameters, built filter by filter.

    where = Where().add("f.user_id = ?", me["user_id"]).ref(artist, "s.artist_id", "ar.name")
    where.when(explicit, "s.explicit = ?").text(query, "s.title").between(since, until, "s.released_on")
    where.when(playlist, "p.playlist_id = ?", by=lambda name: find_playlist(env, name)["playlist_id"])
    env.query(f"SELECT ... WHERE {where.sql}", where.params)

Values never enter the SQL text. A filter left out (None) adds nothing, so a tool's optional arguments
map to one line each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Where:
    """An AND of SQL conditions with their `?` parameters, in order."""

    parts: list[str] = field(default_factory=list)
    params: list[Any] = field(default_factory=list)

    def add(self, sql: str, *params: Any) -> Where:
        """Add a condition with its parameters."""
        self.parts.append(sql)
        self.params.extend(params)
        return self

    def when(self, value: Any, sql: str, *params: Any, by: Callable[[Any], Any] | None = None) -> Where:
        """Add the condition only when `value` is not None; its parameters are `params`, else `by(value)` (a
        lookup that turns a name into an id, called only when the value is given), else `value`."""
        if value is not None:
            self.add(sql, *(params or ((by(value),) if by else (value,))))
        return self

    def between(self, low: Any, high: Any, column: str) -> Where:
        """`column >= low` when `low` is given, `column <= high` when `high` is (both bounds inclusive)."""
        return self.when(low, f"{column} >= ?").when(high, f"{column} <= ?")

    def text(self, value: str | None, column: str) -> Where:
        """When `value` is given (not empty): `column` contains it, in any letter case (no wildcards)."""
        if value:
            self.add(f"contains(lower({column}), lower(?))", value)
        return self

    def ref(self, value: int | str | None, id_column: str, name_column: str) -> Where:
        """A thing named by id or by part of its name: `id_column = value` for an int, else `text`."""
        if isinstance(value, int):
            return self.add(f"{id_column} = ?", value)
        return self.text(value, name_column)

    def __len__(self) -> int:
        return len(self.parts)

    @property
    def sql(self) -> str:
        """The conditions joined with AND (TRUE when there are none)."""
        return " AND ".join(f"({p})" for p in self.parts) or "TRUE"
