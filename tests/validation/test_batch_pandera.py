"""The pandera export: derived from the constraint description, it says what the Arrow batch checks say."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from pandera import pyarrow as pandera_pa
from pandera.errors import SchemaErrors

from stateforge.constraints import table_constraints
from stateforge.domain import load_domain
from stateforge.schema.model import Column, Table
from stateforge.validation.batch_arrow import schema_failures
from stateforge.validation.batch_pandera import FAILURE_CASES, batch_schema, pandera_rules
from tests.validation.test_batch import good, items_table


def arrow_rules(table: Table, batch: pa.Table) -> set[tuple[str, str]]:
    return {(f.rule, f.columns[0]) for f in schema_failures(table, batch)}


@pytest.mark.parametrize("pack", ["music", "game", "meeting"])
def test_every_table_of_the_packs_has_a_schema_of_its_description(pack):
    for table in load_domain(pack).schema.tables:
        schema = batch_schema(table)
        tc = table_constraints(table)
        assert isinstance(schema, pandera_pa.DataFrameSchema) and schema.name == tc.table
        assert list(schema.columns) == [c.name for c in tc.columns]
        for c in tc.columns:
            column = schema.columns[c.name]
            assert (column.nullable, column.required) == (c.nullable, c.required), (table.name, c.name)
        assert batch_schema(table) is schema  # made once per table definition


SPOILED = {
    "a good batch": {},
    "wrong type": {"low": pa.array(["1", "2", "3", "4"])},
    "NULL in NOT NULL": {"code": pa.array(["a", None, "c", None])},
    "too long": {"code": pa.array(["a", "b", "toolong", "d"])},
    "not allowed": {"status": pa.array(["new", "lost", None, "paid"])},
    "out of range": {"price": pa.array([1, 2, 3, 1000], pa.decimal128(7, 2)).cast(pa.decimal128(5, 2),
                                                                                   safe=False)},
    "duplicate key": {"id": pa.array([1, 2, 2, 3], pa.int64())},
    "missing column": {"code": None},
    "several at once": {"code": pa.array(["a", None, "toolong", "a"]), "status": pa.array(["x"] * 4)},
}


@pytest.mark.parametrize("spoil", list(SPOILED), ids=list(SPOILED))
def test_pandera_and_the_arrow_checks_fail_the_same_rules_on_the_same_columns(spoil):
    columns = good() | SPOILED[spoil]
    batch = pa.table({k: v for k, v in columns.items() if v is not None})
    table = items_table()
    expected = arrow_rules(table, batch)
    assert pandera_rules(table, batch) == expected
    assert bool(expected) == (spoil != "a good batch")
    if expected:
        with pytest.raises(SchemaErrors):
            batch_schema(table).validate(batch, lazy=True)


def test_a_key_of_several_columns_is_named_by_its_first_column():
    table = Table("pairs", [Column("a", "INTEGER", nullable=False), Column("b", "INTEGER", nullable=False),
                            Column("w", "VARCHAR")], primary_key=("a", "b"))
    batch = pa.table({"a": pa.array([1, 1, 2], pa.int32()), "b": pa.array([5, 5, 5], pa.int32()),
                      "w": ["x", "y", "z"]})
    assert pandera_rules(table, batch) == arrow_rules(table, batch) == {("unique", "a")}


def test_keys_that_may_be_null_stay_with_the_arrow_checks():
    """pandera counts two NULLs as a duplicate, SQL never does: a nullable key is not in the schema."""
    table = items_table()  # UNIQUE (low, high): both nullable
    columns = good() | {"low": pa.array([None, None, 1, 2], pa.int32()),
                        "high": pa.array([5, 5, 6, 7], pa.int32())}
    batch = pa.table(columns)
    assert pandera_rules(table, batch) == arrow_rules(table, batch) == set()
    same = {"low": pa.array([1, 1, 2, 3], pa.int32()), "high": pa.array(np.full(4, 9), pa.int32())}
    dup = pa.table(good() | same)
    assert ("unique", "low") in arrow_rules(table, dup)
    assert ("unique", "low") not in pandera_rules(table, dup)


def failure_cases_of_every_spoil() -> dict[str, list[dict]]:
    """Each spoiled batch's `SchemaErrors.failure_cases` rows (the Arrow type checked on the way)."""
    found = {}
    for spoil, columns in SPOILED.items():
        batch = pa.table({k: v for k, v in (good() | columns).items() if v is not None})
        try:
            batch_schema(items_table()).validate(batch, lazy=True)
            found[spoil] = []
        except SchemaErrors as exc:
            cases = exc.failure_cases
            assert isinstance(cases, pa.Table) and cases.schema == FAILURE_CASES, spoil
            found[spoil] = cases.to_pylist()
    return found


WITHOUT_POLARS = """
import json, sys

class NoPolars:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "polars":
            raise ImportError("polars hidden for this test")

sys.meta_path.insert(0, NoPolars())
from tests.validation.test_batch_pandera import failure_cases_of_every_spoil, pandera_rules
assert "polars" not in sys.modules
print(json.dumps(failure_cases_of_every_spoil()))
"""


def test_the_failure_cases_are_the_same_arrow_table_with_or_without_polars():
    """pandera 0.35 builds a batch of scalar failures only (a missing column, a wrong type) with polars
    when it can import it: the export reports the same Arrow rows either way."""
    pytest.importorskip("polars", reason="polars (the dev extra) is what this compares against")
    with_polars = failure_cases_of_every_spoil()
    assert "polars" in sys.modules
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", WITHOUT_POLARS], cwd=root, capture_output=True, text=True,
                          check=False, env={"PYTHONPATH": str(root), "PATH": ""})
    assert done.returncode == 0, done.stderr
    without = json.loads(done.stdout)
    assert without == with_polars
    assert without["missing column"] == [{"failure_case": "code", "schema_context": "DataFrameSchema",
                                          "column": "items", "check": "column_in_dataframe",
                                          "check_number": None, "index": None}]
    assert [r["check"] for r in without["wrong type"]] == ["dtype('Int32')"]
