"""Bad DDL: a SchemaError that names the file, line, table and column, and says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.errors import SchemaError
from stateforge.schema import load_ddl, parse_ddl

PARENT = "CREATE TABLE parent (\n  id int PRIMARY KEY,\n  code int\n);\n"  # lines 1-4

# (name, DDL after PARENT, dialect, line, table, column, words the message must hold)
CASES = [
    (
        "fk to a missing table",
        "CREATE TABLE child (p int REFERENCES parnet (id));",
        "postgres",
        5,
        "child",
        "p",
        ['table "parnet"', 'Did you mean "parent"?'],
    ),
    (
        "fk to a missing column",
        "CREATE TABLE child (p int);\nALTER TABLE child ADD FOREIGN KEY (p) REFERENCES parent (idd);",
        "postgres",
        6,
        "child",
        "p",
        ["parent.idd", 'Did you mean "id"?'],
    ),
    (
        "fk column count",
        "CREATE TABLE child (\n  a int,\n  b int,\n  FOREIGN KEY (a, b) REFERENCES parent (id)\n);",
        "postgres",
        8,
        "child",
        "a",
        ["2 column(s) but references 1"],
    ),
    (
        "references without columns, no primary key",
        "CREATE TABLE np (x int);\nCREATE TABLE child (p int REFERENCES np);",
        "postgres",
        6,
        "child",
        "p",
        ["np has no primary key"],
    ),
    (
        "duplicate table",
        "\n\nCREATE TABLE Parent (id int);",
        "postgres",
        7,
        "Parent",
        None,
        ["defined twice (first at line 1)"],
    ),
    (
        "primary key on a missing column",
        "CREATE TABLE child (\n  a int,\n  PRIMARY KEY (b)\n);",
        "postgres",
        7,
        "child",
        "b",
        ['column "b"', "PRIMARY KEY"],
    ),
    (
        "unique on a missing column",
        "CREATE TABLE child (aa int, UNIQUE (a));",
        "mysql",
        5,
        "child",
        "a",
        ['Did you mean "aa"?'],
    ),
    (
        "fk on a missing column",
        "CREATE TABLE child (a int, FOREIGN KEY (z) REFERENCES parent (id));",
        "sqlite",
        5,
        "child",
        "z",
        ["FOREIGN KEY"],
    ),
    (
        "unique index on a missing column",
        "CREATE UNIQUE INDEX ux ON parent (cod);",
        "postgres",
        5,
        "parent",
        "cod",
        ['Did you mean "code"?', "CREATE UNIQUE INDEX"],
    ),
    (
        "index on a missing column",
        "\nCREATE INDEX ix ON parent (nope);",
        "postgres",
        6,
        "parent",
        "nope",
        ["CREATE INDEX"],
    ),
    (
        "index on a missing table",
        "CREATE INDEX ix ON parents (id);",
        "postgres",
        5,
        "parents",
        None,
        ['Did you mean "parent"?'],
    ),
    (
        "comment on a missing column",
        "COMMENT ON COLUMN parent.nam IS 'x';",
        "postgres",
        5,
        "parent",
        "nam",
        ["COMMENT ON COLUMN"],
    ),
    (
        "comment on a missing table",
        "COMMENT ON TABLE parnt IS 'x';",
        "oracle",
        5,
        "parnt",
        None,
        ['Did you mean "parent"?'],
    ),
    (
        "alter table on a missing table",
        "ALTER TABLE ONLY public.prent ADD CONSTRAINT u UNIQUE (code);",
        "postgres",
        5,
        "prent",
        None,
        ["ALTER TABLE", 'Did you mean "parent"?'],
    ),
    (
        "check on a missing column",
        "CREATE TABLE child (a int CHECK (b > 0));",
        "duckdb",
        5,
        "child",
        "b",
        ["CHECK"],
    ),
    (
        "second primary key",
        "ALTER TABLE parent ADD PRIMARY KEY (code);",
        "mysql",
        5,
        "parent",
        None,
        ["second primary key"],
    ),
    (
        "duplicate column",
        "CREATE TABLE child (\n  a int,\n  A text\n);",
        "postgres",
        7,
        "child",
        "A",
        ["defined twice"],
    ),
    (
        "unparsable create table",
        "CREATE TABLE child (\n  a int,\n  = b int\n);",
        "postgres",
        7,
        "child",
        None,
        ["cannot parse CREATE TABLE", "(sqlglot)"],
    ),
]


@pytest.mark.parametrize(
    ("name", "ddl", "dialect", "line", "table", "column", "words"), CASES, ids=[c[0] for c in CASES]
)
def test_bad_ddl_is_explained(name, ddl, dialect, line, table, column, words) -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl(PARENT + ddl, dialect, source="shop.sql")
    err = caught.value
    text = str(err)
    assert (err.file, err.line, err.table, err.column) == ("shop.sql", line, table, column), text
    assert text.startswith(f"shop.sql:{line}: table {table}")
    assert err.hint, "every error says what to do next"
    for word in words:
        assert word in text


def test_an_unparsable_table_reports_sqlglot_line_inside_the_statement() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl(
            "-- x\nCREATE TABLE t (\n  a int,\n  b int,\n  c int CHECK (,\n);", "postgres", source="x.sql"
        )
    assert caught.value.line == 5 and caught.value.table == "t", "the line of the bad token, not of CREATE"


def test_no_table_at_all() -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl("CREATE VIEW v AS SELECT 1;\nSET x = 1;", "postgres", source="views.sql")
    assert "no CREATE TABLE found in views.sql; is the dialect right?" in str(caught.value)
    assert caught.value.hint


@pytest.mark.parametrize(
    ("dialect", "suggestion"),
    [("postgress", "postgres"), ("mysqll", "mysql"), ("sqlit", "sqlite"), ("postgresq", "postgres")],
)
def test_unknown_dialect_lists_the_valid_ones(dialect: str, suggestion: str) -> None:
    with pytest.raises(SchemaError) as caught:
        parse_ddl("CREATE TABLE t (a int);", dialect)
    text = str(caught.value)
    assert "duckdb, postgres, mysql, sqlite, oracle" in text and f'Did you mean "{suggestion}"?' in text


def test_load_ddl_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as caught:
        load_ddl(tmp_path / "nope.sql")
    assert caught.value.file == str(tmp_path / "nope.sql") and caught.value.hint


def test_load_ddl_names_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "bin.sql"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SchemaError) as caught:
        load_ddl(path)
    assert caught.value.file == str(path) and "cannot read" in str(caught.value)


def test_load_ddl_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "ok.sql"
    path.write_text("CREATE TABLE `t` (`a` int) ENGINE=InnoDB;\n")
    schema = load_ddl(path)
    assert (schema.dialect, schema.source, schema.table_names) == ("mysql", str(path), ["t"])
