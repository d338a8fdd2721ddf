"""An unexpected exception during a build names the file, the stage and the table (never a bare error)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pipeline.build.stages as build_module
from pipeline.build import build_domain
from pipeline.errors import InternalError


def test_an_internal_error_while_filling_names_the_table_and_the_file(tmp_path: Path, monkeypatch) -> None:
    ddl = tmp_path / "shop.sql"
    ddl.write_text("CREATE TABLE a (id int PRIMARY KEY);\nCREATE TABLE b (id int, a int REFERENCES a);")
    real = build_module.fill_table

    def fill_table(con, schema, plan, config, table, **kwargs):  # a bug in the fill of one table
        if table == "b":
            raise AttributeError("'NoneType' object has no attribute 'name'")
        return real(con, schema, plan, config, table, **kwargs)

    monkeypatch.setattr(build_module, "fill_table", fill_table)
    with pytest.raises(InternalError) as caught:
        build_domain(str(ddl), rows=5, out=tmp_path / "out")
    error = caught.value
    assert (error.file, error.table, error.stage) == (str(ddl), "b", "filling the table")
    assert "internal error while filling the table (AttributeError" in str(error)
    assert not (tmp_path / "out" / "shop.duckdb").exists(), "nothing is published"
