"""The `oracle` solver: replays each task's reference calls, the ground truth. It must score 100%.

A task's reference calls were replayed twice on fresh episodes by the gate that kept it, so an oracle
episode that fails shows a problem of the harness, the toolkit or the data (a task file made on another
build, a tool that changed since), never of the task's answer. An infeasible task's calls end with the
refused call and `cannot_complete`, which the oracle makes too.
"""

from __future__ import annotations

from collections.abc import Mapping

from stateforge.errors import TerminalError
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome
from stateforge.tasks import Task
from stateforge.tools import CANNOT_COMPLETE


class OracleSolver(BaseSolver):
    """Replays the reference calls of the task it is given (it alone is handed the answers)."""

    name = "oracle"

    def __init__(self, tasks: Mapping[str, Task]) -> None:
        self._tasks = dict(tasks)

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Make the task's reference calls in order (a refused call of an infeasible task included)."""
        reference = self._tasks.get(task.task_id)
        if reference is None:
            raise TerminalError(f"the oracle has no task {task.task_id}: it replays only the run's tasks.")
        failed = 0
        for call in reference.reference_calls:
            result = episode.call(call.tool, call.arguments)
            failed += not result.ok
        declined = reference.reference_calls[-1].tool == CANNOT_COMPLETE
        return SolverOutcome(
            stop_reason="declined" if declined else "done",
            details={"reference_calls": len(reference.reference_calls), "failed_calls": failed},
        )


def make(config: SolverConfig, *, tasks: Mapping[str, Task]) -> OracleSolver:
    """The registry's factory: an oracle over the run's tasks."""
    return OracleSolver(tasks)
