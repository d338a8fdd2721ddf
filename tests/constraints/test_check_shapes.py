"""What CHECKs over expressions say about one column (issue 8, item 9): each shape, on a one-table DDL."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from stateforge.constraints.checks import derive_checks
from stateforge.schema import parse_ddl


def facts(check: str, column: str = "c", type_: str = "VARCHAR(40)"):
    ddl = f"CREATE TABLE t (id INTEGER PRIMARY KEY, {column} {type_}, CHECK ({check}));"
    schema = parse_ddl(ddl, "duckdb")
    derived = derive_checks(schema.table("t"))
    return derived.get(column), derived


@pytest.mark.parametrize(("check", "field", "expected"), [
    ("UPPER(c) IN ('A', 'b', 'C')", "values", ["A", "C"]),
    ("LOWER(c) = 'x'", "values", ["x"]),
    ("TRIM(c) IN (' a', 'b')", "values", ["b"]),
    ("UPPER(c) = c", "case", "upper"),
    ("c = LOWER(c)", "case", "lower"),
    ("TRIM(c) = c", "trimmed", True),
    ("LENGTH(TRIM(c)) >= 3", "min_len", 3),
    ("CHAR_LENGTH(c) BETWEEN 2 AND 8", "max_len", 8),
    ("LEN(c) < 5", "max_len", 4),
    ("c LIKE 'AB-%'", "like", ["AB-%"]),
    ("c ILIKE '%@%'", "like", ["%@%"]),
    ("c LIKE 'A_B'", "pattern", "A?B"),
    ("regexp_matches(c, '^[A-Z]{3}-[0-9]{4}$')", "pattern", "???-####"),
    ("c ~ '^SKU\\d{2}$'", "pattern", "SKU##"),
    ("c SIMILAR TO 'X-%'", "like", ["X-%"]),
])
def test_text_shapes(check, field, expected):
    found, derived = facts(check)
    assert getattr(found, field) == expected
    assert derived.unhandled == [] and derived.impossible == []


@pytest.mark.parametrize(("check", "type_", "lo", "hi"), [
    ("ABS(c) <= 10", "INTEGER", -10, 10),
    ("c BETWEEN 5 AND 9", "INTEGER", 5, 9),
    ("EXTRACT(YEAR FROM c) >= 2020", "DATE", date(2020, 1, 1), None),
    ("YEAR(c) < 2000", "DATE", None, date(1999, 12, 31)),
    ("date_part('year', c) BETWEEN 1990 AND 1999", "TIMESTAMP", date(1990, 1, 1), date(1999, 12, 31)),
    ("c <= CAST('2026-06-30 23:59:59' AS TIMESTAMP) + INTERVAL 1 DAY", "TIMESTAMP", None,
     datetime(2026, 7, 1, 23, 59, 59)),
])
def test_bounds_through_functions_and_constant_expressions(check, type_, lo, hi):
    found, derived = facts(check, type_=type_)
    assert (found.lo, found.hi) == (lo, hi)
    assert derived.unhandled == []


def test_round_limits_the_decimals():
    found, _ = facts("ROUND(c, 1) = c", type_="DECIMAL(8,3)")
    assert found.decimals == 1


def test_a_function_no_listed_value_survives_is_impossible_and_other_shapes_stay_unhandled():
    _, derived = facts("UPPER(c) IN ('a', 'b')")
    why = "no value v has UPPER(v) among ('a', 'b')"
    assert [(col, reason) for _, col, reason in derived.impossible] == [("c", why)]
    _, derived = facts("md5(c) = 'x'")
    assert derived.impossible == [] and len(derived.unhandled) == 1
    _, derived = facts("c NOT LIKE 'a%'")
    assert len(derived.unhandled) == 1
