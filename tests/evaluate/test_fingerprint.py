"""The data fingerprint cache: a run on unchanged data skips the hashing, a run on changed data (even
with its size and mtime put back) sees the change."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb
import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import evaluate
from stateforge.evaluate import fingerprint as fp
from stateforge.tasks.workspace import Workspace

pytestmark = pytest.mark.xdist_group("evaluate")


class Counting:
    """Computes the fingerprint through a real Workspace and counts how often it is asked."""

    def __init__(self, path: Path) -> None:
        self.path, self.calls = path, 0

    def fingerprint(self) -> str:
        self.calls += 1
        with Workspace(self.path) as ws:
            return ws.fingerprint()


def test_the_stamp_changes_with_content_of_the_same_size_and_mtime(tmp_path: Path) -> None:
    path = tmp_path / "f.duckdb"
    path.write_bytes(b"a" * 4096)
    os.utime(path, ns=(10**18, 10**18))
    before = fp.stamp_of(path)
    path.write_bytes(b"b" * 4096)  # same size, mtime forged back: ctime still moves
    os.utime(path, ns=(10**18, 10**18))
    assert fp.stamp_of(path) != before
    wal = path.with_name(path.name + ".wal")
    wal.write_bytes(b"w")
    assert fp.stamp_of(path) != before and fp.stamp_of(path).wal is not None


def test_cached_while_unchanged_recomputed_after_a_write(pack_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "copy.duckdb"
    shutil.copyfile(pack_db, db)
    source = Counting(db)
    first = fp.data_fingerprint(db, source)
    assert not fp.cached(db), "a file changed less than SETTLED seconds ago is not cached"
    assert fp.data_fingerprint(db, source, settled=0) == first and fp.cached(db)
    assert fp.data_fingerprint(db, source, settled=0) == first and source.calls == 2  # from the cache
    fp.forget(db)
    assert not fp.cached(db) and fp.data_fingerprint(db, source, settled=0) == first and source.calls == 3
    mtime = db.stat().st_mtime_ns
    with duckdb.connect(str(db)) as con:
        table = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1 LIMIT 1").fetchone()[0]
        con.execute(f'DELETE FROM "{table}" WHERE rowid = (SELECT min(rowid) FROM "{table}")')
    os.utime(db, ns=(mtime, mtime))
    changed = fp.data_fingerprint(db, source, settled=0)
    assert source.calls == 4 and changed != first
    with Workspace(db) as ws:
        assert changed == ws.fingerprint()


def test_a_run_after_the_data_changed_is_refused(
    pack_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fp, "SETTLED", 0.0)  # cache even a file just copied
    db = tmp_path / "db.duckdb"
    shutil.copyfile(pack_db, db)
    tasks = pack_db.parent / "tasks.jsonl"
    evaluate(db, solver="noop", tasks_file=tasks, out=tmp_path / "runs", limit=1, report=False)
    assert fp.cached(db)
    with duckdb.connect(str(db)) as con:
        table = con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1 LIMIT 1").fetchone()[0]
        con.execute(f'DELETE FROM "{table}" WHERE rowid = (SELECT min(rowid) FROM "{table}")')
    with pytest.raises(TerminalError, match="was made on other data"):
        evaluate(db, solver="noop", tasks_file=tasks, out=tmp_path / "runs", limit=1, report=False)
