"""Foreign keys whose two ends have different types (issue 8, item 6): keys both can hold are drawn, a
column of another family is widened with a note, and no raw Arrow error reaches the user."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from stateforge.build import build_domain
from stateforge.errors import BuildError
from stateforge.fill.key_types import holdable
from stateforge.schema import parse_ddl
from stateforge.schema.model import Column


def build(tmp_path: Path, name: str, ddl: str, dialect: str | None = None, rows: int = 30) -> Path:
    path = tmp_path / f"{name}.sql"
    path.write_text(ddl)
    report = build_domain(str(path), dialect=dialect, rows=rows, out=tmp_path / name)
    assert report["totals"]["violations"] == 0
    return tmp_path / name / f"{name}.duckdb"


def test_narrow_numeric_children_of_unconstrained_numeric_keys(tmp_path: Path):
    db = build(tmp_path, "narrow", """
        CREATE TABLE accounts (id numeric PRIMARY KEY, name varchar(40) NOT NULL);
        CREATE TABLE flags (id numeric PRIMARY KEY, label varchar(10));
        CREATE TABLE orders (id integer PRIMARY KEY,
          account_id numeric(12) NOT NULL REFERENCES accounts(id),
          flag_id numeric(1) NOT NULL REFERENCES flags(id));""", "postgres")
    with duckdb.connect(str(db), read_only=True) as con:
        flags = [r[0] for r in con.sql("SELECT DISTINCT flag_id FROM orders").fetchall()]
        orphans = con.sql("SELECT count(*) FROM orders o ANTI JOIN accounts a ON a.id = o.account_id")
        orphans = orphans.fetchall()
    assert orphans == [(0,)] and flags and all(1 <= f <= 9 for f in flags)


def test_oracle_number_1_child_of_a_bare_number_key(tmp_path: Path):
    db = build(tmp_path, "oracle", """
        CREATE TABLE status (id NUMBER PRIMARY KEY, label VARCHAR2(20));
        CREATE TABLE tickets (id NUMBER(10) PRIMARY KEY, status_id NUMBER(1) NOT NULL,
          CONSTRAINT fk_status FOREIGN KEY (status_id) REFERENCES status(id));""", "oracle")
    with duckdb.connect(str(db), read_only=True) as con:  # NUMBER(1) is read as INTEGER (types.py)
        types = dict(con.sql("SELECT table_name || '.' || column_name, data_type "
                             "FROM information_schema.columns WHERE column_name LIKE '%id'").fetchall())
        orphans = con.sql("SELECT count(*) FROM tickets t ANTI JOIN status s ON s.id = t.status_id")
        orphans = orphans.fetchall()
        drawn = con.sql("SELECT count(DISTINCT status_id) FROM tickets").fetchall()[0][0]
    assert types["tickets.status_id"] == "INTEGER" and types["status.id"].startswith("DECIMAL")
    assert orphans == [(0,)] and drawn > 1


def test_sqlite_integer_child_of_a_text_key_is_widened_with_a_note(tmp_path: Path):
    ddl = """CREATE TABLE codes (code TEXT PRIMARY KEY, label TEXT);
             CREATE TABLE items (id INTEGER PRIMARY KEY,
               code_id INTEGER NOT NULL REFERENCES codes(code));
             CREATE TABLE nums (n INTEGER PRIMARY KEY);
             CREATE TABLE refs (id INTEGER PRIMARY KEY, n_text VARCHAR(1) REFERENCES nums(n));"""
    schema = parse_ddl(ddl, "sqlite")
    assert schema.table("items").column("code_id").type == "VARCHAR"
    assert schema.table("refs").column("n_text").type.startswith("VARCHAR")  # text holds a number's text
    notes = [str(n) for n in schema.notes]
    assert any("column code_id" in n and "widened to VARCHAR" in n for n in notes), notes
    assert any("column n_text" in n and "the fill draws only keys it can hold" in n for n in notes), notes
    db = build(tmp_path, "lite", ddl, "sqlite")
    with duckdb.connect(str(db), read_only=True) as con:
        orphans = con.sql("SELECT count(*) FROM items i ANTI JOIN codes c ON c.code = i.code_id")
        assert orphans.fetchall() == [(0,)]
        texts = [r[0] for r in con.sql("SELECT DISTINCT n_text FROM refs WHERE n_text <> ''").fetchall()]
    assert texts and all(len(t) == 1 for t in texts)


def test_no_key_that_fits_is_a_sentence_naming_the_foreign_key(tmp_path: Path):
    path = tmp_path / "short.sql"
    path.write_text("CREATE TABLE codes (code VARCHAR(10) PRIMARY KEY);\n"
                    "CREATE TABLE items (id INTEGER PRIMARY KEY,\n"
                    "  code VARCHAR(2) NOT NULL REFERENCES codes(code));\n")
    expected = r"table items: FOREIGN KEY \(code\) -> codes\(code\): none of the 30 keys of codes fits in "
    expected += r"VARCHAR\(2\)"
    with pytest.raises(BuildError, match=expected + r"\. Give the referencing column"):
        build_domain(str(path), rows=30, out=tmp_path / "out")


@pytest.mark.parametrize(("values", "column", "expected"), [
    (pa.array([Decimal("5.000"), Decimal("2.500"), Decimal("12.000")], pa.decimal128(18, 3)),
     Column("c", "DECIMAL(1,0)", precision=1, scale=0), [True, False, False]),
    (pa.array([1, 300, -5], pa.int64()), Column("c", "TINYINT"), [True, False, True]),
    (pa.array(["7", "x7", "99999999999"]), Column("c", "INTEGER"), [True, False, False]),
    (pa.array([1, 22, 333]), Column("c", "VARCHAR(2)", length=2), [True, True, False]),
    (pa.array(["2020-01-01", "soon"]), Column("c", "DATE"), [True, False]),
])
def test_holdable(values, column, expected):
    assert holdable(values, column).tolist() == expected


def test_narrow_deferred_keys_of_a_cycle_draw_keys_they_can_hold(tmp_path: Path):
    db = build(tmp_path, "cycle", """
        CREATE TABLE units (id numeric PRIMARY KEY, parent_id numeric(3) REFERENCES units(id),
          head_id numeric(1));
        CREATE TABLE people (id numeric PRIMARY KEY, unit_id numeric(4) NOT NULL REFERENCES units(id));
        ALTER TABLE units ADD FOREIGN KEY (head_id) REFERENCES people(id);""", "postgres", rows=40)
    with duckdb.connect(str(db), read_only=True) as con:
        heads = con.sql("SELECT count(head_id), max(head_id) FROM units").fetchall()[0]
    assert heads[0] > 0 and heads[1] <= 9
