"""Calling the music tools in a test: a successful call gives its value, a refused one its message; and
the SQL the tests use to pick rows of the build and to check what a call did."""

from __future__ import annotations

from typing import Any

from stateforge.episode import Episode


class Calls:
    """Tool calls and reads over one episode, with the assertions every test makes."""

    def __init__(self, ep: Episode) -> None:
        self.ep = ep

    def ok(self, tool: str, **arguments: Any) -> Any:
        """Call a tool that must succeed; its (canonical JSON) value."""
        result = self.ep.call(tool, arguments)
        assert result.ok, f"{tool} failed ({result.error_kind}): {result.error}"
        return result.value

    def refused(self, tool: str, kind: str = "tool", **arguments: Any) -> str:
        """Call a tool that must fail with this error kind and change nothing; its message."""
        before = len(self.ep.log)
        result = self.ep.call(tool, arguments)
        assert not result.ok, f"{tool} succeeded: {result.value}"
        assert result.error_kind == kind, f"{tool}: {result.error_kind}: {result.error}"
        assert not result.changes and len(self.ep.log) == before + 1
        return result.error or ""

    def changes(self) -> dict[str, dict[str, int]]:
        """The rows the last call changed, per table."""
        return self.ep.log[-1].changes

    def rows(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """The rows of a SELECT on the episode's state."""
        return self.ep.query(sql, params)

    def one(self, sql: str, params: Any = None) -> dict[str, Any]:
        """The first row of a SELECT (there must be one)."""
        rows = self.ep.query(sql, params)
        assert rows, f"no row for: {sql}"
        return rows[0]

    def value(self, sql: str, params: Any = None) -> Any:
        """The first value of the first row."""
        return next(iter(self.one(sql, params).values()))

    def username(self, where: str = "TRUE", params: Any = None) -> str:
        """The username of the first active listener (by id) matching `where` over `u` (users)."""
        return self.value(
            f"SELECT u.username FROM users AS u WHERE u.status = 'active' AND ({where}) "
            "ORDER BY u.user_id LIMIT 1",
            params,
        )

    def positions_ok(self, playlist_id: int) -> list[int]:
        """The playlist's song ids in order, after checking its positions run 1..n."""
        rows = self.rows(
            "SELECT song_id, position FROM playlist_songs WHERE playlist_id = ? ORDER BY position",
            [playlist_id],
        )
        assert [r["position"] for r in rows] == list(range(1, len(rows) + 1))
        return [r["song_id"] for r in rows]
