"""The bundle loads where people work: DuckDB (ATTACH, read_parquet), pandas and pyarrow, polars when
installed, and Hugging Face `datasets` through the card's configs, with no network."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml

from stateforge.release import read_manifest

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]  # one worker builds the releases


def test_duckdb_attaches_the_database_and_reads_the_parquet_files(release_a: Path) -> None:
    manifest = read_manifest(release_a)
    with duckdb.connect() as con:
        con.execute(f"ATTACH '{release_a / manifest.database.file}' AS bench (READ_ONLY)")
        for name, entry in manifest.database.tables.items():
            [(rows,)] = con.execute(f'SELECT count(*) FROM bench."{name}"').fetchall()
            parquet = str(release_a / entry.parquet)
            [(missing,)] = con.execute(
                f"SELECT count(*) FROM (FROM bench.\"{name}\" EXCEPT ALL FROM read_parquet('{parquet}'))"
            ).fetchall()
            assert rows == entry.rows and missing == 0, name
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute(f'DELETE FROM bench."{next(iter(manifest.database.tables))}"')


def test_pandas_and_pyarrow_read_the_tables_in_key_order(release_a: Path) -> None:
    manifest = read_manifest(release_a)
    for entry in manifest.database.tables.values():
        frame = pd.read_parquet(release_a / entry.parquet)
        table = pq.read_table(release_a / entry.parquet)
        assert list(frame.columns) == entry.columns == table.column_names and len(frame) == entry.rows
        assert "created_by" in pq.read_metadata(release_a / entry.parquet).to_dict()
    tasks = pd.read_parquet(release_a / "data" / "tasks.parquet")
    assert len(tasks) == manifest.tasks.total and int(tasks["feasible"].sum()) == manifest.tasks.feasible


def test_polars_reads_the_tables(release_a: Path) -> None:
    polars = pytest.importorskip("polars")
    manifest = read_manifest(release_a)
    for entry in manifest.database.tables.values():
        assert polars.read_parquet(release_a / entry.parquet).height == entry.rows


LOAD = """
import sys, datasets
folder, cache = sys.argv[1], sys.argv[2]
for name in sys.argv[3:]:
    split = datasets.load_dataset(folder, name, cache_dir=cache)
    for key, part in split.items():
        print(name, key, part.num_rows, ",".join(part.column_names))
"""


def test_hugging_face_datasets_loads_every_config_offline(release_a: Path, tmp_path: Path) -> None:
    card = (release_a / "README.md").read_text()
    front = yaml.safe_load(card.split("---\n")[1])
    assert front["license"] == "cc-by-4.0" and front["configs"][0]["config_name"] == "tasks"
    names = [c["config_name"] for c in front["configs"]]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf"),
           "HF_HUB_DISABLE_TELEMETRY": "1"}
    done = subprocess.run([sys.executable, "-c", LOAD, str(release_a), str(tmp_path / "cache"), *names],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    loaded = {line.split()[0]: line.split() for line in done.stdout.splitlines()}
    manifest = read_manifest(release_a)
    assert loaded["tasks"][1:3] == ["test", str(manifest.tasks.total)]
    assert "instruction" in loaded["tasks"][3].split(",")
    for name, entry in manifest.database.tables.items():
        assert loaded[name][1:4] == ["train", str(entry.rows), ",".join(entry.columns)]
