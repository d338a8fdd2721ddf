"""Database diffs and their comparison: the ground truth of every task and the grade of every episode.

    diff = diff_files(base_path, after_path)            # or diff_catalogs(con, "base", "after")
    text = diff.to_json(); Diff.from_json(text) == diff
    verdict = compare(expected, actual, schema=schema, policy=Policy(...),
                      labels=db_labeler(base_path, schema))

`engine.py` computes a diff in DuckDB (`queries.py`, over the tables and keys `specs.py` finds in the
catalogs with `catalog.py`); `model.py` is its canonical JSON; `compare.py` grades one diff against
another (`inserts.py` and `pairing.py` pair inserted rows, `grading.py` holds the state of a comparison,
`policy.py` compares values, `labels.py` and `phrases.py` put mismatches into words); `render.py` prints a
diff for people.
"""

from __future__ import annotations

from stateforge.diff.compare import compare
from stateforge.diff.engine import diff_catalogs, diff_files, diff_specs
from stateforge.diff.keys import surrogate_columns, table_key
from stateforge.diff.labels import DbLabeler, Labeler, db_labeler, human_column
from stateforge.diff.model import Diff, DiffError, RowUpdate, TableDiff
from stateforge.diff.policy import ColumnRule, Policy
from stateforge.diff.verdict import Mismatch, Verdict

__all__ = [
    "ColumnRule",
    "DbLabeler",
    "Diff",
    "DiffError",
    "Labeler",
    "Mismatch",
    "Policy",
    "RowUpdate",
    "TableDiff",
    "Verdict",
    "compare",
    "db_labeler",
    "diff_catalogs",
    "diff_specs",
    "diff_files",
    "human_column",
    "surrogate_columns",
    "table_key",
]
