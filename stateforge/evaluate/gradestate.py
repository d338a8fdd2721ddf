"""What the grader learns of one episode before closing it: the tables it may have changed, the row groups
that differ from the base's, and the rows read out of them (`grader.py`, `answers.py`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from stateforge.diff.specs import TableSpec
from stateforge.evaluate.delta import Sums
from stateforge.evaluate.rowdiff import Row

BASE = "base"
"""The catalog name of the base database in the grader's instance."""


@dataclass
class TableChange:
    """One table the grader looked at in an episode: its groups, those that differ from the base's, and
    the episode's rows in them (Arrow; None when no group differs)."""

    spec: TableSpec
    sums: Sums
    groups: list[int]
    rows: Any = None
    """The episode's rows of `groups` as Arrow, for a table diffed in DuckDB."""
    end_rows: list[Row] | None = None
    """The episode's rows of `groups`, for a table diffed in Python (`rowdiff.py`)."""
    base_rows: list[Row] | None = None
    """The base's rows of `groups`, for the same."""
    totals: tuple[int, int] | None = None
    """(rows, hash sum) of the whole table at the episode's end, once worked out (`answers.py`)."""


@dataclass
class EpisodeState:
    """What the grader learnt of one episode before closing it."""

    written: set[str] | None
    """`Grader._written`."""
    data_only: bool = False
    """Whether the episode changed data alone (its catalog is the base's): true when its log is complete,
    as a call writes rows, never the catalog."""
    complete: bool = False
    """Whether the log records every write of the episode: every committed write was a call's
    (`Episode.unlogged_writes` is False)."""
    log: list[Any] = field(default_factory=list)
    """The episode's calls."""
    changed: dict[str, TableChange] = field(default_factory=dict)
    """Lower-case table -> what changed in it, for every table the episode may have changed."""
    end: str | None = None
    """The in-memory catalog where `_diff` put the episode's rows of the differing groups."""


def utc(value: Any) -> Any:
    """`value` with every datetime that has a zone moved to UTC (the episode reads in the machine's zone)."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC)
    if isinstance(value, list | tuple):
        return [utc(v) for v in value]
    if isinstance(value, dict):
        return {k: utc(v) for k, v in value.items()}
    return value
