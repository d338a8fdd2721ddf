"""`stateforge report` through the real console script: the file it writes, its bytes, its exit codes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.xdist_group("report")

STATEFORGE = [str(Path(sys.executable).with_name("stateforge"))]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(STATEFORGE + [str(a) for a in args], capture_output=True, text=True, timeout=600)


def test_the_same_database_gives_the_same_bytes(music_db: Path, music_report: Path, tmp_path: Path):
    copy = tmp_path / "music.duckdb"
    shutil.copy(music_db, copy)  # another path, another process: the same report
    done = run("report", copy, "--json")
    assert done.returncode == 0, done.stderr
    written = tmp_path / "music.report.html"
    assert written.read_bytes() == music_report.read_bytes()
    data = json.loads(done.stdout)
    assert data["clean"] is True and data["domain"] == "music" and len(data["tables"]) == 21
    assert data["rows"] == sum(t["rows"] for t in data["tables"])


def test_the_page_is_one_file_that_fetches_nothing(music_report: Path):
    html = music_report.read_text()
    assert html.startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert not re.search(r'<(?:script|img|link|iframe)[^>]+(?:src|href)=', html), "an external resource"
    assert not re.search(r"https?://(?!www\.w3\.org/)", html), "a URL other than the SVG namespaces"
    assert html.count('<figure class="plot"') > 60
    assert re.search(r"Clean: no violation in \d+ audit checks, and all \d+ domain checks hold", html)
    for section in ("summary", "violations", "rules", "t-users", "t-listening_history"):
        assert f'id="{section}"' in html
        assert f'href="#{section}"' in html


def test_a_database_with_violations_exits_1_and_the_page_names_them(broken_db: Path, tmp_path: Path):
    out = tmp_path / "broken.html"
    done = run("report", broken_db, "--out", out)
    assert done.returncode == 1, done.stderr
    assert "not clean" in done.stderr and "payment_amount_matches_plan" in done.stderr
    assert str(out) in done.stderr.replace("\n", "")
    html = out.read_text()
    assert "Not clean:" in html and "songs(album_id) -&gt; albums(album_id)" in html
    assert "payment_amount_matches_plan" in html


def test_bad_input_exits_2_with_a_paragraph(music_db: Path, tmp_path: Path):
    done = run("report", tmp_path / "missing.duckdb")
    assert done.returncode == 2
    assert "does not exist" in done.stderr and "Build it first" in done.stderr
    assert not (tmp_path / "missing.report.html").exists()
    done = run("report", music_db, "--sample-rows", "0", "--out", tmp_path / "x.html")
    assert done.returncode == 2 and "--sample-rows must be at least 1" in done.stderr
    assert not (tmp_path / "x.html").exists()
