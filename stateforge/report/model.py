"""What the audit report knows about a database: plain dataclasses, filled by `collect`, drawn by `render`.

Every figure is computed in DuckDB (`stateforge.report.columns`, `fanout`, `rules`); `to_dict` gives the
same data as JSON (`stateforge report --json`), with database values in their canonical form
(`stateforge.values`), so that scripts and a release's dataset card read what the page shows.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from stateforge.values import json_value

Kind = Literal["number", "integer", "time", "clock", "interval", "boolean", "text", "other"]
"""How a column is profiled: `time` is a date or timestamp, `clock` a time of day."""


@dataclass
class Histogram:
    """Values in equal bins: `edges` (numbers, or seconds for time, clock and interval columns)."""

    edges: list[float]
    counts: list[int]
    log: bool = False
    """Bins of equal width in log10(1 + x) (a zipf-like column: counts, listeners); edges are still x."""
    above: int = 0
    """Values above the last edge, left out: a long tail is cut at the 99th percentile so that the bins
    show where most values are (the column's maximum is given beside the plot)."""


@dataclass
class Values:
    """The most frequent values (text, booleans, small integers in value order), NULLs and the rest."""

    top: list[tuple[str, int]]
    nulls: int
    other: int
    """Rows holding none of `top` (and not NULL)."""
    other_values: int
    """How many distinct values those rows hold."""
    total: int
    ordered: bool = False
    """`top` is in value order (a small integer scale), not by frequency."""


@dataclass
class ColumnProfile:
    """One column: type, role, NULLs, distinct values, range, and its distribution (if one says anything)."""

    name: str
    type: str
    """The DuckDB type in the file."""
    kind: Kind
    nullable: bool
    role: str | None = None
    """`primary key`, `unique`, `foreign key -> parent(col)` or None."""
    nulls: int = 0
    distinct: int = 0
    distinct_exact: bool = True
    """False above the sample threshold: a HyperLogLog estimate (DuckDB's `approx_count_distinct`)."""
    min: Any = None
    max: Any = None
    mean: float | None = None
    length: tuple[int, int] | None = None
    """Shortest and longest text."""
    histogram: Histogram | None = None
    values: Values | None = None
    examples: list[str] = field(default_factory=list)
    note: str | None = None
    """Why there is no plot: one value, every value distinct, a foreign key (see the fan-out), ..."""


@dataclass
class FanOut:
    """Children per parent along one foreign key: the distribution over every parent row."""

    table: str
    columns: tuple[str, ...]
    parent: str
    ref_columns: tuple[str, ...]
    parents: int
    children: int
    """Child rows whose key is set (NULL keys are `null_keys`)."""
    null_keys: int
    orphans: int
    """Child rows whose key matches no parent (from the audit)."""
    childless: int
    """Parents with no child."""
    max: int
    median: float
    distribution: list[tuple[int, int]]
    """(children, parents with that many), ascending."""

    def quantile(self, q: float) -> int:
        """Children of the parent at quantile `q` (0..1) of the distribution (the lower value)."""
        rank, seen = int(q * max(self.parents - 1, 0)), 0
        for value, n in self.distribution:
            seen += n
            if seen > rank:
                return value
        return 0

    @property
    def label(self) -> str:
        """`songs(album_id) -> albums(album_id)`."""
        return f"{self.table}({', '.join(self.columns)}) -> {self.parent}({', '.join(self.ref_columns)})"


@dataclass
class RuleResult:
    """A domain rule or policy of the pack, checked on the file now, with what the build did about it."""

    name: str
    kind: Literal["rule", "policy", "time", "family", "limit", "text"]
    """The check's kind (`stateforge.domain.config.CheckKind`): the build holds every one of them."""
    description: str | None
    sql: str | None
    violations: int | None
    """Rows its check returns now; None when it has no check or the check failed (`error`)."""
    samples: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    build: dict[str, Any] | None = None
    """The build report's figures for a rule: found, repaired, rounds."""


@dataclass
class TableProfile:
    """One table: rows, its columns' profiles, the fan-out of its foreign keys, its audit violations."""

    name: str
    description: str | None
    rows: int
    primary_key: tuple[str, ...]
    columns: list[ColumnProfile]
    fanouts: list[FanOut]
    referenced_by: list[str]
    """Foreign keys into this table, as `child(columns)`."""
    violations: list[dict[str, Any]]
    sampled: int | None = None
    """Rows in the sample the distributions come from; None: every row was read."""
    build: dict[str, Any] | None = None
    """This table's entry of the build report (batches, repairs, seconds), if stored."""


@dataclass
class DatabaseProfile:
    """The whole report's data."""

    file: str
    size_bytes: int
    domain: str | None
    tables: list[TableProfile]
    audit: dict[str, Any]
    """`AuditReport.to_dict()` without its timing."""
    rules: list[RuleResult]
    inputs: dict[str, Any] | None
    """`stateforge.build_meta` 'inputs': what the build was made from (None for an `init-db` file)."""
    build: dict[str, Any] | None
    """`stateforge.build_report`, if stored."""
    now: str | None
    sample_rows: int
    """Tables above this many rows are profiled on a sample of about this many."""
    stateforge_version: str | None = None
    notes: list[str] = field(default_factory=list)
    """What the report could not read or check, and why."""

    @property
    def rows(self) -> int:
        """Rows over every table."""
        return sum(t.rows for t in self.tables)

    @property
    def violations(self) -> int:
        """Audit violations plus rows breaking a domain rule now."""
        broken = sum(r.violations or 0 for r in self.rules if r.sql is not None)
        return int(self.audit.get("violations", 0)) + broken

    def to_dict(self) -> dict[str, Any]:
        """The profile as JSON-ready data (database values canonical)."""
        return json_value(asdict(self) | {"rows": self.rows, "clean": self.violations == 0})
