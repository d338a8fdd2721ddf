"""Real databases for the report's tests: the music pack built small (session scope, built once per
worker; the report tests share the `report` xdist group), and a copy of it with violations put in."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain

SCALE = 0.02
"""About 6,000 rows in 21 tables: every kind of column and foreign key of the pack, in seconds."""


@pytest.fixture(scope="session")
def music_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The music pack, built offline at a small scale (a clean audit, rules holding)."""
    out = tmp_path_factory.mktemp("report-music")
    build_domain("music", scale=SCALE, seed=11, out=out)
    return out / "music.duckdb"


@pytest.fixture(scope="session")
def broken_db(music_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of `music_db` with orphans (an album deleted under its songs) and a broken domain rule
    (a payment that no longer charges its plan's price)."""
    path = tmp_path_factory.mktemp("report-broken") / "music.duckdb"
    shutil.copy(music_db, path)
    with duckdb.connect(str(path)) as con:
        con.execute("DELETE FROM albums WHERE album_id = (SELECT min(album_id) FROM songs)")
        con.execute("UPDATE payments SET amount = amount + 1 "
                    "WHERE payment_id = (SELECT min(payment_id) FROM payments)")
    return path


@pytest.fixture(scope="session")
def music_report(music_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The HTML report of `music_db`, written in this process."""
    from stateforge.report import write_report

    return write_report(music_db, tmp_path_factory.mktemp("report-html") / "music.html").path
