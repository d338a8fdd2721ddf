"""The fill plan: generations, self-references, cycles broken at nullable keys or reported."""

from __future__ import annotations

from stateforge.graph import plan_fill
from stateforge.schema.model import Column, ForeignKey, Schema, Table


def table(name: str, *fks: tuple[str, str, bool]) -> Table:
    """A table with an id and one column per (column, parent, nullable) foreign key."""
    cols = [Column("id", "INTEGER", nullable=False)]
    keys = []
    for col, parent, nullable in fks:
        cols.append(Column(col, "INTEGER", nullable=nullable))
        keys.append(ForeignKey((col,), parent, ("id",)))
    return Table(name, cols, primary_key=("id",), foreign_keys=keys)


def test_parents_come_in_earlier_generations():
    schema = Schema([table("c", ("b_id", "b", False)), table("b", ("a_id", "a", False)), table("a")])
    plan = plan_fill(schema)
    assert plan.generations == [["a"], ["b"], ["c"]]
    assert plan.cycles == [] and plan.deferred == []


def test_siblings_share_a_generation_in_ddl_order():
    schema = Schema([table("z"), table("y", ("z_id", "z", False)), table("x", ("z_id", "z", False))])
    assert plan_fill(schema).generations == [["z"], ["y", "x"]]


def test_nullable_self_reference_is_deferred():
    plan = plan_fill(Schema([table("emp", ("manager_id", "emp", True))]))
    assert plan.order == ["emp"]
    assert [(d.table, d.fk.columns) for d in plan.deferred] == [("emp", ("manager_id",))]
    assert plan.cycles[0].broken


def test_cycle_is_broken_at_its_nullable_key_only():
    schema = Schema([
        table("dept", ("head_id", "emp", True)),
        table("emp", ("dept_id", "dept", False)),
    ])
    plan = plan_fill(schema)
    assert plan.order == ["dept", "emp"]
    assert [(d.table, d.fk.columns) for d in plan.deferred] == [("dept", ("head_id",))]
    assert plan.cycles[0].tables == ["dept", "emp"] and plan.cycles[0].broken


def test_cycle_without_nullable_key_is_reported_and_still_ordered():
    schema = Schema([table("a", ("b_id", "b", False)), table("b", ("a_id", "a", False))])
    plan = plan_fill(schema)
    assert sorted(plan.order) == ["a", "b"]
    (cycle,) = plan.cycles
    assert not cycle.broken and cycle.deferred == []
    assert len(cycle.unbroken) == 1
    assert cycle.to_dict()["unbroken"][0]["columns"] in (["a_id"], ["b_id"])


def test_plan_serialises_order_and_deferred_keys():
    plan = plan_fill(Schema([table("emp", ("manager_id", "emp", True))]))
    data = plan.to_dict()
    assert data["fill_order"] == ["emp"]
    assert data["deferred_foreign_keys"] == [
        {"table": "emp", "columns": ["manager_id"], "ref_table": "emp", "ref_columns": ["id"]}
    ]
