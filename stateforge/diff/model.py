"""The diff of two database states, and its canonical JSON (a public format: DESIGN.md, "Public formats").

    {"tables": {"<table>": {"inserted": [row, ...], "deleted": [row, ...],
                            "updated": [{"key": {...}, "changes": {"<column>": [old, new]}}, ...]}},
     "summary": {"inserted": n, "deleted": n, "updated": n}}

Tables without a change are left out; rows are in key order (as the diff computed them); every value is
canonical (`stateforge.values`: decimals as strings, ISO 8601 times, NULL as null). `to_json` is
byte-identical for equal diffs, in every process; `from_json` reads it back and checks it.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from stateforge.errors import TerminalError
from stateforge.values import dumps

KINDS = ("inserted", "deleted", "updated")


class DiffError(TerminalError):
    """Two databases cannot be diffed (a missing file, not DuckDB, tables or columns that differ), or a
    diff document is malformed. The message names the file, table or column and what to do."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RowUpdate(_Strict):
    """One updated row: its key and, for each column that changed, `(old, new)`."""

    key: dict[str, Any]
    changes: dict[str, tuple[Any, Any]]

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "changes": {c: [old, new] for c, (old, new) in self.changes.items()}}


class TableDiff(_Strict):
    """What changed in one table: whole rows inserted and deleted, and updated rows."""

    inserted: list[dict[str, Any]] = []
    deleted: list[dict[str, Any]] = []
    updated: list[RowUpdate] = []

    @property
    def empty(self) -> bool:
        return not (self.inserted or self.deleted or self.updated)

    def counts(self) -> dict[str, int]:
        """Rows per kind of change: `{"inserted": n, "deleted": n, "updated": n}`."""
        return {"inserted": len(self.inserted), "deleted": len(self.deleted), "updated": len(self.updated)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "inserted": self.inserted,
            "deleted": self.deleted,
            "updated": [u.to_dict() for u in self.updated],
        }


class Diff(_Strict):
    """Every change between a base and an after state, per table (tables without a change left out)."""

    tables: dict[str, TableDiff] = {}

    @property
    def empty(self) -> bool:
        """Whether nothing changed."""
        return not self.tables

    @property
    def summary(self) -> dict[str, int]:
        """Rows inserted, deleted and updated over all tables."""
        total = dict.fromkeys(KINDS, 0)
        for table in self.tables.values():
            for kind, n in table.counts().items():
                total[kind] += n
        return total

    def to_dict(self) -> dict[str, Any]:
        """The canonical document, as plain JSON-ready data."""
        return {
            "tables": {name: self.tables[name].to_dict() for name in sorted(self.tables)},
            "summary": self.summary,
        }

    def to_json(self, *, indent: int | None = None) -> str:
        """The canonical JSON text: sorted keys, compact unless `indent`; the same bytes for equal diffs."""
        return dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "the diff") -> Diff:
        """A diff from its document; `DiffError` naming what is malformed. Unchanged tables are dropped."""
        if not isinstance(data, dict) or "tables" not in data:
            raise DiffError(f'{source}: expected an object with "tables" and "summary", got {_kind(data)}.')
        extra = set(data) - {"tables", "summary"}
        if extra:
            raise DiffError(f'{source}: unknown keys {sorted(extra)}; a diff has "tables" and "summary".')
        try:
            diff = cls.model_validate({"tables": data["tables"]})
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"])
            raise DiffError(f"{source}: {where}: {first['msg']}.") from None
        diff = cls(tables={name: t for name, t in diff.tables.items() if not t.empty})
        summary = data.get("summary")
        if summary is not None and summary != diff.summary:
            raise DiffError(
                f"{source}: its summary {summary} does not count its rows {diff.summary}; the document was "
                "edited by hand or truncated. Recompute it with `stateforge diff --json`."
            )
        return diff

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str = "the diff") -> Diff:
        """The inverse of `to_json`; `DiffError` naming the problem when `text` is not a diff document."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            raise DiffError(f"{source}: not JSON ({exc.msg} at {where}).") from None
        return cls.from_dict(data, source=source)


def _kind(value: Any) -> str:
    return type(value).__name__ if not isinstance(value, dict) else f"an object with keys {sorted(value)}"
