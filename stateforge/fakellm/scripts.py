"""Scripted conversations: a test tells the fake model exactly which tools to call, turn by turn.

    POST /_control/scripts
    {"key": "replay-task-7", "match": "Make my playlist 'Road Trip' private", "turns": [
        [{"name": "search_playlists", "arguments": {"query": "Road Trip"}}],
        [{"name": "update_playlist", "arguments": {"playlist_id": {"$from": [0, "rows", 0, "id"]},
                                                   "is_public": false}}],
        "Done: the playlist is private now."
    ]}

A conversation follows the script whose `match` text (default: the key) appears in its system message or
its first user message; the longest match wins, so several scripts, and several conversations of one
script, run at once. The server keeps no state: turn `t` of the script answers the request that already
holds `t` assistant messages. A turn is a list of tool calls (`{"name", "arguments"}`, or `"raw_arguments"`:
the exact string to send, e.g. broken JSON), or a final message (a string, or `{"content": ...}`).

`{"$from": [turn, key-or-index, ...]}` anywhere in the arguments is replaced by a value of an earlier
call's result (parsed as JSON): `turn` picks the first call of that assistant turn (negative: counted
back from the current turn), `[turn, k]` its `k`-th call; the rest is a path into the result. A path
that does not resolve is a 400 naming the script, the turn and the path: a test's mistake must be loud.

`replay_script` (a solver that replays a task's reference calls) and `decline_script` (one that declines
with `cannot_complete`) build the common scripts.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stateforge.fakellm.chat import ApiError
from stateforge.fakellm.conversation import Conversation

FROM = "$from"


@dataclass(frozen=True)
class ScriptedCall:
    """One call of a scripted turn: arguments to resolve, or the exact argument text."""

    name: str
    arguments: Any = None
    raw_arguments: str | None = None


@dataclass(frozen=True)
class ScriptTurn:
    """Tool calls, or (when `calls` is empty) a final message."""

    calls: tuple[ScriptedCall, ...] = ()
    content: str | None = None


@dataclass
class Script:
    """A named list of turns and the text that selects it."""

    key: str
    match: str
    turns: tuple[ScriptTurn, ...]
    served: int = 0
    """Turns answered from this script (all conversations)."""

    def describe(self) -> dict[str, Any]:
        """The script's listing for `GET /_control/scripts`."""
        return {"key": self.key, "match": self.match, "turns": len(self.turns), "served": self.served}


def parse_script(data: Any) -> Script:
    """A `Script` from its JSON form (see the module docstring); ValueError naming what is wrong."""
    if not isinstance(data, dict):
        raise ValueError('a script is an object: {"key", "match"?, "turns": [...]}')
    unknown = sorted(set(data) - {"key", "match", "turns"})
    if unknown:
        raise ValueError(f"script: unknown field(s) {unknown}; the fields are key, match, turns")
    key = data.get("key")
    if not isinstance(key, str) or not key.strip():
        raise ValueError("script: 'key' must be a non-empty string")
    match = data.get("match", key)
    if not isinstance(match, str) or not match:
        raise ValueError(f"script {key}: 'match' must be a non-empty string")
    turns = data.get("turns")
    if not isinstance(turns, list) or not turns:
        raise ValueError(f"script {key}: 'turns' must be a non-empty list")
    return Script(key, match, tuple(_turn(key, i, turn) for i, turn in enumerate(turns)))


def _turn(key: str, i: int, turn: Any) -> ScriptTurn:
    if isinstance(turn, str):
        return ScriptTurn(content=turn)
    if isinstance(turn, dict) and set(turn) == {"content"} and isinstance(turn["content"], str):
        return ScriptTurn(content=turn["content"])
    if isinstance(turn, dict) and set(turn) == {"tool_calls"}:
        turn = turn["tool_calls"]
    if not isinstance(turn, list) or not turn:
        raise ValueError(f"script {key}, turn {i}: a non-empty list of calls, or a final message (a string)")
    calls = []
    for k, call in enumerate(turn):
        where = f"script {key}, turn {i}, call {k}"
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            raise ValueError(f'{where}: each call is {{"name", "arguments"}} (or "raw_arguments")')
        extra = sorted(set(call) - {"name", "arguments", "raw_arguments"})
        if extra:
            raise ValueError(f"{where}: unknown field(s) {extra}")
        raw = call.get("raw_arguments")
        if raw is not None and not isinstance(raw, str):
            raise ValueError(f"{where}: 'raw_arguments' is the exact text to send, a string")
        calls.append(ScriptedCall(call["name"], call.get("arguments", {}), raw))
    return ScriptTurn(calls=tuple(calls))


