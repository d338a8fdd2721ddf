"""Issue 19 item 5: constructs read exactly, or kept with a note at their file:line, on minimal DDL."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.constraints.shapes import regex_code
from stateforge.schema import parse_ddl
from stateforge.store.create import table_ddl

ARRAY_UNIQUE = """\
CREATE TABLE t (id int PRIMARY KEY, tags integer[]);
CREATE UNIQUE INDEX t_tags ON t (tags);
"""


def test_unique_over_a_list_is_kept_noted_at_the_index_line_and_left_out_of_duckdb():
    schema = parse_ddl(ARRAY_UNIQUE, "postgres", source="a.sql")
    table = schema.table("t")
    assert table.unique == [("tags",)]
    notes = [str(n) for n in schema.notes]
    assert any(n.startswith("a.sql:2: table t, column tags: UNIQUE (tags) over a type DuckDB cannot index")
               for n in notes), notes
    ddl = table_ddl(table)
    assert 'UNIQUE ("tags")' not in ddl and 'PRIMARY KEY ("id")' in ddl
    duckdb.connect().execute(ddl)  # DuckDB accepts the table


@pytest.mark.parametrize(
    ("pattern", "anchored", "code"),
    [
        ("^[A-Z0-9]{3}$", False, "???"),
        ("^[A-Za-z]$", False, "?"),
        ("^[0-9a-f]{4}$", False, "####"),
        ("^\\d{11}$", False, "###########"),
        ("99[0-9][0-9]", True, "99##"),
        ("^[^A-Z]$", False, None),
        ("^[a-z]{2}$", False, None),
    ],
)
def test_bracket_classes_with_several_ranges_become_code_patterns(pattern, anchored, code):
    assert regex_code(pattern, anchored=anchored) == code


@pytest.mark.parametrize(
    ("dialect", "ddl", "check"),
    [
        ("postgres", "CREATE TABLE t (id int PRIMARY KEY, p varchar(11) CHECK (p ~ E'^\\\\d{11}$'));",
         "REGEXP_MATCHES(p, '^\\d{11}$')"),
        ("tsql", "CREATE TABLE t (id char(4) PRIMARY KEY CHECK (id LIKE '99[0-9][0-9]'))",
         "REGEXP_FULL_MATCH(id, '99[0-9][0-9]')"),
        ("tsql", "CREATE TABLE t (id int PRIMARY KEY, s char(1) CHECK (s NOT LIKE '[A-Za-z]%'))",
         "NOT REGEXP_FULL_MATCH(s, '[A-Za-z].*')"),
        ("postgres", "CREATE TABLE t (id int PRIMARY KEY, n int);\nALTER TABLE t ADD CHECK (n > 0);",
         "n > 0"),
        ("tsql", "CREATE TABLE t (id int PRIMARY KEY, n int)\nGO\n"
                 "ALTER TABLE t WITH CHECK ADD CHECK (n > 0)\nGO\n", "n > 0"),
    ],
)
def test_checks_are_read_as_duckdb_understands_them(dialect, ddl, check):
    schema = parse_ddl(ddl, dialect, source="c.sql")
    checks = schema.table("t").checks
    assert [c.sql for c in checks] == [check] and checks[0].name is None
    assert not schema.notes


def test_create_schema_elements_live_in_the_schema_and_unquoted_names_fold():
    ddl = """\
