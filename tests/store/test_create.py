"""Creating the database: constraints DuckDB enforces, foreign keys it does not, atomic writes."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.errors import StoreError, TerminalError
from stateforge.graph import plan_fill
from stateforge.schema.model import Check, Column, Schema, Table
from stateforge.store import (
    connect,
    create_database,
    create_tables,
    quote_ident,
    rewrite_table,
    table_ddl,
)
from tests.store.shop import shop


def insert(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    con.execute(sql)


def seed_parents(con: duckdb.DuckDBPyConnection) -> None:
    insert(con, "INSERT INTO customers (email, name) VALUES ('a@x', 'A'), ('b@x', 'B')")
    insert(con, "INSERT INTO warehouses VALUES ('eu', 1, 'Paris')")
    insert(con, "INSERT INTO \"Products\" VALUES ('p1', 9.5)")


@pytest.mark.parametrize(
    "sql",
    [
        "INSERT INTO customers (id, email, name) VALUES (1, 'c@x', 'C')",  # primary key
        "INSERT INTO customers (email, name) VALUES ('a@x', 'again')",  # UNIQUE
        "INSERT INTO customers (email, name) VALUES ('c@x', NULL)",  # NOT NULL
        "INSERT INTO customers (email, name, tier) VALUES ('c@x', 'C', 'gold')",  # allowed values
        "INSERT INTO \"Products\" VALUES ('p2', -1)",  # named CHECK
        "INSERT INTO warehouses VALUES ('eu', 1, 'Lyon')",  # composite primary key
    ],
)
def test_declared_constraints_are_enforced_by_duckdb(db_path: Path, sql: str):
    with connect(db_path) as con:
        seed_parents(con)
        with pytest.raises(duckdb.ConstraintException):
            insert(con, sql)


def test_foreign_keys_are_not_declared(db_path: Path):
    with connect(db_path) as con:
        insert(con, "INSERT INTO orders (customer_id, status) VALUES (999, 'new')")
        assert con.sql(
            "SELECT count(*) FROM duckdb_constraints() WHERE constraint_type = 'FOREIGN KEY'"
        ).fetchall() == [(0,)]


def test_identity_columns_and_defaults(db_path: Path):
    with connect(db_path) as con:
        seed_parents(con)
        assert con.sql("SELECT id, tier FROM customers ORDER BY id").fetchall() == [(1, "free"), (2, "free")]
        names = {r[0] for r in con.sql("SELECT sequence_name FROM duckdb_sequences()").fetchall()}
        assert names == {"customers_id_seq", "orders_id_seq"}


def test_allowed_values_already_checked_are_not_checked_twice(model):
    schema, _ = model
    orders = table_ddl(schema.table("orders"))
    assert orders.count("'new', 'paid'") == 1  # the DDL's own CHECK only
    assert "\"tier\" IN ('free', 'pro')" in table_ddl(schema.table("customers"))


def test_without_constraints_only_columns_and_defaults_remain(model):
    schema, plan = model
    con = duckdb.connect()
    create_tables(con, schema, plan, constraints=False)
    insert(
        con,
        "INSERT INTO customers (id, email, name, tier) VALUES (1, 'a', NULL, 'gold'), (1, 'a', 'x', NULL)",
    )
    assert con.sql("SELECT count(*) FROM customers").fetchall() == [(2,)]
    insert(con, "INSERT INTO customers (email) VALUES ('z')")
    assert con.sql("SELECT id, tier FROM customers WHERE email = 'z'").fetchall() == [(1, "free")]


def test_identifiers_keep_their_spelling_and_may_be_keywords(tmp_path: Path):
    odd = Table(
        "order",
        [
            Column("select", "INTEGER", nullable=False),
            Column('say "hi"', "VARCHAR"),
            Column("Group", "INTEGER"),
        ],
        primary_key=("select",),
        unique=[("Group",)],
    )
    schema = Schema([odd])
    path = create_database(schema, plan_fill(schema), tmp_path / "odd.duckdb")
    with connect(path) as con:
        insert(con, 'INSERT INTO "order" VALUES (1, \'x"y\', 2)')
        assert con.sql('SELECT "say ""hi""", "Group" FROM main."order"').fetchall() == [('x"y', 2)]
        assert con.sql("SELECT column_name FROM duckdb_columns() WHERE table_name = 'order'").fetchall() == [
            ("select",),
            ('say "hi"',),
            ("Group",),
        ]
    assert quote_ident('a"b') == '"a""b"'


