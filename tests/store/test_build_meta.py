"""`stateforge.build_meta`: what a build records about itself, and the frozen clock read back from it."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from stateforge.errors import StoreError
from stateforge.store import connect
from stateforge.store.build_meta import frozen_now, read_build_meta, write_build_meta


def test_written_values_read_back_and_now_is_the_clock(db_path: Path):
    with connect(db_path) as con:
        write_build_meta(con, {"fingerprint": "abc", "now": "2026-06-30T23:59:59"})
    with duckdb.connect(str(db_path), read_only=True) as con:
        assert read_build_meta(con) == {"fingerprint": "abc", "now": "2026-06-30T23:59:59"}
        assert frozen_now(con) == datetime(2026, 6, 30, 23, 59, 59)


def test_a_file_no_build_wrote_has_no_clock(db_path: Path):
    with connect(db_path, read_only=True) as con:
        assert read_build_meta(con) == {}
        with pytest.raises(StoreError, match="no frozen `now`.*Build it again"):
            frozen_now(con)
