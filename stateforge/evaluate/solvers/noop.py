"""The `noop` solver: changes nothing and declines every task with `cannot_complete`.

It passes exactly the infeasible tasks (nothing may change, and the solver must decline) and fails every
feasible one: the floor of any benchmark, and a check that the grader does not reward doing nothing.
"""

from __future__ import annotations

from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome

REASON = "I cannot complete this request."


class NoopSolver(BaseSolver):
    """Declines at once, whatever the task."""

    name = "noop"

    def __init__(self, reason: str = REASON) -> None:
        self.reason = reason

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Call `cannot_complete` once, and nothing else."""
        episode.decline(self.reason)
        return SolverOutcome(stop_reason="declined")

    def describe(self) -> dict[str, str]:
        """The reason it gives."""
        return {"reason": self.reason}


def make(config: SolverConfig) -> NoopSolver:
    """The registry's factory (`--option reason=...` changes the reason it gives)."""
    return NoopSolver(config.options.get("reason", REASON))