def test_existing_file_is_refused_without_overwrite(db_path: Path, model):
    schema, plan = model
    before = db_path.read_bytes()
    with pytest.raises(StoreError, match="already exists.*overwrite=True") as err:
        create_database(schema, plan, db_path)
    assert str(db_path) in str(err.value) and isinstance(err.value, TerminalError)
    assert db_path.read_bytes() == before


def test_overwrite_replaces_the_file(db_path: Path, model):
    schema, plan = model
    with connect(db_path) as con:
        seed_parents(con)
    create_database(schema, plan, db_path, overwrite=True)
    with connect(db_path) as con:
        assert con.sql("SELECT count(*) FROM customers").fetchall() == [(0,)]
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["shop.duckdb"]


def test_a_failed_build_leaves_the_good_file_and_no_temp(db_path: Path, model):
    schema, plan = model
    with connect(db_path) as con:
        seed_parents(con)
    broken, _ = shop()
    broken.table("orders").checks.append(Check("no_such_column > 0", ("no_such_column",)))
    with pytest.raises(StoreError, match="table orders") as err:
        create_database(broken, plan_fill(broken), db_path, overwrite=True)
    assert "no_such_column" in str(err.value)
    assert sorted(p.name for p in db_path.parent.iterdir()) == ["shop.duckdb"]
    with connect(db_path) as con:
        assert con.sql("SELECT count(*) FROM customers").fetchall() == [(2,)]


def test_a_failed_build_writes_nothing_at_a_new_path(tmp_path: Path):
    schema = Schema([Table("t", [Column("x", "NOT_A_TYPE")])])
    with pytest.raises(StoreError, match="table t"):
        create_database(schema, plan_fill(schema), tmp_path / "new.duckdb")
    assert list(tmp_path.iterdir()) == []


def test_a_directory_is_not_a_database_path(tmp_path: Path, model):
    schema, plan = model
    with pytest.raises(StoreError, match="is a directory"):
        create_database(schema, plan, tmp_path, overwrite=True)


def test_a_rewritten_table_keeps_its_rows_order_constraints_defaults_and_comments(db_path: Path, model):
    schema, _ = model
    customers = schema.table("customers")
    with connect(db_path) as con:
        seed_parents(con)
        insert(con, "INSERT INTO customers (email, name) VALUES ('c@x', 'C')")
        con.begin()
        rewrite_table(con, customers, "SELECT id, email, name, tier, 1 FROM main.customers ORDER BY id DESC")
        con.commit()
        assert con.sql("SELECT id, name, referred_by FROM customers").fetchall() == [
            (3, "C", 1), (2, "B", 1), (1, "A", 1)]
        insert(con, "INSERT INTO customers (email, name) VALUES ('d@x', 'D')")  # the identity sequence
        assert con.sql("SELECT id, tier FROM customers WHERE email = 'd@x'").fetchall() == [(4, "free")]
        with pytest.raises(duckdb.ConstraintException):
            insert(con, "INSERT INTO customers (email, name) VALUES ('a@x', 'again')")
        comments = con.sql("SELECT comment FROM duckdb_tables() WHERE table_name = 'customers'").fetchall()
        assert comments == [("People who buy.",)]
        column = "SELECT comment FROM duckdb_columns() WHERE table_name = 'customers' AND column_name = ?"
        assert con.execute(column, ["email"]).fetchall() == [("Login, unique.",)]
        assert not con.sql("SELECT * FROM duckdb_tables() WHERE table_name = '__sf_rewrite'").fetchall()
