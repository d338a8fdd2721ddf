"""diff_files / diff_catalogs on real DuckDB files: keys, multisets, NULLs, types, order, errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from stateforge.diff import Diff, DiffError, diff_catalogs, diff_files
from tests.diff.conftest import make_pair

SHOP = """
CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR NOT NULL, email VARCHAR, vip BOOLEAN);
CREATE TABLE lines (order_id INTEGER, line_no SMALLINT, sku VARCHAR NOT NULL, qty INTEGER,
                    PRIMARY KEY (order_id, line_no));
CREATE TABLE tags (label VARCHAR, weight INTEGER);
"""
SHOP_ROWS = """
INSERT INTO customers VALUES (1, 'Ann', 'ann@x.io', true), (2, 'Bob', NULL, NULL),
                             (10, 'Cy', 'cy@x.io', false), (3, 'Di', NULL, false);
INSERT INTO lines VALUES (1, 1, 'A', 2), (1, 2, 'B', 1), (2, 1, 'A', 5), (10, 1, 'C', NULL);
INSERT INTO tags VALUES ('red', 1), ('red', 1), ('blue', NULL), (NULL, NULL);
"""
SHOP_CHANGES = """
UPDATE customers SET email = 'bob@x.io' WHERE id = 2;            -- NULL -> value
UPDATE customers SET email = NULL, vip = true WHERE id = 1;      -- value -> NULL; vip rewritten as is
UPDATE customers SET name = name WHERE id = 10;                  -- rewritten, unchanged
UPDATE customers SET email = NULL WHERE id = 3;                  -- NULL -> NULL: unchanged
DELETE FROM customers WHERE id = 3;
INSERT INTO customers VALUES (20, 'Eve', NULL, NULL), (4, 'Fay', 'fay@x.io', true);
UPDATE lines SET qty = 3 WHERE order_id = 1 AND line_no = 2;
DELETE FROM lines WHERE order_id = 10;
INSERT INTO lines VALUES (2, 2, 'D', 1);
DELETE FROM tags WHERE label = 'red';
INSERT INTO tags VALUES ('red', 1), ('green', 2), ('green', 2), (NULL, NULL);
"""


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Diff:
    base, after = make_pair(tmp_path_factory.mktemp("shop"), SHOP, SHOP_ROWS, SHOP_CHANGES)
    return diff_files(base, after)


def test_primary_key_rows_are_inserted_deleted_and_updated_column_by_column(shop: Diff):
    customers = shop.tables["customers"]
    assert customers.inserted == [
        {"id": 4, "name": "Fay", "email": "fay@x.io", "vip": True},
        {"id": 20, "name": "Eve", "email": None, "vip": None},
    ]  # 4 before 20: the key's own order, not text order
    assert customers.deleted == [{"id": 3, "name": "Di", "email": None, "vip": False}]
    assert [u.to_dict() for u in customers.updated] == [
        {"key": {"id": 1}, "changes": {"email": ["ann@x.io", None]}},
        {"key": {"id": 2}, "changes": {"email": [None, "bob@x.io"]}},
    ]
    # NULL -> NULL (3, before its delete), a rewrite to the same value (10) and customer 1's vip
    # (true -> true) are not changes: NULL = NULL here, as IS NOT DISTINCT FROM has it


def test_composite_keys(shop: Diff):
    lines = shop.tables["lines"]
    assert lines.inserted == [{"order_id": 2, "line_no": 2, "sku": "D", "qty": 1}]
    assert lines.deleted == [{"order_id": 10, "line_no": 1, "sku": "C", "qty": None}]
    assert [u.to_dict() for u in lines.updated] == [
        {"key": {"order_id": 1, "line_no": 2}, "changes": {"qty": [1, 3]}}
    ]


def test_a_table_without_a_key_is_a_multiset_of_rows(shop: Diff):
    tags = shop.tables["tags"]
    # base: red x2, blue, (NULL, NULL); after: blue, (NULL, NULL) x2, red, green x2
    assert tags.deleted == [{"label": "red", "weight": 1}]
    assert tags.inserted == [
        {"label": None, "weight": None},
        {"label": "green", "weight": 2},
        {"label": "green", "weight": 2},
    ]
    assert tags.updated == []


def test_summary_and_canonical_json(shop: Diff):
    assert shop.summary == {"inserted": 6, "deleted": 3, "updated": 3}
    text = shop.to_json()
    data = json.loads(text)
    assert list(data) == ["summary", "tables"] and list(data["tables"]) == ["customers", "lines", "tags"]
    updated = data["tables"]["lines"]["updated"]
    assert updated == [{"changes": {"qty": [1, 3]}, "key": {"line_no": 2, "order_id": 1}}]
    assert Diff.from_json(text) == shop and Diff.from_json(text).to_json() == text
    assert " " not in text.replace("'", "")[:20]  # compact: no insignificant whitespace


def test_no_change_is_an_empty_diff(tmp_path: Path):
    base, after = make_pair(tmp_path, SHOP, SHOP_ROWS, "UPDATE customers SET name = name; CHECKPOINT;")
    diff = diff_files(base, after)
    assert diff.empty and diff.to_json() == '{"summary":{"deleted":0,"inserted":0,"updated":0},"tables":{}}'
    assert diff_files(base, base).empty


TYPES = """
CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE t (
    k mood PRIMARY KEY, d DECIMAL(10,2), ts TIMESTAMP, tz TIMESTAMPTZ, day DATE, clock TIME, flag BOOLEAN,
    name VARCHAR, tags VARCHAR[], nums INTEGER[], f DOUBLE, big HUGEINT, id UUID, blob BLOB,
    meta STRUCT(a INTEGER, b VARCHAR), span INTERVAL
);
"""
TYPE_ROWS = """
INSERT INTO t VALUES ('happy', 1.50, '2026-06-30 12:00:00', '2026-06-30 12:00:00+02', '2026-06-30',
                      '09:30:00', true, 'x', ['a', 'b'], [1, 2], 0.0, 1,
                      '00000000-0000-0000-0000-000000000001', '\\x01', {'a': 1, 'b': 'q'},
                      INTERVAL 90 MINUTE);
