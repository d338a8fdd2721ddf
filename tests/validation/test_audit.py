"""The audit: one test per kind of violation, seeded into tables created without their constraints."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from stateforge.errors import StoreError
from stateforge.store import create_database, create_tables
from stateforge.validation.audit import AuditReport, Violation, audit
from stateforge.validation.views import install_views
from tests.store.shop import shop

CLEAN = [
    "INSERT INTO customers VALUES (1, 'a@x', 'Ann', 'free', NULL), (2, 'b@x', 'Bob', 'pro', 1), "
    "(3, 'c@x', 'Cy', NULL, 2)",
    "INSERT INTO warehouses VALUES ('eu', 1, 'Paris'), ('us', 2, 'Boston')",
    "INSERT INTO \"Products\" VALUES ('p1', 9.50), ('p2', 0)",
    "INSERT INTO orders VALUES (1, 1, 'eu', 1, 'r1', 'new', 2, 'p1'), "
    "(2, 1, NULL, NULL, NULL, 'paid', NULL, NULL), (3, 2, 'us', 2, NULL, 'paid', 1, 'p2')",
]


@pytest.fixture
def con() -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory shop database with clean rows and no declared constraints, so anything can be seeded."""
    schema, plan = shop()
    con = duckdb.connect()
    create_tables(con, schema, plan, constraints=False)
    install_views(con, schema, plan)
    for sql in CLEAN:
        con.execute(sql)
    yield con
    con.close()


def only(report: AuditReport) -> Violation:
    assert len(report.violations) == 1, report.summary()
    return report.violations[0]


def test_clean_database_audits_clean(con):
    report = audit(con)
    assert report.clean and report.total == 0 and report.violations == []
    assert report.tables == {"customers": 3, "warehouses": 2, "Products": 2, "orders": 3}
    assert report.checks_run == 25
    data = report.to_dict()
    assert data["violations"] == 0 and data["checks"] == [] and data["tables"]["orders"] == 3
    assert data["seconds"] >= 0


def test_primary_key_duplicate(con):
    con.execute("INSERT INTO customers VALUES (2, 'd@x', 'Dee', NULL, NULL), (2, 'e@x', 'Eve', NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.table, v.constraint, v.count, v.samples) == (
        "primary_key",
        "customers",
        "PRIMARY KEY customers(id)",
        1,
        [{"id": 2}],
    )


def test_composite_primary_key_duplicate(con):
    con.execute("INSERT INTO warehouses VALUES ('eu', 1, 'Lyon'), ('eu', 2, 'Rome')")  # (eu, 2) is new
    v = only(audit(con))
    assert (v.check, v.columns, v.count, v.samples) == (
        "primary_key",
        ("region", "code"),
        1,
        [{"region": "eu", "code": 1}],
    )