def replay_script(
    key: str, match: str, calls: Sequence[Mapping[str, Any]], *, final: str = "Done."
) -> dict[str, Any]:
    """A script that makes `calls` one per turn, in order, then says `final`: a solver replaying a task's
    reference calls (`[{"tool": name, "arguments": {...}}]`, the tasks.jsonl format; `name` works too)."""
    turns: list[Any] = [
        [{"name": call.get("tool", call.get("name")), "arguments": dict(call.get("arguments") or {})}]
        for call in calls
    ]
    return {"key": key, "match": match, "turns": [*turns, final]}


def decline_script(key: str, match: str, reason: str, *, tool: str = "cannot_complete") -> dict[str, Any]:
    """A script that declines at once: one call of `tool` (the toolkits' standard `cannot_complete`) with
    `reason`, then a final message saying why."""
    return {
        "key": key,
        "match": match,
        "turns": [[{"name": tool, "arguments": {"reason": reason}}], f"I cannot do this: {reason}"],
    }


class ScriptBook:
    """The registered scripts (thread-safe): add, remove, find the one a conversation follows."""

    def __init__(self) -> None:
        self._scripts: dict[str, Script] = {}
        self._lock = threading.Lock()

    def add(self, script: Script) -> None:
        """Register `script` (replacing one of the same key)."""
        with self._lock:
            self._scripts[script.key] = script

    def remove(self, key: str | None = None) -> int:
        """Drop the script `key`, or every script when None; returns how many were dropped."""
        with self._lock:
            if key is None:
                count = len(self._scripts)
                self._scripts.clear()
                return count
            return 1 if self._scripts.pop(key, None) is not None else 0

    def listing(self) -> list[dict[str, Any]]:
        """Every script's description, by key."""
        with self._lock:
            return [self._scripts[k].describe() for k in sorted(self._scripts)]

    def find(self, conversation: Conversation) -> Script | None:
        """The script whose match text is in the system or first user message (the longest wins)."""
        text = f"{conversation.system}\n{conversation.opening}"
        with self._lock:
            found = [s for s in self._scripts.values() if s.match in text]
        return max(found, key=lambda s: len(s.match)) if found else None

    def served(self, script: Script) -> None:
        """Count one turn answered from `script`."""
        with self._lock:
            script.served += 1


@dataclass
class PlannedCall:
    """A call to send: its name and its argument text."""

    name: str
    arguments: str


@dataclass
class Planned:
    """What a driver (script or agent) answers this turn: calls, or a final message."""

    calls: list[PlannedCall] = field(default_factory=list)
    content: str | None = None

    @staticmethod
    def call(name: str, arguments: dict[str, Any]) -> Planned:
        """One call with these arguments."""
        return Planned([PlannedCall(name, json.dumps(arguments, ensure_ascii=False))])

    @staticmethod
    def say(content: str) -> Planned:
        """A final message."""
        return Planned(content=content)


def scripted_turn(script: Script, conversation: Conversation) -> Planned:
    """The script's answer to the conversation's current turn, `$from` references resolved."""
    t = conversation.turn
    if t >= len(script.turns):
        raise ApiError(
            400,
            f"script {script.key!r} has {len(script.turns)} turn(s); the conversation asks for turn {t + 1}. "
            "End the script with a final message, or add turns.",
            code="script_exhausted",
        )
    turn = script.turns[t]
    if not turn.calls:
        return Planned.say(turn.content or "")
    calls = []
    for k, call in enumerate(turn.calls):
        if call.raw_arguments is not None:
            calls.append(PlannedCall(call.name, call.raw_arguments))
            continue
        where = f"script {script.key!r}, turn {t}, call {k}"
        resolved = resolve(call.arguments, conversation, where)
        calls.append(PlannedCall(call.name, json.dumps(resolved, ensure_ascii=False)))
    return Planned(calls)


def resolve(value: Any, conversation: Conversation, where: str) -> Any:
    """`value` with every `{"$from": [...]}` replaced by what it points at (see the module docstring)."""
    if isinstance(value, dict):
        if set(value) == {FROM}:
            return _lookup(value[FROM], conversation, where)
        return {k: resolve(v, conversation, where) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, conversation, where) for v in value]
    return value


def _lookup(path: Any, conversation: Conversation, where: str) -> Any:
    if not isinstance(path, list) or not path:
        raise ApiError(400, f"{where}: $from must be a list [turn, key-or-index, ...], not {path!r}.")
    head, rest = path[0], path[1:]
    turn, index = (head[0], head[1]) if isinstance(head, list) and len(head) == 2 else (head, 0)
    if not isinstance(turn, int) or not isinstance(index, int):
        raise ApiError(400, f"{where}: $from {path!r}: the first element is a turn, or [turn, call].")
    calls = conversation.made_by(turn)
    if index >= len(calls) or calls[index].result_text is None:
        raise ApiError(400, f"{where}: $from {path!r}: turn {turn} made no call {index} with a result.")
    value: Any = calls[index].result
    for depth, step in enumerate(rest):
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            at = path[: depth + 2]
            raise ApiError(
                400, f"{where}: $from {path!r}: nothing at {at!r} in the result of {calls[index].name}."
            ) from None
    return value
