"""Generated (computed) columns: read in every dialect's spelling, created as VIRTUAL in DuckDB, computed
by DuckDB and never filled, validated per batch or audited; what DuckDB cannot compute is a plain column."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.schema import Schema, parse_ddl

A2 = "a * 2"


def parse(text: str, dialect: str) -> Schema:
    return parse_ddl(text, dialect, source="t.sql")


@pytest.mark.parametrize(
    ("dialect", "ddl", "sql"),
    [
        ("postgres", "CREATE TABLE t (a numeric(8,2), b numeric GENERATED ALWAYS AS (a * 2) VIRTUAL)", A2),
        ("postgres", "CREATE TABLE t (a numeric(8,2), b numeric GENERATED ALWAYS AS (a * 2) STORED)", A2),
        ("mysql", "CREATE TABLE t (a decimal(8,2), b decimal(12,2) AS (a * 2) VIRTUAL)", A2),
        ("mysql", "CREATE TABLE t (a decimal(8,2), b decimal(12,2) GENERATED ALWAYS AS (a * 2) STORED)", A2),
        ("tsql", "CREATE TABLE t ([a] [decimal](8, 2), [b] AS ([a]*(2)) PERSISTED)", '"a" * (2)'),
        ("sqlite", "CREATE TABLE t (a REAL, b REAL GENERATED ALWAYS AS (a * 2))", "a * 2"),
        ("duckdb", "CREATE TABLE t (a DOUBLE, b DOUBLE GENERATED ALWAYS AS (a * 2) VIRTUAL)", "a * 2"),
    ],
)
def test_generated_columns_keep_their_expression(dialect: str, ddl: str, sql: str) -> None:
    schema = parse(ddl, dialect)
    column = schema.table("t").column("b")
    assert (column.generated, column.nullable) == (sql, True)
    assert schema.table("t").generated_columns == ["b"]
    assert schema.notes == []


def test_an_untyped_generated_column_gets_duckdb_s_type() -> None:
    column = parse("CREATE TABLE t ([q] [int], [p] [money], [total] AS ([q]*[p]))", "tsql").table("t").column(
        "total"
    )
    assert column.type.startswith("DECIMAL(")


def test_what_duckdb_cannot_compute_is_a_plain_nullable_column_kept_as_written() -> None:
    schema = parse(
        "CREATE TABLE t (\n  a int,\n  b int NOT NULL GENERATED ALWAYS AS (my_fn(a)) STORED\n);", "postgres"
    )
    table = schema.table("t")
    assert (table.column("b").generated, table.column("b").nullable) == (None, True)
    (kept,) = table.unenforced
    assert (kept.kind, kept.column, kept.sql) == ("generated", "b", "MY_FN(a)")
    assert "my_fn" in kept.reason
    (note,) = map(str, schema.notes)
    assert note.startswith("t.sql:3: table t, column b: generated column that DuckDB cannot compute")


def test_duckdb_keeps_no_constraint_on_a_generated_column() -> None:
    schema = parse(
        "CREATE TABLE t (\n  id int PRIMARY KEY,\n  a int,\n"
        "  code text GENERATED ALWAYS AS ('c' || a) STORED UNIQUE,\n"
        "  twice int NOT NULL GENERATED ALWAYS AS (a * 2) STORED,\n"
        "  CONSTRAINT twice_pos CHECK (twice > 0)\n);",
        "postgres",
    )
    table = schema.table("t")
    assert table.column("code").generated is None, "a generated column in a key is filled like any other"
    assert (table.column("twice").generated, table.column("twice").nullable) == ("a * 2", True)
    assert table.checks == [] and [(u.kind, u.name) for u in table.unenforced] == [("check", "twice_pos")]
    assert len(schema.notes) == 3


def test_a_build_computes_generated_columns_and_never_fills_them(tmp_path: Path) -> None:
    ddl = tmp_path / "shop.sql"
    ddl.write_text(
        "CREATE TABLE orders (\n  id bigserial PRIMARY KEY,\n  qty integer NOT NULL CHECK (qty > 0),\n"
        "  price numeric(10,2) NOT NULL CHECK (price >= 0),\n"
        "  total numeric(14,2) GENERATED ALWAYS AS (qty * price) STORED,\n"
        "  label text GENERATED ALWAYS AS ('order ' || id) VIRTUAL\n);\n"
    )
    report = build_domain(str(ddl), rows=12, out=tmp_path / "out")
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(tmp_path / "out" / "shop.duckdb"), read_only=True) as con:
        ddl_text = con.sql("SELECT sql FROM duckdb_tables() WHERE table_name = 'orders'").fetchall()[0][0]
        wrong = con.sql(
            "SELECT count(*) FROM orders WHERE total <> qty * price OR label <> 'order ' || id"
        ).fetchall()
        count = con.sql("SELECT count(*) FROM orders").fetchall()[0][0]
    assert ddl_text.count("GENERATED ALWAYS AS") == 2, ddl_text
    assert count == 12 and wrong == [(0,)]
