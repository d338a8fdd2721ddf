"""The statement splitter: quotes, comments, bodies, client commands, and each statement's first line."""

from __future__ import annotations

import pytest

from stateforge.errors import SchemaError
from stateforge.schema.split import Statement, split_statements


def split(text: str, dialect: str) -> list[Statement]:
    return list(split_statements(text, dialect, source="t.sql"))


def texts(text: str, dialect: str) -> list[str]:
    return [s.text for s in split(text, dialect)]


def test_lines_are_those_of_each_statement_first_character() -> None:
    text = (
        "-- header\n\nCREATE TABLE a (x int);\n/* note\n   more */ CREATE TABLE b (\n  y int\n); SELECT 1;\n"
    )
    assert [(s.text.split()[0], s.line) for s in split(text, "postgres")] == [
        ("CREATE", 3),
        ("CREATE", 5),
        ("SELECT", 7),
    ]


def test_comments_are_dropped_but_line_breaks_kept() -> None:
    (stmt,) = split("CREATE TABLE a ( -- the key\n  x int /* inline */\n)", "duckdb")
    assert stmt.text == "CREATE TABLE a ( \n  x int  \n)"


@pytest.mark.parametrize(
    ("dialect", "text", "expected"),
    [
        ("postgres", "INSERT INTO t VALUES ('a;b', 'it''s; ok');SELECT 2;", 2),
        ("postgres", 'CREATE TABLE "odd;name" (x int); SELECT 1;', 2),
        ("mysql", "INSERT INTO t VALUES ('It\\'s; me', \"q;\");SELECT 2;", 2),
        ("mysql", "CREATE TABLE `a;b` (x int); # a comment; with a semicolon\nSELECT 1;", 2),
        ("sqlite", "CREATE TABLE [it's;odd] (x int); SELECT 1;", 2),
        ("postgres", "SELECT E'a\\'; b'; SELECT 1;", 2),
        ("oracle", "INSERT INTO t VALUES ('-- not a comment; really'); SELECT 1 FROM dual;", 2),
    ],
)
def test_semicolons_inside_quotes_and_comments_do_not_split(dialect: str, text: str, expected: int) -> None:
    assert len(split(text, dialect)) == expected


def test_dollar_quoted_bodies_with_tags() -> None:
    text = (
        "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;\n"
        "CREATE FUNCTION g() RETURNS int AS $body$ SELECT '$$;'; $x$ ; $x$ $body$ LANGUAGE sql;\n"
        "SELECT $1;\n"
    )
    assert [s.line for s in split(text, "postgres")] == [1, 2, 3]


def test_copy_data_runs_to_backslash_dot() -> None:
    text = "COPY t (a, b) FROM stdin;\n1\tx; y\n2\t'unclosed\n\\.\nCREATE TABLE t (a int);\n"
    assert [(s.text[:6], s.line) for s in split(text, "postgres")] == [("COPY t", 1), ("CREATE", 5)]


def test_psql_meta_commands_take_their_line() -> None:
    stmts = split("\\connect music\n\\restrict abc\nCREATE TABLE t (a int);\n", "postgres")
    assert [(s.kind, s.line) for s in stmts] == [("meta", 1), ("meta", 2), (None, 3)]


def test_mysql_executable_comments_are_unwrapped() -> None:
    text = (
        "/*!40101 SET NAMES utf8 */;\nCREATE TABLE t (a int) /*!50100 ENGINE=InnoDB */;\n/* plain; comment */"
    )
    assert texts(text, "mysql") == ["SET NAMES utf8", "CREATE TABLE t (a int)   ENGINE=InnoDB"]


def test_mysql_delimiter_blocks() -> None:
    text = (
        "DELIMITER ;;\n"
        "CREATE TRIGGER t1 BEFORE INSERT ON t FOR EACH ROW BEGIN\n"
        "  SET NEW.a = 1;\n  SET NEW.b = 2;\nEND ;;\n"
        "DELIMITER ;\n"
        "DELIMITER $$\nCREATE PROCEDURE p() BEGIN SELECT 1; END$$\nDELIMITER ;\n"
        "SELECT 1;\n"
    )
    stmts = split(text, "mysql")
    assert [s.line for s in stmts] == [2, 8, 10]
    assert stmts[0].text.endswith("END")


def test_sqlplus_lines_and_slash_terminated_blocks() -> None:
    text = (
        "rem Don't panic; it's fine\n"
        "Prompt Creating 'things'...\n"
        "SET ECHO OFF\n"
        "spool out.log\n"
        "CREATE OR REPLACE TRIGGER trg BEFORE INSERT ON t FOR EACH ROW\nBEGIN\n  :NEW.a := 1;\nEND;\n/\n"
        "CREATE TABLE t (a NUMBER)\n/\n"
        "@@other.sql\n"
        "CREATE TABLE u (a NUMBER);\n/\n"
    )
    kinds = [(s.kind, s.line) for s in split(text, "oracle")]
    assert kinds == [
        ("sqlplus", 1),
        ("sqlplus", 2),
        ("set", 3),
        ("sqlplus", 4),
        (None, 5),
        (None, 10),
        ("include", 12),
        (None, 13),
    ]


def test_sqlite_trigger_body_keeps_its_semicolons() -> None:
    text = (
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n"
        "  SELECT CASE WHEN 1 THEN RAISE(ABORT, 'no; way') END;\n"
        "  UPDATE b SET c = 1;\n"
        "END;\n"
        "BEGIN TRANSACTION;\n"
    )
    assert [s.line for s in split(text, "sqlite")] == [1, 5]


def test_a_last_statement_without_terminator_is_kept() -> None:
    assert (
        texts("CREATE TABLE a (x int);\nCREATE TABLE b (y int)\n", "duckdb")[-1] == "CREATE TABLE b (y int)"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("CREATE TABLE a (x int);\nINSERT INTO a VALUES ('oops);\n", 2),
        ("SELECT 1;\n/* never\nclosed", 2),
        ("CREATE FUNCTION f() AS $$ BEGIN\n", 1),
    ],
)
def test_an_unclosed_quote_is_an_error_at_its_line(text: str, line: int) -> None:
    with pytest.raises(SchemaError) as err:
        split(text, "postgres")
    assert err.value.line == line and err.value.file == "t.sql"
    assert "never closed" in str(err.value)
