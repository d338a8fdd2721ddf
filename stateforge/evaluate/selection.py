"""Which tasks a run takes: `--tasks FILTER` and `--limit N`.

    select_tasks(tasks, "hard,infeasible")                     # hard AND infeasible
    select_tasks(tasks, "easy,medium,aggregation_computation")  # (easy OR medium) AND that capability
    select_tasks(tasks, "3fa2,91c0", limit=1)                   # ids starting 3fa2 or 91c0; the first one

A filter is words separated by commas. Each word is a capability (`multi_condition_filtering`, ...), a
difficulty (`easy`, `medium`, `hard`), `feasible` / `infeasible`, or the start of a task id (hex digits,
or `id:<prefix>`). Words of one kind are alternatives; kinds must all match. Tasks keep their file order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stateforge.errors import TerminalError
from stateforge.schema.model import suggest
from stateforge.tasks import CAPABILITIES, DIFFICULTIES, Task

HEX = re.compile(r"^[0-9a-f]{1,16}$")
FEASIBILITY = ("feasible", "infeasible")


class FilterError(TerminalError):
    """A `--tasks` filter word that means nothing, or a selection left empty."""


@dataclass
class TaskFilter:
    """A parsed filter: the accepted values of each kind (an empty kind accepts everything)."""

    text: str = ""
    capabilities: set[str] = field(default_factory=set)
    difficulties: set[str] = field(default_factory=set)
    feasibility: set[bool] = field(default_factory=set)
    ids: list[str] = field(default_factory=list)

    def accepts(self, task: Task) -> bool:
        """Whether `task` matches every kind the filter names."""
        return (
            (not self.capabilities or bool(self.capabilities & set(task.capabilities)))
            and (not self.difficulties or task.difficulty in self.difficulties)
            and (not self.feasibility or task.feasible in self.feasibility)
            and (not self.ids or any(task.id.startswith(p) for p in self.ids))
        )


def parse_filter(text: str | None) -> TaskFilter:
    """Parse `--tasks`; `FilterError` naming a word that is none of the kinds (with a did-you-mean)."""
    out = TaskFilter(text=text or "")
    for raw in (text or "").split(","):
        word = raw.strip().lower()
        if not word:
            continue
        if word in CAPABILITIES:
            out.capabilities.add(word)
        elif word in DIFFICULTIES:
            out.difficulties.add(word)
        elif word in FEASIBILITY:
            out.feasibility.add(word == "feasible")
        elif word.startswith("id:") and HEX.match(word[3:]):
            out.ids.append(word[3:])
        elif HEX.match(word):
            out.ids.append(word)
        else:
            names = [*CAPABILITIES, *DIFFICULTIES, *FEASIBILITY]
            raise FilterError(
                f"--tasks: {raw.strip()!r} is not a capability, a difficulty, feasible / infeasible or the "
                f"start of a task id.{suggest(word, names)} Capabilities: {', '.join(CAPABILITIES)}."
            )
    return out


def select_tasks(tasks: list[Task], text: str | None = None, *, limit: int | None = None) -> list[Task]:
    """The tasks `text` accepts, in file order, at most `limit`; `FilterError` when none is left."""
    if limit is not None and limit < 1:
        raise FilterError(f"--limit must be at least 1, got {limit}.")
    chosen = parse_filter(text)
    picked = [t for t in tasks if chosen.accepts(t)]
    if not picked:
        what = f"the filter {text!r} matches none of the {len(tasks)} tasks" if text else "there are no tasks"
        raise FilterError(f"nothing to evaluate: {what}. Loosen --tasks, or generate tasks first.")
    return picked[:limit] if limit is not None else picked
