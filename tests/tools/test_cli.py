"""`stateforge tools` and `stateforge call`, through the real console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb

from tests.episode.fixture import SHOP, sha256

STATEFORGE = [str(Path(sys.executable).with_name("stateforge"))]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(STATEFORGE + [str(a) for a in args], capture_output=True, text=True, timeout=300)


def test_tools_lists_tools_and_coverage(shop_db: Path):
    done = run("tools", shop_db, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    names = [t["name"] for t in report["tools"]]
    assert names[0] == "search_carriers" and names[-1] == "cannot_complete"
    get = next(t for t in report["tools"] if t["name"] == "get_customer")
    assert get["kind"] == "read" and get["parameters"][0]["name"] == "customer_id"
    assert get["parameters"][0]["required"] is True and get["parameters"][0]["type"] == "integer"
    assert report["coverage"]["unwritable"] == []
    assert {t["table"] for t in report["coverage"]["tables"]} >= {"customers", "orders", "wishlist"}
    text = run("tools", SHOP)
    assert text.returncode == 0 and "every table is written by some tool" in text.stdout


def test_call_runs_on_a_copy_and_prints_the_result(shop_db: Path):
    before = sha256(shop_db)
    done = run("call", shop_db, "delete_carrier", "--args", '{"carrier_id": 2}')
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["ok"] is True and result["changes"]["carriers"] == {"deleted": 1}
    assert sha256(shop_db) == before
    failed = run("call", shop_db, "get_carrier", "--args", '{"carrier_id": "two"}')
    assert failed.returncode == 1 and json.loads(failed.stdout)["error_kind"] == "arguments"
    bad = run("call", shop_db, "get_carrier", "--args", "{carrier_id: 2}")
    assert bad.returncode == 2 and "--args is not JSON" in bad.stderr
    missing = run("call", shop_db.parent / "nope.duckdb", "get_carrier")
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_call_persist_writes_the_file(shop_db: Path, tmp_path: Path):
    target = tmp_path / "mine.duckdb"
    shutil.copy(shop_db, target)
    done = run("call", target, "create_carrier", "--args", '{"name": "Kept"}', "--persist")
    assert done.returncode == 0, done.stderr
    with duckdb.connect(str(target), read_only=True) as con:
        assert con.execute("SELECT name FROM carriers WHERE carrier_id = 5").fetchall() == [("Kept",)]