def test_unique_duplicate(con):
    con.execute("INSERT INTO customers VALUES (4, 'a@x', 'Ann again', NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.constraint, v.samples) == ("unique", "UNIQUE customers(email)", [{"email": "a@x"}])


def test_composite_unique_rows_with_a_null_do_not_collide(con):
    # Customer 1 already has an order with external_ref NULL (order 2): NULLs never collide.
    con.execute("INSERT INTO orders VALUES (4, 1, NULL, NULL, NULL, 'new', NULL, NULL)")
    assert audit(con).clean
    con.execute("INSERT INTO orders VALUES (5, 1, NULL, NULL, 'r1', 'new', NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.count, v.samples) == ("unique", 1, [{"customer_id": 1, "external_ref": "r1"}])


def test_not_null(con):
    con.execute("INSERT INTO customers VALUES (4, 'd@x', NULL, NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.constraint, v.columns, v.samples) == (
        "not_null",
        "NOT NULL customers(name)",
        ("name",),
        [{"id": 4}],
    )


def test_null_in_a_primary_key_is_named_by_rowid(con):
    con.execute("INSERT INTO warehouses VALUES (NULL, 3, 'Nowhere')")
    v = only(audit(con))
    assert (v.check, v.constraint, v.samples) == ("not_null", "NOT NULL warehouses(region)", [{"rowid": 2}])


def test_check_constraint_false_is_a_violation_and_null_passes(con):
    con.execute("INSERT INTO \"Products\" VALUES ('p3', -1)")
    con.execute(
        "INSERT INTO orders VALUES (4, 1, NULL, NULL, NULL, 'new', 0, NULL), "
        "(5, 1, NULL, NULL, NULL, 'new', NULL, NULL)"
    )
    report = audit(con)
    found = {(v.table, v.constraint): (v.count, v.samples) for v in report.violations}
    assert found == {
        ("Products", "price_not_negative"): (1, [{"sku": "p3", "price": pytest.approx(-1)}]),
        ("orders", "CHECK (quantity > 0)"): (1, [{"id": 4, "quantity": 0}]),
    }


def test_foreign_key_orphan(con):
    con.execute("INSERT INTO orders VALUES (4, 99, NULL, NULL, NULL, 'new', 1, NULL)")
    v = only(audit(con))
    assert (v.check, v.table, v.constraint, v.count, v.samples) == (
        "foreign_key",
        "orders",
        "fk_orders_customer",
        1,
        [{"id": 4, "customer_id": 99}],
    )


def test_composite_foreign_key_orphan_needs_the_whole_key(con):
    # 'eu' and 2 both exist, but not together.
    con.execute("INSERT INTO orders VALUES (4, 1, 'eu', 2, NULL, 'new', 1, NULL)")
    v = only(audit(con))
    assert (v.constraint, v.samples) == (
        "orders(region, code) -> warehouses(region, code)",
        [{"id": 4, "region": "eu", "code": 2}],
    )


def test_foreign_key_with_a_null_is_not_an_orphan(con):
    con.execute(
        "INSERT INTO orders VALUES (4, 1, 'zz', NULL, NULL, 'new', 1, NULL), "
        "(5, 1, NULL, 77, NULL, 'new', 1, NULL)"
    )
    assert audit(con).clean


def test_self_referencing_foreign_key_orphan(con):
    con.execute("INSERT INTO customers VALUES (4, 'd@x', 'Dee', NULL, 42)")
    v = only(audit(con))
    assert (v.constraint, v.samples) == (
        "customers(referred_by) -> customers(id)",
        [{"id": 4, "referred_by": 42}],
    )


def test_allowed_values(con):
    con.execute("INSERT INTO customers VALUES (4, 'd@x', 'Dee', 'gold', NULL), (5, 'e@x', 'Eve', NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.constraint, v.samples) == (
        "allowed_values",
        "customers(tier) IN ('free', 'pro')",
        [{"id": 4, "tier": "gold"}],
    )


def test_strings_longer_than_their_varchar_length(con):
    con.execute(f"INSERT INTO customers VALUES (4, '{'x' * 121}', 'Dee', NULL, NULL)")
    v = only(audit(con))
    assert (v.check, v.constraint, v.count) == ("max_length", "customers(email) at most 120 characters", 1)
    assert v.samples[0]["id"] == 4


def test_samples_are_the_smallest_keys_and_count_is_all(con):
    con.execute(
        "INSERT INTO orders SELECT i, 1000 + i, NULL, NULL, NULL, 'new', 1, NULL FROM range(10, 17) t(i)"
    )
    v = only(audit(con, sample=3))
    assert v.count == 7
    assert [s["id"] for s in v.samples] == [10, 11, 12]
    assert only(audit(con, sample=0)).samples == []


def test_views_count_what_the_audit_counts(con):
    con.execute(
        "INSERT INTO customers VALUES (1, 'a@x', NULL, 'gold', 9)"
    )  # PK, UNIQUE, NOT NULL, allowed, FK
    con.execute("INSERT INTO orders VALUES (4, 99, 'eu', 2, NULL, 'lost', -1, 'p9')")  # 3 FKs, 2 CHECKs
    report = audit(con)
    from_view = con.sql(
        "SELECT kind, table_name, constraint_name, count FROM stateforge.violations WHERE count > 0"
    ).fetchall()
    assert sorted(from_view) == sorted((v.check, v.table, v.constraint, v.count) for v in report.violations)
    assert len(from_view) == 10
    orphans = con.sql("SELECT sum(orphan_count) FROM stateforge.fk_orphans").fetchall()[0][0]
    assert orphans == sum(v.count for v in report.violations if v.check == "foreign_key") == 4
    assert dict(con.sql("FROM stateforge.table_stats").fetchall()) == report.tables


def test_tables_limits_the_audit(con):
    con.execute("INSERT INTO customers VALUES (4, 'd@x', 'Dee', 'gold', NULL)")
    con.execute("INSERT INTO orders VALUES (4, 99, NULL, NULL, NULL, 'new', 1, NULL)")
    report = audit(con, tables=["ORDERS"])
    assert [v.constraint for v in report.violations] == ["fk_orders_customer"]
    assert report.tables == {"orders": 4}
    with pytest.raises(StoreError, match='no table "order".*Did you mean "orders"'):
        audit(con, tables=["order"])


def test_a_table_missing_from_the_database_is_an_error(con):
    con.execute("DROP TABLE warehouses")
    with pytest.raises(StoreError, match="lacks table.*warehouses"):
        audit(con)


def test_report_is_json_and_reads_the_model_from_the_file(tmp_path: Path):
    schema, plan = shop()
    path = create_database(schema, plan, tmp_path / "shop.duckdb")
    with duckdb.connect(str(path)) as con:
        con.execute("INSERT INTO \"Products\" VALUES ('p1', 1.25)")
        con.execute("INSERT INTO orders (customer_id, status, sku) VALUES (5, 'new', 'p1')")
        report = audit(con)  # no schema: read from stateforge.model
    data = json.loads(json.dumps(report.to_dict()))
    assert data["violations"] == 1 and data["clean"] is False
    assert data["checks"] == [
        {
            "check": "foreign_key",
            "table": "orders",
            "constraint": "fk_orders_customer",
            "columns": ["customer_id"],
            "count": 1,
            "samples": [{"id": 1, "customer_id": 5}],
        }
    ]
    assert "1 violations" in report.summary() and "fk_orders_customer" in report.summary()


def test_a_check_that_cannot_run_is_named(con):
    con.execute("ALTER TABLE orders DROP COLUMN sku")
    with pytest.raises(StoreError, match="audit of table orders, .*the query failed"):
        audit(con)


def test_trusting_declared_constraints_still_finds_what_a_table_without_them_holds(con):
    """No table of this file declares its constraints: trusting the catalog skips nothing, and every
    seeded violation is found."""
    con.execute("INSERT INTO customers VALUES (2, 'a@x', NULL, 'gold', 9)")  # PK, UNIQUE, NOT NULL, CHECK, FK
    trusted, full = audit(con, trust_declared=True), audit(con)
    assert trusted.enforced == 0 and trusted.checks_run == full.checks_run == 25
    assert [v.to_dict() for v in trusted.violations] == [v.to_dict() for v in full.violations]
    assert {v.check for v in trusted.violations} >= {"primary_key", "unique", "not_null", "foreign_key"}


def test_trusting_declared_constraints_leaves_to_duckdb_only_what_its_catalog_enforces():
    """With the constraints declared, DuckDB refuses their violations, so the audit skips those checks;
    foreign keys, VARCHAR(n) and allowed values DuckDB does not hold are still queried and found."""
    schema, plan = shop()
    con = duckdb.connect()
    create_tables(con, schema, plan)
    for sql in CLEAN:
        con.execute(sql)
    with pytest.raises(duckdb.ConstraintException):  # what makes skipping the key checks safe
        con.execute("INSERT INTO customers VALUES (1, 'z@x', 'Zed', NULL, NULL)")
    con.execute("INSERT INTO orders VALUES (4, 99, NULL, NULL, NULL, 'new', NULL, NULL)")  # an orphan
    con.execute(f"INSERT INTO customers VALUES (4, '{'x' * 121}', 'Dee', NULL, NULL)")  # VARCHAR(120)
    trusted, full = audit(con, trust_declared=True), audit(con)
    assert trusted.enforced > 0 and trusted.checks_run + trusted.enforced == full.checks_run
    assert [v.to_dict() for v in trusted.violations] == [v.to_dict() for v in full.violations]
    assert sorted(v.check for v in trusted.violations) == ["foreign_key", "max_length"]
    assert trusted.to_dict()["enforced_by_duckdb"] == trusted.enforced
    from stateforge.validation.checks import build_checks
    from stateforge.validation.declared import declared_constraints

    catalog = declared_constraints(con)
    skipped = [q for q in build_checks(schema) if q.declared in catalog]
    assert len(skipped) == trusted.enforced
    assert {q.kind for q in skipped} <= {"primary_key", "unique", "not_null", "check", "allowed_values"}
    assert not any(q.kind in ("foreign_key", "max_length") for q in skipped)
    con.close()


def test_a_check_is_matched_to_the_catalog_by_its_syntax_tree_not_its_spelling():
    from stateforge.validation.declared import normalise

    assert normalise('("Status" IN (\'a\', \'b\'))') == normalise("status in ('a','b')")
    assert normalise("((x IS NULL) OR (x != y))") == normalise("x IS NULL OR x <> y")
    assert normalise("(a OR b) AND c") != normalise("a OR (b AND c)")
    assert normalise("x > 1") != normalise("x >= 1")
    assert normalise("x >") is None


def test_foreign_keys_to_one_parent_are_counted_together_yet_each_gets_its_own_orphans():
    """The audit counts the orphans of every foreign key to the same parent key in one anti-join: each
    key must still get exactly its own count (as its own query finds), keys of other types must not be
    mixed in, and a NULL must still exempt a row."""
    from stateforge.graph import plan_fill
    from stateforge.schema.model import Column, ForeignKey, Schema, Table
    from stateforge.validation.audit import offence_counts, run_check
    from stateforge.validation.checks import build_checks

    def kid(name: str, *columns: tuple[str, str]) -> Table:
        return Table(
            name=name,
            columns=[Column("id", "INTEGER", nullable=False), *(Column(c, t) for c, t in columns)],
            primary_key=("id",),
            foreign_keys=[ForeignKey((c,), "parents", ("id",)) for c, _ in columns],
        )

    schema = Schema(
        [
            Table(name="parents", columns=[Column("id", "INTEGER", nullable=False)], primary_key=("id",)),
            kid("kids_a", ("parent_id", "INTEGER")),
            kid("kids_b", ("parent_id", "INTEGER"), ("other_id", "INTEGER")),
            kid("kids_c", ("parent_id", "BIGINT")),
        ]
    )
    con = duckdb.connect()
    create_tables(con, schema, plan_fill(schema), constraints=False)
    con.execute("INSERT INTO parents SELECT range FROM range(1, 11)")
    con.execute("INSERT INTO kids_a VALUES (1, 1), (2, 11), (3, 12), (4, NULL), (5, 12)")
    con.execute("INSERT INTO kids_b VALUES (1, 1, 20), (2, 2, 21), (3, 3, NULL), (4, NULL, 22)")
    con.execute("INSERT INTO kids_c VALUES (1, 10), (2, 1099511627776), (3, NULL)")
    queries = build_checks(schema)
    fks = [q for q in queries if q.kind == "foreign_key"]
    assert len(fks) == 4
    assert {q.column_types for q in fks} == {("INTEGER",), ("BIGINT",)}
    counts = dict(zip([(q.table, q.columns) for q in queries], offence_counts(con, queries), strict=True))
    expected = {
        ("kids_a", ("parent_id",)): 3,
        ("kids_b", ("parent_id",)): 0,
        ("kids_b", ("other_id",)): 3,
        ("kids_c", ("parent_id",)): 1,
    }
    assert {key: counts[key] for key in expected} == expected
    assert {(q.table, q.columns): run_check(con, q).count for q in fks} == expected
    report = audit(con, schema)
    assert sorted((v.table, v.columns, v.count) for v in report.violations if v.check == "foreign_key") == [
        ("kids_a", ("parent_id",), 3),
        ("kids_b", ("other_id",), 3),
        ("kids_c", ("parent_id",), 1),
    ]
    con.close()
