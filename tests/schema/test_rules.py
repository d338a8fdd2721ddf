"""Issue 19 item 5: T-SQL `CREATE RULE ... AS @x IN (...)` bound by `sp_bindrule` to an alias type or a
column is read as CHECKs on the bound columns (an IN list gives their allowed values)."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from stateforge.build import build_domain
from stateforge.schema import parse_ddl

PUBS = """\
CREATE TYPE kind_t FROM varchar(12) NOT NULL
GO
EXECUTE sp_addtype tid, 'varchar(6)', 'NOT NULL'
GO
CREATE TABLE early (id int PRIMARY KEY, kind kind_t NULL)
GO
CREATE RULE dbo.kind_rule AS @kind IN ('business', 'mod_cook', 'popular_comp')
GO
EXEC sp_bindrule 'kind_rule', 'kind_t'
GO
CREATE TABLE titles (
   title_id tid CONSTRAINT UPKCL_titleidind PRIMARY KEY CLUSTERED,
   type kind_t,
   pub_id char(4) NULL,
   genre varchar(12) NULL
)
GO
CREATE RULE pub_idrule AS @pub_id IN ('1389', '0736', '0877') OR @pub_id LIKE '99[0-9][0-9]'
GO
EXEC sp_bindrule pub_idrule, 'titles.pub_id'
EXEC sp_bindrule @rulename = 'kind_rule', @objname = '[dbo].[titles].[genre]'
EXEC sp_bindrule 'no_such_rule', 'titles.genre'
GO
"""
KINDS = ["business", "mod_cook", "popular_comp"]


def test_a_rule_bound_to_an_alias_type_holds_for_its_columns_before_and_after_the_binding():
    schema = parse_ddl(PUBS, "tsql", source="pubs.sql")
    early, titles = schema.table("early"), schema.table("titles")
    assert early.column("kind").allowed_values == KINDS
    assert titles.column("type").allowed_values == KINDS and not titles.column("type").nullable
    assert titles.column("title_id").type == "VARCHAR(6)" and not titles.column("title_id").nullable
    assert [c.sql for c in early.checks] == ["\"kind\" IN ('business', 'mod_cook', 'popular_comp')"]


def test_a_rule_bound_to_a_column_is_its_check_and_an_unknown_rule_is_a_note():
    schema = parse_ddl(PUBS, "tsql", source="pubs.sql")
    titles = schema.table("titles")
    assert titles.column("genre").allowed_values == KINDS
    assert "\"pub_id\" IN ('1389', '0736', '0877') OR REGEXP_FULL_MATCH(\"pub_id\", '99[0-9][0-9]')" in [
        c.sql for c in titles.checks]
    notes = [str(n) for n in schema.notes]
    assert notes == ["pubs.sql:22: sp_bindrule names the rule no_such_rule, which no CREATE RULE above "
                     "defines: skipped"]


def test_postgres_rewrite_rules_are_skipped():
    schema = parse_ddl("CREATE TABLE t (id int PRIMARY KEY);\n"
                       "CREATE RULE r AS ON INSERT TO t DO INSTEAD NOTHING;\n", "postgres")
    assert schema.skipped["rule"] == 1 and not schema.table("t").checks


def test_the_generator_keeps_the_rules(tmp_path: Path):
    ddl = tmp_path / "pubs.sql"
    ddl.write_text(PUBS)
    report = build_domain(str(ddl), rows=30, out=tmp_path / "out")
    assert report["totals"]["violations"] == 0
    with duckdb.connect(str(tmp_path / "out" / "pubs.duckdb"), read_only=True) as con:
        rows = con.sql("SELECT type, pub_id, genre FROM titles").fetchall()
    assert rows and all(kind in KINDS for kind, _, _ in rows)
    assert all(pub is None or pub in ("1389", "0736", "0877") or re.fullmatch(r"99\d\d", pub)
               for _, pub, _ in rows)
    assert {genre for _, _, genre in rows} <= {*KINDS, None}
