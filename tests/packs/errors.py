"""One error shape for every pack (docs/tools.md, "Errors"): checks the pack tests run on their own tools.

A failed call names what broke (a policy refusal its `policy`, a rule its `rule`), the argument at fault
when there is one, and says what to send instead; the in-process `ToolResult` and the MCP tool result carry
the same fields; no message names an internal type (a pydantic model's class name such as `SongRef`)."""

from __future__ import annotations

import json
from typing import Any

from stateforge.episode import Episode, ToolResult
from stateforge.mcp.server import call_result
from stateforge.tools import Toolkit


def internal_names(kit: Toolkit) -> set[str]:
    """The class names of every argument model and nested model of the toolkit's tools."""
    names: set[str] = set()
    for tool in kit:
        schema = tool.arguments.model_json_schema()
        names.add(tool.arguments.__name__)
        names.update(schema.get("$defs", {}))
    return names


def check_shape(result: ToolResult, kit: Toolkit) -> dict[str, Any]:
    """The failed result's fields, after checking the in-process and MCP shapes agree and name no type."""
    assert not result.ok
    fields = result.error_fields()
    assert fields["error"] == result.error and fields["kind"] == result.error_kind
    mcp = call_result(result)
    assert mcp.is_error and mcp.structured_content == fields
    assert json.loads(json.dumps(mcp.structured_content)) == fields
    for name in internal_names(kit):
        assert name not in result.error, f"{name!r} (an internal type) named in: {result.error}"
    return fields


def check_refusal(ep: Episode, kit: Toolkit, tool: str, arguments: dict[str, Any], policy: str) -> dict:
    """Call `tool`, which must be refused by `policy`: the policy is a field (and in the text)."""
    fields = check_shape(ep.call(tool, arguments), kit)
    assert fields["kind"] == "tool" and fields["policy"] == policy, fields
    assert f"(policy: {policy})" in fields["error"]
    return fields


def check_argument_errors(ep: Episode, kit: Toolkit) -> int:
    """Every tool, sent a wrong value for every parameter: an `arguments` error naming an argument the tool
    has, and no internal type. Returns how many tools were checked."""
    for tool in kit:
        names = list(tool.parameters["properties"])
        if not names:
            continue
        fields = check_shape(ep.call(tool.name, {n: {"x": [1]} for n in names}), kit)
        assert fields["kind"] == "arguments" and fields["argument"] in names, fields
    return len(list(kit))
