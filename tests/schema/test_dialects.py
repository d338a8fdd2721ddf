"""Dialect names, aliases, and the guess from a file's own markers."""

from __future__ import annotations

import pytest

from stateforge.schema import parse_ddl
from stateforge.schema.dialects import detect_dialect, resolve_dialect


@pytest.mark.parametrize(
    ("name", "canonical"),
    [
        ("duckdb", "duckdb"),
        ("Postgres", "postgres"),
        ("postgresql", "postgres"),
        ("pg", "postgres"),
        ("mysql", "mysql"),
        ("mariadb", "mysql"),
        ("sqlite3", "sqlite"),
        ("ORACLE", "oracle"),
    ],
)
def test_names_and_aliases(name: str, canonical: str) -> None:
    assert resolve_dialect(name) == canonical
    assert parse_ddl("CREATE TABLE t (a int);", name).dialect == canonical


@pytest.mark.parametrize(
    ("text", "dialect"),
    [
        ("--\n-- PostgreSQL database dump\n--\nCREATE TABLE t (a int);", "postgres"),
        ("CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql;", "postgres"),
        ("CREATE TABLE t (a text DEFAULT 'x'::text);", "postgres"),
        ("CREATE TABLE `t` (`a` int);", "mysql"),
        ("CREATE TABLE t (a int) ENGINE=InnoDB;", "mysql"),
        (
            "DELIMITER $$\nCREATE PROCEDURE p() BEGIN SELECT 1; END$$\nDELIMITER ;\nCREATE TABLE t (a int);",
            "mysql",
        ),
        ("CREATE TABLE t (a int AUTO_INCREMENT PRIMARY KEY);", "mysql"),
        ("rem schema\nCREATE TABLE t (a int);", "oracle"),
        ("Prompt tables\nCREATE TABLE t (a int);", "oracle"),
        ("CREATE TABLE t (a VARCHAR2(10));", "oracle"),
        ("CREATE TABLE t (a NUMBER(5));", "oracle"),
        ("CREATE TABLE t (a INTEGER PRIMARY KEY AUTOINCREMENT);", "sqlite"),
        ("CREATE TABLE [t] ([a] int);", "sqlite"),
        ("CREATE TABLE t (a UBIGINT, b INTEGER[]);", "duckdb"),
        ("CREATE TABLE t (a int, b text);", "duckdb"),
    ],
)
def test_detect_dialect_from_markers(text: str, dialect: str) -> None:
    assert detect_dialect(text) == dialect
