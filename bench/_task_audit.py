"""An independent audit of a generated task set against the targets of issue 10 (bench/task_generation.py).

`audit_tasks(db, tasks)` re-checks every kept task from its stored JSON alone, outside the gate:

- its `references` (the uniqueness checks of what the instruction names) still count `expected` on the base
  (0 ambiguous);
- a feasible task's expected diff is not empty, and none of its goal verifiers already holds on the base
  (0 empty or already true);
- its reference calls replayed on a fresh episode give exactly its expected diff (100% replay), and every
  verifier it stores passes on that end state (what a grader runs on a solver's end state).

The replay is also the baseline of the benchmark: what one grading replay costs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from stateforge.tasks import Task, Workspace
from stateforge.tasks.verifiers import rows_match
from stateforge.tools import CANNOT_COMPLETE, load_toolkit


@dataclass
class Audit:
    """What the independent checks found over a task set (counts of tasks, ids of the failures)."""

    tasks: int = 0
    replayed: int = 0
    verified: int = 0
    ambiguous: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    already_true: list[str] = field(default_factory=list)
    replay_differs: list[str] = field(default_factory=list)
    verifier_fails: list[str] = field(default_factory=list)
    replay_ms: list[float] = field(default_factory=list)

    @property
    def clean(self) -> bool:
        """Whether every task passed every check."""
        return self.replayed == self.verified == self.tasks and not (
            self.ambiguous or self.empty or self.already_true
        )

    def summary(self) -> str:
        """One line: the failures by check, or that there were none."""
        bad = {
            "ambiguous": self.ambiguous,
            "empty": self.empty,
            "already true": self.already_true,
            "replay differs": self.replay_differs,
            "verifier fails on replay": self.verifier_fails,
        }
        found = [f"{k} {len(v)} ({', '.join(v[:3])})" for k, v in bad.items() if v]
        return "; ".join(found) if found else "none"


def _references_hold(ws: Workspace, task: Task) -> bool:
    for ref in task.references:
        rows = ws.query(ref.sql, ref.params)
        found = next(iter(rows[0].values())) if rows and rows[0] else None
        if found != ref.expected:
            return False
    return True


def audit_tasks(db: Path, tasks: list[Task], work: Path) -> Audit:
    """Check every task of `tasks` (made on `db`) as the module docstring says; episodes go under `work`."""
    audit = Audit(tasks=len(tasks))
    kit = load_toolkit(db)
    with Workspace(db, workdir=work) as ws:
        for task in tasks:
            if not _references_hold(ws, task):
                audit.ambiguous.append(task.id)
            goals = [v for v in task.verifiers if v.kind == "goal"]
            if task.feasible:
                if not task.expected_diff or task.diff.empty:
                    audit.empty.append(task.id)
                if any(rows_match(ws.query_json(v.sql), v.expected) for v in goals):
                    audit.already_true.append(task.id)
            started = time.perf_counter()
            episode = ws.episode(kit)
            for call in task.reference_calls:
                if call.tool != CANNOT_COMPLETE and not episode.call(call.tool, call.arguments).ok:
                    break  # an infeasible task's refused call: nothing after it runs
            with ws.end_state(episode) as end:
                same = end.diff.to_dict() == task.expected_diff
                audit.replay_ms.append((time.perf_counter() - started) * 1000)
                passed = all(rows_match(end.query(v.sql), v.expected) for v in task.verifiers)
            audit.replayed += same
            audit.verified += passed
            if not same:
                audit.replay_differs.append(task.id)
            if not passed:
                audit.verifier_fails.append(task.id)
    return audit
