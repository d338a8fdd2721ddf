"""The audit views inside the file: plain SQL that works on empty tables, in a fresh process, attached."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from stateforge.graph import plan_fill
from stateforge.schema.model import Schema
from stateforge.store import connect, create_database
from stateforge.validation.views import VIEWS, install_views
from tests.store.shop import shop


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    """A fresh, empty shop database on disk, with the audit views."""
    schema, plan = shop()
    return create_database(schema, plan, tmp_path / "shop.duckdb", setup=install_views)


def test_views_over_empty_tables_count_zero(db_path: Path):
    with connect(db_path, read_only=True) as con:
        assert con.sql("SELECT sum(count) FROM stateforge.violations").fetchall() == [(0,)]
        assert con.sql("SELECT count(*) FROM stateforge.violations").fetchall() == [(25,)]
        assert con.sql("SELECT sum(orphan_count), count(*) FROM stateforge.fk_orphans").fetchall() == [(0, 4)]
        assert dict(con.sql("FROM stateforge.table_stats").fetchall()) == {
            "customers": 0,
            "warehouses": 0,
            "Products": 0,
            "orders": 0,
        }


def test_views_work_in_a_fresh_process_with_plain_duckdb(db_path: Path):
    with connect(db_path) as con:
        con.execute("INSERT INTO orders (customer_id, status) VALUES (999, 'new')")
    script = (
        "import duckdb, sys\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "print(con.sql('SELECT table_name, constraint_name, count FROM stateforge.violations "
        "WHERE count > 0').fetchall())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(db_path)], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[('orders', 'fk_orders_customer', 1)]"


def test_views_work_when_the_file_is_attached_under_another_name(db_path: Path):
    con = duckdb.connect()
    con.execute(f"ATTACH '{db_path}' AS env (READ_ONLY)")
    assert con.sql("SELECT count(*) FROM env.stateforge.violations").fetchall() == [(25,)]
    assert con.sql("SELECT count(*) FROM env.stateforge.table_stats").fetchall() == [(4,)]


def test_a_schema_without_tables_still_gets_valid_views(tmp_path: Path):
    schema = Schema([])
    path = create_database(schema, plan_fill(schema), tmp_path / "empty.duckdb", setup=install_views)
    with connect(path, read_only=True) as con:
        for view in VIEWS:
            assert con.sql(f"SELECT count(*) FROM stateforge.{view}").fetchall() == [(0,)]


@pytest.mark.parametrize(
    "module", ["stateforge.validation.checks", "stateforge.validation.audit", "stateforge.validation.views"]
)
def test_modules_import_first_without_a_cycle(module: str):
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True, capture_output=True)


def test_views_are_created_unbound_and_bind_when_read(db_path: Path):
    with connect(db_path, read_only=True) as con:
        bound = "SELECT view_name, is_bound FROM duckdb_views() WHERE schema_name = 'stateforge' ORDER BY 1"
        assert con.sql(bound).fetchall() == [(v, False) for v in sorted(VIEWS)]
        assert con.sql("SELECT count(*) FROM stateforge.violations").fetchall() == [(25,)]
        assert ("violations", True) in con.sql(bound).fetchall()


@pytest.mark.parametrize("pack", ["music", "game", "meeting"])
def test_every_view_of_every_shipped_pack_binds(pack: str, tmp_path: Path):
    """Views are bound only when read (`WITH (DEFER_BINDING)`): read every one of every shipped pack."""
    from stateforge.domain import load_domain
    from stateforge.validation.checks import build_checks

    schema = load_domain(pack).schema
    path = create_database(schema, plan_fill(schema), tmp_path / f"{pack}.duckdb", setup=install_views)
    with connect(path, read_only=True) as con:
        checks = con.sql("SELECT count(*), sum(count) FROM stateforge.violations").fetchall()
        assert checks == [(len(build_checks(schema)), 0)]
        foreign_keys = sum(len(t.foreign_keys) for t in schema.tables)
        assert con.sql("SELECT count(*) FROM stateforge.fk_orphans").fetchall() == [(foreign_keys,)]
        assert con.sql("SELECT count(*) FROM stateforge.table_stats").fetchall() == [(len(schema.tables),)]
