"""The audit report of a built database: one self-contained HTML file (`stateforge report DB`).

    result = write_report("artifacts/music/music.duckdb")              # -> artifacts/music/music.report.html
    profile = collect("artifacts/music/music.duckdb")                   # the data, as dataclasses
    html = render(profile)                                               # the page, as text

Per table: rows, NULL rates, distinct counts, value distributions (histograms for numbers and times, top
values for text and categories), foreign-key fan-out (children per parent), audit violations; and for
the database: the build's inputs and figures, the pack's domain rules checked now, the audit. Computed in
DuckDB (`collect`: set-based queries, a deterministic sample of large tables, said so on the page), drawn
with `stateforge.html` (matplotlib SVG inline, no network). The same file gives the same bytes.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from stateforge.report.collect import SAMPLE_ROWS, collect
from stateforge.report.model import DatabaseProfile
from stateforge.report.render import render

__all__ = [
    "SAMPLE_ROWS", "DatabaseProfile", "ReportResult", "collect", "default_output", "render", "write_report",
]


@dataclass(frozen=True)
class ReportResult:
    """What `write_report` wrote, and the data it shows."""

    path: Path
    profile: DatabaseProfile
    bytes: int


def default_output(db_path: str | Path) -> Path:
    """Where the report of `db_path` goes by default: beside it, `<name>.report.html`."""
    path = Path(db_path)
    return path.with_name(f"{path.stem}.report.html")


def write_report(db_path: str | Path, out: str | Path | None = None, *,
                 sample_rows: int = SAMPLE_ROWS) -> ReportResult:
    """Collect, render and write the report of `db_path` to `out` (default: `default_output`), atomically."""
    profile = collect(db_path, sample_rows=sample_rows)
    text = render(profile)
    target = Path(out) if out is not None else default_output(db_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.tmp")
    data = text.encode("utf-8")
    tmp.write_bytes(data)
    os.replace(tmp, target)
    return ReportResult(target, profile, len(data))
