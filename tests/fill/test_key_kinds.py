"""Hints on foreign-key columns: which keys they may use (checked by `check_config`), and
the skew they set."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.errors import DomainError
from stateforge.fill import check_config
from stateforge.fill.key_kinds import key_skew
from stateforge.schema.model import Column, ForeignKey, Schema, Table


def _int(name: str, nullable: bool = False) -> Column:
    return Column(name, "INTEGER", nullable=nullable)


SCHEMA = Schema([
    Table("users", [_int("id"), _int("manager_id", True), _int("age", True)], primary_key=("id",),
          foreign_keys=[ForeignKey(("manager_id",), "users", ("id",))]),
    Table("profiles", [_int("user_id")], primary_key=("user_id",),
          foreign_keys=[ForeignKey(("user_id",), "users", ("id",))]),
    Table("devices", [_int("id"), _int("user_id")], primary_key=("id",), unique=[("user_id", "id")],
          foreign_keys=[ForeignKey(("user_id",), "users", ("id",))]),
    Table("plays", [_int("id"), _int("user_id"), _int("device_id")], primary_key=("id",),
          foreign_keys=[ForeignKey(("user_id", "device_id"), "devices", ("user_id", "id"))]),
    Table("lines", [_int("device_id"), _int("n")],
          foreign_keys=[ForeignKey(("device_id",), "devices", ("id",))]),
    # nodes(pa, pb) -> nodes(a, b): a composite self-reference, filled in the second pass
    Table("nodes", [_int("a"), _int("b"), _int("pa", True), _int("pb", True)], primary_key=("a", "b"),
          foreign_keys=[ForeignKey(("pa", "pb"), "nodes", ("a", "b"))]),
])


def check(columns: dict[str, dict], **tables: dict) -> None:
    check_config(DomainConfig.model_validate({"name": "x", "columns": columns, "tables": tables}), SCHEMA)


@pytest.mark.parametrize(
    ("columns", "tables", "message"),
    [
        ({"users.age": {"skew": 0.5}}, {}, '"age" is not a foreign-key column; skew shapes'),
        ({"devices.user_id": {"strategy": "int"}}, {},
         "foreign-key column: its hint may use distribution, expr, follows, llm, null_rate, skew, "
         "not strategy"),
        ({"devices.user_id": {"values": [1, 2]}}, {}, "values, weights and constant only for keys filled in"),
        ({"devices.user_id": {"distribution": "normal"}}, {}, "uniform or zipf"),
        ({"devices.user_id": {"llm": True}}, {}, "never written by the LLM"),
        ({"devices.user_id": {"expr": "id % 7 + 1", "skew": 0.2}}, {}, "keep one of them"),
        ({"users.manager_id": {"distribution": "uniform"}}, {}, "a self-reference points at an earlier row"),
        ({"profiles.user_id": {"skew": 0.3}}, {}, "a UNIQUE foreign key takes every parent at most once"),
        ({"lines.device_id": {"skew": 0.3}}, {"lines": {"per_parent": {"fk": "device_id", "exactly": 3}}},
         "per_parent.exactly gives every parent 3 rows"),
        ({"plays.user_id": {"skew": 0.3}, "plays.device_id": {"skew": 0.9}}, {}, "set different skews"),
        ({"nodes.pa": {"expr": "a"}}, {}, "so pb needs one too"),
        ({"users.age": {"strategy": "innt"}}, {}, 'no strategy "innt". Did you mean "int"?'),
        ({"users.agee": {"strategy": "int"}}, {}, 'no column "agee". Did you mean "age"?'),
    ],
)
def test_hints_on_foreign_keys_that_cannot_be_honoured(columns, tables, message):
    with pytest.raises(DomainError) as err:
        check(columns, **tables)
    assert message in str(err.value)
    assert f"columns.{next(iter(columns))}" in str(err.value) or "columns.plays." in str(err.value)


def test_hints_the_draws_honour():
    check({
        "devices.user_id": {"distribution": "uniform", "null_rate": 0.2, "llm": False},
        "plays.device_id": {"skew": 0.4},
        "lines.device_id": {"skew": 1.5},
        "users.manager_id": {"expr": "CASE WHEN id = 1 THEN NULL ELSE id // 2 END"},
        "nodes.pa": {"values": [1, 2], "weights": [3, 1]}, "nodes.pb": {"constant": 1},
        "users.age": {"strategy": "int", "min": 18, "max": 90, "distribution": "normal"},
    }, lines={"per_parent": {"fk": "device_id", "min": 0, "max": 4}})


@pytest.mark.parametrize(
    ("hint", "skew"),
    [({}, None), ({"distribution": "uniform"}, 0.0), ({"distribution": "zipf"}, 1.1), ({"skew": 0.4}, 0.4),
     ({"distribution": "zipf", "skew": 2.0}, 2.0), ({"null_rate": 0.3}, None)],
)
def test_the_skew_a_hint_sets(hint, skew):
    config = DomainConfig.model_validate({"name": "x", "columns": {"plays.device_id": hint}})
    assert key_skew(config, "plays", SCHEMA.table("plays").foreign_keys[0]) == skew


@pytest.mark.parametrize(
    ("hint", "message"),
    [({"distribution": "uniform", "skew": 0.5}, "contradicts"), ({"skew": -1}, "greater than or equal"),
     ({"skew": 9}, "less than or equal")],
)
def test_skew_values(hint, message):
    with pytest.raises(ValidationError, match=message):
        ColumnHint.model_validate(hint)
