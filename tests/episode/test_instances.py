"""A pooled copy's DuckDB instance serves its next episode only when the last one left nothing behind."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.episode import Episode
from stateforge.episode.instances import instance_of, pristine
from stateforge.tools import Toolkit


def test_the_next_episode_runs_on_the_same_instance_and_sees_none_of_the_last_ones_objects(
    shop_db: Path, kit: Toolkit, tmp_path: Path
):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as first:
        con = first.connection
        con.execute("CREATE TEMP TABLE leftover AS SELECT 1 AS x")
        con.execute("CREATE TEMP MACRO leftover_macro() AS 42")
        con.execute("CREATE MACRO main_macro() AS 43")  # in the copy: goes with its WAL
        con.execute("CREATE TABLE main_table AS SELECT 1 AS x")
        con.execute("SET VARIABLE leftover_variable = 7")
        con.execute("PREPARE leftover_statement AS SELECT 1")
        stray = con.cursor()  # closed with the episode's own connection
        used, instance = first.path, instance_of(first.path)
        assert instance is not None
    with pytest.raises(duckdb.ConnectionException):
        stray.execute("SELECT 1")
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as second:
        assert second.path == used and instance_of(second.path) is instance
        con = second.connection
        for sql in ("SELECT * FROM leftover", "SELECT leftover_macro()", "SELECT main_macro()",
                    "SELECT * FROM main_table", "EXECUTE leftover_statement"):
            with pytest.raises(duckdb.Error):
                con.execute(sql).fetchall()
        assert con.execute("SELECT getvariable('leftover_variable')").fetchone() == (None,)
        assert con.execute("SELECT current_database()").fetchone() == ("episode",)
        assert second.query("SELECT count(*) AS n FROM carriers")[0]["n"] == 4


@pytest.mark.parametrize(
    "leftover",
    [
        "ATTACH ':memory:' AS extra",  # a catalog an object could outlive the episode in
        "ATTACH ':memory:' AS memory",  # the idle instance's own default catalog, taken
    ],
)
def test_an_instance_something_outlived_its_episode_in_is_not_used_again(
    shop_db: Path, kit: Toolkit, tmp_path: Path, leftover: str
):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as first:
        first.connection.execute(leftover)
        first.connection.execute("CREATE TABLE extra.main.t AS SELECT 1 AS x" if "extra" in leftover
                                 else "CREATE MACRO memory.main.m() AS 1")
        used, instance = first.path, instance_of(first.path)
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as second:
        assert second.path == used  # the copy is clean and used again, on a new instance
        assert instance_of(second.path) is not instance
        rows = second.connection.execute("SELECT database_name FROM duckdb_databases()").fetchall()
        assert {r[0] for r in rows} == {"episode", "system", "temp"}


def test_pristine_names_what_an_idle_instance_may_hold():
    con = duckdb.connect(":memory:")
    try:
        assert pristine(con)
        cursor = con.cursor()
        assert not pristine(con)  # a second connection
        cursor.close()
        con.execute("ATTACH ':memory:' AS other")
        assert not pristine(con)
        con.execute("DETACH other")
        assert pristine(con)
    finally:
        con.close()


def test_an_episode_cannot_read_another_copy_in_its_workdir(shop_db: Path, kit: Toolkit, tmp_path: Path):
    with Episode.open(shop_db, toolkit=kit, workdir=tmp_path) as one, Episode.open(
        shop_db, toolkit=kit, workdir=tmp_path
    ) as other:
        assert one.call("delete_carrier", {"carrier_id": 2}).ok
        for target in (other.path, one.path.with_name(one.path.name + ".x"), tmp_path / ".templates"):
            with pytest.raises(duckdb.PermissionException):
                one.connection.execute(f"SELECT * FROM read_blob('{target}')").fetchall()
        with pytest.raises(duckdb.Error):
            one.connection.execute(f"ATTACH '{other.path}' AS other").fetchall()
