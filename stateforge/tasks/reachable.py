"""Write arguments are reachable: every value a reference write passes comes from somewhere a solver sees.

A leaf of a write call's arguments (a scalar; the items of a list one by one) passes when it is

1. a yes/no flag or nothing (`null`): a choice of what to do, which the instruction's words decide
   ("private", "turn notifications off"), not a fact to find;
2. the tool's own default for that argument (the same as not passing it);
3. stated in the instruction (`wording.stated`), or a day whose day before is (the exclusive end of a span
   the instruction names inclusively: "up to May 3" is `before: 2026-05-04`);
4. returned by an earlier call of the reference (any value in its result: an id a search showed, the
   playlist a create returned); or
5. declared derived (`ctx.derived(value, how)`: a sum, a computed date); or
6. written to a column compared loosely (`ignore`, `any_non_null`): any value would do.

Anything else means the reference knows what the solver cannot find: the gate rejects the draft as
`unreached_argument`, naming `tool.argument` (`call 7 add_songs_to_playlist.songs`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

from pydantic_core import PydanticUndefined

from stateforge.episode import ToolResult
from stateforge.tasks.draft import Call, Draft
from stateforge.tasks.wording import same_value, stated
from stateforge.tools import Toolkit
from stateforge.values import json_value


def scalars(value: Any) -> Iterator[Any]:
    """Every scalar inside a JSON value (lists and objects opened), the containers themselves left out."""
    if isinstance(value, dict):
        for item in value.values():
            yield from scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from scalars(item)
    else:
        yield value


class Seen:
    """The values the solver has seen so far: scalars of earlier results, indexed for quick lookup."""

    def __init__(self) -> None:
        self._text: set[str] = set()
        self._numbers: set[float] = set()
        self._other: list[Any] = []

    def add(self, value: Any) -> None:
        for item in scalars(json_value(value)):
            if isinstance(item, bool) or item is None:
                continue
            if isinstance(item, int | float):
                self._numbers.add(float(item))
                self._text.add(str(item))
            elif isinstance(item, str):
                self._text.add(item.casefold())
                try:
                    self._numbers.add(float(item))
                except ValueError:
                    pass
            else:
                self._other.append(item)

    def __contains__(self, value: Any) -> bool:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value) in self._numbers
        if isinstance(value, str):
            return value.casefold() in self._text
        return any(same_value(value, o) for o in self._other)


def said(value: Any, instruction: str) -> bool:
    """Stated in the instruction, or a day that ends an inclusive span whose last day is stated."""
    if stated(value, instruction):
        return True
    if isinstance(value, str) and len(value) == 10:
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            return False
        return stated((day - dt.timedelta(days=1)).isoformat(), instruction)
    return False


def _defaults(toolkit: Toolkit, tool: str) -> dict[str, Any]:
    if tool not in toolkit:
        return {}
    fields = toolkit[tool].arguments.model_fields
    return {name: json_value(f.default) for name, f in fields.items() if f.default is not PydanticUndefined}


def unreached_arguments(
    draft: Draft,
    calls: list[Call],
    results: list[ToolResult],
    toolkit: Toolkit,
    exempt: list[Any] | tuple[Any, ...] = (),
) -> list[str]:
    """`call N tool.argument` of every write argument that breaks the rules of the module docstring;
    `exempt`: values written to loosely compared columns (any value would do, so none is demanded)."""
    seen = Seen()
    derived: list[Any] = []
    for item in draft.derived:
        derived.extend(scalars(json_value(item.value)))
    found: list[str] = []
    for number, (call, result) in enumerate(zip(calls, results, strict=False), start=1):
        is_write = call.tool in toolkit and toolkit[call.tool].kind == "write"
        if is_write:
            defaults = _defaults(toolkit, call.tool)
            for name, value in call.arguments.items():
                if name in defaults and same_value(json_value(value), defaults[name]):
                    continue
                for leaf in scalars(json_value(value)):
                    if leaf is None or isinstance(leaf, bool) or leaf in seen:
                        continue
                    if any(same_value(leaf, e) for e in exempt):
                        continue
                    if any(same_value(leaf, d) for d in derived) or said(leaf, draft.instruction):
                        continue
                    found.append(f"call {number} {call.tool}.{name} ({leaf!r})")
                    break
        if result.ok:
            seen.add(result.value)
    return found
