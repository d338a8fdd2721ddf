"""reset_sequences: identity columns continue after the largest id, whatever inserted the rows."""

from __future__ import annotations

from pathlib import Path

from stateforge.store import connect, reset_sequences


def test_sequences_restart_after_the_current_maximum(db_path: Path, model):
    schema, _ = model
    with connect(db_path) as con:
        con.execute("INSERT INTO customers (id, email, name) VALUES (7, 'a', 'A'), (41, 'b', 'B')")
        assert reset_sequences(con, schema) == {"customers_id_seq": 42, "orders_id_seq": 1}
        con.execute("INSERT INTO customers (email, name) VALUES ('c', 'C')")
        con.execute("INSERT INTO orders (customer_id, status) VALUES (42, 'new')")
        assert con.sql("SELECT max(id) FROM customers").fetchall() == [(42,)]
        assert con.sql("SELECT id FROM orders").fetchall() == [(1,)]


def test_reset_is_repeatable_and_survives_reopening(db_path: Path, model):
    schema, _ = model
    with connect(db_path) as con:
        con.execute("INSERT INTO customers (id, email, name) VALUES (5, 'a', 'A')")
        reset_sequences(con, schema)
        con.execute("DELETE FROM customers")
        con.execute("INSERT INTO customers (id, email, name) VALUES (2, 'b', 'B')")
        assert reset_sequences(con, schema)["customers_id_seq"] == 3
    with connect(db_path) as con:
        con.execute("INSERT INTO customers (email, name) VALUES ('c', 'C')")
        assert con.sql("SELECT id FROM customers ORDER BY id").fetchall() == [(2,), (3,)]


def test_reset_recreates_a_missing_sequence(db_path: Path, model):
    schema, _ = model
    with connect(db_path) as con:
        con.execute("ALTER TABLE customers ALTER COLUMN id DROP DEFAULT")
        con.execute('DROP SEQUENCE "customers_id_seq"')
        con.execute("INSERT INTO customers (id, email, name) VALUES (3, 'a', 'A')")
        reset_sequences(con, schema)
        con.execute("INSERT INTO customers (email, name) VALUES ('b', 'B')")
        assert con.sql("SELECT max(id) FROM customers").fetchall() == [(4,)]
