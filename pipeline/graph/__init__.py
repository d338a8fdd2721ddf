"""The foreign-key dependency graph and the fill plan derived from it."""

from __future__ import annotations

from pipeline.graph.plan import Cycle, DeferredKey, FillPlan, dependency_graph, plan_fill

__all__ = ["Cycle", "DeferredKey", "FillPlan", "dependency_graph", "plan_fill"]
