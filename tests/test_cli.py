"""The CLI contract other tools depend on, through the real `stateforge` console script."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from tests.conftest import FIXTURES

DDL = FIXTURES / "ddl"
STATEFORGE = [str(Path(sys.executable).with_name("stateforge"))]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(STATEFORGE + [str(a) for a in args], capture_output=True, text=True, timeout=300)


def test_schema_json_has_the_contract_fields():
    done = run("schema", DDL / "postgres_dump.sql", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    for key in ("tables", "fill_order", "cycles", "deferred_foreign_keys", "skipped_statements"):
        assert key in report
    table = report["tables"][0]
    for key in ("name", "columns", "primary_key", "unique", "foreign_keys", "checks"):
        assert key in table
    assert {"name", "type", "nullable"} <= set(table["columns"][0])
    fk = next(fk for t in report["tables"] for fk in t["foreign_keys"])
    assert {"columns", "ref_table", "ref_columns", "on_delete"} <= set(fk)
    assert all(isinstance(c, list) for c in report["cycles"])
    assert report["skipped_statements"]["function"] >= 1


def test_schema_summary_names_tables_and_skipped_statements():
    done = run("schema", DDL / "mysql_dump.sql", "--dialect", "mysql")
    assert done.returncode == 0, done.stderr
    assert "fill order:" in done.stdout and "skipped:" in done.stdout


def test_init_db_then_audit_clean_then_dirty(tmp_path: Path):
    db = tmp_path / "shop.duckdb"
    assert run("init-db", DDL / "duckdb_schema.sql", db).returncode == 0
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.sql("SELECT count(*) FROM stateforge.tables").fetchall()[0][0] >= 3
    clean = run("audit", db, "--json")
    assert clean.returncode == 0 and json.loads(clean.stdout)["violations"] == 0
    existing = run("init-db", DDL / "duckdb_schema.sql", db)
    assert existing.returncode == 2 and "exists" in existing.stderr


def test_audit_exits_1_and_names_the_orphans(tmp_path: Path):
    db = tmp_path / "game.duckdb"
    built = run("build-domain", DDL / "mysql_dump.sql", "--rows", "20", "--out", tmp_path, "--json")
    assert built.returncode == 0, built.stderr
    db = tmp_path / "mysql_dump.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE match_players SET match_id = match_id + 1000000 WHERE player_id % 2 = 0")
    dirty = run("audit", db, "--json")
    assert dirty.returncode == 1 and dirty.stderr.startswith("not clean:")
    report = json.loads(dirty.stdout)
    assert report["violations"] > 0
    assert {c["check"] for c in report["checks"]} == {"foreign_key"}
    table = run("audit", db)
    assert table.returncode == 1 and "foreign_key" in table.stdout and "match_players" in table.stdout


def test_build_domain_exits_0_clean_1_not_clean_and_2_on_bad_input(tmp_path: Path):
    pack = tmp_path / "shop"
    pack.mkdir()
    (pack / "schema.sql").write_text("CREATE TABLE t (id INTEGER PRIMARY KEY, code VARCHAR(3) NOT NULL);\n")
    (pack / "domain.yaml").write_text("name: shop\ntables:\n  t: {rows: 10}\n")
    out = tmp_path / "out"
    clean = run("build-domain", pack, "--out", out, "--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["totals"]["violations"] == 0
    assert sorted(p.name for p in out.iterdir()) == ["build_report.json", "shop.duckdb"]  # no WAL left
    good = (out / "shop.duckdb").read_bytes()
    # The rule holds after its repair, but the repair breaks VARCHAR(3), which only the final audit sees.
    (pack / "domain.yaml").write_text(
        "name: shop\ntables:\n  t: {rows: 10}\nrules:\n  - name: long_codes\n"
        "    check: SELECT id FROM t WHERE code <> 'toolong'\n"
        "    repair: [\"UPDATE t SET code = 'toolong'\"]\n"
    )
    dirty = run("build-domain", pack, "--out", out, "--json")
    assert dirty.returncode == 1, dirty.stderr
    assert dirty.stderr.startswith("not clean:") and "max_length" in dirty.stderr
    assert "Traceback" not in dirty.stderr and dirty.stdout == ""
    assert (out / "shop.duckdb").read_bytes() == good  # nothing published
    (pack / "domain.yaml").write_text("name: shop\ntables:\n  t: {rows: 10}\ncolumns:\n  t.cod: {}\n")
    bad = run("build-domain", pack, "--out", out)
    assert bad.returncode == 2 and "t.cod" in bad.stderr and bad.stderr.startswith("error:")
    usage = run("build-domain", pack, "--scale", "lots")
    assert usage.returncode == 2


def test_the_process_skips_the_interpreter_teardown_only_when_it_is_safe():
    """`stateforge build-domain` ends with `os._exit` (`_exit_now`): never with a thread still running or a
    code that is not a number, or an output that cannot be flushed; only after the output is flushed and the
    atexit handlers have run."""
    script = (
        "import atexit, sys, threading\n"
        "from stateforge.cli import _exit_now\n"
        "_exit_now('not a number'); print('kept')\n"
        "done = threading.Event(); worker = threading.Thread(target=done.wait); worker.start()\n"
        "_exit_now(0); print('kept'); done.set(); worker.join()\n"
        "class Closed:\n    def flush(self): raise BrokenPipeError\n"
        "out, sys.stdout = sys.stdout, Closed(); _exit_now(0); sys.stdout = out; print('kept')\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        "print('exiting')\n"
        "_exit_now(3)\n"
        "print('not reached')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout.split()) == (3, ["kept", "kept", "kept", "exiting", "atexit", "ran"])


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("schema", "missing.sql"), "missing.sql"),
        (("schema", DDL / "duckdb_schema.sql", "--dialect", "postgress"), "postgres"),
        (("audit", "missing.duckdb"), "missing.duckdb"),
        (("build-domain", "musik"), "music"),
    ],
)
def test_errors_exit_2_with_a_message_and_no_traceback(args, expected):
    done = run(*args)
    assert done.returncode == 2
    assert expected in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.startswith("error:")


def test_bad_ddl_names_file_line_table_and_column(tmp_path: Path):
    ddl = tmp_path / "bad.sql"
    ddl.write_text(
        "CREATE TABLE a (id INT PRIMARY KEY);\nCREATE TABLE b (id INT, a_id INT REFERENCES aa(id));\n"
    )
    done = run("schema", ddl)
    assert done.returncode == 2
    assert f"{ddl}:2:" in done.stderr and "table b" in done.stderr and "a_id" in done.stderr
    assert 'Did you mean "a"' in done.stderr


def test_debug_shows_the_traceback():
    done = run("--debug", "schema", "missing.sql")
    assert done.returncode != 0 and "Traceback" in done.stderr
