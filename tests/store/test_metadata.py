"""The model inside the file: metadata tables, reading it back, and opening only Stateforge databases."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from stateforge.errors import StoreError
from stateforge.store import METADATA_TABLES, connect, plan_from_dict, read_model


def test_read_model_gives_back_the_schema_and_plan(db_path: Path, model):
    schema, plan = model
    with connect(db_path, read_only=True) as con:
        schema2, plan2 = read_model(con)
    assert schema2.to_dict() == schema.to_dict()
    assert plan2 == plan
    assert plan2.deferred[0].fk.on_delete == "SET NULL"  # matched back to the schema's foreign key


def test_plan_from_dict_inverts_to_dict(model):
    schema, plan = model
    assert plan_from_dict(json.loads(json.dumps(plan.to_dict())), schema) == plan


def test_metadata_tables_describe_the_model(db_path: Path):
    with connect(db_path, read_only=True) as con:
        tables = {
            r[0]
            for r in con.sql(
                "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'stateforge'"
            ).fetchall()
        }
        assert tables == set(METADATA_TABLES)
        fks = con.sql(
            "SELECT table_name, constraint_name, columns, ref_table, on_delete, deferred "
            "FROM stateforge.foreign_keys ORDER BY table_name, columns"
        ).fetchall()
        assert fks == [
            ("customers", None, ["referred_by"], "customers", "SET NULL", True),
            ("orders", "fk_orders_customer", ["customer_id"], "customers", "CASCADE", False),
            ("orders", None, ["region", "code"], "warehouses", "NO ACTION", False),
            ("orders", None, ["sku"], "products", "NO ACTION", False),
        ]
        assert con.sql(
            "SELECT table_name, fill_position, generation FROM stateforge.tables ORDER BY ordinal"
        ).fetchall() == [("customers", 0, 0), ("warehouses", 1, 0), ("Products", 2, 0), ("orders", 3, 1)]
        assert con.sql(
            "SELECT column_name, identity, sequence_name, allowed_values FROM stateforge.columns "
            "WHERE table_name = 'customers' AND (identity OR allowed_values IS NOT NULL)"
        ).fetchall() == [("id", True, "customers_id_seq", None), ("tier", False, None, ["free", "pro"])]
        assert con.sql("FROM stateforge.skipped_statements ORDER BY kind").fetchall() == [
            ("function", 2),
            ("view", 1),
        ]
        assert con.sql(
            "SELECT kind, columns FROM stateforge.unique_keys WHERE table_name = 'orders'"
        ).fetchall() == [("PRIMARY KEY", ["id"]), ("UNIQUE", ["customer_id", "external_ref"])]
        assert con.sql(
            "SELECT constraint_name, sql FROM stateforge.checks WHERE table_name = 'Products'"
        ).fetchall() == [("price_not_negative", "price >= 0")]
        assert con.sql("FROM stateforge.cycles").fetchall() == [(0, ["customers"], True)]
        version, dialect, source = con.sql(
            "SELECT format_version, dialect, source FROM stateforge.model"
        ).fetchall()[0]
        assert (version, dialect, source) == (1, "postgres", "stateforge/packs/shop/schema.sql")


def test_connect_names_a_missing_file(tmp_path: Path):
    with pytest.raises(StoreError, match="does not exist") as err:
        connect(tmp_path / "nope.duckdb")
    assert "nope.duckdb" in str(err.value)


def test_connect_refuses_a_file_that_is_not_duckdb(tmp_path: Path):
    path = tmp_path / "notes.duckdb"
    path.write_text("hello")
    with pytest.raises(StoreError, match="cannot be opened as a DuckDB database") as err:
        connect(path)
    assert str(path) in str(err.value)


def test_connect_refuses_a_duckdb_file_without_the_model(tmp_path: Path):
    path = tmp_path / "plain.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(StoreError, match="not a Stateforge one.*stateforge.model") as err:
        connect(path, read_only=True)
    assert str(path) in str(err.value)


def test_read_model_refuses_a_newer_format(db_path: Path):
    with connect(db_path) as con:
        con.execute("UPDATE stateforge.model SET format_version = 99")
        with pytest.raises(StoreError, match="format is 99"):
            read_model(con)
