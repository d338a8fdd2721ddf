"""Issue 19 item 6: the build's summary and report say which tables fell short of their planned rows and
why; the exit code stays 0 when the audit is clean (the shortfall is a figure, not a silence)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateforge.cli import main

HARD_CHECK = """\
CREATE TABLE colors (id int PRIMARY KEY, name varchar(10) NOT NULL);
CREATE TABLE items (id int PRIMARY KEY, color_id int NOT NULL UNIQUE REFERENCES colors (id),
  price int NOT NULL CHECK (price % 4 = 1));
"""
RULED = {
    "schema.sql": """\
CREATE TABLE colors (id int PRIMARY KEY, name varchar(10) NOT NULL);
CREATE TABLE items (id int PRIMARY KEY, color_id int NOT NULL REFERENCES colors (id) ON DELETE CASCADE);
""",
    "domain.yaml": """\
name: ruled
seed: 3
tables:
  colors: {rows: 5}
  items: {rows: 40}
rules:
  - name: no_first_color
    check: SELECT id FROM colors WHERE id = 1
    repair: ["DELETE FROM colors WHERE id = 1"]
""",
}


def _build(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[str, dict]:
    with pytest.raises(SystemExit) as exit_:
        main(["build-domain", *args])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    out_dir = Path(args[args.index("--out") + 1])
    return out, json.loads((out_dir / "build_report.json").read_text())


def test_rows_dropped_after_every_repair_round_are_named_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    ddl = tmp_path / "hard.sql"
    ddl.write_text(HARD_CHECK)
    out, report = _build(capsys, str(ddl), "--rows", "50", "--out", str(tmp_path / "out"))
    [short] = report["short_tables"]
    items = next(t for t in report["tables"] if t["table"] == "items")
    assert (short["table"], short["planned"], short["rows"]) == ("items", 50, items["rows"])
    assert short["short"] == 50 - items["rows"] > 0 and report["totals"]["short_tables"] == 1
    assert "still invalid after every round of repairs and were dropped" in short["reason"]
    assert "short of plan (1 table): fewer rows than planned, and why" in out
    assert f"items: {items['rows']} of 50 planned rows ({short['short']} short): " in out
    # The HTML report of the database says it in the table's facts too.
    page = tmp_path / "hard.html"
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(tmp_path / "out" / "hard.duckdb"), "--out", str(page)])
    assert exit_.value.code == 0
    html = page.read_text()
    assert "short of plan" in html and "still invalid after every round of repairs" in html


def test_rows_the_rules_delete_after_the_fill_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    pack = tmp_path / "ruled"
    pack.mkdir()
    for name, text in RULED.items():
        (pack / name).write_text(text)
    out, report = _build(capsys, str(pack), "--out", str(tmp_path / "out"))
    short = {s["table"]: s for s in report["short_tables"]}
    assert short["colors"]["rows"] == 4 and short["colors"]["planned"] == 5
    assert short["colors"]["reason"] == ("the domain's rules and their foreign-key cascades deleted 1 rows "
                                         "after the fill")
    assert short["items"]["short"] == 40 - short["items"]["rows"] > 0
    assert "colors: 4 of 5 planned rows (1 short): the domain's rules" in out
