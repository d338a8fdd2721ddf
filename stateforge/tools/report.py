"""The tool listing and coverage report: JSON data (`tools_report`) and the terminal view (`render_tools`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from stateforge.schema.model import Schema
from stateforge.tools.toolkit import Toolkit


def tools_report(toolkit: Toolkit, schema: Schema) -> dict[str, Any]:
    """`{"toolkit", "tools": [...], "coverage": {...}}`: what `stateforge tools --json` prints."""
    return {
        "toolkit": toolkit.name,
        "tools": toolkit.listing(),
        "coverage": toolkit.coverage(schema).to_dict(),
    }


def render_tools(console: Console, report: dict[str, Any]) -> None:
    """A table of the tools (name, kind, parameters, description) and one of the coverage per table."""
    tools = Table(title=f"{len(report['tools'])} tools ({report['toolkit']})", title_justify="left")
    for name in ("tool", "kind", "parameters (* required)", "description"):
        tools.add_column(name, overflow="fold")
    for item in report["tools"]:
        params = ", ".join(
            f"{p['name']}{'*' if p['required'] else ''}: {p['type']}" for p in item["parameters"]
        )
        tools.add_row(item["name"], item["kind"], params or "-", item["description"].split("\n")[0])
    console.print(tools)
    coverage = report["coverage"]
    grid = Table(title="coverage: tools per table", title_justify="left")
    for name in ("table", "read by", "written by", "changed by cascade"):
        grid.add_column(name, overflow="fold")
    for row in coverage["tables"]:
        grid.add_row(row["table"], _names(row["reads"]), _names(row["writes"]), _names(row["cascades"]))
    console.print(grid)
    if coverage["unwritable"]:
        console.print(f"[yellow]no tool writes:[/] {', '.join(coverage['unwritable'])}")
    else:
        console.print("every table is written by some tool")


def _names(names: list[str], shown: int = 4) -> str:
    if not names:
        return "-"
    more = f" +{len(names) - shown}" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