CREATE SCHEMA HumanResources CREATE TABLE Employee (ID int PRIMARY KEY, n int);
ALTER TABLE HumanResources.Employee ADD CHECK (N > 0);
ALTER TABLE humanresources.EMPLOYEE ADD COLUMN boss int REFERENCES HUMANRESOURCES.employee (id);
COMMENT ON TABLE HUMANRESOURCES.EMPLOYEE IS 'staff';
CREATE UNIQUE INDEX e_n ON humanResources.employee (N);
"""
    schema = parse_ddl(ddl, "postgres", source="h.sql")
    table = schema.table("HumanResources.Employee")
    assert [c.columns for c in table.checks] == [("n",)]
    assert table.unique == [("n",)] and table.description == "staff"
    assert table.foreign_keys[0].ref_table == "HumanResources.Employee"
    assert not schema.notes


def test_regex_and_like_classes_are_satisfied_by_the_generator(tmp_path: Path):
    pg = tmp_path / "pg.sql"
    pg.write_text(
        "CREATE TABLE t (id int PRIMARY KEY,\n"
        "  code varchar(3) NOT NULL UNIQUE CHECK (code ~ '^[A-Z0-9]{3}$'),\n"
        "  phone varchar(11) NOT NULL CHECK (phone ~ E'^\\\\d{11}$'),\n"
        "  tags integer[]);\n"
        "CREATE UNIQUE INDEX t_tags ON t (tags);\n"
    )
    report = build_domain(str(pg), rows=30, out=tmp_path / "pg")
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(tmp_path / "pg" / "pg.duckdb"), read_only=True) as con:
        rows = con.sql("SELECT code, phone FROM t").fetchall()
        tags = con.sql("SELECT count(tags), count(DISTINCT tags) FROM t").fetchall()[0]
    assert len(rows) == 30 and tags[0] == tags[1]
    assert all(re.fullmatch(r"[A-Z0-9]{3}", c) and re.fullmatch(r"\d{11}", p) for c, p in rows)
    ts = tmp_path / "ts.sql"
    ts.write_text("CREATE TABLE publishers (\n"
                  "  pub_id char(4) NOT NULL PRIMARY KEY CHECK (pub_id LIKE '99[0-9][0-9]'),\n"
                  "  Shelf char(1) NOT NULL CHECK (Shelf LIKE '[A-Za-z]'))\nGO\n")
    report = build_domain(str(ts), rows=30, out=tmp_path / "ts")
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(tmp_path / "ts" / "ts.duckdb"), read_only=True) as con:
        rows = con.sql("SELECT pub_id, Shelf FROM publishers").fetchall()
    assert len(rows) == 30
    assert all(re.fullmatch(r"99\d\d", p) and re.fullmatch("[A-Za-z]", s) for p, s in rows)


FOLDING = """\
CREATE SCHEMA Sales;
SET search_path TO SALES, public;
CREATE TYPE Mood AS ENUM ('happy', 'sad');
CREATE DOMAIN Email AS varchar(80) CHECK (VALUE LIKE '%@%');
CREATE TABLE Sales.Region (Region_ID int PRIMARY KEY, Name text NOT NULL);
CREATE TABLE Customer (ID serial PRIMARY KEY, Region_Id int REFERENCES REGION (REGION_ID), mood MOOD,
  mail EMAIL, price numeric(6,2), Total numeric(8,2) GENERATED ALWAYS AS (PRICE * 2) STORED);
CREATE TABLE vip (LIKE CUSTOMER);
CREATE TABLE Base (Id int PRIMARY KEY, Note text);
CREATE TABLE Child (extra int) INHERITS (BASE);
CREATE TABLE Events (Id int, Day date NOT NULL, PRIMARY KEY (ID, DAY)) PARTITION BY RANGE (DAY);
CREATE TABLE Events_2024 PARTITION OF EVENTS FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE events_2025 (id int, day date NOT NULL);
ALTER TABLE EVENTS ATTACH PARTITION EVENTS_2025 FOR VALUES FROM ('2025-01-01') TO ('2026-01-01');
ALTER TABLE SALES.REGION ADD CONSTRAINT u UNIQUE (NAME);
ALTER TABLE CUSTOMER ADD CONSTRAINT c CHECK (PRICE >= 0);
ALTER TABLE ONLY sales.CUSTOMER ALTER COLUMN Mood SET NOT NULL;
COMMENT ON COLUMN sales.region.NAME IS 'what it is called';
COMMENT ON TABLE Customer IS 'buyers';
CREATE UNIQUE INDEX ix ON CUSTOMER USING btree (MAIL);
ALTER TABLE VIP ADD FOREIGN KEY (region_id) REFERENCES sales.REGION;
CREATE INDEX ON child (EXTRA);
DROP TABLE IF EXISTS CHILD;
"""


def test_unquoted_names_fold_wherever_a_name_is_resolved():
    """Schemas, search path, types, domains, REFERENCES, LIKE, INHERITS, PARTITION OF, ATTACH, ALTER,
    COMMENT ON, CREATE INDEX and DROP each find what an unquoted name of another case defines."""
    schema = parse_ddl(FOLDING, "postgres", source="f.sql")
    assert schema.table_names == ["Sales.Region", "Sales.Customer", "Sales.vip", "Sales.Base", "Sales.Events"]
    region, customer, vip = (schema.table(n) for n in ("sales.region", "SALES.CUSTOMER", "Sales.VIP"))
    assert region.unique == [("Name",)] and region.column("name").description == "what it is called"
    assert customer.description == "buyers" and customer.unique == [("mail",)]
    assert customer.column("MOOD").allowed_values == ["happy", "sad"] and not customer.column("mood").nullable
    assert [c.sql for c in customer.checks] == ["\"mail\" LIKE '%@%'", "PRICE >= 0"]
    assert [(f.columns, f.ref_table, f.ref_columns) for f in customer.foreign_keys + vip.foreign_keys] == [
        (("Region_Id",), "Sales.Region", ("Region_ID",))] * 2
    assert vip.column_names == customer.column_names
    assert [p.lower() for p in schema.table("sales.events").partitions] == ["sales.events_2024",
                                                                             "sales.events_2025"]
    assert [str(n) for n in schema.notes if "partition" not in n.message.lower()] == []
