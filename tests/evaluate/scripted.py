"""Scripts for the fake model: each task's reference calls replayed, as tool calls (`openai`) or as code
run with exec_code (`openai-code`), posted to a real server's control endpoint as a harness would."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from stateforge.fakellm.scripts import replay_script
from stateforge.tasks import Task
from tests.evaluate.pack import SHORT_TASKS, short_feasible


def pick(tasks: list[Task], feasible: int = SHORT_TASKS) -> list[Task]:
    """`feasible` short feasible tasks and one infeasible task (the infeasible one last); the pack's task
    seed is chosen so that SHORT_TASKS of them exist (`tests.evaluate.pack.suits`)."""
    short = short_feasible(tasks)[:feasible]
    declined = [t for t in tasks if not t.feasible][:1]
    assert len(short) == feasible and declined, "the fixture pack has too few short tasks"
    return [*short, *declined]


def tool_script(task: Task) -> dict[str, Any]:
    """The reference calls, one per turn (the refused call of an infeasible task, then its decline)."""
    return replay_script(task.id, task.instruction, [c.model_dump() for c in task.reference_calls])


def code_of(task: Task) -> str:
    """Python making the reference calls in order; a refused call is printed, not raised."""
    lines = []
    for call in task.reference_calls:
        lines += ["try:", f"    print({call.tool}(**{call.arguments!r}))", "except ToolError as error:",
                  "    print('refused:', error)"]
    return "\n".join(lines)


def code_script(task: Task) -> dict[str, Any]:
    """One exec_code turn with every reference call, then a final message."""
    turn = [{"name": "exec_code", "arguments": {"code": code_of(task)}}]
    return {"key": task.id, "match": task.instruction, "turns": [turn, "Done."]}


def post_scripts(root_url: str, scripts: list[dict[str, Any]]) -> None:
    """POST the scripts to the server's `/_control/scripts` (replacing those of the same keys)."""
    body = json.dumps({"scripts": scripts}).encode()
    request = urllib.request.Request(
        f"{root_url}/_control/scripts", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
