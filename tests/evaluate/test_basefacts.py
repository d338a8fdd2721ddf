"""What graders read of the base, shared per process (`stateforge/evaluate/basefacts.py`): a second grader
of an unchanged file uses the first one's, and a grader of a file changed since (its mtime even put
back) reads the base anew, so its diffs and short-cut verifiers stay exact."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import duckdb
import pytest

from stateforge.episode import Episode
from stateforge.evaluate import basefacts
from stateforge.evaluate.grader import Grade, Grader
from stateforge.store.sql import quote_ident
from stateforge.tasks import Task
from stateforge.tasks.verifiers import rows_match
from stateforge.values import json_value

pytestmark = pytest.mark.xdist_group("evaluate")


def _grader(db: Path) -> Grader:
    with Episode.open(db) as episode:
        return Grader(db, episode.schema, episode.config)


def _untouched(db: Path, task: Task) -> Grade:
    """The grade of an episode that makes no call, by a new grader of `db`."""
    grader = _grader(db)
    try:
        return grader.grade(task, Episode.open(db))
    finally:
        grader.close()


def _whole(db: Path, sql: str) -> list[dict[str, Any]]:
    """The rows of a verifier's whole SQL on `db`, as the grader compares them."""
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("SET TimeZone = 'UTC'")
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description or []]
        return [json_value(dict(zip(names, r, strict=True))) for r in cursor.fetchall()]


def test_graders_share_what_they_read_until_the_base_changes(
    pack_db: Path, tasks: list[Task], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(basefacts, "SETTLED", 0.0)  # share even for a file just copied
    db = tmp_path / "db.duckdb"
    shutil.copyfile(pack_db, db)
    task = next(
        t for t in tasks
        if t.feasible and any(v.name == "row counts of the changed tables" for v in t.verifiers)
    )
    table = sorted(task.diff.tables)[0]

    before = _untouched(db, task).diff_summary
    assert before["inserted"] == before["deleted"] == before["updated"] == 0, before
    assert basefacts.shared(db)
    first = basefacts.base_facts(db, 64)
    assert table.lower() in first.sums, "the first grader's base sums are kept"
    second = _grader(db)
    try:
        assert second._facts is first  # noqa: SLF001 - the second grader reads none of them again
    finally:
        second.close()

    # the base changes (one row of the task's table deleted), its mtime put back: the stamp still moves
    mtime = db.stat().st_mtime_ns
    with duckdb.connect(str(db)) as con:
        con.execute(
            f"DELETE FROM {quote_ident(table)} WHERE rowid = (SELECT min(rowid) FROM {quote_ident(table)})"
        )
    os.utime(db, ns=(mtime, mtime))
    grade = _untouched(db, task)
    summary = grade.diff_summary
    assert summary["inserted"] == summary["deleted"] == summary["updated"] == 0, summary
    # answered from the group sums: stale ones would give the old row count, and the verifier would pass
    counts = next(v for v in task.verifiers if v.name == "row counts of the changed tables")
    got = next(v for v in grade.verifiers if v.name == counts.name)
    whole = _whole(db, counts.sql)
    assert not rows_match(whole, counts.expected) and not got.passed and got.actual == whole


def test_a_file_changed_during_a_graders_life_is_not_shared_after(
    pack_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(basefacts, "SETTLED", 0.0)
    db = tmp_path / "db.duckdb"
    shutil.copyfile(pack_db, db)
    facts = basefacts.base_facts(db, 64)
    assert basefacts.shared(db)
    db.with_name(db.name + ".wal").write_bytes(b"")  # the stamp includes the WAL
    basefacts.settle_facts(db, 64, facts)
    assert not basefacts.shared(db)
    monkeypatch.setattr(basefacts, "SETTLED", 3600.0)
    assert basefacts.base_facts(db, 64) is not facts and not basefacts.shared(db), (
        "a file changed within SETTLED seconds is not shared"
    )
    basefacts.forget_facts()
