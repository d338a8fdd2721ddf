"""Assertions over tool calls in an episode: a call that must succeed, a call that must be refused."""

from __future__ import annotations

from typing import Any

from stateforge.episode import Episode


def ok(ep: Episode, tool: str, **arguments: Any) -> Any:
    """Call `tool`; it must succeed. Returns its value."""
    result = ep.call(tool, arguments)
    assert result.ok, f"{tool}({arguments}) failed: [{result.error_kind}] {result.error}"
    return result.value


def refused(ep: Episode, tool: str, *fragments: str, kind: str = "tool", **arguments: Any) -> str:
    """Call `tool`: it must fail with `kind`, change nothing and say each of `fragments`; gives the error."""
    before = len(ep.log)
    result = ep.call(tool, arguments)
    assert len(ep.log) == before + 1
    assert not result.ok, f"{tool}({arguments}) succeeded: {result.value}"
    assert result.error_kind == kind, f"[{result.error_kind}] {result.error}"
    assert result.changes == {}
    for fragment in fragments:
        assert fragment in (result.error or ""), f"{fragment!r} not in: {result.error}"
    return result.error or ""


def scalar(ep: Episode, sql: str, params: list[Any] | None = None) -> Any:
    """The first value of a query over the episode's current state."""
    rows = ep.query(sql, params or [])
    return next(iter(rows[0].values())) if rows else None


def player_id(ep: Episode, nickname: str) -> int:
    """A player's id, for checking the state with SQL."""
    return scalar(ep, "SELECT player_id FROM players WHERE nickname = ?", [nickname])
