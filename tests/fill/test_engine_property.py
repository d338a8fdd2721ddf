"""Property: any schema of the shapes the engine supports fills into a database with a clean audit.

Hypothesis builds random schemas: single and composite primary keys, NOT NULL and nullable foreign keys
forwards, backwards (cycles, broken at a nullable key or not) and to the table itself, composite foreign
keys, UNIQUE columns, and CHECKs on one column and between two.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stateforge.build import build_domain
from stateforge.domain import DomainConfig, DomainPack
from stateforge.schema.model import Check, Column, ForeignKey, Schema, Table
from stateforge.validation.audit import audit

EXTRA = {
    "int": lambda n, nullable: (Column(n, "INTEGER", nullable=nullable), [Check(f"{n} >= 0", (n,))]),
    "text": lambda n, nullable: (Column(n, "VARCHAR(12)", nullable=nullable, length=12), []),
    "money": lambda n, nullable: (Column(n, "DECIMAL(7,2)", nullable=nullable, precision=7, scale=2), []),
    "day": lambda n, nullable: (Column(n, "DATE", nullable=nullable), []),
    "flag": lambda n, nullable: (Column(n, "BOOLEAN", nullable=nullable), []),
    "kind": lambda n, nullable: (Column(n, "VARCHAR", nullable=nullable, allowed_values=["a", "b", "c"]), []),
}


@st.composite
def schemas(draw: st.DrawFn) -> Schema:
    n = draw(st.integers(2, 5))
    composite = [draw(st.booleans()) for _ in range(n)]
    tables = []
    for i in range(n):
        if composite[i]:
            cols = [Column("k1", "INTEGER", nullable=False),
                    Column("k2", "VARCHAR(8)", nullable=False, length=8)]
            pk: tuple[str, ...] = ("k1", "k2")
        else:
            cols, pk = [Column("id", "INTEGER", nullable=False)], ("id",)
        checks: list[Check] = []
        for j, kind in enumerate(draw(st.lists(st.sampled_from(sorted(EXTRA)), max_size=3))):
            col, extra_checks = EXTRA[kind](f"c{j}", draw(st.booleans()))
            cols.append(col)
            checks += extra_checks
        if draw(st.booleans()):
            cols += [Column("lo", "INTEGER", nullable=False), Column("hi", "INTEGER", nullable=False)]
            checks.append(Check("lo <= hi", ("lo", "hi")))
        has_c0 = any(c.name == "c0" for c in cols)
        unique = [("c0",)] if has_c0 and draw(st.booleans()) else []
        fks = []
        targets = draw(st.lists(st.integers(0, n - 1), max_size=3))
        for f, target in enumerate(targets):
            nullable = draw(st.booleans()) or target >= i  # most backward keys nullable, some NOT NULL
            if target >= i and draw(st.integers(0, 3)) == 0 and target != i:
                nullable = False  # a NOT NULL cycle: keys are assigned before rows are written
            ref_cols = ("k1", "k2") if composite[target] else ("id",)
            names = tuple(f"f{f}_{r}" for r in ref_cols)
            types = {"k1": "INTEGER", "k2": "VARCHAR(8)", "id": "INTEGER"}
            cols += [Column(name, types[r], nullable=nullable, length=8 if r == "k2" else None)
                     for name, r in zip(names, ref_cols, strict=True)]
            fks.append(ForeignKey(names, f"t{target}", ref_cols))
        tables.append(Table(f"t{i}", cols, primary_key=pk, unique=unique, foreign_keys=fks, checks=checks))
    return Schema(tables)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), seed=st.integers(0, 2**16), rows=st.integers(3, 20))
def test_random_schemas_fill_clean(schema: Schema, seed: int, rows: int) -> None:
    pack = DomainPack.of(schema, DomainConfig(name="random", batch_size=32))
    with tempfile.TemporaryDirectory() as out:
        report = build_domain(pack, rows=rows, seed=seed, out=out)
        with duckdb.connect(str(Path(out) / "random.duckdb"), read_only=True) as con:
            checked = audit(con, schema)
    assert checked.clean, checked.summary()
    assert report["totals"]["violations"] == 0 and report["totals"]["rows"] == sum(checked.tables.values())
