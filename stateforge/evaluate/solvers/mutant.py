"""The `mutant:<kind>` solvers: each task's reference solution with one typical mistake (`mutations.py`).

    stateforge evaluate music --solver mutant:drop-item      # one kind
    stateforge mutants music                                 # every kind, and the report of what failed

A mutant is privileged like the oracle (it is handed the tasks). It decides per task whether its mistake
applies; where it does not, the episode ends with `stop_reason` `not_applicable` and the reason in its
details (`mutant`, `applicable`, `why`, `did`), and the mutant report leaves it out of the share: a
mutant that does not apply is neither a pass nor a fail. Where it applies, the grade must fail it.
"""

from __future__ import annotations

from collections.abc import Mapping

from stateforge.errors import TerminalError
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solver import Assignment, BaseSolver, SolverConfig, SolverOutcome
from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS
from stateforge.evaluate.solvers.mutations import MUTATIONS, MutantRun
from stateforge.tasks import Task
from stateforge.tools import CANNOT_COMPLETE

NOT_APPLICABLE = "not_applicable"
PREFIX = "mutant:"


class MutantSolver(BaseSolver):
    """Replays each task's reference calls with the mistake of one kind (see the module docstring)."""

    def __init__(self, kind: str, tasks: Mapping[str, Task]) -> None:
        if kind not in MUTATIONS:
            raise TerminalError(f"no mutant kind {kind!r}; the kinds: {', '.join(MUTATIONS)}.")
        self.kind = kind
        self.name = PREFIX + kind
        self._tasks = dict(tasks)

    def solve(self, task: Assignment, episode: EpisodeHandle) -> SolverOutcome:
        """Make the mutated reference calls; `not_applicable` when the mistake cannot be made here."""
        reference = self._tasks.get(task.task_id)
        if reference is None:
            raise TerminalError(f"{self.name} has no task {task.task_id}: it mutates only the run's tasks.")
        kinds = {tool["name"]: tool.get("kind", "read") for tool in episode.listing()}
        run = MutantRun(reference, episode, kinds, others=list(self._tasks.values()))
        why = MUTATIONS[self.kind](run)
        declined = any(r.tool == CANNOT_COMPLETE and r.ok for r in run.results)
        stop = NOT_APPLICABLE if why is not None else ("declined" if declined else "done")
        return SolverOutcome(
            stop_reason=stop,
            details={"mutant": self.kind, "applicable": why is None, "why": why, "did": run.did},
        )

    def describe(self) -> dict[str, str]:
        """The mutant's kind."""
        return {"mutant": self.kind}


def factory(kind: str):  # noqa: ANN201 - a registry factory for one kind
    """The registry's factory of `mutant:<kind>`."""

    def make(config: SolverConfig, *, tasks: Mapping[str, Task]) -> MutantSolver:
        return MutantSolver(kind, tasks)

    make.__name__ = "make_" + kind.replace("-", "_")
    return make


for _kind in MUTANT_KINDS:
    globals()["make_" + _kind.replace("-", "_")] = factory(_kind)
