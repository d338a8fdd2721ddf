"""Named kinds of write tool: `@change(...)` and `@create(...)` instead of restating a write's annotations.

    @change(reads=("playlists", "users"), writes=("playlists",))
    def rename_playlist(env: Env, ...) -> dict: ...

    @create(reads=("users",), writes=("playlists",))
    def create_playlist(env: Env, ...) -> dict: ...

A `change` edits or removes what exists, and calling it again with the same arguments changes nothing more
(idempotent, destructive: cancel, update, delete, answer). A `create` adds something new on every call
(neither: schedule, book, write a note). A write that is neither kind keeps `@tool(kind="write", ...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from stateforge.tools.base import tool


def change(*, reads: Iterable[str] = (), writes: Iterable[str] = (), name: str | None = None) -> Callable:
    """`@tool(kind="write", idempotent=True, destructive=True, ...)`: a write that changes or removes rows
    and can be repeated safely."""
    return _write(reads, writes, name, idempotent=True, destructive=True)


def create(*, reads: Iterable[str] = (), writes: Iterable[str] = (), name: str | None = None) -> Callable:
    """`@tool(kind="write", idempotent=False, destructive=False, ...)`: a write that adds new rows each time
    it runs."""
    return _write(reads, writes, name, idempotent=False, destructive=False)


def _write(
    reads: Iterable[str], writes: Iterable[str], name: str | None, **hints: bool
) -> Callable[..., Any]:
    return tool(kind="write", reads=tuple(reads), writes=tuple(writes), name=name, **hints)
