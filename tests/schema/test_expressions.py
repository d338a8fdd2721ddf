"""Source-dialect defaults and CHECKs: translated to DuckDB, tried against DuckDB at parse time, every
unusable one reported at once and kept aside; time-relative CHECKs judged against the build's window."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from stateforge.domain import load_domain
from stateforge.errors import SchemaError
from stateforge.graph import plan_fill
from stateforge.schema import Schema, parse_ddl
from stateforge.store import create_database


def parse(text: str, dialect: str) -> Schema:
    return parse_ddl(text, dialect, source="t.sql")


@pytest.mark.parametrize(
    ("dialect", "default", "type_", "expected"),
    [
        ("postgres", "uuid_generate_v1()", "uuid", "UUID()"),
        ("postgres", "gen_random_uuid()", "uuid", "UUID()"),
        ("tsql", "(newid())", "uniqueidentifier", "UUID()"),
        ("mysql", "(uuid())", "char(36)", "UUID()"),
        ("tsql", "(getutcdate())", "datetime2", "CURRENT_TIMESTAMP"),
        ("oracle", "SYSTIMESTAMP", "TIMESTAMP", "CURRENT_TIMESTAMP"),
        ("postgres", "clock_timestamp()", "timestamptz", "CURRENT_TIMESTAMP"),
        ("sqlite", "(date('now'))", "TEXT", "CURRENT_DATE"),
    ],
)
def test_vendor_defaults_are_translated(dialect: str, default: str, type_: str, expected: str) -> None:
    schema = parse(f"CREATE TABLE t (c {type_} DEFAULT {default})", dialect)
    assert schema.table("t").column("c").default == expected
    assert schema.notes == []


@pytest.mark.parametrize(
    ("dialect", "check", "expected"),
    [
        ("oracle", "x IS JSON", "JSON_VALID(x)"),
        ("mysql", "json_valid(x)", "JSON_VALID(x)"),
        ("tsql", "isjson([x]) = 1", 'JSON_VALID("x") = 1'),
        ("oracle", "NVL(LENGTH(x), 0) < 100", "COALESCE(LENGTH(x), 0) < 100"),
        ("tsql", "LEN([x]) > 0", 'LENGTH("x") > 0'),
    ],
)
def test_vendor_checks_are_translated(dialect: str, check: str, expected: str) -> None:
    schema = parse(f"CREATE TABLE t (x varchar(200), CONSTRAINT ck CHECK ({check}))", dialect)
    assert [c.sql for c in schema.table("t").checks] == [expected]
    assert schema.notes == []


def test_every_unusable_expression_is_reported_at_once_and_kept_aside() -> None:
    schema = parse(
        "CREATE TABLE a (\n  id int PRIMARY KEY,\n  v int DEFAULT nobody_knows(),\n"
        "  CONSTRAINT a_v CHECK (is_prime(v))\n);\n"
        "CREATE TABLE b (\n  id int PRIMARY KEY,\n  s text CHECK (s IN (SELECT code FROM a))\n);\n",
        "postgres",
    )
    notes = [str(n) for n in schema.notes]
    assert [n.split(":", 2)[1] for n in notes] == ["3", "4", "8"], notes
    a, b = schema.table("a"), schema.table("b")
    assert (a.column("v").default, a.checks, b.checks) == (None, [], [])
    assert [(u.kind, u.column, u.name, u.sql) for u in a.unenforced] == [
        ("default", "v", None, "NOBODY_KNOWS()"),
        ("check", None, "a_v", "IS_PRIME(v)"),
    ]
    assert "subqueries prohibited" in b.unenforced[0].reason
    with duckdb.connect() as con:  # what is left is DDL DuckDB runs
        for table in schema.tables:
            con.execute(f"CREATE TABLE {table.name} (id int, v int, s text)")


def test_the_database_is_created_without_the_unusable_expressions(tmp_path: Path) -> None:
    schema = parse(
        "CREATE TABLE t (id int PRIMARY KEY, v uuid DEFAULT uuid_generate_v3(), CHECK (my_check(id)))",
        "postgres",
    )
    db = create_database(schema, plan_fill(schema), tmp_path / "t.duckdb")
    with duckdb.connect(str(db), read_only=True) as con:
        con.execute("SELECT * FROM t").fetchall()
        model = con.sql("SELECT schema_json::VARCHAR FROM stateforge.model").fetchall()[0][0]
    assert "uuid_generate_v3" in model.lower(), "the model keeps what the database leaves out"


def test_a_time_relative_check_is_pinned_to_the_clock_and_keeps_its_relative_form() -> None:
    schema = parse(
        "CREATE TABLE t (d timestamp, e date, CHECK (d <= NOW() + INTERVAL '1 day'), "
        "CHECK (e <= CURRENT_DATE))",
        "postgres",
    )
    first, second = schema.table("t").checks
    assert first.relative == "d <= CURRENT_TIMESTAMP + INTERVAL '1' DAY"
    assert first.sql == "d <= CAST('2026-06-30 23:59:59' AS TIMESTAMP) + INTERVAL '1' DAY"
    assert second.sql == "e <= CAST('2026-06-30' AS DATE)"
    schema.pin_clock(datetime(2024, 12, 31, 23, 59, 59))
    assert first.sql == "d <= CAST('2024-12-31 23:59:59' AS TIMESTAMP) + INTERVAL '1' DAY"
    assert Schema.from_dict(schema.to_dict()).table("t").checks[0].sql == first.sql


def test_a_pack_pins_time_relative_checks_to_the_end_of_its_time_window(tmp_path: Path) -> None:
    pack = tmp_path / "shop"
    pack.mkdir()
    (pack / "schema.sql").write_text("CREATE TABLE t (id int PRIMARY KEY, d date CHECK (d <= current_date));")
    (pack / "domain.yaml").write_text("name: shop\ntime_window:\n  start: 2020-01-01\n  end: 2021-03-31\n")
    schema = load_domain(str(pack)).schema
    assert schema.table("t").checks[0].sql == "d <= CAST('2021-03-31' AS DATE)"
    assert schema.clock == datetime(2021, 3, 31, 23, 59, 59)


@pytest.mark.parametrize(
    ("ddl", "reason"),
    [
        ("a int NOT NULL,\n  CONSTRAINT a_range CHECK (a > 5 AND a < 3)", "a: no value is both > 5 and < 3"),
        ("a int NOT NULL,\n  CONSTRAINT a_range CHECK (a IN (1, 2) AND a >= 4)", "none of the values"),
        ("a varchar(2) NOT NULL,\n  CONSTRAINT a_range CHECK (a IN ('abc', 'defg'))", "longer than"),
        ("a int NOT NULL,\n  CONSTRAINT a_range CHECK (1 = 0)", "always false"),
    ],
)
def test_a_check_no_row_can_pass_names_itself(ddl: str, reason: str) -> None:
    with pytest.raises(SchemaError) as caught:
        parse(f"CREATE TABLE t (\n  {ddl}\n);", "postgres")
    assert (caught.value.line, caught.value.table) == (3, "t")
    assert "CHECK a_range (" in str(caught.value) and reason in str(caught.value)
    assert "no row of t can be stored" in str(caught.value)


def test_a_check_only_null_can_pass_is_a_note() -> None:
    schema = parse("CREATE TABLE t (a int, CONSTRAINT a_range CHECK (a BETWEEN 10 AND 1))", "postgres")
    (note,) = map(str, schema.notes)
    assert "CHECK a_range (a BETWEEN 10 AND 1) can hold only where a is NULL" in note
