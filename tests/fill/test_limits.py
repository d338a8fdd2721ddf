"""`at_most` hints: a generated number is cut to its parent's value along a key, before expressions."""

from __future__ import annotations

import duckdb
import pytest

from stateforge.domain import DomainConfig
from stateforge.errors import DomainError
from stateforge.fill.engine import fill_table
from stateforge.fill.sizing import plan_rows
from stateforge.graph import plan_fill
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from stateforge.store import create_tables


def _schema() -> Schema:
    return Schema([
        Table("songs", [Column("id", "INTEGER", nullable=False), Column("length", "INTEGER", nullable=False)],
              primary_key=("id",)),
        Table("plays", [Column("id", "INTEGER", nullable=False), Column("song_id", "INTEGER", nullable=False),
                        Column("ms", "INTEGER", nullable=False), Column("short", "BOOLEAN")],
              primary_key=("id",), foreign_keys=[ForeignKey(("song_id",), "songs", ("id",))]),
    ])


def _config(at_most: dict | None) -> DomainConfig:
    ms = {"strategy": "int", "min": 1, "max": 1000}
    return DomainConfig.model_validate({
        "name": "t", "batch_size": 700, "tables": {"songs": {"rows": 50}, "plays": {"rows": 3000}},
        "columns": {"songs.length": {"strategy": "int", "min": 100, "max": 600},
                    "plays.ms": ms | ({"at_most": at_most} if at_most else {}),
                    "plays.short": {"expr": "ms < 200"}},
    })


def _fill(config: DomainConfig) -> duckdb.DuckDBPyConnection:
    schema, con = _schema(), duckdb.connect()
    plan = plan_fill(schema)
    create_tables(con, schema, plan)
    for t in plan.order:
        fill_table(con, schema, plan, config, t, seed=3, rows=plan_rows(schema, plan, config))
    return con


def test_a_number_is_cut_to_its_parents_and_expressions_read_the_cut_value():
    over = ("SELECT count(*) FILTER (WHERE p.ms > s.length), count(*) FILTER (WHERE p.ms = s.length), "
            "count(*) FILTER (WHERE p.short <> (p.ms < 200)) "
            "FROM plays AS p JOIN songs AS s ON s.id = p.song_id")
    assert _fill(_config(None)).execute(over).fetchone()[0] > 0  # without the hint, plays run past their song
    longer, cut, stale = _fill(_config({"via": "song_id", "column": "length"})).execute(over).fetchone()
    assert longer == 0 and cut > 0 and stale == 0


def test_at_most_names_a_key_of_the_table():
    with pytest.raises(DomainError, match=r"plays.ms.at_most: via id is not a single-column foreign key"):
        _fill(_config({"via": "id", "column": "length"}))
