"""The outcome of grading one diff against another: passed, and every mismatch in words and as data."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

MismatchKind = Literal[
    "missing_insert",
    "unexpected_insert",
    "insert_value",
    "missing_delete",
    "unexpected_delete",
    "missing_update",
    "unexpected_update",
    "update_value",
]


class Mismatch(BaseModel):
    """One way the actual diff departs from the expected one.

    `key`: the row's key (for an insert: the actual row's key when it was paired, else None). `column`: the
    column, for the `*_value` kinds. `expected` / `actual`: the values (whole rows for missing or unexpected
    rows; `{column: value}` for updates).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: MismatchKind
    table: str
    key: dict[str, Any] | None = None
    column: str | None = None
    expected: Any = None
    actual: Any = None
    message: str


class Verdict(BaseModel):
    """Whether the actual diff matches the expected one, and why not."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    passed: bool
    mismatches: list[Mismatch] = []

    def explain(self) -> str:
        """One line per mismatch, or `passed`."""
        if self.passed:
            return "passed"
        return "\n".join(m.message for m in self.mismatches)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")
