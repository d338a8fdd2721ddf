"""plan_fill on random foreign-key graphs: self-references, cycles, parallel keys, mixed nullability."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from stateforge.graph import plan_fill
from stateforge.schema import Column, ForeignKey, Schema, Table


@st.composite
def fk_graphs(draw: st.DrawFn) -> Schema:
    """Tables t0..tn with a two-column key; random foreign keys of one or two columns between them."""
    n = draw(st.integers(min_value=1, max_value=8))
    tables = [
        Table(
            name=f"t{i}",
            columns=[Column("id", "INTEGER", nullable=False), Column("id2", "INTEGER", nullable=False)],
            primary_key=("id", "id2"),
        )
        for i in range(n)
    ]
    edge = st.tuples(
        st.integers(0, n - 1),  # child
        st.integers(0, n - 1),  # parent (the child itself: a self-reference)
        st.lists(st.booleans(), min_size=1, max_size=2),  # nullability of each FK column
        st.booleans(),  # spell the parent in upper case: lookups ignore case
    )
    for k, (child, parent, nullables, upper) in enumerate(draw(st.lists(edge, max_size=18))):
        columns = tuple(f"fk{k}_{j}" for j in range(len(nullables)))
        for name, nullable in zip(columns, nullables, strict=True):
            tables[child].columns.append(Column(name, "INTEGER", nullable=nullable))
        ref = f"T{parent}" if upper else f"t{parent}"
        tables[child].foreign_keys.append(ForeignKey(columns, ref, ("id", "id2")[: len(columns)]))
    return Schema(tables=tables)


def _nullable(schema: Schema, table: str, fk: ForeignKey) -> bool:
    return all(schema.table(table).column(c).nullable for c in fk.columns)


@settings(max_examples=400, deadline=None)
@given(fk_graphs())
def test_plan_orders_parents_first_and_breaks_every_cycle(schema: Schema) -> None:
    plan = plan_fill(schema)
    order = plan.order
    assert sorted(order) == sorted(schema.table_names) and len(order) == len(set(order))
    position = {name: i for i, name in enumerate(order)}
    deferred = {id(d.fk) for d in plan.deferred}
    unbroken = {id(d.fk) for d in plan.unbroken}
    assert not deferred & unbroken

    remaining = nx.DiGraph()
    remaining.add_nodes_from(schema.table_names)
    for table in schema.tables:
        for fk in table.foreign_keys:
            parent = schema.table(fk.ref_table).name
            if id(fk) in deferred or id(fk) in unbroken:
                continue
            assert position[parent] < position[table.name], f"{parent} must be filled before {table.name}"
            remaining.add_edge(parent, table.name)
    # Every cycle of the original graph lost an edge to the second pass or to the report.
    assert nx.is_directed_acyclic_graph(remaining)

    for key in plan.deferred:
        assert _nullable(schema, key.table, key.fk), "only nullable keys can wait for the second pass"
    for key in plan.unbroken:
        assert not _nullable(schema, key.table, key.fk), "a nullable key would have broken the cycle"
    for cycle in plan.cycles:
        members = {t.lower() for t in cycle.tables}
        for key in cycle.deferred + cycle.unbroken:
            assert key.table.lower() in members and key.fk.ref_table.lower() in members


@settings(max_examples=200, deadline=None)
@given(fk_graphs())
def test_plan_is_deterministic(schema: Schema) -> None:
    assert plan_fill(schema).to_dict() == plan_fill(schema).to_dict()
