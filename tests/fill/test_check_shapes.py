"""CHECKs over expressions are satisfied by the offline generator, and one it cannot satisfy is named
(issue 8, item 9), on a table whose primary key is also a foreign key (which used to blame the key)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.errors import BuildError, SchemaError

SHAPES_DDL = """\
CREATE TABLE parents (id integer PRIMARY KEY, name text NOT NULL);
CREATE TABLE kinds (
  id integer PRIMARY KEY REFERENCES parents(id),
  kind varchar(10) NOT NULL CHECK (UPPER(kind) IN ('A','B','C')),
  code varchar(20) NOT NULL CHECK (code LIKE 'AB-%'),
  sku varchar(12) NOT NULL UNIQUE CHECK (regexp_matches(sku, '^[A-Z]{2}-[0-9]{4}$')),
  name varchar(50) NOT NULL CHECK (LENGTH(TRIM(name)) >= 3),
  qty integer CHECK (qty BETWEEN 5 AND 9),
  lname text CHECK (LOWER(lname) = lname),
  tag char(4) CHECK (CHAR_LENGTH(tag) = 4),
  score numeric(5,1) CHECK (ABS(score) <= 10),
  day date CHECK (EXTRACT(YEAR FROM day) >= 2020),
  mail varchar(60) CHECK (mail LIKE '%_@_%')
);
"""


def test_checks_over_expressions_build_clean_and_hold(tmp_path: Path):
    ddl = tmp_path / "shapes.sql"
    ddl.write_text(SHAPES_DDL)
    report = build_domain(str(ddl), rows=30, out=tmp_path)
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(tmp_path / "shapes.duckdb"), read_only=True) as con:
        rows = con.sql("SELECT kind, code, sku, name, qty, lname, tag, score, day FROM kinds").fetchall()
        mails = [r[0] for r in con.sql("SELECT mail FROM kinds WHERE mail IS NOT NULL").fetchall()]
    assert len(rows) == 30
    for kind, code, sku, name, qty, lname, tag, score, day in rows:
        assert kind in ("A", "B", "C") and code.startswith("AB-") and len(code) <= 20
        assert re.fullmatch(r"[A-Z]{2}-[0-9]{4}", sku) and len(name.strip()) >= 3
        assert qty is None or 5 <= qty <= 9
        assert lname is None or lname == lname.lower()
        assert tag is None or len(tag) == 4
        assert score is None or abs(score) <= 10
        assert day is None or day.year >= 2020
    assert mails and all(re.fullmatch(r"[^@ ]+@[^@ ]+\.[a-z]+", m) for m in mails)  # e-mails, not text + "@"


def test_a_check_no_value_can_pass_is_named_with_its_file_and_line(tmp_path: Path):
    ddl = tmp_path / "never.sql"
    ddl.write_text("CREATE TABLE parents (id integer PRIMARY KEY);\n"
                   "CREATE TABLE kinds (id integer PRIMARY KEY REFERENCES parents(id),\n"
                   "  kind varchar(10) NOT NULL CHECK (UPPER(kind) IN ('a','b')));\n")
    with pytest.raises(SchemaError, match=r"never.sql:2: table kinds, column kind: CHECK \(UPPER\(kind\) IN "
                                          r"\('a', 'b'\)\) can never hold: no value v has UPPER\(v\) among"):
        build_domain(str(ddl), rows=10, out=tmp_path)


def test_a_check_the_generator_cannot_satisfy_is_named_not_the_key(tmp_path: Path):
    ddl = tmp_path / "hashed.sql"
    ddl.write_text("CREATE TABLE parents (id integer PRIMARY KEY);\n"
                   "CREATE TABLE kinds (id integer PRIMARY KEY REFERENCES parents(id),\n"
                   "  kind varchar(10) NOT NULL CHECK (md5(kind) = '0cc175b9c0f1b6a831c399e269772661'));\n")
    with pytest.raises(BuildError) as caught:
        build_domain(str(ddl), rows=10, out=tmp_path)
    message = str(caught.value)
    assert message.startswith(f"{ddl}:2: table kinds: the generator cannot satisfy CHECK (MD5(kind) = ")
    assert "columns.kinds.kind" in message and "duplicate key" not in message
