"""A 2,000-table dump parses whole, statement by statement (its speed is measured in bench/parse.py)."""

from __future__ import annotations

import pytest

from bench.parse import big_dump
from stateforge.schema import parse_ddl


@pytest.mark.slow
def test_two_thousand_tables_parse() -> None:
    schema = parse_ddl(big_dump(2000), "postgres")
    assert len(schema.tables) == 2000 and schema.skipped == {"owner": 2000, "copy": 2000}
    assert schema.table("t1999").foreign_keys[0].ref_table == "t1998"
