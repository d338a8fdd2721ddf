"""`Toolkit`: the tools of a domain by name, in a stable order, and what they cover of the schema.

    kit = Toolkit([search_songs, create_playlist, ...], name="music")
    kit["create_playlist"]            # UnknownToolError with the closest names otherwise
    kit.openai_tools()                # [{"type": "function", "function": {...}}, ...]
    kit.mcp_tools()                   # [{"name", "description", "inputSchema", "annotations"}, ...]
    kit.coverage(schema)              # per table: tools reading it, writing it, changing it by cascade

Every toolkit holds the standard tool `cannot_complete(reason)`, by which a solver declines a task it
finds infeasible: a read tool that changes nothing and is recorded in the episode's log.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from stateforge.schema.model import Schema, suggest
from stateforge.tools.base import Tool, tool
from stateforge.tools.errors import ToolDefinitionError, UnknownToolError

CANNOT_COMPLETE = "cannot_complete"
_REFUSING = ("RESTRICT", "NO ACTION")


@tool(name=CANNOT_COMPLETE)
def cannot_complete(env: Any, reason: str) -> dict[str, str]:
    """Decline the task: call this instead of acting when the request cannot be done as asked (what it
    names does not exist, it breaks a rule of the service, or it is ambiguous). Changes nothing.

    Args:
        reason: Why the task cannot be completed, in one or two sentences.
    """
    return {"status": "declined", "reason": reason}


@dataclass
class TableCoverage:
    """Which tools touch one table."""

    table: str
    reads: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    cascades: list[str] = field(default_factory=list)
    """Tools that change it only through ON DELETE / ON UPDATE actions of the tables they write."""

    def to_dict(self) -> dict[str, Any]:
        """The coverage of this table as JSON data."""
        return {"table": self.table, "reads": self.reads, "writes": self.writes, "cascades": self.cascades}


@dataclass
class Coverage:
    """Per table, the tools that read and write it; and the tables no tool can write."""

    tables: list[TableCoverage]

    @property
    def unwritable(self) -> list[str]:
        """Tables no tool writes directly (a task cannot insert into them or update them)."""
        return [t.table for t in self.tables if not t.writes]

    @property
    def unread(self) -> list[str]:
        """Tables no tool reads."""
        return [t.table for t in self.tables if not t.reads]

    def to_dict(self) -> dict[str, Any]:
        """The whole report as JSON data (what `stateforge tools --json` prints under "coverage")."""
        return {
            "tables": [t.to_dict() for t in self.tables],
            "unwritable": self.unwritable,
            "unread": self.unread,
        }


class Toolkit:
    """An ordered, name-unique set of tools; `cannot_complete` is always included (last)."""

    def __init__(self, tools: Iterable[Tool] = (), *, name: str = "") -> None:
        self.name = name
        self._tools: dict[str, Tool] = {}
        self._checked: weakref.ref[Schema] | None = None
        self._checked_size = 0
        for item in tools:
            self.add(item)
        if CANNOT_COMPLETE not in self._tools:
            self._tools[CANNOT_COMPLETE] = cannot_complete

    def add(self, item: Tool) -> None:
        """Add a tool; a second tool of the same name is a `ToolDefinitionError`."""
        if not isinstance(item, Tool):
            raise ToolDefinitionError(
                f"toolkit {self.name}: {item!r} is not a Tool (decorate it with @tool)."
            )
        if item.name in self._tools and self._tools[item.name] is not item:
            raise ToolDefinitionError(f"toolkit {self.name}: two tools are named {item.name}; rename one.")
        standard = self._tools.pop(CANNOT_COMPLETE, None)
        self._tools[item.name] = item
        if standard is not None and item.name != CANNOT_COMPLETE:
            self._tools[CANNOT_COMPLETE] = standard

    def __getitem__(self, name: str) -> Tool:
        found = self._tools.get(name)
        if found is None:
            raise UnknownToolError(
                f'no tool named "{name}".{suggest(name, list(self._tools))} '
                f"There are {len(self._tools)} tools; list them to see their names."
            )
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def names(self) -> list[str]:
        """The tool names, in order."""
        return list(self._tools)

    def check(self, schema: Schema) -> None:
        """`ToolDefinitionError` for a declared table the schema does not have (with a suggestion).

        Remembers the last schema object it passed, so checking each new episode of one base is free.
        """
        if self._checked is not None and self._checked() is schema and self._checked_size == len(self):
            return
        for item in self:
            for table in (*item.reads, *item.writes):
                if not schema.has_table(table):
                    raise ToolDefinitionError(
                        f'tool {item.name}: declares table "{table}", which the schema does not have.'
                        f"{suggest(table, schema.table_names)}"
                    )
        self._checked, self._checked_size = weakref.ref(schema), len(self)

    def openai_tools(self) -> list[dict[str, Any]]:
        """Every tool in OpenAI function-calling form."""
        return [t.openai() for t in self]

    def mcp_tools(self) -> list[dict[str, Any]]:
        """Every tool as an MCP `tools/list` entry."""
        return [t.mcp() for t in self]

    def listing(self) -> list[dict[str, Any]]:
        """Every tool's name, kind, tables, parameters and description."""
        return [t.describe() for t in self]

    def coverage(self, schema: Schema) -> Coverage:
        """Per table of `schema`: the tools that read it, write it, or change it through cascades."""
        self.check(schema)
        rows = {t.name.lower(): TableCoverage(t.name) for t in schema.tables}
        reach = _cascade_reach(schema)
        for item in self:
            for table in item.reads:
                _append(rows[table.lower()].reads, item.name)
            for table in item.writes:
                _append(rows[table.lower()].writes, item.name)
                for reached in reach.get(table.lower(), ()):
                    if item.name not in rows[reached].writes:
                        _append(rows[reached].cascades, item.name)
        return Coverage(tables=list(rows.values()))


def _append(names: list[str], name: str) -> None:
    if name not in names:
        names.append(name)


def _cascade_reach(schema: Schema) -> dict[str, set[str]]:
    """Per table: the tables its deletes or key updates can change through CASCADE / SET NULL / DEFAULT."""
    edges: dict[str, set[str]] = {}
    for table in schema.tables:
        for fk in table.foreign_keys:
            if fk.on_delete not in _REFUSING or fk.on_update not in _REFUSING:
                edges.setdefault(fk.ref_table.lower(), set()).add(table.name.lower())
    reach: dict[str, set[str]] = {}
    for start in edges:
        seen: set[str] = set()
        stack = [start]
        while stack:
            for nxt in edges.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        seen.discard(start)
        reach[start] = seen
    return reach
