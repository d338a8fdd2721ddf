"""`stateforge diff` through the real console script: tables, --json, --table, exit codes, messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stateforge.diff import diff_files
from tests.diff.conftest import make_pair
from tests.diff.test_engine import SHOP, SHOP_CHANGES, SHOP_ROWS

STATEFORGE = [str(Path(sys.executable).with_name("stateforge"))]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(STATEFORGE + [str(a) for a in args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return make_pair(tmp_path_factory.mktemp("cli"), SHOP, SHOP_ROWS, SHOP_CHANGES)


def test_json_is_the_canonical_diff_and_exit_is_0(pair: tuple[Path, Path]):
    done = run("diff", *pair, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == diff_files(*pair).to_dict()
    only = run("diff", *pair, "--json", "--table", "lines", "--table", "tags")
    assert sorted(json.loads(only.stdout)["tables"]) == ["lines", "tags"]


def test_tables_for_people(pair: tuple[Path, Path]):
    done = run("diff", *pair, "--limit", "1")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "customers: 2 inserted, 1 deleted, 2 updated" in out
    assert "ann@x.io -> NULL" in out and "... 1 more inserted rows" in out
    assert out.rstrip().endswith("6 inserted, 3 deleted, 3 updated in 3 tables")
    same = run("diff", pair[0], pair[0])
    assert same.returncode == 0 and same.stdout.strip() == "no differences"


def test_bad_input_exits_2_with_one_paragraph(pair: tuple[Path, Path], tmp_path: Path):
    text = tmp_path / "readme.duckdb"
    text.write_text("hello\n")
    _, other = make_pair(tmp_path, "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR);")
    cases = [
        ((pair[0], tmp_path / "nope.duckdb"), "nope.duckdb: no such file"),
        ((text, pair[1]), "readme.duckdb: not a DuckDB database"),
        ((pair[0], other), "table customers: columns only in"),
        ((*pair, "--table", "custmers"), 'Did you mean "customers"'),
    ]
    for args, message in cases:
        done = run("diff", *args)
        assert done.returncode == 2, (args, done.stdout)
        assert done.stderr.startswith("error:") and message in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == ""
