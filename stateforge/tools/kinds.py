"""Named kinds of write tool: `@change(...)` and `@create(...)` instead of restating a write's annotations.

    @change(reads=("playlists", "users"), writes=("playlists",))
    def rename_playlist(env: Env, ...) -> dict: ...

    @create(reads=("users",), writes=("playlists",))
    def create_playlist(env: Env, ...) -> dict: ...

A `change` edits or removes what exists, and calling it again with the same arguments changes nothing more
(idempotent, destructive: cancel, update, delete, answer). A `create` adds something new on every call
(neither: schedule, book, write a note). A `remove` takes away what exists, and calling it again is not the
same call (destructive, not idempotent: leave a group, delete by name, refund: the second call fails or
takes the next). A write of none of these kinds keeps `@tool(kind="write", ...)`.
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


def remove(*, reads: Iterable[str] = (), writes: Iterable[str] = (), name: str | None = None) -> Callable:
    """`@tool(kind="write", idempotent=False, destructive=True, ...)`: a write that removes or overwrites
    rows, whose repeat is not a no-op."""
    return _write(reads, writes, name, idempotent=False, destructive=True)


def _write(
    reads: Iterable[str], writes: Iterable[str], name: str | None, **hints: bool
) -> Callable[..., Any]:
    return tool(kind="write", reads=tuple(reads), writes=tuple(writes), name=name, **hints)
