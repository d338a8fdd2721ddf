"""`stateforge tasks FILE`: check every line of a tasks file and sum it up.

    summary = summarize_tasks("artifacts/music/tasks.jsonl")
    summary["valid"], summary["invalid"], summary["problems"]     # file:line and what is wrong
    summary["capabilities"], summary["feasible"], summary["changed_rows"], ...

A line is invalid when it is not a task (the model of docs/tasks.md), when its id does not hash to its
content, or when its id repeats an earlier line's.
"""

from __future__ import annotations

import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from stateforge.tasks.jsonl import TaskFileError, parse_task
from stateforge.tasks.model import CAPABILITIES, DIFFICULTIES, Task


def summarize_tasks(path: str | Path) -> dict[str, Any]:
    """Validate every line of `path` and summarise the valid tasks; `TaskFileError` if it is unreadable."""
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(f"{path}: no such file. Generate tasks first (stateforge generate-tasks).")
    tasks: list[Task] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                task = parse_task(line, f"{path}:{number}")
            except TaskFileError as exc:
                problems.append(str(exc))
                continue
            if task.id in seen:
                problems.append(f"{path}:{number}: task {task.id} repeats line {seen[task.id]}.")
                continue
            seen[task.id] = number
            tasks.append(task)
    feasible = [t for t in tasks if t.feasible]
    rows = [sum(t.diff.summary.values()) for t in feasible]
    caps = Counter(c for t in tasks for c in t.capabilities)
    return {
        "file": str(path),
        "valid": len(tasks),
        "invalid": len(problems),
        "problems": problems,
        "domains": dict(Counter(t.domain for t in tasks).most_common()),
        "feasible": len(feasible),
        "infeasible": len(tasks) - len(feasible),
        "capabilities": {c: caps[c] for c in CAPABILITIES},
        "difficulty": {d: sum(t.difficulty == d for t in tasks) for d in DIFFICULTIES},
        "changed_rows": {
            "mean": round(statistics.fmean(rows), 2) if rows else 0,
            "max": max(rows, default=0),
            "with_50_or_more": sum(r >= 50 for r in rows),
        },
        "sources": dict(Counter(_source(t) for t in tasks).most_common()),
    }


def _source(task: Task) -> str:
    return task.provenance.recipe or task.provenance.model or task.provenance.generator


def render_summary(console: Console, summary: dict[str, Any]) -> None:
    """The summary in the terminal."""
    grid = Table(title=f"{summary['valid']} tasks in {summary['file']}", title_justify="left")
    grid.add_column("")
    grid.add_column("tasks", justify="right")
    for cap, n in summary["capabilities"].items():
        grid.add_row(cap, str(n))
    for level, n in summary["difficulty"].items():
        grid.add_row(f"difficulty {level}", str(n))
    grid.add_row("feasible / infeasible", f"{summary['feasible']} / {summary['infeasible']}")
    rows = summary["changed_rows"]
    grid.add_row("changed rows: mean, max, 50+", f"{rows['mean']}, {rows['max']}, {rows['with_50_or_more']}")
    console.print(grid)
    for problem in summary["problems"][:20]:
        console.print(f"[red]invalid[/] {problem}", highlight=False)
    if len(summary["problems"]) > 20:
        console.print(f"... and {len(summary['problems']) - 20} more invalid lines")
