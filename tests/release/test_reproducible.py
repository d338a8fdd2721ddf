"""Two releases of the same inputs are equal byte for byte, every file but the DuckDB file, whose tables
hash the same; and the bundle holds what the manifest says."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from stateforge.release import MANIFEST, read_manifest
from stateforge.release.files import bundle_files, sha256_file
from stateforge.store import connect, read_model, table_hashes

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]  # one worker builds the releases


def keys(data: object) -> set[str]:
    """Every key of a JSON value, at any depth."""
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in keys(v)}
    return set()


def database_hashes(release: Path) -> dict[str, str]:
    """The table hashes of a release's database, as read from it."""
    with connect(release / read_manifest(release).database.file, read_only=True) as con:
        schema, _ = read_model(con)
        return table_hashes(con, schema)


def test_two_releases_are_equal_byte_for_byte(release_a: Path, release_b: Path) -> None:
    files = bundle_files(release_a)
    assert files == bundle_files(release_b)
    db = read_manifest(release_a).database.file
    differ = [f for f in files if f != db and (release_a / f).read_bytes() != (release_b / f).read_bytes()]
    assert differ == []
    assert database_hashes(release_a) == database_hashes(release_b)
    assert {"postgres_dump.duckdb", "tasks.jsonl", "task.schema.json", "tools.json", "README.md",
            "report.html", MANIFEST, "reports/build_report.json", "reports/generation_report.json",
            "reports/baseline-oracle.json", "reports/baseline-noop.json", "data/tasks.parquet",
            "source/schema.sql"} <= set(files)


def test_the_manifest_lists_every_file_with_its_hash(release_a: Path) -> None:
    manifest = read_manifest(release_a)
    assert sorted(manifest.files) == bundle_files(release_a, skip=(MANIFEST, manifest.database.file))
    for path, entry in manifest.files.items():
        assert entry.sha256 == sha256_file(release_a / path)
    assert manifest.tasks.total == 6 and manifest.tasks.feasible + manifest.tasks.infeasible == 6
    assert set(manifest.baselines) == {"oracle", "noop"}
    assert manifest.baselines["oracle"].avg_at_k == 1.0
    noop = manifest.baselines["noop"]
    assert noop.avg_at_k == pytest.approx(manifest.tasks.infeasible / manifest.tasks.total, abs=1e-6)
    assert noop.feasible == 0.0 and noop.infeasible == (1.0 if manifest.tasks.infeasible else None)
    inputs = manifest.inputs
    assert inputs.ddl_sha256 == sha256_file(release_a / inputs.ddl) and inputs.seed == 5
    assert inputs.packages["duckdb"] == duckdb.__version__ and inputs.prompts and inputs.code.stateforge
    text = (release_a / MANIFEST).read_text()
    assert str(release_a) not in text and str(Path.home()) not in text  # nothing of where it was made
    assert not keys(json.loads(text)) & {"seconds", "wall_seconds", "timing", "created", "date"}


def test_the_database_holds_the_built_rows_and_opens_with_its_model(release_a: Path) -> None:
    manifest = read_manifest(release_a)
    with connect(release_a / manifest.database.file, read_only=True) as con:
        schema, _ = read_model(con)
        hashes = table_hashes(con, schema)
        meta = dict(con.execute("SELECT key, value FROM stateforge.build_meta").fetchall())
        report = json.loads(con.execute("SELECT report FROM stateforge.build_report").fetchall()[0][0])
        [(violations,)] = con.execute("SELECT count(*) FROM stateforge.violations WHERE count > 0").fetchall()
    assert hashes == {t: e.md5 for t, e in manifest.database.tables.items()}
    assert meta["now"] == manifest.database.now and violations == 0
    assert report["database"] == manifest.database.file and not keys(report) & {"seconds", "wall_seconds"}
    build_report = json.loads((release_a / "reports" / "build_report.json").read_text())
    assert build_report["fingerprint"] == manifest.inputs.build_fingerprint
