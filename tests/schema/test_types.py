"""Every row of the type mapping: source type in a dialect -> DuckDB type and the numbers split out."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.schema import Column, parse_ddl

# (dialect, source type, DuckDB type, length, precision, scale, identity)
ROWS = [
    ("postgres", "INT", "INTEGER", None, None, None, False),
    ("postgres", "integer", "INTEGER", None, None, None, False),
    ("postgres", "int4", "INTEGER", None, None, None, False),
    ("postgres", "BIGINT", "BIGINT", None, None, None, False),
    ("postgres", "int8", "BIGINT", None, None, None, False),
    ("postgres", "SMALLINT", "SMALLINT", None, None, None, False),
    ("postgres", "int2", "SMALLINT", None, None, None, False),
    ("mysql", "TINYINT", "TINYINT", None, None, None, False),
    ("mysql", "tinyint(4)", "TINYINT", None, None, None, False),
    ("mysql", "TINYINT(1)", "BOOLEAN", None, None, None, False),
    ("mysql", "MEDIUMINT", "INTEGER", None, None, None, False),
    ("mysql", "tinyint unsigned", "UTINYINT", None, None, None, False),
    ("mysql", "smallint(5) unsigned", "USMALLINT", None, None, None, False),
    ("mysql", "mediumint unsigned", "UINTEGER", None, None, None, False),
    ("mysql", "int(10) unsigned", "UINTEGER", None, None, None, False),
    ("mysql", "bigint(20) unsigned", "UBIGINT", None, None, None, False),
    ("mysql", "YEAR", "SMALLINT", None, None, None, False),
    ("postgres", "serial", "INTEGER", None, None, None, True),
    ("postgres", "bigserial", "BIGINT", None, None, None, True),
    ("postgres", "smallserial", "SMALLINT", None, None, None, True),
    ("mysql", "serial", "UBIGINT", None, None, None, True),
    ("postgres", "varchar(20)", "VARCHAR(20)", 20, None, None, False),
    ("postgres", "character varying(20)", "VARCHAR(20)", 20, None, None, False),
    ("postgres", "varchar", "VARCHAR", None, None, None, False),
    ("sqlite", "NVARCHAR(10)", "VARCHAR(10)", 10, None, None, False),
    ("oracle", "NVARCHAR2(10)", "VARCHAR(10)", 10, None, None, False),
    ("oracle", "VARCHAR2(30)", "VARCHAR(30)", 30, None, None, False),
    ("oracle", "VARCHAR2(30 BYTE)", "VARCHAR(30)", 30, None, None, False),
    ("oracle", "VARCHAR2(30 CHAR)", "VARCHAR(30)", 30, None, None, False),
    ("duckdb", "VARCHAR(30)", "VARCHAR(30)", 30, None, None, False),
    ("postgres", "char(2)", "VARCHAR(2)", 2, None, None, False),
    ("postgres", "character", "VARCHAR(1)", 1, None, None, False),
    ("oracle", "NCHAR(3)", "VARCHAR(3)", 3, None, None, False),
    ("postgres", "text", "VARCHAR", None, None, None, False),
    ("oracle", "CLOB", "VARCHAR", None, None, None, False),
    ("oracle", "NCLOB", "VARCHAR", None, None, None, False),
    ("oracle", "LONG", "VARCHAR", None, None, None, False),
    ("mysql", "LONGTEXT", "VARCHAR", None, None, None, False),
    ("mysql", "MEDIUMTEXT", "VARCHAR", None, None, None, False),
    ("mysql", "TINYTEXT", "VARCHAR", None, None, None, False),
    ("oracle", "NUMBER(10,2)", "DECIMAL(10,2)", None, 10, 2, False),
    ("oracle", "NUMBER(5)", "INTEGER", None, 5, 0, False),
    ("oracle", "NUMBER(9,0)", "INTEGER", None, 9, 0, False),
    ("oracle", "NUMBER(18)", "BIGINT", None, 18, 0, False),
    ("oracle", "NUMBER(20)", "DECIMAL(20,0)", None, 20, 0, False),
    ("oracle", "NUMBER(*,0)", "DECIMAL(38,0)", None, 38, 0, False),
    ("oracle", "NUMBER", "DECIMAL(38,10)", None, 38, 10, False),
    ("postgres", "numeric", "DECIMAL(38,10)", None, 38, 10, False),
    ("postgres", "numeric(12,4)", "DECIMAL(12,4)", None, 12, 4, False),
    ("postgres", "numeric(50,2)", "DECIMAL(38,2)", None, 38, 2, False),
    ("postgres", "numeric(5)", "DECIMAL(5,0)", None, 5, 0, False),
    ("mysql", "DECIMAL", "DECIMAL(10,0)", None, 10, 0, False),
    ("mysql", "decimal(10,2) unsigned", "DECIMAL(10,2)", None, 10, 2, False),
    ("duckdb", "DECIMAL", "DECIMAL(18,3)", None, 18, 3, False),
    ("postgres", "money", "DECIMAL(19,2)", None, 19, 2, False),
    ("mysql", "FLOAT", "FLOAT", None, None, None, False),
    ("postgres", "real", "FLOAT", None, None, None, False),
    ("postgres", "float", "DOUBLE", None, None, None, False),
    ("postgres", "float(53)", "DOUBLE", None, None, None, False),
    ("postgres", "double precision", "DOUBLE", None, None, None, False),
    ("mysql", "DOUBLE", "DOUBLE", None, None, None, False),
    ("oracle", "FLOAT", "DOUBLE", None, None, None, False),
    ("oracle", "BINARY_DOUBLE", "DOUBLE", None, None, None, False),
    ("oracle", "BINARY_FLOAT", "FLOAT", None, None, None, False),
    ("sqlite", "REAL", "DOUBLE", None, None, None, False),
    ("postgres", "boolean", "BOOLEAN", None, None, None, False),
    ("postgres", "bool", "BOOLEAN", None, None, None, False),
    ("mysql", "BIT(1)", "BOOLEAN", None, None, None, False),
    ("postgres", "bit", "BOOLEAN", None, None, None, False),
    ("postgres", "date", "DATE", None, None, None, False),
    ("mysql", "DATE", "DATE", None, None, None, False),
    ("oracle", "DATE", "TIMESTAMP", None, None, None, False),
    ("postgres", "time", "TIME", None, None, None, False),
    ("postgres", "timestamp", "TIMESTAMP", None, None, None, False),
    ("postgres", "timestamp(3) without time zone", "TIMESTAMP", None, None, None, False),
    ("mysql", "DATETIME", "TIMESTAMP", None, None, None, False),
    ("mysql", "TIMESTAMP", "TIMESTAMP", None, None, None, False),
    ("sqlite", "DATETIME", "TIMESTAMP", None, None, None, False),
    ("postgres", "timestamp with time zone", "TIMESTAMPTZ", None, None, None, False),
    ("postgres", "timestamptz", "TIMESTAMPTZ", None, None, None, False),
    ("oracle", "TIMESTAMP(6) WITH TIME ZONE", "TIMESTAMPTZ", None, None, None, False),
    ("oracle", "TIMESTAMP WITH LOCAL TIME ZONE", "TIMESTAMPTZ", None, None, None, False),
    ("postgres", "interval", "INTERVAL", None, None, None, False),
    ("oracle", "INTERVAL DAY(2) TO SECOND(6)", "INTERVAL", None, None, None, False),
    ("postgres", "bytea", "BLOB", None, None, None, False),
    ("mysql", "BLOB", "BLOB", None, None, None, False),
    ("mysql", "BINARY(16)", "BLOB", None, None, None, False),
    ("mysql", "VARBINARY(64)", "BLOB", None, None, None, False),
    ("mysql", "LONGBLOB", "BLOB", None, None, None, False),
    ("oracle", "RAW(16)", "BLOB", None, None, None, False),
    ("oracle", "BLOB", "BLOB", None, None, None, False),
    ("postgres", "json", "JSON", None, None, None, False),
    ("postgres", "jsonb", "JSON", None, None, None, False),
    ("mysql", "JSON", "JSON", None, None, None, False),
    ("postgres", "uuid", "UUID", None, None, None, False),
    ("duckdb", "UUID", "UUID", None, None, None, False),
    ("postgres", "integer[]", "INTEGER[]", None, None, None, False),
    ("postgres", "text[][]", "VARCHAR[][]", None, None, None, False),
    ("duckdb", "BIGINT[]", "BIGINT[]", None, None, None, False),
    ("mysql", "ENUM('a','b')", "VARCHAR", None, None, None, False),
    ("mysql", "SET('a','b')", "VARCHAR", None, None, None, False),
    ("postgres", "citext", "VARCHAR", None, None, None, False),
    ("duckdb", "HUGEINT", "HUGEINT", None, None, None, False),
    ("duckdb", "STRUCT(a INTEGER, b VARCHAR)", "STRUCT(a INT, b TEXT)", None, None, None, False),
]


def column_of(dialect: str, type_sql: str) -> Column:
    return parse_ddl(f"CREATE TABLE t (c {type_sql})", dialect).table("t").column("c")


@pytest.mark.parametrize(("dialect", "source", "duck", "length", "precision", "scale", "identity"), ROWS)
def test_type_mapping(dialect: str, source: str, duck: str, length, precision, scale, identity: bool) -> None:
    column = column_of(dialect, source)
    assert (column.type, column.length, column.precision, column.scale) == (duck, length, precision, scale)
    assert column.identity is identity


def test_every_mapped_type_is_a_duckdb_type() -> None:
    con = duckdb.connect()
    for i, duck in enumerate(sorted({row[2] for row in ROWS})):
        con.execute(f"CREATE TABLE t{i} (c {duck})")


def test_mysql_year_gets_a_range_check() -> None:
    (check,) = parse_ddl("CREATE TABLE t (y YEAR(4))", "mysql").table("t").checks
    assert (check.sql, check.columns) == ('"y" BETWEEN 1901 AND 2155', ("y",))


@pytest.mark.parametrize(
    ("dialect", "source"),
    [
        ("postgres", "inet"),
        ("postgres", "geometry(Point,4326)"),
        ("postgres", "xml"),
        ("oracle", "XMLTYPE"),
        ("sqlite", ""),
    ],
)
def test_unknown_types_are_varchar_with_a_note(dialect: str, source: str) -> None:
    schema = parse_ddl(f"CREATE TABLE t (c {source})", dialect)
    assert schema.table("t").column("c").type == "VARCHAR"
    assert len(schema.notes) == 1 and "table t, column c" in str(schema.notes[0])
