"""An unexpected exception during a build names the file, the stage and the table (never a bare error)."""

from __future__ import annotations

from pathlib import Path

import pytest

import stateforge.build.stages as build_module
from stateforge.build import build_domain
from stateforge.errors import InternalError
from stateforge.fill.strategies import STRATEGIES
from stateforge.validation import checks


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


_PRICE = STRATEGIES.load("price")

DDL = "CREATE TABLE a (id int PRIMARY KEY);\n" \
      "CREATE TABLE b (id int PRIMARY KEY, a int REFERENCES a, price real);"



def test_an_internal_error_while_generating_a_column_names_the_file_table_and_column(tmp_path: Path,
                                                                                     monkeypatch) -> None:
    """Issue 8, item 14: a bug inside one column's strategy, in a real build (made in the worker thread
    that prepares the next batch), is named down to the column."""
    ddl = tmp_path / "shop.sql"
    ddl.write_text(DDL)

    def price(ctx):
        raise ZeroDivisionError("division by zero")

    STRATEGIES.add("price", price)
    try:
        with pytest.raises(InternalError) as caught:
            build_domain(str(ddl), rows=5, out=tmp_path / "out")
    finally:
        STRATEGIES.add("price", _PRICE)
    error = caught.value
    assert (error.file, error.table, error.column) == (str(ddl), "b", "price")
    assert str(error).startswith(f"{ddl}: table b, column price: internal error while generating values "
                                 "(price) (ZeroDivisionError: division by zero)")


def test_an_internal_error_while_auditing_names_the_file_and_table(tmp_path: Path, monkeypatch) -> None:
    ddl = tmp_path / "shop.sql"
    ddl.write_text(DDL)

    def foreign_key_checks(schema, table):  # a bug in one kind of audit check, on one table
        if table.name == "b":
            raise KeyError("ref_table")
        return []

    builders = tuple(foreign_key_checks if b.__name__ == "foreign_key_checks" else b for b in checks.CHECKS)
    monkeypatch.setattr(checks, "CHECKS", builders)
    with pytest.raises(InternalError) as caught:
        build_domain(str(ddl), rows=5, out=tmp_path / "out")
    error = caught.value
    assert (error.file, error.table, error.stage) == (str(ddl), "b", "writing the audit's foreign_key checks")
    assert not (tmp_path / "out" / "shop.duckdb").exists()
