"""One registry shape for what is chosen by name: solvers, task generators, LLM backends, column strategies.

    SOLVERS = Registry("solver", group="stateforge.solvers", error=SolverError, paths=True)
    SOLVERS.add("oracle", "stateforge.evaluate.solvers.oracle:make", "replays the reference", privileged=True)
    SOLVERS.entry("oracle").options["privileged"]     # what the entry says of itself, nothing imported
    SOLVERS.load("oracle")                            # the factory, imported now
    "oracle" in SOLVERS; sorted(SOLVERS)              # a Mapping of names to entries

An entry's target is either the object itself or a `module:attribute` string, imported the first time the
entry is loaded, so an entry nobody uses costs nothing and its dependencies need not be installed.
Third parties add entries without touching Stateforge through a Python entry-point group (the registry's
`group`, e.g. in a package's pyproject.toml: `[project.entry-points."stateforge.solvers"]
my-agent = "my_agents:make"`); entry points are read once, the first time a name is missing or the names
are listed. With `paths=True` a name that is not registered but reads `module:attribute` is loaded as is
(`--solver my_agents:make`). An unknown name is the registry's `error` with the names there are and a
did-you-mean.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from stateforge.errors import TerminalError, suggest


@dataclass(frozen=True)
class Entry:
    """One registered name: what it stands for, how it is described, and the options it carries."""

    name: str
    target: Any
    """The object, or `module:attribute` of it (imported on first `load`)."""
    description: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)
    """What callers need to know before loading (a solver's `privileged`, `needs_model`)."""

    @property
    def lazy(self) -> bool:
        """Whether the target is a `module:attribute` reference still to import."""
        return isinstance(self.target, str)


class Registry(Mapping[str, Entry]):
    """Entries of one kind by name (names are matched in lower case, surrounding spaces ignored)."""

    def __init__(
        self,
        kind: str,
        *,
        group: str | None = None,
        error: type[TerminalError] = TerminalError,
        paths: bool = False,
        hint: str = "",
    ) -> None:
        self.kind = kind
        self.group = group
        self.error = error
        self.paths = paths
        self.hint = hint
        self._entries: dict[str, Entry] = {}
        self._loaded: dict[str, Any] = {}
        self._plugins_read = group is None

    # --- registering -------------------------------------------------------------------------------------

    def add(self, name: str, target: Any, description: str = "", **options: Any) -> Entry:
        """Register `target` (an object or `module:attribute`) as `name`, replacing an earlier one."""
        key = _key(name)
        entry = Entry(key, target, description, dict(options))
        self._entries[key] = entry
        self._loaded.pop(key, None)
        return entry

    # --- looking up --------------------------------------------------------------------------------------

    def entry(self, name: str) -> Entry:
        """The entry registered as `name` (or made for a `module:attribute` name); the registry's error
        with the names there are otherwise."""
        key = _key(name) if isinstance(name, str) else ""
        found = self._entries.get(key)
        if found is None and not self._plugins_read:
            self._read_plugins()
            found = self._entries.get(key)
        if found is not None:
            return found
        if self.paths and isinstance(name, str) and ":" in name and name.split(":", 1)[0].strip():
            return Entry(name.strip(), name.strip(), f"the {self.kind} {name.strip()}")
        self._read_plugins()
        known = ", ".join(sorted(self._entries)) or "none"
        own = " Or give your own as module:attribute (e.g. my_package.module:make)." if self.paths else ""
        raise self.error(
            f"unknown {self.kind} {name!r}.{suggest(str(name), list(self._entries))} "
            f"Registered: {known}.{own}{self.hint}"
        )

    def load(self, name: str) -> Any:
        """What `name` stands for, imported now if it was registered as `module:attribute`."""
        entry = self.entry(name)
        if entry.name in self._loaded:
            return self._loaded[entry.name]
        value = self.resolve(entry)
        if entry.name in self._entries:
            self._loaded[entry.name] = value
        return value

    def resolve(self, entry: Entry) -> Any:
        """The entry's target: the object itself, or `module:attribute` imported (the registry's error naming
        the module and what to install or fix when that fails)."""
        if not entry.lazy:
            return entry.target
        module_name, _, attribute = entry.target.partition(":")
        try:
            module = importlib.import_module(module_name.strip())
        except ImportError as exc:
            raise self.error(
                f"{self.kind} {entry.name!r}: cannot import {module_name} ({exc}). Install what it needs, or "
                "check that the module is on the Python path (module:attribute)."
            ) from exc
        value = getattr(module, attribute.strip(), None) if attribute.strip() else None
        if value is None:
            raise self.error(
                f"{self.kind} {entry.name!r}: {module_name} has no attribute "
                f"{attribute.strip() or '(attribute missing)'}; give it as module:attribute."
            )
        return value

    def _read_plugins(self) -> None:
        """Add the entry points of the registry's group (once); a name registered in code wins."""
        if self._plugins_read:
            return
        self._plugins_read = True
        for point in entry_points(group=self.group or ""):
            key = _key(point.name)
            if key not in self._entries:
                self._entries[key] = Entry(key, point.value, f"{self.kind} from {point.value} (entry point)")

    # --- the Mapping of names to entries -----------------------------------------------------------------

    def __getitem__(self, name: str) -> Entry:
        if not self._plugins_read and _key(name) not in self._entries:
            self._read_plugins()
        return self._entries[_key(name)]

    def __iter__(self) -> Iterator[str]:
        self._read_plugins()
        return iter(self._entries)

    def __len__(self) -> int:
        self._read_plugins()
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if _key(name) not in self._entries:
            self._read_plugins()
        return _key(name) in self._entries


def _key(name: str) -> str:
    return name.strip().lower()

