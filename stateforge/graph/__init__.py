"""The foreign-key dependency graph, the fill plan derived from it, and the schema report that shows both."""

from __future__ import annotations

from stateforge.graph.plan import Cycle, DeferredKey, FillPlan, dependency_graph, plan_fill
from stateforge.graph.report import schema_report

__all__ = ["Cycle", "DeferredKey", "FillPlan", "dependency_graph", "plan_fill", "schema_report"]
