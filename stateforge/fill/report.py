"""What the fill of one table did, as a typed report (`TableReport`; the rules report in
`stateforge.validation.rules`).

Plain dataclasses; `to_dict()` gives the JSON the build report stores (keys sorted where they are data,
so two identical fills give identical reports except for the seconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TableReport:
    """One table's first pass: rows written, batches, repairs by rule, time, and rows given up on."""

    table: str
    rows: int
    batches: int = 0
    repairs: dict[str, int] = field(default_factory=dict)
    """Rows each repair rule touched (`coerce_types`, `drop_invalid`, ...)."""
    seconds: float = 0.0
    shortfall: int = 0
    """Planned rows that could not be written (invalid after every repair round, or over capacity)."""
    short_reason: str | None = None
    """Why, when `shortfall` is not 0 (`stateforge.fill.shortfall`)."""
    planned: int = 0
    """Rows the plan asked for."""
    refilled: bool = False
    """DuckDB refused a batch whose keys, NOT NULLs or CHECKs were left to it, so the table was filled
    again with every check (`stateforge.fill.engine.fill_table`); the rows are the same either way."""
    seeded: int = 0
    """Rows inserted as the DDL's INSERT ... VALUES give them (`stateforge.fill.seeds`), among `rows`."""

    def to_dict(self) -> dict[str, Any]:
        out = {
            "table": self.table,
            "rows": self.rows,
            "planned": self.planned,
            "batches": self.batches,
            "repairs": dict(sorted(self.repairs.items())),
            "shortfall": self.shortfall,
            "seconds": round(self.seconds, 3),
        }
        return out | ({"refilled": True} if self.refilled else {}) | (
            {"seeded": self.seeded} if self.seeded else {}) | (
            {"short_reason": self.short_reason} if self.short_reason else {})
