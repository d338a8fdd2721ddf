"""What a fill did, as typed reports: per table, per domain rule, and in total.

Plain dataclasses; `to_dict()` gives the JSON the build report stores (keys sorted where they are data,
so two identical fills give identical reports except for the seconds).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from validation.rules import RuleReport


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
    planned: int = 0
    """Rows the plan asked for."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "rows": self.rows,
            "planned": self.planned,
            "batches": self.batches,
            "repairs": dict(sorted(self.repairs.items())),
            "shortfall": self.shortfall,
            "seconds": round(self.seconds, 3),
        }


@dataclass
class FillReport:
    """A whole fill: the tables filled (in order), the second pass, the rules and what they cleaned."""

    tables: list[TableReport] = field(default_factory=list)
    rules: list[RuleReport] = field(default_factory=list)
    deferred: dict[str, int] = field(default_factory=dict)
    """Rows given a value by the second pass, per `table(columns) -> parent`."""
    skipped: list[str] = field(default_factory=list)
    """Tables already complete (a resumed fill)."""
    seconds: float = 0.0

    @property
    def orphans(self) -> dict[str, int]:
        """Rows cleaned after rule repairs, over all rules."""
        total: Counter[str] = Counter()
        for rule in self.rules:
            total.update(rule.orphans)
        return dict(sorted(total.items()))

    @property
    def totals(self) -> dict[str, Any]:
        repairs: Counter[str] = Counter()
        for t in self.tables:
            repairs.update(t.repairs)
        return {
            "tables": len(self.tables),
            "rows": sum(t.rows for t in self.tables),
            "shortfall": sum(t.shortfall for t in self.tables),
            "repairs": dict(sorted(repairs.items())),
            "deferred": sum(self.deferred.values()),
            "rule_violations": sum(r.found for r in self.rules),
            "orphans": sum(self.orphans.values()),
            "seconds": round(self.seconds, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": [t.to_dict() for t in self.tables],
            "skipped": list(self.skipped),
            "deferred": dict(self.deferred),
            "rules": [r.to_dict() for r in self.rules],
            "orphans": self.orphans,
            "totals": self.totals,
        }
