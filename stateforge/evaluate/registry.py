"""Solvers by name, imported only when used: `make_solver("oracle", config, tasks=...)`.

    register_solver(SolverEntry("openai", "stateforge.evaluate.solvers.openai:make",
                                "a tool-calling agent over any OpenAI-compatible server", needs_model=True))

An entry names a factory as `module:attribute`; the module is imported when a run asks for the solver, so
an unused solver costs nothing (and its dependencies need not be installed). The factory is called as
`factory(config)` (a `SolverConfig`), or `factory(config, tasks=...)` for a privileged solver (the oracle:
it receives the tasks, reference calls included; no other solver does).

A name that is not registered but looks like `package.module:attribute` is imported as a factory, so a
solver of your own runs without registering: `stateforge evaluate music --solver my_agents:make`. An
unknown name gets the list and a did-you-mean.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from stateforge.errors import TerminalError
from stateforge.evaluate.solver import Solver, SolverConfig
from stateforge.schema.model import suggest
from stateforge.tasks import Task


class SolverError(TerminalError):
    """A solver cannot be made: an unknown name, a factory that does not import, a missing setting."""


@dataclass(frozen=True)
class SolverEntry:
    """A registered solver."""

    name: str
    factory: str
    """`module:attribute` of a callable returning the solver."""
    description: str
    privileged: bool = False
    """Receives the tasks with their answers (`tasks=`): only ground-truth solvers (the oracle)."""
    needs_model: bool = False
    """Refuse to start without `--model`."""


SOLVERS: dict[str, SolverEntry] = {}
"""Every registered solver, by name."""


def register_solver(entry: SolverEntry) -> SolverEntry:
    """Add `entry` to `SOLVERS` (a later registration of the same name replaces it)."""
    SOLVERS[entry.name] = entry
    return entry


register_solver(
    SolverEntry(
        "oracle",
        "stateforge.evaluate.solvers.oracle:make",
        "replays each task's reference calls (the ground truth: must score 100%)",
        privileged=True,
    )
)
register_solver(
    SolverEntry(
        "noop",
        "stateforge.evaluate.solvers.noop:make",
        "changes nothing and declines every task (passes exactly the infeasible ones)",
    )
)


register_solver(
    SolverEntry(
        "openai",
        "stateforge.evaluate.solvers.openai_agent:make",
        "a tool-calling agent over any OpenAI-compatible server (the toolkit's tools as functions)",
        needs_model=True,
    )
)
register_solver(
    SolverEntry(
        "openai-code",
        "stateforge.evaluate.solvers.code_agent:make",
        "E-Bench-Code: one exec_code tool running Python in a sandbox where the tools are functions",
        needs_model=True,
    )
)
register_solver(
    SolverEntry(
        "mcp",
        "stateforge.evaluate.solvers.mcp_agent:make",
        "an external agent started as a command (--option cmd=...) with its episode's MCP URL",
    )
)


def _register_mutants() -> None:
    """`mutant:<kind>`: the reference with one typical mistake (solvers/mutant.py; docs/evaluate.md)."""
    from stateforge.evaluate.solvers.mutant_kinds import MUTANT_KINDS

    for kind in MUTANT_KINDS:
        register_solver(
            SolverEntry(
                f"mutant:{kind}",
                f"stateforge.evaluate.solvers.mutant:make_{kind.replace('-', '_')}",
                f"the reference solution with one mistake ({kind}): grading must fail it where it applies",
                privileged=True,
            )
        )


_register_mutants()


def solver_entry(name: str) -> SolverEntry:
    """The entry registered as `name`, or one made for a `module:attribute` name; `SolverError` else."""
    found = SOLVERS.get(name.strip().lower()) if isinstance(name, str) else None
    if found is not None:
        return found
    if isinstance(name, str) and ":" in name and name.split(":", 1)[0].strip():
        return SolverEntry(name, name.strip(), f"the factory {name}")
    valid = ", ".join(sorted(SOLVERS))
    raise SolverError(
        f"unknown solver {name!r}.{suggest(str(name), list(SOLVERS))} Registered: {valid}; or give a factory "
        "of your own as module:attribute (e.g. my_agents:make)."
    )


def load_factory(entry: SolverEntry) -> Callable[..., Any]:
    """Import the entry's factory; `SolverError` naming the module and what to install or fix."""
    module_name, _, attribute = entry.factory.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SolverError(
            f"solver {entry.name!r}: cannot import {module_name} ({exc}). Install what it needs, or check "
            "that the module is on the Python path (module:attribute)."
        ) from exc
    factory = getattr(module, attribute, None) if attribute else None
    if not callable(factory):
        raise SolverError(
            f"solver {entry.name!r}: {module_name} has no callable {attribute or '(attribute missing)'}; "
            "give the factory as module:attribute."
        )
    return factory


def make_solver(name: str, config: SolverConfig, *, tasks: Mapping[str, Task] | None = None) -> Solver:
    """The solver registered as `name` (or the factory `module:attribute`), made for `config`.

    `tasks` (id -> task) reaches privileged solvers only. `SolverError` for an unknown name, a factory
    that fails to import, a missing `--model`, or a factory that returns no solver.
    """
    entry = solver_entry(name)
    if entry.needs_model and not config.model:
        raise SolverError(f"solver {entry.name!r} needs a model: pass --model NAME.")
    factory = load_factory(entry)
    solver = factory(config, tasks=dict(tasks or {})) if entry.privileged else factory(config)
    if not isinstance(solver, Solver):
        raise SolverError(
            f"solver {entry.name!r}: {entry.factory} returned {type(solver).__name__}, not a solver "
            "(an object with `name` and `solve(task, episode)`)."
        )
    return solver
