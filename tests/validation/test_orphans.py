"""Counting orphans many keys at a time (`stateforge.validation.orphans`): the range check is taken only
where it is
exact, and every form counts what each key's own anti-join (`run_check`) counts."""

from __future__ import annotations

from collections.abc import Iterator

import duckdb
import pytest

from stateforge.graph import plan_fill
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from stateforge.store import create_tables
from stateforge.validation.audit import audit, offence_counts, run_check
from stateforge.validation.checks import build_checks
from stateforge.validation.orphans import dense_ranges, orphan_queries


def kid(name: str, column_type: str, parent: str = "parents", ref: str = "id") -> Table:
    """A child table `name(id, parent_id <column_type>)` with a foreign key to `parent(ref)`."""
    return Table(
        name=name,
        columns=[Column("id", "INTEGER", nullable=False), Column("parent_id", column_type)],
        primary_key=("id",),
        foreign_keys=[ForeignKey(("parent_id",), parent, (ref,))],
    )


SCHEMA = Schema(
    [
        Table(name="parents", columns=[Column("id", "INTEGER", nullable=False)]),
        kid("ints", "INTEGER"),
        kid("bigs", "BIGINT"),
        kid("reals", "DOUBLE"),
        Table(name="codes", columns=[Column("code", "VARCHAR", nullable=False)]),
        kid("by_code", "VARCHAR", "codes", "code"),
    ]
)


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """The schema's tables without constraints (so a parent key may repeat), children already seeded."""
    con = duckdb.connect()
    create_tables(con, SCHEMA, plan_fill(SCHEMA), constraints=False)
    con.execute("INSERT INTO ints VALUES (1, 0), (2, 1), (3, 5), (4, 7), (5, NULL), (6, 10), (7, 11), (8, 7)")
    con.execute("INSERT INTO bigs VALUES (1, 10), (2, 1099511627776), (3, NULL), (4, 7)")
    con.execute("INSERT INTO reals VALUES (1, 1.5), (2, 2.0), (3, NULL), (4, 7.0)")
    con.execute("INSERT INTO codes VALUES ('a'), ('b')")
    con.execute("INSERT INTO by_code VALUES (1, 'a'), (2, 'z'), (3, NULL)")
    yield con
    con.close()


def counted(con: duckdb.DuckDBPyConnection) -> tuple[dict[str, int], dict[str, str]]:
    """({child table: orphans} as `offence_counts` finds them, {child table: the SQL that counted them}),
    after checking them against each key's own anti-join."""
    queries = [q for q in build_checks(SCHEMA) if q.kind == "foreign_key"]
    counts = dict(zip([q.table for q in queries], offence_counts(con, queries), strict=True))
    assert counts == {q.table: run_check(con, q).count for q in queries}
    sql = {queries[i].table: s for _, members, s in orphan_queries(con, queries, range(len(queries)))
           for i in members}
    return counts, sql


def test_a_dense_integer_key_is_range_checked(con):
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11)")  # 1..10
    counts, sql = counted(con)
    assert counts == {"ints": 2, "bigs": 1, "reals": 1, "by_code": 1}  # 0 and 11; 2^40; 1.5; 'z'
    assert "NOT BETWEEN 1 AND 10" in sql["ints"] and "NOT BETWEEN 1 AND 10" in sql["bigs"]
    assert "ANTI JOIN" in sql["reals"]  # a DOUBLE child: 1.5 lies in the range yet has no parent
    assert "ANTI JOIN" in sql["by_code"]


def test_a_key_with_a_gap_is_not(con):
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11) WHERE range <> 7")
    counts, sql = counted(con)
    assert counts["ints"] == 4 and counts["bigs"] == 2 and counts["reals"] == 2  # the 7s are orphans now
    assert "ANTI JOIN" in sql["ints"] and "BETWEEN" not in sql["ints"]


def test_repeated_values_do_not_make_a_key_look_dense(con):
    # 10 values from 1 to 10, but 7 is missing and 1 is there twice: count(*) would call it dense
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11) WHERE range <> 7")
    con.execute("INSERT INTO parents VALUES (1)")
    assert dense_ranges(con, [("parents", "id")]) == {}
    assert counted(con)[0]["ints"] == 4


def test_an_empty_parent_makes_every_set_key_an_orphan(con):
    counts, _ = counted(con)
    assert counts == {"ints": 7, "bigs": 3, "reals": 3, "by_code": 1}


def test_null_parent_keys_neither_match_nor_spoil_the_range(con):
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11)")
    con.execute("INSERT INTO parents VALUES (NULL)")
    assert dense_ranges(con, [("parents", "id")]) == {("parents", "id"): (1, 10)}
    assert counted(con)[0]["ints"] == 2


def test_the_audit_reports_the_same_orphans_either_way(con):
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11)")
    report = audit(con, SCHEMA)
    found = {v.table: (v.count, v.samples) for v in report.violations if v.check == "foreign_key"}
    assert found["ints"] == (2, [{"id": 1, "parent_id": 0}, {"id": 7, "parent_id": 11}])
    assert found["bigs"][0] == 1 and found["reals"][0] == 1 and found["by_code"][0] == 1
