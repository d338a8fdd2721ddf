"""Foreign keys whose two ends have different types: the build, the audit, the orphan cleanup, the write
tools and the report compare them the same way (`stateforge.store.sql.key_cast`: the referencing column is
read as the key's type, as SQLite reads a foreign key), and a value that is no key is an orphan, never a
failed query."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.episode import Episode
from stateforge.report.fanout import fanout
from stateforge.schema import parse_ddl
from stateforge.store.sql import fk_match_sql, key_cast, orphans_sql
from stateforge.validation.audit import audit
from stateforge.validation.rules import clean_orphans

DDL = """
CREATE TABLE ints (id INTEGER PRIMARY KEY, label VARCHAR(20));
CREATE TABLE texts (code VARCHAR(12) PRIMARY KEY, label VARCHAR(20));
CREATE TABLE refs (
  id INTEGER PRIMARY KEY,
  int_as_text VARCHAR(12) NOT NULL REFERENCES ints(id) ON DELETE CASCADE,
  maybe_text VARCHAR REFERENCES ints(id) ON DELETE SET NULL,
  text_as_int INTEGER NOT NULL REFERENCES texts(code),
  big BIGINT REFERENCES ints(id) ON DELETE SET NULL,
  dec DECIMAL(12,2) REFERENCES ints(id) ON DELETE SET NULL
);
"""
"""VARCHAR -> INTEGER (twice), INTEGER -> VARCHAR (widened by the parser), BIGINT -> INTEGER and
DECIMAL -> INTEGER."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mixed")
    (out / "mixed.sql").write_text(DDL)
    report = build_domain(str(out / "mixed.sql"), rows=40, seed=3, out=out / "db")
    assert report["totals"]["violations"] == 0
    return out / "db" / "mixed.duckdb"


@pytest.fixture
def spoiled(built: Path, tmp_path: Path) -> Path:
    """A copy whose text keys hold a number's other spellings and no number at all."""
    path = tmp_path / "spoiled.duckdb"
    shutil.copy(built, path)
    with duckdb.connect(str(path)) as con:
        first = con.execute("SELECT min(id) FROM ints").fetchone()[0]
        con.execute("UPDATE refs SET int_as_text = 'x' WHERE id = 1")
        con.execute("UPDATE refs SET int_as_text = '1.5' WHERE id = 2")
        con.execute("UPDATE refs SET maybe_text = 'seven' WHERE id = 4")
        con.execute(f"UPDATE refs SET int_as_text = '00{first}', maybe_text = ' {first}' WHERE id = 3")
    return path


@pytest.mark.parametrize(("child", "key", "cast"), [
    ("VARCHAR(12)", "INTEGER", "DECIMAL(38,10)"), ("TEXT", "DECIMAL(10,2)", "DECIMAL(38,10)"),
    ("VARCHAR", "DOUBLE", "DOUBLE"), ("INTEGER", "VARCHAR(12)", "VARCHAR(12)"), ("VARCHAR", "DATE", "DATE"),
    ("BIGINT", "INTEGER", None), ("DECIMAL(12,2)", "INTEGER", None), ("TIMESTAMP", "DATE", None),
    ("VARCHAR(4)", "TEXT", None),
])
def test_key_cast(child: str, key: str, cast: str | None):
    assert key_cast(child, key) == cast


def test_the_build_is_clean_and_every_key_refers_to_a_parent(built: Path):
    schema = parse_ddl(DDL)
    refs = schema.table("refs")
    assert refs.column("text_as_int").type == "VARCHAR(12)"  # widened to the key's type
    with duckdb.connect(str(built), read_only=True) as con:
        report = audit(con)
        assert report.clean, report.summary()
        for fk in refs.foreign_keys:
            on = fk_match_sql("c", refs, fk, "p", schema.table(fk.ref_table))
            column = fk.columns[0]
            [(set_, matched)] = con.execute(
                f'SELECT count("{column}"), count(p.*) FROM refs AS c LEFT JOIN {fk.ref_table} AS p ON {on}'
            ).fetchall()
            assert set_ > 0 and matched == set_, (column, set_, matched)


def test_text_that_is_no_key_is_an_orphan_for_the_audit_and_the_cleanup(spoiled: Path):
    with duckdb.connect(str(spoiled)) as con:
        report = audit(con)
        found = {v.columns[0]: v.count for v in report.violations if v.check == "foreign_key"}
        assert found == {"int_as_text": 2, "maybe_text": 1}  # 'x', '1.5'; 'seven': '00n', ' n' are key n
        schema = parse_ddl(DDL)
        assert clean_orphans(con, schema) == {"delete refs(int_as_text)": 2, "set_null refs(maybe_text)": 1}
        assert audit(con).clean
        refs = schema.table("refs")
        fk = refs.foreign_keys[0]
        sql = orphans_sql("refs", fk.columns, "ints", fk.ref_columns, "count(*)")  # compared as they are
        with pytest.raises(duckdb.ConversionException):
            con.execute("UPDATE refs SET int_as_text = 'y' WHERE id = 5")
            con.execute(sql).fetchall()  # what the audit did before: the whole query failed


def test_the_report_counts_children_by_the_key_they_name(spoiled: Path):
    schema = parse_ddl(DDL)
    refs, ints = schema.table("refs"), schema.table("ints")
    with duckdb.connect(str(spoiled), read_only=True) as con:
        fan = fanout(con, refs, refs.foreign_keys[0], orphans=2, parent=ints)
        [(rows,)] = con.execute("SELECT count(*) FROM refs").fetchall()
    assert fan.children == rows and fan.parents == 40


def test_write_tools_refuse_text_that_names_no_key_and_follow_the_others(spoiled: Path, tmp_path: Path):
    with Episode.open(spoiled, workdir=tmp_path) as ep:
        [(first,)] = [tuple(r.values()) for r in ep.query("SELECT min(id) AS id FROM ints")]
        [(code,)] = [tuple(r.values()) for r in ep.query("SELECT min(code) AS c FROM texts")]
        row = {"int_as_text": "x", "text_as_int": code}
        refused = ep.call("create_ref", row)
        assert not refused.ok
        assert "table refs: int_as_text = 'x' refers to no row of ints(id); use an existing" in refused.error
        made = ep.call("create_ref", {**row, "int_as_text": f"0{first}", "maybe_text": str(first)})
        assert made.ok, made.error
        naming = "SELECT count(*) AS n FROM refs WHERE TRY_CAST({} AS INTEGER) = " + str(first)
        children = ep.query(naming.format("int_as_text"))
        deleted = ep.call("delete_int", {"id": first})  # ON DELETE CASCADE reaches '0n' and '00n' too
        assert deleted.ok, deleted.error
        left, nulls = ep.query(naming.format("int_as_text")), ep.query(naming.format("maybe_text"))
    assert children[0]["n"] >= 2 and left[0]["n"] == 0 and nulls[0]["n"] == 0
