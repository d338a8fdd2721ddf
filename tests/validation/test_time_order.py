"""Time order inferred from a bare DDL: a broken row is found, the build's repair moves it forward, the
orderings inside the row hold, and `time_order:` in domain.yaml corrects the inference."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.domain.config import DomainConfig
from stateforge.schema import load_ddl
from stateforge.validation.rules import apply_rules, domain_checks
from stateforge.validation.time_order import infer_time_order, time_notes

DDL = """
CREATE TABLE users (id INTEGER PRIMARY KEY, birth_date DATE, created_at TIMESTAMP NOT NULL);
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id),
    started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP, CHECK (ended_at IS NULL OR ended_at > started_at));
CREATE TABLE payments (id INTEGER PRIMARY KEY,
    subscription_id INTEGER NOT NULL REFERENCES subscriptions (id),
    paid_at TIMESTAMP NOT NULL, refunded_at TIMESTAMP, CHECK (refunded_at IS NULL OR refunded_at >= paid_at));
CREATE TABLE posts (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES users (id),
    created_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL);
"""

ROWS = """
INSERT INTO users VALUES (1, DATE '1990-05-01', TIMESTAMP '2024-03-01 10:00'),
                         (2, NULL, TIMESTAMP '2023-01-05 09:00');
INSERT INTO subscriptions VALUES
    (10, 1, TIMESTAMP '2023-06-01 08:00', TIMESTAMP '2024-09-01 08:00'),   -- starts before its user
    (11, 2, TIMESTAMP '2023-02-01 08:00', NULL);                          -- fine
INSERT INTO payments VALUES
    (100, 10, TIMESTAMP '2023-07-01 12:00', TIMESTAMP '2023-07-05 12:00'), -- before the period as moved
    (101, 10, TIMESTAMP '2025-01-01 12:00', NULL),                         -- after the period ended
    (102, 11, TIMESTAMP '2023-03-01 12:00', NULL);                         -- fine
INSERT INTO posts VALUES (1000, 2, TIMESTAMP '2024-01-01', TIMESTAMP '2023-12-25'), -- edited before made
                         (1001, 1, TIMESTAMP '2022-01-01', TIMESTAMP '2022-01-02');   -- before its author
"""


@pytest.fixture
def world(tmp_path: Path):
    ddl = tmp_path / "bare.sql"
    ddl.write_text(DDL)
    schema = load_ddl(ddl, "duckdb")
    con = duckdb.connect()
    con.execute(DDL)
    con.execute(ROWS)
    return schema, con


def _violations(con, schema, config) -> dict[str, int]:
    return {r.name: con.execute(f"SELECT count(*) FROM ({r.check})").fetchall()[0][0]
            for r in domain_checks(schema, config) if r.kind == "time"}


def test_inferred_from_names_and_printed_with_the_override(world) -> None:
    schema, _ = world
    config = DomainConfig.default("bare")
    kinds = {(o.kind, o.table, o.column, o.ref_table) for o in infer_time_order(schema, config)}
    assert ("after_parent", "subscriptions", "started_at", "users") in kinds
    assert ("window", "payments", "paid_at", "subscriptions") in kinds
    assert ("pair", "posts", "updated_at", "posts") in kinds
    assert ("pair", "subscriptions", "ended_at", "subscriptions") in kinds
    notes = [str(n) for n in time_notes(schema, config)]
    assert any("payments.paid_at lies within subscriptions.started_at .. subscriptions.ended_at" in n
               and "time_order: {ignore: [payments.subscription_id]}" in n for n in notes)


def test_each_broken_row_is_caught_and_repaired(world) -> None:
    schema, con = world
    config = DomainConfig.default("bare")
    before = _violations(con, schema, config)
    assert before["time_order_subscriptions"] == 1
    assert before["time_order_payments"] >= 1
    assert before["time_pair_posts_updated_at"] == 1
    assert before["time_order_posts"] == 1
    reports = {r.name: r for r in apply_rules(con, schema, config)}
    assert reports["time_order_subscriptions"].kind == "time" and reports["time_order_subscriptions"].found
    assert all(n == 0 for n in _violations(con, schema, config).values())
    (started, ended), = con.execute("SELECT started_at, ended_at FROM subscriptions WHERE id = 10").fetchall()
    (created,), = con.execute("SELECT created_at FROM users WHERE id = 1").fetchall()
    assert created <= started < ended  # moved after its user, its own period still ordered
    for paid, refunded in con.execute("SELECT paid_at, refunded_at FROM payments WHERE subscription_id = 10"
                                      ).fetchall():
        assert started <= paid <= ended and (refunded is None or refunded >= paid)
    # the untouched rows and the columns before the event (a birth date) keep their values
    (birth,), = con.execute("SELECT birth_date FROM users WHERE id = 1").fetchall()
    assert birth.isoformat() == "1990-05-01"
    assert con.execute("SELECT paid_at FROM payments WHERE id = 102").fetchall()[0][0].isoformat() == (
        "2023-03-01T12:00:00")


def test_domain_yaml_corrects_the_inference(world) -> None:
    schema, con = world
    config = DomainConfig.model_validate({"name": "bare", "time_order": {
        "ignore": ["payments.subscription_id", "posts"], "created": {"users": None}}})
    orderings = infer_time_order(schema, config)
    assert not [o for o in orderings if o.table in ("payments", "posts")]
    assert not [o for o in orderings if o.ref_table == "users"]  # users has no event column now


KEYED = """
CREATE TABLE invoices (id INTEGER PRIMARY KEY, valid_from DATE NOT NULL, valid_to DATE NOT NULL);
CREATE TABLE payments (invoice_id INTEGER NOT NULL REFERENCES invoices (id), paid_on DATE NOT NULL,
    amount INTEGER, PRIMARY KEY (invoice_id, paid_on));
INSERT INTO invoices VALUES (1, DATE '2024-03-10', DATE '2024-03-10'),
                            (2, DATE '2024-01-01', DATE '2024-12-31');
INSERT INTO payments VALUES (1, DATE '2024-03-10', 1),   -- fine
                            (1, DATE '2024-03-01', 2),   -- before: its one possible day is taken
                            (2, DATE '2023-06-01', 3);   -- before: moves into the year
"""


def test_a_time_column_in_a_key_is_moved_without_repeating_a_key(tmp_path: Path) -> None:
    ddl = tmp_path / "keyed.sql"
    ddl.write_text(KEYED.split("INSERT")[0])
    schema = load_ddl(ddl, "duckdb")
    con = duckdb.connect()
    con.execute(KEYED)
    config = DomainConfig.default("keyed")
    reports = {r.name: r for r in apply_rules(con, schema, config)}
    assert reports["time_order_payments"].found == 2
    assert all(n == 0 for n in _violations(con, schema, config).values())
    rows = con.execute("SELECT invoice_id, paid_on, amount FROM payments ORDER BY amount").fetchall()
    assert [(i, a) for i, _, a in rows] == [(1, 1), (2, 3)]  # the row with no free day went
    assert rows[1][1].year == 2024
