"""Solvers by name, imported only when used: `make_solver("oracle", config, tasks=...)`.

    SOLVERS.add("openai", "stateforge.evaluate.solvers.openai:make",
                "a tool-calling agent over any OpenAI-compatible server", needs_model=True)

`SOLVERS` is a `stateforge.registry.Registry`: an entry names a factory as `module:attribute`; the module is
imported when a run asks for the solver, so an unused solver costs nothing (and its dependencies need not be
installed). The factory is called as `factory(config)` (a `SolverConfig`), or `factory(config, tasks=...)`
for a privileged solver (the oracle: it receives the tasks, reference calls included; no other solver does).

A package adds solvers through the entry-point group `stateforge.solvers`; a name that is not registered
but looks like `package.module:attribute` is imported as a factory, so a solver of your own runs without
registering: `stateforge evaluate music --solver my_agents:make`. An unknown name gets the list and a
did-you-mean.
"""

from __future__ import annotations

from collections.abc import Mapping

from stateforge.errors import TerminalError
from stateforge.evaluate.solver import Solver, SolverConfig
from stateforge.registry import Entry, Registry
from stateforge.tasks import Task


class SolverError(TerminalError):
    """A solver cannot be made: an unknown name, a factory that does not import, a missing setting."""


SOLVERS = Registry("solver", group="stateforge.solvers", error=SolverError, paths=True)
"""Every registered solver, by name. Options: `privileged` (receives the tasks with their answers: only
ground-truth solvers), `needs_model` (refuses to start without `--model`)."""

SOLVERS.add(
    "oracle",
    "stateforge.evaluate.solvers.oracle:make",
    "replays each task's reference calls (the ground truth: must score 100%)",
    privileged=True,
)
SOLVERS.add(
    "noop",
    "stateforge.evaluate.solvers.noop:make",
    "changes nothing and declines every task (passes exactly the infeasible ones)",
)
SOLVERS.add(
    "openai",
    "stateforge.evaluate.solvers.openai_agent:make",
    "a tool-calling agent over any OpenAI-compatible server (the toolkit's tools as functions)",
    needs_model=True,
)
SOLVERS.add(
    "openai-code",
    "stateforge.evaluate.solvers.code_agent:make",
    "E-Bench-Code: one exec_code tool running Python in a sandbox where the tools are functions",
    needs_model=True,
)
SOLVERS.add(
    "mcp",
    "stateforge.evaluate.solvers.mcp_agent:make",
    "an external agent started as a command (--option cmd=...) with its episode's MCP URL",
)


def _register_mutants() -> None:
    """`mutant:<kind>`: the reference with one typical mistake (solvers/mutant.py; docs/evaluate.md)."""
    from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS

    for kind in MUTANT_KINDS:
        SOLVERS.add(
            f"mutant:{kind}",
            f"stateforge.evaluate.solvers.mutant:make_{kind.replace('-', '_')}",
            f"the reference solution with one mistake ({kind}): grading must fail it where it applies",
            privileged=True,
        )


_register_mutants()

register_solver = SOLVERS.add
"""`register_solver(name, "module:attribute", description, privileged=..., needs_model=...)`."""


def solver_entry(name: str) -> Entry:
    """The entry registered as `name`, or one made for a `module:attribute` name; `SolverError` else."""
    return SOLVERS.entry(name)


def make_solver(name: str, config: SolverConfig, *, tasks: Mapping[str, Task] | None = None) -> Solver:
    """The solver registered as `name` (or the factory `module:attribute`), made for `config`.

    `tasks` (id -> task) reaches privileged solvers only. `SolverError` for an unknown name, a factory
    that fails to import, a missing `--model`, or a factory that returns no solver.
    """
    entry = solver_entry(name)
    if entry.options.get("needs_model") and not config.model:
        raise SolverError(f"solver {entry.name!r} needs a model: pass --model NAME.")
    factory = SOLVERS.resolve(entry)
    if not callable(factory):
        raise SolverError(
            f"solver {entry.name!r}: {entry.target} is not callable; give a factory as module:attribute."
        )
    privileged = entry.options.get("privileged", False)
    solver = factory(config, tasks=dict(tasks or {})) if privileged else factory(config)
    if not isinstance(solver, Solver):
        raise SolverError(
            f"solver {entry.name!r}: {entry.target} returned {type(solver).__name__}, not a solver "
            "(an object with `name` and `solve(task, episode)`)."
        )
    return solver
