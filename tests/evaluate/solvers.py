"""Solvers that misbehave on purpose, and a tool that is broken, for the harness tests.

Importable as factories (`--solver tests.evaluate.solvers:slow_noop`) by the CLI tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from stateforge.errors import TransientError
from stateforge.evaluate import Assignment, BaseSolver, EpisodeHandle, SolverConfig, SolverOutcome
from stateforge.evaluate.solvers.noop import NoopSolver
from stateforge.tasks import Task
from stateforge.tools import Env, tool


class SkipLastCall(BaseSolver):
    """Makes every reference call but the last: a feasible task's last write (or an infeasible task's
    decline) is missing."""

    name = "skip-last"

    def __init__(self, tasks: Mapping[str, Task]) -> None:
        self.tasks = dict(tasks)

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        for call in self.tasks[task.task_id].reference_calls[:-1]:
            episode.call(call.tool, call.arguments)
        return SolverOutcome(messages=[{"role": "user", "content": task.instruction}], turns=1)


class Crashing(BaseSolver):
    """Raises in every episode."""

    name = "crashing"

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        raise RuntimeError("the solver fell over")


class FlakyOracle(BaseSolver):
    """Meets a transient error on the first attempt of each (task, trial), then replays the answer."""

    name = "flaky-oracle"

    def __init__(self, tasks: Mapping[str, Task]) -> None:
        self.tasks = dict(tasks)
        self.seen: set[tuple[str, int]] = set()
        self.lock = threading.Lock()

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        with self.lock:
            first = (task.task_id, task.trial) not in self.seen
            self.seen.add((task.task_id, task.trial))
        if first:
            raise TransientError("the model server timed out (simulated)")
        for call in self.tasks[task.task_id].reference_calls:
            episode.call(call.tool, call.arguments)
        return SolverOutcome(prompt_tokens=100, completion_tokens=10, cost_usd=0.001, llm_calls=2, turns=2)


class ReportsInfra(BaseSolver):
    """Returns an outcome that says the infrastructure failed it."""

    name = "reports-infra"

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        return SolverOutcome(infra_error="the model server is unreachable (simulated)")


class CallsBrokenTool(BaseSolver):
    """Calls the broken tool, then (if it got through) declines."""

    name = "calls-broken-tool"

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        episode.call("explode", {})
        episode.decline("unreachable")
        return SolverOutcome()


@tool(kind="read")
def explode(env: Env) -> dict:
    """A tool with a bug: it always fails with an internal error."""
    raise RuntimeError("the tool is broken")


class SlowNoop(NoopSolver):
    """Declines after a pause (a run long enough to be killed in the middle)."""

    name = "slow-noop"

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        time.sleep(self.delay)
        return super().solve(task, episode)


def slow_noop(config: SolverConfig) -> SlowNoop:
    """Factory for `--solver tests.evaluate.solvers:slow_noop [--option delay=0.3]`."""
    return SlowNoop(float(config.options.get("delay", "0.3")))


def crashing(config: SolverConfig) -> Crashing:
    """Factory for `--solver tests.evaluate.solvers:crashing`."""
    return Crashing()
