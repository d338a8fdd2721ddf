"""The opening messages of one generator conversation, rendered from `stateforge/prompts/generate_task.md`.

Everything in them is derived: the DDL from the schema model, the policies from domain.yaml, the write
tools from the toolkit, the frozen clock from the build. What changes between attempts is the user
message: the attempt and seed, a table to start from (a seeded pick among the tables the write tools
change, so that a model at temperature 0 still spreads its tasks), and the request (feasible or
infeasible, the capability the kept set lacks).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from stateforge.llm.context import table_ddl
from stateforge.llm.prompts import load
from stateforge.tasks.generators import Want
from stateforge.tasks.model import CAPABILITIES
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit

PROMPT = "generate_task"
"""The template's name in `stateforge/prompts/`."""

CAPABILITY_TEXT = {
    "multi_condition_filtering": "the solver must find items by several conditions at once",
    "full_data_acquisition": "the solver must act on every matching item, across pages of results",
    "aggregation_computation": "the solver must count, sum, average or otherwise compute a value",
    "cross_step_dependency": "a later step needs what an earlier step found",
    "precise_boundary_judgment": "dates, thresholds, inclusive or exclusive limits decide what is in",
}


@dataclass(frozen=True)
class Opening:
    """The rendered messages and what they were made of (for provenance)."""

    messages: list[dict[str, str]]
    prompt_sha256: str
    start_table: str


def write_tables(toolkit: Toolkit) -> list[str]:
    """The tables some write tool of `toolkit` changes, sorted."""
    return sorted({table for tool in toolkit if tool.kind == "write" for table in tool.writes})


def opening(
    workspace: Workspace, toolkit: Toolkit, want: Want, *, seed: int, limits: dict[str, Any]
) -> Opening:
    """The system and user messages that open the conversation for `want`."""
    template = load(PROMPT)
    schema, config = workspace.schema, workspace.config
    tables = write_tables(toolkit) or schema.table_names
    start = random.Random(f"{seed}:start:{want.attempt}").choice(sorted(tables))
    policies = (
        "\n".join(f"- {p.name}: {' '.join(p.description.split())}" for p in config.policies) or "- none"
    )
    rules = [f"- {r.name}: {' '.join((r.description or r.check).split())}" for r in config.rules]
    if rules:
        policies += "\nData rules the tools enforce:\n" + "\n".join(rules)
    writes = [t.name for t in toolkit if t.kind == "write"]
    written = set(write_tables(toolkit))
    generated = [
        f"{t.name}.{c.name}" for t in schema.tables if t.name in written for c in t.columns
        if c.identity or c.generated or c.default is not None
    ]
    messages = template.render(
        generated=", ".join(generated) or "none",
        domain=config.name,
        description=" ".join((config.description or "").split()),
        now=workspace.info.now.isoformat(),
        ddl="\n\n".join(table_ddl(t) for t in schema.tables),
        policies=policies,
        write_tools=", ".join(writes) or "none",
        capabilities="\n".join(f"  - {name}: {CAPABILITY_TEXT[name]}" for name in CAPABILITIES),
        max_turns=limits["max_turns"],
        max_tool_calls=limits["max_tool_calls"],
        max_submissions=limits["max_submissions"],
        sql_rows=limits["sql_rows"],
        attempt=want.attempt,
        seed=seed,
        start_table=start,
        request=request_text(want),
    )
    return Opening(messages, template.sha256, start)


def request_text(want: Want) -> str:
    """The request of the user message: feasible or infeasible, and the capability wanted (if any)."""
    if want.infeasible:
        text = "Make an infeasible task: one the product must refuse, so a good solver declines it."
    else:
        text = "Make a feasible task."
    if want.capability is not None:
        text += f" It must exercise the capability {want.capability} ({CAPABILITY_TEXT[want.capability]})."
    return text
