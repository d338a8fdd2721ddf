"""The JSON report of a parsed schema: what `stateforge schema --json` prints and the golden files hold."""

from __future__ import annotations

from typing import Any

from stateforge.graph.plan import plan_fill
from stateforge.schema.model import Schema


def schema_report(schema: Schema) -> dict[str, Any]:
    """`Schema.to_dict()` merged with the fill plan, plus `cycles` as lists of table names and `notes`.

    Keys: dialect, source, tables, skipped_statements, notes, fill_order, generations, cycles,
    cycle_details, deferred_foreign_keys.
    """
    plan = plan_fill(schema).to_dict()
    details = plan.pop("cycles")
    return {
        **schema.to_dict(),
        "notes": [str(note) for note in schema.notes],
        **plan,
        "cycles": [cycle["tables"] for cycle in details],
        "cycle_details": details,
    }
