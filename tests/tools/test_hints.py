"""destructiveHint from what a tool's code does (stateforge/tools/hints.py): one small tool per case, and
the packs' write tools as listed."""

from __future__ import annotations

from typing import Any

import pytest

from stateforge.tools import Env, Expr, tool
from stateforge.tools.hints import derive_destructive
from stateforge.tools.loader import load_toolkit


def _record(env: Env, name: str) -> dict[str, Any]:
    return env.insert("labels", {"name": name})


def _purge(env: Env, name: str) -> None:
    env.delete_where("labels", "name = ?", [name])


@tool(kind="write", writes=("labels",))
def adds(env: Env, name: str) -> dict:
    """Add a label.

    Args:
        name: The label.
    """
    return env.insert("labels", {"name": name})


@tool(kind="write", writes=("labels",))
def adds_through_a_helper(env: Env, name: str) -> dict:
    """Add a label through a helper of this module.

    Args:
        name: The label.
    """
    return _record(env, name)


@tool(kind="write", writes=("labels",))
def deletes_through_a_helper(env: Env, name: str) -> dict:
    """Remove a label through a helper.

    Args:
        name: The label.
    """
    _purge(env, name)
    return {"removed": name}


@tool(kind="write", writes=("labels",))
def steps_a_counter(env: Env, name: str, column: str = "uses") -> dict:
    """Count a use and stamp it.

    Args:
        name: The label.
        column: The counter.
    """
    env.update_where("labels", "name = ?", [name], {column: Expr(f"{column} + ?", [1]), "used_at": env.now})
    return {"counted": name}


@tool(kind="write", writes=("labels",))
def overwrites(env: Env, name: str, title: str) -> dict:
    """Rename a label.

    Args:
        name: The label.
        title: Its new name.
    """
    env.update("labels", {"name": name}, {"name": title})
    return {"renamed": title}


@tool(kind="write", writes=("labels",))
def overwrites_through_a_mapping(env: Env, name: str) -> dict:
    """Change a label with changes the reading cannot see.

    Args:
        name: The label.
    """
    changes = {"uses": Expr("uses + 1")}
    env.update("labels", {"name": name}, changes)
    return {}


@tool(kind="write", writes=("labels",))
def writes_out_of_sight(env: Env, name: str) -> dict:
    """Write through a callable the reading cannot follow.

    Args:
        name: The label.
    """
    writer = getattr(env, "insert")  # noqa: B009 - the point: a write the reading cannot see
    return writer("labels", {"name": name})


@tool(kind="write", writes=("labels",), destructive=False)
def declared(env: Env, name: str) -> dict:
    """Remove and add back a label, declared not destructive.

    Args:
        name: The label.
    """
    env.delete("labels", {"name": name})
    return env.insert("labels", {"name": name})


@tool(kind="write", writes=("labels",))
def not_env_updates(env: Env, name: str) -> dict:
    """A dict's update and a list's insert are not writes.

    Args:
        name: The label.
    """
    row: dict[str, Any] = {}
    row.update({"name": name})
    names: list[str] = []
    names.insert(0, name)
    return env.insert("labels", row)


@pytest.mark.parametrize(
    ("made", "derived", "hint"),
    [
        (adds, False, False),
        (adds_through_a_helper, False, False),
        (deletes_through_a_helper, True, True),
        (steps_a_counter, False, False),
        (overwrites, True, True),
        (overwrites_through_a_mapping, True, True),
        (writes_out_of_sight, None, True),  # cannot tell: the MCP default
        (declared, True, False),  # a declaration wins
        (not_env_updates, False, False),
    ],
    ids=lambda v: getattr(v, "name", repr(v)),
)
def test_destructive_hint_follows_what_the_code_does(made: Any, derived: bool | None, hint: bool):
    assert derive_destructive(made) is derived
    assert made.annotations["destructiveHint"] is hint
    assert made.annotations["readOnlyHint"] is False


PACK_HINTS = {
    "music": {
        "create_playlist": False,
        "add_songs_to_playlist": False,
        "sort_playlist": True,
        "delete_playlist": True,
        "update_playlist": True,
        "like_songs": False,
        "play_song": False,
    },
    "game": {
        "buy_heroes": False,
        "buy_skins": False,
        "gift_skin": False,
        "join_clan": False,
        "equip_skin": True,
        "delete_builds": True,
        "leave_clan": True,
    },
    "meeting": {"schedule_meeting": False, "invite_attendees": False, "cancel_meeting": True},
    "library": {"borrow_copy": False},
}


@pytest.mark.parametrize("pack", sorted(PACK_HINTS))
def test_pack_write_tools_are_flagged_destructive_by_what_they_do(pack: str):
    """Additive tools (create, buy, join, add) are not destructive; those that delete, overwrite or reorder
    are; and the reading of the code decides every write tool a pack leaves undeclared."""
    kit = load_toolkit(pack)
    hints = {t.name: t.annotations["destructiveHint"] for t in kit}
    assert {name: hints[name] for name in PACK_HINTS[pack]} == PACK_HINTS[pack]
    undecided = [
        t.name for t in kit if t.kind == "write" and t.destructive is None and derive_destructive(t) is None
    ]
    assert undecided == [], f"declare @tool(destructive=...) on {undecided}: the reading cannot tell"
