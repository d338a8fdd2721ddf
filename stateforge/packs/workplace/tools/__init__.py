"""The workplace's tools: the union of the HR, ITSM and meeting packs' tools, each running in its own
DuckDB schema and acting for the signed-in worker's account there (`stateforge.tools.compose`;
docs/packs/workplace.md lists the names the union prefixes), and the workplace's own: provisioning a hire's
accounts in the other systems (accounts.py)."""

from __future__ import annotations

from pathlib import Path

from stateforge.schema.model import Schema
from stateforge.tools.compose import union_toolkit
from stateforge.tools.toolkit import Toolkit

from .accounts import provision_accounts


def toolkit(schema: Schema) -> Toolkit:
    """The union toolkit and the workplace's own tools, checked against the workplace's schema."""
    kit = union_toolkit(Path(__file__).resolve().parent.parent, schema, name="workplace")
    kit.add(provision_accounts)
    kit.check(schema)
    return kit
