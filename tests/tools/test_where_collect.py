"""`Where` (filters with their parameters, run on a real DuckDB) and `defined_in` (a package's tools in the
order its modules write them, imported ones left out)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import duckdb
import pytest

from stateforge.tasks import Recipe
from stateforge.tools import Tool
from stateforge.tools.collect import defined_in
from stateforge.tools.where import Where

SONGS = [(1, "Hour", 7, True), (2, "Half Hour", 7, False), (3, "Night", 8, True), (4, "Midnight", 9, False)]


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE TABLE songs (song_id INTEGER, title VARCHAR, artist_id INTEGER, explicit BOOLEAN)")
    con.executemany("INSERT INTO songs VALUES (?, ?, ?, ?)", SONGS)
    return con


def ids(con: duckdb.DuckDBPyConnection, where: Where) -> list[int]:
    sql = f"SELECT song_id FROM songs WHERE {where.sql} ORDER BY song_id"
    return [r[0] for r in con.execute(sql, where.params).fetchall()]


def test_an_empty_where_keeps_every_row(con: duckdb.DuckDBPyConnection) -> None:
    where = Where().when(None, "explicit = ?").text(None, "title").text("", "title").ref(None, "a", "b")
    assert (where.sql, where.params, len(where)) == ("TRUE", [], 0)
    assert ids(con, where) == [1, 2, 3, 4]


def test_filters_given_are_anded_in_order_with_their_parameters(con: duckdb.DuckDBPyConnection) -> None:
    # False is a value, not an absent filter; text matches part of the column in any letter case
    where = Where().when(False, "explicit = ?").text("HOUR", "title")
    assert where.params == [False, "HOUR"]
    assert ids(con, where) == [2]


def test_ref_takes_an_id_or_part_of_a_name(con: duckdb.DuckDBPyConnection) -> None:
    assert ids(con, Where().ref(7, "artist_id", "title")) == [1, 2]
    assert ids(con, Where().ref("night", "artist_id", "title")) == [3, 4]


def test_conditions_keep_their_own_precedence(con: duckdb.DuckDBPyConnection) -> None:
    # each part is parenthesised, so an OR inside one cannot swallow the others
    where = Where().add("artist_id = ? OR artist_id = ?", 8, 9).when(True, "explicit = ?")
    assert ids(con, where) == [3]


def test_a_lookup_runs_only_for_a_value_given_bounds_are_inclusive(con: duckdb.DuckDBPyConnection) -> None:
    looked: list[str] = []

    def artist_id(name: str) -> int:
        looked.append(name)
        return {"eight": 8, "seven": 7}[name]

    where = Where().when(None, "artist_id = ?", by=artist_id).when("seven", "artist_id = ?", by=artist_id)
    assert (looked, where.params, ids(con, where)) == (["seven"], [7], [1, 2])
    assert ids(con, Where().between(2, 3, "song_id")) == [2, 3]
    assert ids(con, Where().between(None, 2, "song_id").between(None, None, "artist_id")) == [1, 2]


PACK_A = '''
from stateforge.tools import Env, tool


@tool
def second(env: Env) -> dict:
    """Written first in a, listed first."""
    return {}


@tool
def first(env: Env) -> dict:
    """Written second in a."""
    return {}
'''
PACK_B = '''
from stateforge.tasks import recipe
from stateforge.tools import Env, tool

from .a import first


@tool
def third(env: Env) -> dict:
    """b's own tool."""
    return {}


@recipe(capabilities=("cross_step_dependency",))
def a_recipe(ctx) -> None:
    """b's recipe."""
'''


def test_defined_in_lists_each_modules_own_objects_in_definition_order(tmp_path: Path) -> None:
    package = tmp_path / "collectpack"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(PACK_A)
    (package / "b.py").write_text(PACK_B)
    sys.path.insert(0, str(tmp_path))
    try:
        a = importlib.import_module("collectpack.a")
        b = importlib.import_module("collectpack.b")
        assert [t.name for t in defined_in(a, b, kind=Tool)] == ["second", "first", "third"]
        assert [t.name for t in defined_in(b, a, kind=Tool)] == ["third", "second", "first"]
        assert [r.name for r in defined_in(a, b, kind=Recipe)] == ["a_recipe"]
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("collectpack.b", "collectpack.a", "collectpack"):
            sys.modules.pop(name, None)