INSERT INTO t (k, d) VALUES ('sad', 2.00);
"""
TYPE_CHANGES = """
UPDATE t SET d = 1.75, ts = ts + INTERVAL 1 SECOND, tz = tz + INTERVAL 1 HOUR, day = day + 1,
             clock = '10:00:00', flag = false, name = 'y', tags = ['a'], nums = [2, 1], f = -0.0,
             big = 170141183460469231731687303715884105727,
             id = '00000000-0000-0000-0000-000000000002', blob = '\\x02', meta = {'a': 2, 'b': 'q'},
             span = INTERVAL 2 HOUR
WHERE k = 'happy';
INSERT INTO t (k, d) VALUES ('ok', 3.10);
"""


def test_every_type_the_packs_use_has_one_canonical_spelling(tmp_path: Path):
    base, after = make_pair(tmp_path, TYPES, TYPE_ROWS, TYPE_CHANGES)
    diff = diff_files(base, after)
    t = diff.tables["t"]
    assert [r["k"] for r in t.inserted] == ["ok"] and t.inserted[0]["d"] == "3.10"
    (update,) = t.updated
    assert update.key == {"k": "happy"}
    assert update.changes == {
        "d": ("1.50", "1.75"),
        "ts": ("2026-06-30T12:00:00", "2026-06-30T12:00:01"),
        "tz": ("2026-06-30T10:00:00+00:00", "2026-06-30T11:00:00+00:00"),
        "day": ("2026-06-30", "2026-07-01"),
        "clock": ("09:30:00", "10:00:00"),
        "flag": (True, False),
        "name": ("x", "y"),
        "tags": (["a", "b"], ["a"]),
        "nums": ([1, 2], [2, 1]),
        "big": (1, 170141183460469231731687303715884105727),
        "id": ("00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002"),
        "blob": ("01", "02"),
        "meta": ({"a": 1, "b": "q"}, {"a": 2, "b": "q"}),
        "span": (5400.0, 7200.0),
    }  # f: 0.0 -> -0.0 is no change, as in SQL


def test_rows_are_in_the_keys_type_order(tmp_path: Path):
    base, after = make_pair(
        tmp_path, TYPES, "", "INSERT INTO t (k) VALUES ('happy'), ('sad'), ('ok');", name="enum"
    )
    assert [r["k"] for r in diff_files(base, after).tables["t"].inserted] == ["sad", "ok", "happy"]
    base, after = make_pair(
        tmp_path,
        "CREATE TABLE n (id INTEGER PRIMARY KEY, day DATE);",
        "",
        "INSERT INTO n VALUES (10, '2026-01-02'), (9, '2026-01-01'), (100, NULL), (-1, NULL);",
        name="int",
    )
    assert [r["id"] for r in diff_files(base, after).tables["n"].inserted] == [-1, 9, 10, 100]
    words = ["b", "B", "é", "a", "Z", "ab", "a b", "10", "9"]
    base, after = make_pair(
        tmp_path,
        "CREATE TABLE w (word VARCHAR PRIMARY KEY, price DECIMAL(6,2) NOT NULL UNIQUE);",
        "",
        "INSERT INTO w VALUES " + ", ".join(f"('{w}', {i - 4}.5)" for i, w in enumerate(words)),
        name="text",
    )
    with duckdb.connect(str(after), read_only=True) as con:
        in_sql = [r[0] for r in con.execute("SELECT word FROM w ORDER BY word").fetchall()]
    assert [r["word"] for r in diff_files(base, after).tables["w"].inserted] == in_sql


def test_json_is_byte_identical_in_another_process_and_time_zone(tmp_path: Path, shop: Diff):
    script = (
        "import sys; from stateforge.diff import diff_files; "
        "sys.stdout.write(diff_files(sys.argv[1], sys.argv[2]).to_json())"
    )
    for ddl, rows, changes in ((SHOP, SHOP_ROWS, SHOP_CHANGES), (TYPES, TYPE_ROWS, TYPE_CHANGES)):
        base, after = make_pair(tmp_path, ddl, rows, changes, name=f"{len(ddl)}")
        here = diff_files(base, after).to_json()
        for zone in ("Asia/Tokyo", "America/Lima"):
            done = subprocess.run(
                [sys.executable, "-c", script, str(base), str(after)],
                capture_output=True, text=True, check=True, env={**os.environ, "TZ": zone},
            )
            assert done.stdout == here
    assert here != shop.to_json() and '"2026-06-30T10:00:00+00:00"' in here


def test_a_unique_not_null_key_stands_in_for_a_missing_primary_key(tmp_path: Path):
    ddl = """
    CREATE TABLE people (email VARCHAR NOT NULL UNIQUE, nick VARCHAR UNIQUE, age INTEGER);
    CREATE TABLE codes (code VARCHAR NOT NULL, age INTEGER);
    CREATE UNIQUE INDEX ux_codes ON codes (code);
    """
    rows = "INSERT INTO people VALUES ('a@x', 'a', 1), ('b@x', NULL, 2); INSERT INTO codes VALUES ('A', 1);"
    changes = "UPDATE people SET age = 3 WHERE email = 'a@x'; UPDATE codes SET age = 2;"
    diff = diff_files(*make_pair(tmp_path, ddl, rows, changes))
    people, codes = diff.tables["people"].updated, diff.tables["codes"].updated
    assert [u.to_dict() for u in people] == [{"key": {"email": "a@x"}, "changes": {"age": [1, 3]}}]
    assert [u.to_dict() for u in codes] == [{"key": {"code": "A"}, "changes": {"age": [1, 2]}}]


def test_catalogs_of_one_connection_with_other_schemas_and_a_table_filter(tmp_path: Path):
    base, after = make_pair(
        tmp_path,
        SHOP + "CREATE SCHEMA audit; CREATE TABLE audit.events (id INTEGER PRIMARY KEY, what VARCHAR);"
        "CREATE VIEW vips AS SELECT * FROM customers WHERE vip;",  # a view is not data
        SHOP_ROWS + "INSERT INTO audit.events VALUES (1, 'boot');",
        "UPDATE audit.events SET what = 'reboot'; INSERT INTO customers VALUES (99, 'Zed', NULL, NULL);",
    )
    with duckdb.connect() as con:
        con.execute(f"ATTACH '{base}' AS before (READ_ONLY); ATTACH '{after}' AS now (READ_ONLY)")
        con.execute("SET TimeZone = 'America/Lima'")
        everything = diff_catalogs(con, "before", "now")
        assert sorted(everything.tables) == ["audit.events", "customers"]
        assert diff_catalogs(con, "before", "now", schema="audit").tables.keys() == {"audit.events"}
        only = diff_catalogs(con, "before", "now", tables=["CUSTOMERS"])
        assert only.tables.keys() == {"customers"}
        # the connection is as it was: its zone, and no result left open
        assert con.sql("SELECT current_setting('TimeZone')").fetchall() == [("America/Lima",)]
        con.execute("BEGIN TRANSACTION")  # inside the caller's transaction, the diff reads its snapshot
        assert diff_catalogs(con, "before", "now") == everything
        con.execute("COMMIT")
        with pytest.raises(DiffError, match='no table "custmers".*Did you mean "customers"'):
            diff_catalogs(con, "before", "now", tables=["custmers"])
        with pytest.raises(DiffError, match="no catalog later"):
            diff_catalogs(con, "before", "later")


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("ALTER TABLE customers ADD COLUMN phone VARCHAR", r"customers: columns only in .*after.*: phone"),
        ("ALTER TABLE customers DROP COLUMN vip", r"customers: columns only in .*base.*: vip"),
        ("ALTER TABLE lines ALTER qty TYPE BIGINT", r"qty is INTEGER in .*base.* but BIGINT in .*after"),
        ("DROP TABLE tags", r"table tags exists only in .*base"),
        ("CREATE TABLE extra (i INTEGER)", r"table extra exists only in .*after"),
    ],
)
def test_tables_or_columns_that_differ_are_an_error_naming_them(tmp_path: Path, change: str, expected: str):
    base, after = make_pair(tmp_path, SHOP, SHOP_ROWS, change)
    with pytest.raises(DiffError, match=expected):
        diff_files(base, after)


def test_bad_files_are_errors_naming_the_file(tmp_path: Path):
    base, _ = make_pair(tmp_path, SHOP)
    with pytest.raises(DiffError, match="missing.duckdb: no such file"):
        diff_files(base, tmp_path / "missing.duckdb")
    text = tmp_path / "notes.duckdb"
    text.write_text("not a database, just some words\n")
    with pytest.raises(DiffError, match="notes.duckdb: not a DuckDB database"):
        diff_files(text, base)
    with pytest.raises(DiffError, match="not a file"):
        diff_files(tmp_path, base)


def test_from_json_refuses_malformed_documents():
    with pytest.raises(DiffError, match="not JSON"):
        Diff.from_json("{")
    with pytest.raises(DiffError, match='"tables"'):
        Diff.from_json("[]")
    with pytest.raises(DiffError, match="summary"):
        Diff.from_json('{"tables": {"t": {"inserted": [{"a": 1}]}}, "summary": {"inserted": 2}}')
    with pytest.raises(DiffError, match="t.updated.0.changes"):
        Diff.from_json('{"tables": {"t": {"updated": [{"key": {"a": 1}, "changes": {"b": [1]}}]}}}')
    with pytest.raises(DiffError, match="extra|Extra"):
        Diff.from_json('{"tables": {"t": {"inserted": [], "moved": []}}}')
    assert Diff.from_json('{"tables": {"t": {"inserted": []}}}').empty
