"""Finding a row by the name a user knows, with a did-you-mean when the name is not there.

    hero = find_named(env, "heroes", "hero_id", "li bai", "hero", extra=", price_gold")

For catalogue tables whose names are unique (heroes, items, categories): the exact name, else the one that
matches in any letter case; otherwise a `ToolError` that lists up to six names containing the text, so that
an agent can ask the user which one was meant.
"""

from __future__ import annotations

from typing import Any

from stateforge.tools.env import Env
from stateforge.tools.errors import ToolError
from stateforge.tools.wording import names


def find_named(env: Env, table: str, key: str, name: str, what: str, *, extra: str = "") -> dict[str, Any]:
    """The row (`key`, `name` and the `extra` columns, ", price_gold") of `table` named `name`; the error
    calls it a `what` ("no hero named 'Li'. Did you mean Li Bai?")."""
    columns = f"{key}, name{extra}"
    row = env.one(f"SELECT {columns} FROM {table} WHERE name = ?", [name])
    if row is None:
        row = env.one(f"SELECT {columns} FROM {table} WHERE lower(name) = lower(?)", [name])
    if row is not None:
        return row
    near = env.query(
        f"SELECT name FROM {table} WHERE contains(lower(name), lower(?)) ORDER BY name LIMIT 6", [name]
    )
    hint = f" Did you mean {names(near, 'name')}?" if near else ""
    raise ToolError(f"no {what} named {name!r}.{hint}")
