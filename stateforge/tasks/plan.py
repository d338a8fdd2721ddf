"""The reference plan: a task's steps in plain words, derived from its calls and what they returned.

    Find songs where title contains 'love' (page 1, 100 a page): 37 found
    Update song for each of 37 rows: explicit yes (37 rows of songs updated)
    Work out the average price of the album's tracks: 39.99
    Decline with cannot_complete: there is no playlist called 'Road Trip Mix'

A recipe may give a call's words itself (`ctx.call(..., step="Remove 12 songs from it")`); runs of three
or more calls of one tool read as one step; derived values and the decline of an infeasible task close it.
"""

from __future__ import annotations

from typing import Any

from stateforge.episode import ToolResult
from stateforge.tasks.draft import Call
from stateforge.tasks.model import Derivation
from stateforge.tools import CANNOT_COMPLETE
from stateforge.values import dumps

OPERATORS = {
    "eq": "=",
    "ne": "≠",
    "lt": "<",
    "le": "≤",
    "gt": ">",
    "ge": "≥",
    "contains": "contains",
    "in": "in",
    "is_null": "is null",
}
VERBS = {
    "search": "Find",
    "get": "Look up",
    "list": "List",
    "find": "Find",
    "create": "Create",
    "update": "Update",
    "delete": "Delete",
}
MAX_TEXT = 60
RUN = 3


def text(value: Any) -> str:
    """A JSON value in a plan: text quoted and cut at 60 characters, numbers bare, yes/no, lists joined."""
    if isinstance(value, str):
        return repr(value if len(value) <= MAX_TEXT else value[: MAX_TEXT - 3] + "...")
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "nothing"
    if isinstance(value, list):
        shown = ", ".join(text(v) for v in value[:5])
        return f"[{shown}{', ...' if len(value) > 5 else ''}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {text(v)}" for k, v in list(value.items())[:5]) + "}"
    return dumps(value)


def action(tool: str) -> str:
    """`search_albums` -> `Find albums`, `add_songs_to_playlist` -> `Add songs to playlist`."""
    verb, _, rest = tool.partition("_")
    words = rest.replace("_", " ")
    return f"{VERBS.get(verb, verb.capitalize())} {words}".strip()


def arguments_text(arguments: dict[str, Any]) -> str:
    """`where title = 'Road Trip' and price ≥ 40, page 2 (100 a page)` or `name 'Road Trip', public no`."""
    parts = []
    filters = arguments.get("filters")
    if isinstance(filters, list) and all(isinstance(f, dict) and "column" in f for f in filters):
        conditions = [
            f"{f['column']} {OPERATORS.get(f.get('op', 'eq'), f.get('op'))}"
            + ("" if f.get("op") == "is_null" and f.get("value") is True else f" {text(f.get('value'))}")
            for f in filters
        ]
        if conditions:
            parts.append("where " + " and ".join(conditions))
    for name, value in arguments.items():
        if name in ("filters", "limit", "offset", "descending"):
            continue
        if name == "sort_by" and value is not None:
            parts.append(f"sorted by {value}{' descending' if arguments.get('descending') else ''}")
            continue
        parts.append(f"{name.replace('_', ' ')} {text(value)}")
    limit, offset = arguments.get("limit"), arguments.get("offset")
    if isinstance(limit, int) and isinstance(offset, int) and offset:
        parts.append(f"page {offset // limit + 1} ({limit} a page)")
    return ", ".join(parts)


def outcome(result: ToolResult | None) -> str:
    """`: 37 found`, ` (1 row of playlists updated)`, ` -> refused: <error>`."""
    if result is None:
        return ""
    if not result.ok:
        return f" -> refused: {result.error}"
    changed = changes_text(result.changes)
    if changed:
        return f" ({changed})"
    value = result.value
    if isinstance(value, dict) and isinstance(value.get("total"), int):
        return f": {value['total']} found"
    return ""


def changes_text(changes: dict[str, dict[str, int]]) -> str:
    """`12 rows of playlist_songs deleted, 1 row of playlists updated`."""
    parts = []
    for table, kinds in changes.items():
        for kind, n in kinds.items():
            parts.append(f"{n} row{'s' if n != 1 else ''} of {table} {kind}")
    return ", ".join(parts)


def _merged_changes(results: list[ToolResult | None]) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for result in results:
        for table, kinds in (result.changes if result is not None else {}).items():
            for kind, n in kinds.items():
                total.setdefault(table, {}).setdefault(kind, 0)
                total[table][kind] += n
    return total


def describe(call: Call, result: ToolResult | None) -> str:
    """One call in words (its `step` if the generator gave one)."""
    if call.step:
        return call.step
    if call.tool == CANNOT_COMPLETE:
        return f"Decline with cannot_complete: {call.arguments.get('reason', '')}"
    args = arguments_text(call.arguments)
    return f"{action(call.tool)}{' ' + args if args else ''}{outcome(result)}"


def describe_run(calls: list[Call], results: list[ToolResult | None]) -> str:
    """Several calls of one tool as one step: what they share, how many, what they changed in all."""
    shared = {k: v for k, v in calls[0].arguments.items() if all(c.arguments.get(k) == v for c in calls)}
    varying = sorted({k for c in calls for k in c.arguments} - set(shared))
    args = arguments_text(shared)
    changed = changes_text(_merged_changes(results))
    each = f" for each of {len(calls)} rows" + (f" (by {', '.join(varying)})" if varying else "")
    return f"{action(calls[0].tool)}{each}{': ' + args if args else ''}" + (
        f" ({changed})" if changed else ""
    )


def derived_step(item: Derivation) -> str:
    """`Work out the number of songs: 4`; a yes/no or empty value is in the words already."""
    if item.value is None or isinstance(item.value, bool):
        return f"Work out {item.how}"
    return f"Work out {item.how}: {text(item.value)}"


def reference_plan(
    calls: list[Call],
    results: list[ToolResult | None],
    derived: list[Derivation] | tuple[Derivation, ...] = (),
) -> list[str]:
    """The plan of a task: one step per call (runs of one tool merged), its derived values placed just
    before the first step that changes something (or before the decline)."""
    steps: list[str] = []
    first_change: int | None = None
    i = 0
    while i < len(calls):
        j = i
        while j < len(calls) and calls[j].tool == calls[i].tool and not calls[j].step:
            j += 1
        j = j if j - i >= RUN and calls[i].tool != CANNOT_COMPLETE else i + 1
        part = [results[k] if k < len(results) else None for k in range(i, j)]
        changes = any(r is not None and r.changes for r in part) or calls[i].tool == CANNOT_COMPLETE
        if changes and first_change is None:
            first_change = len(steps)
        steps.append(describe_run(calls[i:j], part) if j - i > 1 else describe(calls[i], part[0]))
        i = j
    where = len(steps) if first_change is None else first_change
    steps[where:where] = [derived_step(item) for item in derived]
    return steps
