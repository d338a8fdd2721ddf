"""Time order by construction: batches are fitted to their stored parents' times before they are written,
and a self-reference is drawn in time order, so the build's time-order repairs find nothing to do."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pyarrow as pa

from stateforge.build import build_domain
from stateforge.domain.config import DomainConfig
from stateforge.fill.time_fit import TimeFit
from stateforge.schema import load_ddl
from stateforge.validation.rules import domain_checks, may_dangle

DDL = """
CREATE TABLE users (id INTEGER PRIMARY KEY, referred_by INTEGER REFERENCES users (id),
    created_at TIMESTAMP NOT NULL);
CREATE TABLE plans (id INTEGER PRIMARY KEY, started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP,
    CHECK (ended_at IS NULL OR ended_at > started_at));
CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users (id),
    started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP, CHECK (ended_at IS NULL OR ended_at > started_at));
CREATE TABLE payments (id INTEGER PRIMARY KEY, subscription_id INTEGER NOT NULL REFERENCES subscriptions (id),
    paid_at TIMESTAMP NOT NULL, refunded_at TIMESTAMP, CHECK (refunded_at IS NULL OR refunded_at >= paid_at));
CREATE TABLE comments (id INTEGER PRIMARY KEY, author_id INTEGER NOT NULL REFERENCES users (id),
    parent_id INTEGER REFERENCES comments (id), created_at TIMESTAMP NOT NULL, body TEXT);
"""


def test_a_bare_ddl_builds_in_time_order_with_nothing_to_repair(tmp_path: Path) -> None:
    ddl = tmp_path / "timed.sql"
    ddl.write_text(DDL)
    report = build_domain(str(ddl), rows=300, out=tmp_path / "out")
    time_rules = {r["name"]: r for r in report["rules"] if r["kind"] == "time"}
    assert {"time_order_subscriptions", "time_order_payments", "time_order_comments",
            "time_order_users"} <= set(time_rules)
    assert {n: r["found"] for n, r in time_rules.items() if r["found"]} == {}
    schema = load_ddl(ddl, "duckdb")
    with duckdb.connect(str(tmp_path / "out" / "timed.duckdb"), read_only=True) as con:
        for rule in domain_checks(schema, DomainConfig.default("timed")):
            assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall()[0][0] == 0, rule.name
        replies = con.execute("SELECT count(*) FROM comments WHERE parent_id IS NOT NULL").fetchall()[0][0]
    assert replies > 0  # the self-reference is drawn (in time order), not left out


def test_a_batch_is_fitted_into_its_parents_window(tmp_path: Path) -> None:
    ddl = tmp_path / "timed.sql"
    ddl.write_text(DDL)
    schema = load_ddl(ddl, "duckdb")
    config = DomainConfig.default("timed")
    con = duckdb.connect()
    con.execute(DDL)
    con.execute("INSERT INTO users VALUES (1, NULL, TIMESTAMP '2024-05-01 10:00');"
                "INSERT INTO subscriptions VALUES (7, 1, TIMESTAMP '2024-06-01', TIMESTAMP '2024-07-01')")
    fit = TimeFit.build(schema, config, schema.table("payments"))
    assert fit is not None
    batch = pa.table({"id": [1, 2], "subscription_id": [7, 7],
                      "paid_at": [dt.datetime(2023, 1, 1, 9), dt.datetime(2024, 6, 10, 9)],
                      "refunded_at": [dt.datetime(2023, 1, 2, 9), None]})
    out = fit.apply(con, batch, 0)
    assert out.schema == batch.schema
    paids, refunds = out.column("paid_at").to_pylist(), out.column("refunded_at").to_pylist()
    (paid, refunded), (kept, _) = zip(paids, refunds, strict=True)
    assert dt.datetime(2024, 6, 1) <= paid <= refunded <= dt.datetime(2024, 7, 1)  # moved in, still ordered
    assert kept == dt.datetime(2024, 6, 10, 9)  # a row that keeps the order is left alone


def test_only_a_repair_that_can_leave_keys_dangling_is_searched_for_orphans(tmp_path: Path) -> None:
    ddl = tmp_path / "timed.sql"
    ddl.write_text(DDL)
    schema = load_ddl(ddl, "duckdb")
    assert may_dangle(schema, "UPDATE payments SET paid_at = paid_at + INTERVAL 1 DAY", 10) == set()
    assert may_dangle(schema, "DELETE FROM subscriptions WHERE id = 3", 0) == set()
    assert may_dangle(schema, "DELETE FROM subscriptions WHERE id = 3", 1) == {"subscriptions"}
    assert may_dangle(schema, "UPDATE subscriptions SET id = id + 100", 4) == {"subscriptions"}
    assert may_dangle(schema, "UPDATE comments SET parent_id = NULL", 4) == {"comments"}


def test_a_rails_structure_keeps_its_inferred_time_order(tmp_path: Path) -> None:
    from tests.conftest import FIXTURES

    ddl = FIXTURES / "ddl" / "rails_structure.sql"
    report = build_domain(str(ddl), rows=40, out=tmp_path / "rails")
    time_rules = [r for r in report["rules"] if r["kind"] == "time"]
    assert len(time_rules) > 20 and report["totals"]["violations"] == 0
    schema = load_ddl(ddl, "postgres")
    with duckdb.connect(str(tmp_path / "rails" / "rails_structure.duckdb"), read_only=True) as con:
        for rule in domain_checks(schema, DomainConfig.default("rails_structure")):
            if rule.kind == "time":
                assert con.execute(f"SELECT count(*) FROM ({rule.check})").fetchall()[0][0] == 0, rule.name
