"""The `ignore-procedure` mutation: the reference solution with the steps that serve an organisational
procedure left out, as an agent that goes for the goal the short way.

    why = ignore_procedure(MutantRun(task, episode, kinds))      # None: applied; a str: why it does not

A procedure (`kind: procedure` in domain.yaml: "a P1 gets a major-incident manager informed") is what the
organisation asks of the actor; the tools do not refuse what breaks it, and every task touching the tables
its check reads has its policy verifier. The mutation applies to a task with such a verifier:

1. rehearse the reference on a scratch copy of the base (the mutant is privileged, like the oracle; its
   copies are its own, never graded) to learn the tables each call changes;
2. the candidate steps: the write calls that succeeded there and changed rows only in tables that the
   procedure's check reads;
3. rehearse the reference without one candidate at a time, then without all of them: the first omission
   after which the procedure's check finds rows (the procedure is broken, not merely a step skipped that
   did not matter) and, if one does, the goal's verifiers still pass (the goal reached, the procedure
   ignored) is the mutation; none: not applicable;
4. make those calls on the episode.

Where it applies, the grade must fail it, and its reasons name the procedure (`policy check <name>`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from stateforge.episode import Episode, compile_rules
from stateforge.evaluate.gradestate import utc
from stateforge.tasks.verifiers import rows_match
from stateforge.values import json_value

if TYPE_CHECKING:
    from stateforge.episode.rules import RuleCheck
    from stateforge.evaluate.solvers.mutations import MutantRun
    from stateforge.tasks import Task

Calls = list[tuple[str, dict[str, Any]]]


def ignore_procedure(run: MutantRun) -> str | None:
    """Leave out the reference's procedure steps (see the module docstring); None when applied."""
    # privileged: the scratch copies are of the episode's own base, with its tools and actor
    episode: Episode = run.episode._episode  # noqa: SLF001
    checks = procedure_checks(run.task, episode)
    if not checks:
        return "the task has no policy verifier of a procedure"
    tables: set[str] = set()
    for check in checks:
        if check.tables is None:
            return f"the check of the procedure {check.name} could not be analysed (its tables are unknown)"
        tables |= check.tables
    calls = run.calls
    changed = rehearse(episode, calls)
    names = ", ".join(c.name for c in checks)
    steps = [i for i in run.writes() if i != run.refused() and changed[i] and changed[i] <= tables]
    if not steps:
        return f"no write of the reference changes only what the procedure ({names}) reads"
    tries = [[i] for i in steps] + ([steps] if len(steps) > 1 else [])
    found: tuple[list[int], list[str]] | None = None
    for left_out in tries:
        broken, goal_kept = outcome(episode, run.task, [c for i, c in enumerate(calls) if i not in left_out],
                                    checks)
        if broken and (found is None or goal_kept):
            found = (left_out, broken)
            if goal_kept:
                break
    if found is None:
        return f"leaving out the calls that serve it keeps the procedure ({names})"
    left_out, broken = found
    skipped = ", ".join(f"call {i + 1} ({calls[i][0]})" for i in left_out)
    run.did.append(f"left out {skipped}: ignored {', '.join(broken)}")
    run.play([c for i, c in enumerate(calls) if i not in left_out])
    return None


def procedure_checks(task: Task, episode: Episode) -> list[RuleCheck]:
    """The checks of the domain's procedures that `task` has a policy verifier of."""
    verified = {v.name.removeprefix("policy ") for v in task.verifiers if v.kind == "policy"}
    procedures = [p for p in episode.config.policies if p.kind == "procedure" and p.name in verified]
    return compile_rules(procedures, episode.schema)


def rehearse(episode: Episode, calls: Calls) -> list[set[str] | None]:
    """Per call, the tables (lower case) whose rows it changed on a scratch copy of `episode`'s base; None
    for a call that failed there."""
    with _scratch(episode) as scratch:
        return [_changed(scratch, tool, arguments) for tool, arguments in calls]


def outcome(episode: Episode, task: Task, calls: Calls, checks: list[RuleCheck]) -> tuple[list[str], bool]:
    """`calls` made on a scratch copy of `episode`'s base: the names of the `checks` that find rows, and
    whether every goal verifier of `task` passes."""
    with _scratch(episode) as scratch:
        for tool, arguments in calls:
            scratch.call(tool, arguments)
        broken = [check.name for check in checks if scratch.query(check.sql)]
        goals = [v for v in task.verifiers if v.kind == "goal"]
        kept = all(rows_match([json_value(utc(r)) for r in scratch.query(v.sql)], v.expected) for v in goals)
        return broken, kept


def scratch_copy(episode: Episode) -> Episode:
    """A fresh episode on `episode`'s base, with its tools and actor (for a privileged rehearsal)."""
    return _scratch(episode)


def _scratch(episode: Episode) -> Episode:
    return Episode.open(episode.base_path, toolkit=episode.toolkit, actor=episode.actor,
                        workdir=episode.path.parent)


def _changed(scratch: Episode, tool: str, arguments: Mapping[str, Any]) -> set[str] | None:
    result = scratch.call(tool, dict(arguments))
    if not result.ok:
        return None
    return {table.lower() for table, counts in result.changes.items() if any(counts.values())}
