"""From a schema to a fill order.

Parents are filled before children. Foreign keys that close a cycle (a self-reference included) are
broken at a nullable foreign key: those columns are left NULL in the first pass and filled in a second
pass, once every table of the cycle has rows. A cycle with no nullable foreign key cannot be broken that
way; it is reported with its tables and columns and still gets an order: the engine assigns the keys of
such tables before it writes their rows, so that references inside the cycle point at keys that will exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from stateforge.constraints.checks import require_satisfiable
from stateforge.schema.model import ForeignKey, Schema


@dataclass(frozen=True)
class DeferredKey:
    """A foreign key of `table` whose columns are filled in the second pass."""

    table: str
    fk: ForeignKey

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "columns": list(self.fk.columns),
            "ref_table": self.fk.ref_table,
            "ref_columns": list(self.fk.ref_columns),
        }


@dataclass
class Cycle:
    """A strongly connected group of tables (or one self-referencing table)."""

    tables: list[str]
    deferred: list[DeferredKey] = field(default_factory=list)
    """Nullable foreign keys that break the cycle."""
    unbroken: list[DeferredKey] = field(default_factory=list)
    """NOT NULL foreign keys that close the cycle: keys are assigned before rows are written."""

    @property
    def broken(self) -> bool:
        return not self.unbroken

    def to_dict(self) -> dict[str, Any]:
        return {
            "tables": self.tables,
            "broken": self.broken,
            "deferred": [d.to_dict() for d in self.deferred],
            "unbroken": [d.to_dict() for d in self.unbroken],
        }


@dataclass
class FillPlan:
    """The order to fill tables in, and the keys to fill in a second pass."""

    generations: list[list[str]]
    """Tables grouped by topological generation: a table's parents are in earlier generations."""
    cycles: list[Cycle] = field(default_factory=list)

    @property
    def order(self) -> list[str]:
        return [t for gen in self.generations for t in gen]

    @property
    def deferred(self) -> list[DeferredKey]:
        return [d for c in self.cycles for d in c.deferred]

    @property
    def unbroken(self) -> list[DeferredKey]:
        return [d for c in self.cycles for d in c.unbroken]

    def to_dict(self) -> dict[str, Any]:
        return {
            "fill_order": self.order,
            "generations": self.generations,
            "cycles": [c.to_dict() for c in self.cycles],
            "deferred_foreign_keys": [d.to_dict() for d in self.deferred],
        }


def dependency_graph(schema: Schema) -> nx.MultiDiGraph:
    """A graph with an edge parent -> child for every foreign key (key: the FK's position in the child)."""
    graph = nx.MultiDiGraph()
    for table in schema.tables:
        graph.add_node(table.name)
    for table in schema.tables:
        for i, fk in enumerate(table.foreign_keys):
            parent = schema.table(fk.ref_table).name
            graph.add_edge(parent, table.name, key=i, fk=fk)
    return graph


def _deferrable(schema: Schema, table: str, fk: ForeignKey) -> bool:
    t = schema.table(table)
    return all(t.column(c).nullable for c in fk.columns)


def plan_fill(schema: Schema) -> FillPlan:
    """Order the tables of `schema` for filling; break or report every cycle.

    Raises SchemaError first when a CHECK leaves a NOT NULL column no value (`require_satisfiable`)."""
    require_satisfiable(schema)
    graph = dependency_graph(schema)
    position = {t.name: i for i, t in enumerate(schema.tables)}
    cycles: list[Cycle] = []

    for component in nx.strongly_connected_components(graph):
        members = sorted(component, key=position.__getitem__)
        sub = graph.subgraph(members).copy()
        if len(members) == 1 and not sub.number_of_edges():
            continue
        cycle = Cycle(tables=members)
        # Cut one edge a cycle until none is left: a nullable FK of the cycle if there is one (deferred
        # to the second pass), else a NOT NULL one (reported; keys assigned before rows are written).
        # Candidates are ordered by the DDL, so the plan does not depend on networkx's search order.
        while True:
            try:
                found = nx.find_cycle(sub)
            except nx.NetworkXNoCycle:
                break
            edges = sorted(found, key=_edge_order(position))
            nullable = [e for e in edges if _deferrable(schema, e[1], sub.edges[e]["fk"])]
            parent, child, key = (nullable or edges)[0]
            cut = DeferredKey(child, sub.edges[parent, child, key]["fk"])
            (cycle.deferred if nullable else cycle.unbroken).append(cut)
            sub.remove_edge(parent, child, key)
            graph.remove_edge(parent, child, key)
        cycles.append(cycle)

    generations = [sorted(gen, key=position.__getitem__) for gen in nx.topological_generations(graph)]
    cycles.sort(key=lambda c: position[c.tables[0]])
    return FillPlan(generations=generations, cycles=cycles)


def _edge_order(position: dict[str, int]):
    # Edges tuples are (parent, child, key[, data]): order by the child's place in the DDL, then the FK's.
    return lambda e: (position[e[1]], e[2], position[e[0]])
