"""Everything in a dump that is not a table is skipped, robustly, and counted by kind."""

from __future__ import annotations

import pytest

from stateforge.schema import parse_ddl

TABLE = "CREATE TABLE t (id int PRIMARY KEY);\n"

CASES = [
    (
        "postgres",
        "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1; END; $$ LANGUAGE plpgsql;",
        "function",
    ),
    (
        "postgres",
        "CREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1; END;",
        "function",
    ),
    ("postgres", "CREATE PROCEDURE p() AS $p$ BEGIN COMMIT; END $p$ LANGUAGE plpgsql;", "procedure"),
    ("postgres", "CREATE TRIGGER tr AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f();", "trigger"),
    ("postgres", "CREATE VIEW v AS SELECT id FROM t;", "view"),
    ("postgres", "CREATE MATERIALIZED VIEW mv AS SELECT id FROM t WITH NO DATA;", "materialized_view"),
    ("postgres", "CREATE SEQUENCE s START WITH 1;", "sequence"),
    ("postgres", "ALTER SEQUENCE s OWNED BY t.id;", "sequence"),
    ("postgres", "CREATE TYPE pair AS (a int, b int);", "type"),
    ("postgres", "GRANT SELECT ON t TO reader;", "grant"),
    ("postgres", "REVOKE ALL ON t FROM PUBLIC;", "revoke"),
    ("postgres", "SET search_path = public;", "set"),
    ("postgres", "SELECT pg_catalog.set_config('search_path', '', false);", "select"),
    ("postgres", "ALTER TABLE t OWNER TO music;", "owner"),
    ("postgres", "ALTER FUNCTION f() OWNER TO music;", "owner"),
    ("postgres", "\\connect music", "meta"),
    ("postgres", "CREATE DATABASE music;", "database"),
    ("postgres", "CREATE SCHEMA app;", "schema"),
    ("postgres", "CREATE EXTENSION IF NOT EXISTS pgcrypto;", "extension"),
    ("postgres", "INSERT INTO t SELECT 1;", "insert"),  # INSERT ... VALUES seeds the table (test_seeds.py)
    ("postgres", "COPY t (id) FROM stdin;\n1\n2\n\\.", "copy"),
    ("postgres", "CREATE INDEX t_idx ON t (id);", "index"),
    ("postgres", "COMMENT ON SCHEMA public IS 'x';", "comment"),
    ("postgres", "ALTER TABLE t ENABLE ROW LEVEL SECURITY;", "alter_table"),
    ("mysql", "USE `music`;", "use"),
    ("mysql", "LOCK TABLES `t` WRITE;", "lock"),
    ("mysql", "UNLOCK TABLES;", "unlock"),
    ("mysql", "/*!40101 SET NAMES utf8mb4 */;", "set"),
    ("mysql", "DROP TABLE IF EXISTS `gone`;", "drop"),
    ("mysql", "REPLACE INTO t VALUES (1);", "insert"),
    (
        "mysql",
        "DELIMITER ;;\nCREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW BEGIN SET NEW.id = 1; END;;\n"
        "DELIMITER ;",
        "trigger",
    ),
    (
        "mysql",
        "DELIMITER $$\nCREATE DEFINER=`root`@`%` PROCEDURE p() BEGIN SELECT 1; SELECT 2; END$$\nDELIMITER ;",
        "procedure",
    ),
    (
        "mysql",
        "/*!50001 CREATE ALGORITHM=UNDEFINED */ /*!50013 DEFINER=`root`@`localhost` SQL SECURITY DEFINER */ "
        "/*!50001 VIEW `v` AS select 1 AS `x` */;",
        "view",
    ),
    ("sqlite", "PRAGMA foreign_keys=OFF;", "pragma"),
    ("sqlite", "BEGIN TRANSACTION;", "transaction"),
    (
        "sqlite",
        "CREATE TRIGGER tr AFTER DELETE ON t BEGIN DELETE FROM t WHERE id = OLD.id; SELECT 1; END;",
        "trigger",
    ),
    ("oracle", "rem a remark; with it's quote", "sqlplus"),
    ("oracle", "REM another", "sqlplus"),
    ("oracle", "Prompt Creating tables ...", "sqlplus"),
    ("oracle", "SET ECHO OFF", "set"),
    ("oracle", "spool build.log", "sqlplus"),
    ("oracle", "CREATE OR REPLACE PACKAGE api AS\n  PROCEDURE go;\nEND api;\n/", "package"),
    (
        "oracle",
        "CREATE OR REPLACE PACKAGE BODY api AS\n  PROCEDURE go IS BEGIN NULL; END;\nEND api;\n/",
        "package",
    ),
    (
        "oracle",
        "CREATE OR REPLACE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW\nBEGIN\n  NULL;\nEND;\n/",
        "trigger",
    ),
    ("oracle", "CREATE OR REPLACE PROCEDURE p IS\nBEGIN\n  NULL;\nEND;\n/", "procedure"),
    ("oracle", "BEGIN\n  DBMS_OUTPUT.PUT_LINE('x; y');\nEND;\n/", "block"),
    ("oracle", "CREATE SYNONYM emp FOR hr.t;", "synonym"),
]


@pytest.mark.parametrize(("dialect", "statement", "kind"), CASES)
def test_skipped_statements_are_counted_by_kind(dialect: str, statement: str, kind: str) -> None:
    # The statement sits between two tables: the second one proves the splitter found its end.
    schema = parse_ddl(f"{TABLE}{statement}\nCREATE TABLE u (id int);\n", dialect)
    assert schema.table_names == ["t", "u"]
    assert dict(schema.skipped) == {kind: 1}


def test_comments_that_become_descriptions_are_not_skipped() -> None:
    schema = parse_ddl(f"{TABLE}COMMENT ON TABLE t IS 'x';\nCOMMENT ON COLUMN t.id IS 'y';", "postgres")
    assert not schema.skipped
