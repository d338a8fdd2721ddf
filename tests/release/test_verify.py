"""`verify-release`: passes on a bundle as made; one byte changed in a Parquet file or in tasks.jsonl, or a
row changed in the database, fails it (exit 1) and names the file; the database is checked by its rows; a
task that does not replay is named; not a bundle: 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateforge.release import read_manifest
from stateforge.release.verify import replay_one, verify_release
from stateforge.tasks import read_tasks
from stateforge.tasks.workspace import Workspace
from stateforge.tools import toolkit_for
from tests.release.conftest import copy_of, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]  # one worker builds the releases


def flip(path: Path, offset: int) -> None:
    """Change one byte of a file."""
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x20
    path.write_bytes(bytes(data))


def test_a_bundle_as_made_verifies(release_a: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["verify-release", str(release_a), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ok"] and result["problems"] == []
    assert result["checked"]["tasks_replayed"] == 6 and result["checked"]["tables"] >= 3


def test_one_byte_changed_in_a_parquet_file_fails(release_a: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bundle = copy_of(release_a, tmp_path)
    parquet = next(iter(read_manifest(bundle).database.tables.values())).parquet
    flip(bundle / parquet, (bundle / parquet).stat().st_size // 2)
    assert run_cli(["verify-release", str(bundle)]) == 1
    out = capsys.readouterr()
    assert f"{parquet}: sha256" in out.out and "not clean" in out.err


def test_one_byte_changed_in_the_tasks_fails(release_a: Path, tmp_path: Path) -> None:
    bundle = copy_of(release_a, tmp_path)
    text = (bundle / "tasks.jsonl").read_text()
    flip(bundle / "tasks.jsonl", text.index('"instruction":"') + len('"instruction":"') + 2)
    problems = [str(p) for p in verify_release(bundle).problems]
    assert any(p.startswith("tasks.jsonl: sha256") for p in problems)
    assert any("tasks.jsonl: cannot be read" in p and "does not hash to its id" in p for p in problems)


def test_one_byte_changed_in_the_database_fails(release_a: Path, tmp_path: Path) -> None:
    bundle = copy_of(release_a, tmp_path)
    db = bundle / read_manifest(bundle).database.file
    flip(db, 200)  # inside DuckDB's header: the file no longer opens
    problems = verify_release(bundle).problems
    assert problems and problems[0].where == db.name and "cannot be read" in problems[0].what


def test_the_database_is_listed_by_its_tables_not_its_bytes(release_a: Path, tmp_path: Path) -> None:
    # The same rows in another file (DuckDB writes new bytes for each file) still verify; a missing file
    # is named.
    import duckdb

    bundle = copy_of(release_a, tmp_path)
    manifest = read_manifest(bundle)
    assert manifest.database.file not in manifest.files
    db = bundle / manifest.database.file
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute(f"ATTACH '{db}' AS src (READ_ONLY)")
        con.execute("COPY FROM DATABASE src TO other")
        con.execute("DETACH src")
    other.replace(db)
    assert [str(p) for p in verify_release(bundle).problems] == []
    db.unlink()
    problems = verify_release(bundle).problems
    assert [(p.where, p.what) for p in problems] == [(manifest.database.file, "missing")]


def test_edited_rows_are_named_by_table_even_with_the_hashes_rewritten(
    release_a: Path, tmp_path: Path
) -> None:
    # Someone changes a row of the database (which the file list leaves out: it is listed by its table
    # hashes) and writes the file hashes again: the table hashes, the Parquet comparison and the replays
    # still catch it.
    import duckdb

    from stateforge.release.files import hash_files
    from stateforge.release.model import MANIFEST, release_id

    bundle = copy_of(release_a, tmp_path)
    manifest = read_manifest(bundle)
    table = next(name for name, entry in manifest.database.tables.items() if entry.rows)
    with duckdb.connect(str(bundle / manifest.database.file)) as con:
        con.execute(f'DELETE FROM "{table}" WHERE rowid = (SELECT max(rowid) FROM "{table}")')
    files = hash_files(bundle, sorted(manifest.files))
    forged = manifest.model_copy(update={"files": files, "release_id": release_id(files, manifest.database)})
    (bundle / MANIFEST).write_text(forged.to_json())
    problems = [str(p) for p in verify_release(bundle).problems]
    assert any(f"rows differ from the manifest in table(s) {table}" in p for p in problems)
    assert any(p.startswith(manifest.database.tables[table].parquet) for p in problems)


def test_a_task_that_does_not_replay_is_named(release_a: Path) -> None:
    manifest = read_manifest(release_a)
    tasks = read_tasks(release_a / "tasks.jsonl")
    feasible = next(t for t in tasks if t.feasible)
    with Workspace(release_a / manifest.database.file) as ws:
        toolkit = toolkit_for(ws.schema, ws.domain)
        assert replay_one(ws, toolkit, feasible) is None
        claimed_refusal = feasible.model_copy(update={"feasible": False})
        assert replay_one(ws, toolkit, claimed_refusal) == "infeasible, but every reference call succeeded"
        other = next(t for t in tasks if t.feasible and t.id != feasible.id)
        swapped = feasible.model_copy(update={"expected_diff": other.expected_diff})
        assert "the replay's diff differs from the expected diff" in replay_one(ws, toolkit, swapped)


def test_not_a_bundle_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["verify-release", str(tmp_path)]) == 2
    assert "has no manifest.json" in capsys.readouterr().err
    (tmp_path / "manifest.json").write_text('{"format": "stateforge-release/1"}')
    assert run_cli(["verify-release", str(tmp_path)]) == 2
    assert "not a valid stateforge-release/1 manifest" in capsys.readouterr().err
