"""Evaluating solvers: episodes graded by their database diff, metrics, runs that resume.

    from stateforge.evaluate import evaluate

    summary = evaluate("music", solver="oracle", k=3)     # artifacts/music/runs/<run_id>/...
    summary["pass_at_k"], summary["groups"]["capability"]

`solver` is the interface a solver implements (`Solver`, `SolverOutcome`, `Assignment`, `Limits`) and
`handle` what it acts through (`EpisodeHandle`); `registry` finds solvers by name (`oracle` and `noop`
live in `solvers/`); `episodes` runs one (task, trial) on a fresh episode and batches of them on a
thread pool; `grader` grades an episode (verifiers, diff, `compare`); `records` and `rundir` are the run's
files; `metrics` the pure functions (Avg@k, Pass@k, Pass^k, intervals, paired comparison); `summary`
and `compare` put them together for one run and for two; `runner` holds the stages; `report` renders.
The guide, with how to write a solver, is docs/evaluate.md.
"""

from __future__ import annotations

from stateforge.evaluate.compare import compare_runs
from stateforge.evaluate.episodes import EpisodeContext, run_batch, run_episode
from stateforge.evaluate.grader import Grade, Grader, GradingError
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.records import EpisodeRecord, RunSpec
from stateforge.evaluate.registry import SOLVERS, SolverError, make_solver, register_solver
from stateforge.evaluate.rundir import RunError, RunFolder
from stateforge.evaluate.runner import STAGES, EvalRun, evaluate, run_evaluation
from stateforge.evaluate.solver import (
    Assignment,
    BaseSolver,
    EpisodeAborted,
    LimitReached,
    Limits,
    Solver,
    SolverConfig,
    SolverOutcome,
)

__all__ = [
    "SOLVERS",
    "STAGES",
    "Assignment",
    "BaseSolver",
    "EpisodeAborted",
    "EpisodeContext",
    "EpisodeHandle",
    "EpisodeRecord",
    "EvalRun",
    "Grade",
    "Grader",
    "GradingError",
    "LimitReached",
    "Limits",
    "RunError",
    "RunFolder",
    "RunSpec",
    "Solver",
    "SolverConfig",
    "SolverError",
    "SolverOutcome",
    "compare_runs",
    "evaluate",
    "make_solver",
    "register_solver",
    "run_batch",
    "run_episode",
    "run_evaluation",
]
