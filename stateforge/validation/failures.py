"""What a batch check reports: `Failure` (a rule, the columns, the batch's rows, a message) and `RULES`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

RULES = ("missing_column", "dtype", "not_null", "length", "allowed_values", "range", "unique", "stored",
         "foreign_key", "check")
"""Every failure rule, in the order failures are reported."""

_WHAT = {
    "missing_column": "the column is missing from the batch",
    "dtype": "the values have the wrong type",
    "not_null": "NULL in a NOT NULL column",
    "length": "longer than the column allows",
    "allowed_values": "not one of the allowed values",
    "range": "out of the type's range",
    "unique": "duplicate key within the batch",
    "stored": "key already stored",
    "foreign_key": "no parent row",
    "check": "CHECK fails",
}


@dataclass(frozen=True)
class Failure:
    """Rows of one batch that break one rule."""

    rule: str
    table: str
    columns: tuple[str, ...]
    rows: np.ndarray
    """Row indices in the batch; empty for a whole-column failure (missing column, wrong dtype)."""
    message: str
    batch: int = 0
    detail: str = ""
    """The CHECK's SQL, the referenced `table(columns)`, the bounds, the allowed values or the types."""

    @property
    def count(self) -> int:
        return len(self.rows)

    def to_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "table": self.table, "columns": list(self.columns),
                "rows": self.rows[:10].tolist(), "count": self.count, "message": self.message}


def failure(rule: str, table: str, columns: tuple[str, ...], rows: np.ndarray, batch: int, detail: str
            ) -> Failure:
    """A `Failure` with its message: the table, the columns, the batch, a few rows, what is wrong."""
    plural = "s" if len(columns) > 1 else ""
    where = f"table {table}, column{plural} {', '.join(columns)}, batch {batch}"
    shown = f"{len(rows)} row(s) (e.g. {rows[:5].tolist()}): " if len(rows) else ""
    return Failure(rule, table, columns, rows, f"{where}: {shown}{_WHAT[rule]} ({detail})", batch, detail)


def in_rule_order(failures: list[Failure]) -> list[Failure]:
    """`failures` sorted by rule (`RULES` order), then by columns."""
    return sorted(failures, key=lambda f: (RULES.index(f.rule), f.columns))
