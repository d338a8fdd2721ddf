"""The mutations: each a typical agent mistake applied to a task's reference solution.

    apply = MUTATIONS["drop-item"]
    why = apply(MutantRun(task, episode, kinds, others))   # None: applied; a str: why it does not apply

A mutation acts on the episode through the reference calls, changed in one way, and decides itself
whether it applies to the task (returning the reason when it does not). Everything is derived from the
task's `reference_calls`, the tools' kinds (read / write) and the results the calls return in the episode,
so a mutation works on any task of any pack (docs/evaluate.md, "Mutant solvers", lists each rule).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from stateforge.episode import ToolResult
from stateforge.evaluate.handle import EpisodeHandle
from stateforge.evaluate.solvers.procedure import ignore_procedure
from stateforge.tasks import Task
from stateforge.tasks.reachable import scalars as every_scalar
from stateforge.tools import CANNOT_COMPLETE


@dataclass
class MutantRun:
    """One mutant episode: the task's answer, the episode, the tools' kinds and the run's other tasks."""

    task: Task
    episode: EpisodeHandle
    kinds: Mapping[str, str]
    """Tool name -> `read` or `write`."""
    others: list[Task] = field(default_factory=list)
    """The run's other tasks (the source of an unrelated write)."""
    results: list[ToolResult] = field(default_factory=list)
    did: list[str] = field(default_factory=list)
    """What the mutation changed, in words (kept in the episode's solver details)."""

    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        return [(c.tool, dict(c.arguments)) for c in self.task.reference_calls]

    def is_write(self, tool: str) -> bool:
        return tool != CANNOT_COMPLETE and self.kinds.get(tool) == "write"

    def writes(self) -> list[int]:
        """Indexes of the reference's write calls (`cannot_complete` is not one)."""
        return [i for i, (tool, _) in enumerate(self.calls) if self.is_write(tool)]

    def refused(self) -> int | None:
        """Index of an infeasible task's refused write (the last write before the decline), else None."""
        writes = self.writes()
        return writes[-1] if not self.task.feasible and writes else None

    def call(self, tool: str, arguments: Mapping[str, Any]) -> ToolResult:
        result = self.episode.call(tool, dict(arguments))
        self.results.append(result)
        return result

    def play(self, calls: list[tuple[str, dict[str, Any]]]) -> list[ToolResult]:
        """Make `calls` in order; the results."""
        return [self.call(tool, arguments) for tool, arguments in calls]


Mutation = Callable[[MutantRun], str | None]


# --- reading results ----------------------------------------------------------------------------


def rows_of(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object inside a result (rows of pages, nested lists)."""
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from rows_of(item)
    elif isinstance(value, list):
        for item in value:
            yield from rows_of(item)


def scalars(value: Any) -> Iterator[Any]:
    """Every scalar inside a JSON value, nulls and booleans left out (they name nothing)."""
    return (v for v in every_scalar(value) if v is not None and not isinstance(v, bool))


def field_of(items: list[Any], results: list[ToolResult]) -> list[Any]:
    """The other values of the result field that holds `items` (the kind of thing the list is: song ids),
    in the order the tools returned them; [] when no field of a read result holds one of them."""
    wanted = {_key(v) for v in items}
    best: tuple[tuple[int, bool], list[Any]] = ((0, False), [])
    for result in results:
        if not result.ok:
            continue
        by_field: dict[str, list[Any]] = {}
        for row in rows_of(result.value):
            for name, value in row.items():
                if value is not None and not isinstance(value, (dict, list, bool)):
                    by_field.setdefault(name, []).append(value)
        for values in by_field.values():
            keys = [_key(v) for v in values]
            # the most distinct items held; a field with no repeats (a key) wins a tie over a count
            score = (len(wanted.intersection(keys)), len(set(keys)) == len(keys))
            if score[0] and score > best[0]:
                best = (score, values)
    seen: set[str] = set()
    others = []
    for value in best[1]:
        if _key(value) not in wanted and _key(value) not in seen:
            seen.add(_key(value))
            others.append(value)
    return others


def _key(value: Any) -> str:
    return str(value).strip().lower()


def list_arguments(arguments: Mapping[str, Any]) -> list[str]:
    """Names of the arguments that are lists of scalars."""
    return [
        name for name, value in arguments.items()
        if isinstance(value, list) and value and all(not isinstance(v, (dict, list)) for v in value)
    ]


# --- the mutations ------------------------------------------------------------------------------


def stop_early(run: MutantRun) -> str | None:
    """Premature completion: stop before the last write (and make nothing after it, the decline included)."""
    writes = run.writes()
    if not writes:
        return "the reference makes no write"
    last = writes[-1]
    run.did.append(f"stopped before call {last + 1} ({run.calls[last][0]})")
    run.play(run.calls[:last])
    return None


def skip_prerequisite(run: MutantRun) -> str | None:
    """Skip a prerequisite step: leave out the first of two or more writes, make every other call."""
    writes = run.writes()
    if len(writes) < 2:
        return "fewer than two writes: no write comes before another"
    skip = writes[0]
    run.did.append(f"skipped call {skip + 1} ({run.calls[skip][0]}), a write before {len(writes) - 1} more")
    run.play([c for i, c in enumerate(run.calls) if i != skip])
    return None


PAGE = "offset"


def first_page(run: MutantRun) -> str | None:
    """Read only the first page: leave out every read of a later page (`offset` > 0), leave out of the
    writes' lists the items that none of the calls made, nor the instruction, showed, and leave out a
    one-item write (a bonus, a manager change per worker) whose item only a later page showed."""
    later = [
        i for i, (tool, arguments) in enumerate(run.calls)
        if not run.is_write(tool) and isinstance(arguments.get(PAGE), int) and arguments[PAGE] > 0
    ]
    if not later:
        return "no read was paged (no later page in the reference)"
    skipped = set(later)
    seen: set[str] = {_key(w) for w in re.findall(r"[\w.@'-]+", run.task.instruction)}
    on_later_pages = _later_page_items(run, skipped)
    dropped = 0
    refused_anyway = False
    for i, (tool, arguments) in enumerate(run.calls):
        if i in skipped:
            continue
        lost = 0
        if run.is_write(tool):
            for name in list_arguments(arguments):
                kept = [v for v in arguments[name] if _key(v) in seen]
                lost += len(arguments[name]) - len(kept)
                arguments[name] = kept
            dropped += lost
            if any(isinstance(v, list) and not v for v in arguments.values()):
                run.did.append(f"made no {tool}: every item of it was on a later page")
                continue
            item = next(
                (n for n, v in arguments.items() if not isinstance(v, (dict, list)) and v is not None
                 and _key(v) in on_later_pages and _key(v) not in seen),
                None,
            )
            if item is not None:
                dropped += 1
                run.did.append(f"made no {tool} for {arguments[item]}: only a later page showed that {item}")
                continue
        result = run.call(tool, arguments)
        seen.update(_key(v) for v in scalars(result.value))
        if lost and i == run.refused() and not result.ok:
            refused_anyway = True
    if not dropped:
        return "every item the writes use was on the first page"
    run.did.append(f"read only first pages ({len(later)} later pages left out), {dropped} items lost")
    if refused_anyway:
        # an infeasible task: the shortened call is refused as the reference's was, so no mistake is left
        return "the tools refuse the call without the later pages' items as they refused the reference's"
    return None


def _later_page_items(run: MutantRun, later: set[int]) -> set[str]:
    """The scalars that only the later pages' reads showed (no other read, nor the instruction): the
    reference rehearsed on a scratch copy of the base (privileged, like the oracle), since the mutant does
    not make those reads itself."""
    from stateforge.evaluate.solvers.procedure import scratch_copy

    shown: set[str] = set()
    elsewhere: set[str] = set()
    with scratch_copy(run.episode._episode) as scratch:  # noqa: SLF001
        for i, (tool, arguments) in enumerate(run.calls):
            result = scratch.call(tool, arguments)
            if result.ok and not run.is_write(tool):
                (shown if i in later else elsewhere).update(_key(v) for v in scalars(result.value))
    return shown - elsewhere


def drop_item(run: MutantRun) -> str | None:
    """Drop one item (the last) from the first list argument of a write that has two or more."""
    for i, (tool, arguments) in enumerate(run.calls):
        if not run.is_write(tool):
            continue
        for name in list_arguments(arguments):
            if len(arguments[name]) >= 2:
                return _mutated(run, i, {**arguments, name: arguments[name][:-1]},
                                f"dropped {arguments[name][-1]!r} from {tool}.{name}")
    return "no write takes a list of two or more items"


def add_item(run: MutantRun) -> str | None:
    """Add one item that does not qualify: a value of the same field as a write's list items, returned by
    an earlier read of the reference, but not in the right answer."""

    def change(tool: str, arguments: dict[str, Any], earlier: list[ToolResult]) -> tuple[dict, str] | None:
        for name in list_arguments(arguments):
            candidates = field_of(arguments[name], earlier)
            if candidates:
                return {**arguments, name: [*arguments[name], candidates[0]]}, (
                    f"added {candidates[0]!r} to {tool}.{name}")
        return None

    return _first_write(run, change, "no read returns an item of a write's list that the answer leaves out")


NAME_FIELD = re.compile(r"(name|title|handle)$")


def distractor(run: MutantRun) -> str | None:
    """Resolve an entity to its same-name distractor: a write argument that is the id (or another field)
    of a row a read returned, replaced by that field of another row of the same result with the same name
    or title."""

    def change(tool: str, arguments: dict[str, Any], earlier: list[ToolResult]) -> tuple[dict, str] | None:
        for name, value in arguments.items():
            items = value if isinstance(value, list) else [value]
            for j, item in enumerate(items):
                swap = _twin(item, earlier)
                if swap is None or (isinstance(value, list) and swap in value):
                    continue
                new = [*items[:j], swap, *items[j + 1:]] if isinstance(value, list) else swap
                return {**arguments, name: new}, f"{tool}.{name}: {item!r} -> {swap!r} (same name)"
        return None

    return _first_write(run, change, "no read shows a second entity with the name of one a write acts on")


def _twin(value: Any, results: list[ToolResult]) -> Any:
    """That field of a row with the same name as the row holding `value`, when a result has one."""
    if value is None or isinstance(value, (bool, dict, list)):
        return None
    for result in results:
        if not result.ok:
            continue
        rows = list(rows_of(result.value))
        for row in rows:
            holding = [k for k, v in row.items() if _same(v, value) and not NAME_FIELD.search(k)]
            names = [k for k in row if NAME_FIELD.search(k) and isinstance(row[k], str)]
            for key in holding:
                for other in rows:
                    if other is row or key not in other or _same(other[key], value):
                        continue
                    if any(n in other and _key(other[n]) == _key(row[n]) for n in names):
                        return other[key]
    return None


def _same(a: Any, b: Any) -> bool:
    return not isinstance(a, (dict, list, bool)) and a is not None and _key(a) == _key(b)


BOUND = re.compile(
    r"(^|_)(?P<side>before|after|since|until|from|to|start|end|min|max|at_least|at_most|over|under|"
    r"starts?|ends?|earliest|latest|first|last|low|high|lower|upper)($|_)"
)
LOWER = {"after", "since", "from", "start", "starts", "min", "at_least", "over", "earliest", "first", "low",
         "lower"}


def bound(run: MutantRun) -> str | None:
    """Move a bound across its edge: the first date, time or number argument named as a bound (`after`,
    `since`, `min_...`, `..._before`, ...) moved one unit outward (a day, a minute, 1, the last decimal),
    as a solver that takes an exclusive bound for an inclusive one. Applies where the move changes what
    the writes do (their row counts), that is where the data holds an item at the edge."""
    for i, (tool, arguments) in enumerate(run.calls):
        if tool == CANNOT_COMPLETE:
            continue
        for name, value in arguments.items():
            match = BOUND.search(name)
            moved = _moved(value, match.group("side") in LOWER) if match else None
            if moved is None:
                continue
            calls = run.calls
            calls[i] = (tool, {**arguments, name: moved})
            run.did.append(f"{tool}.{name}: {value!r} -> {moved!r}")
            if run.is_write(tool):
                run.play(calls)
            else:
                _propagate(run, calls, i)
            if _counts(run) == _expected_counts(run.task):
                return f"moving {name} changed no row the writes touch: the data has no item at the edge"
            return None
    return "no argument is a date, time or number bound"


def _propagate(run: MutantRun, calls: list[tuple[str, dict[str, Any]]], index: int) -> None:
    """Make `calls`, the read at `index` changed: items the changed read now returns, of the kind of a
    later write's list, join that list (what a solver does with what it sees)."""
    changed: ToolResult | None = None
    for i, (tool, arguments) in enumerate(calls):
        if changed is not None and changed.ok and run.is_write(tool):
            for name in list_arguments(arguments):
                extra = field_of(arguments[name], [changed])
                if extra:
                    arguments = {**arguments, name: [*arguments[name], *extra]}
                    run.did.append(f"{tool}.{name} gained {extra!r}")
        result = run.call(tool, arguments)
        if i == index:
            changed = result


def _moved(value: Any, lower: bool) -> Any:
    step = -1 if lower else 1
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value + step
    if isinstance(value, float):
        return round(value + step * 0.01, 6)
    if not isinstance(value, str):
        return None
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return (dt.date.fromisoformat(value) + dt.timedelta(days=step)).isoformat()
        if re.match(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}", value):
            moved = dt.datetime.fromisoformat(value) + dt.timedelta(minutes=step)
            return moved.isoformat(sep=value[10])
        if re.fullmatch(r"-?\d+(\.\d+)?", value):
            number = Decimal(value)
            unit = Decimal(1).scaleb(number.as_tuple().exponent)
            return str(number + step * unit)
    except (ValueError, InvalidOperation):
        return None
    return None


def _counts(run: MutantRun) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for result in run.results:
        for table, changes in result.changes.items():
            for kind, n in changes.items():
                if n:
                    total.setdefault(table.lower(), {}).setdefault(kind, 0)
                    total[table.lower()][kind] += n
    return total


def _expected_counts(task: Task) -> dict[str, dict[str, int]]:
    return {
        table.lower(): {kind: len(rows) for kind, rows in parts.items() if rows}
        for table, parts in task.expected_diff["tables"].items()
    }


def repeat_write(run: MutantRun) -> str | None:
    """Repeat a write: make the last write that succeeds twice. Applies where the repeat is accepted and
    changes rows (a refused or no-op repeat leaves no mistake in the data)."""
    writes = [i for i in run.writes() if i != run.refused()]
    if not writes:
        return "no write succeeds in the reference"
    last = writes[-1]
    calls = run.calls
    run.play(calls[: last + 1])
    again = run.call(*calls[last])
    run.play(calls[last + 1:])
    run.did.append(f"repeated call {last + 1} ({calls[last][0]})")
    if not again.ok:
        return f"the tools refuse the repeated {calls[last][0]} ({again.error_kind}): no mistake is left"
    if not any(n for changes in again.changes.values() for n in changes.values()):
        return f"the repeated {calls[last][0]} changes no row: no mistake is left"
    if all(not n for changes in again.changes.values() for k, n in changes.items() if k != "updated"):
        # the same arguments again set the values already set (the tools count the rows they touch)
        return f"the repeated {calls[last][0]} only updates, with the same arguments: idempotent"
    return None


def extra_write(run: MutantRun) -> str | None:
    """Add one unrelated write: before the reference's last call, the first write of another task of the
    run (the next by id whose write the tools accept here and that changes rows)."""
    calls = run.calls
    tail = 1 if calls[-1][0] == CANNOT_COMPLETE else 0
    run.play(calls[: len(calls) - tail])
    later = sorted((t for t in run.others if t.id != run.task.id), key=lambda t: (t.id <= run.task.id, t.id))
    tried = 0
    for other in later:
        write = next((c for c in other.reference_calls if run.is_write(c.tool)), None)
        if write is None or not other.feasible:
            continue
        tried += 1
        result = run.call(write.tool, write.arguments)
        if result.ok and any(n for changes in result.changes.values() for n in changes.values()):
            run.did.append(f"added {write.tool} of task {other.id}")
            run.play(calls[len(calls) - tail:])
            return None
        if tried >= 8:
            break
    run.play(calls[len(calls) - tail:])
    return f"no other task's write was accepted here ({tried} tried)"


Change = Callable[[str, dict[str, Any], list[ToolResult]], "tuple[dict[str, Any], str] | None"]


def _first_write(run: MutantRun, change: Change, none: str) -> str | None:
    """Make the reference's calls in order; the first write that `change` (given the results so far)
    rewrites is made with its new arguments. Returns `none` when no write was changed; not applicable
    also when the reference's call was refused (an infeasible task) and the changed one is refused too."""
    changed = False
    for i, (tool, arguments) in enumerate(run.calls):
        if not changed and run.is_write(tool):
            found = change(tool, arguments, list(run.results))
            if found is not None:
                changed = True
                arguments, what = found
                run.did.append(what)
                result = run.call(tool, arguments)
                if i == run.refused() and not result.ok:
                    run.play(run.calls[i + 1:])
                    return f"the tools refuse the changed call as they refused the reference's " \
                        f"({result.error_kind})"
                continue
        run.call(tool, arguments)
    return None if changed else none


def _mutated(run: MutantRun, index: int, arguments: dict[str, Any], what: str) -> str | None:
    """Make the reference with call `index` given `arguments`; not applicable when the reference's call
    was refused (an infeasible task) and the mutated one is refused too."""
    calls = run.calls
    run.play(calls[:index])
    result = run.call(calls[index][0], arguments)
    run.play(calls[index + 1:])
    run.did.append(what)
    if index == run.refused() and not result.ok:
        return f"the tools refuse the mutated call as they refused the reference's ({result.error_kind})"
    return None


MUTATIONS: dict[str, Mutation] = {
    "stop-early": stop_early,
    "skip-prerequisite": skip_prerequisite,
    "first-page": first_page,
    "drop-item": drop_item,
    "add-item": add_item,
    "distractor": distractor,
    "bound": bound,
    "repeat-write": repeat_write,
    "extra-write": extra_write,
    "ignore-procedure": ignore_procedure,
}
"""Every mutant kind, by its name (`--solver mutant:<kind>`), in the order reports list them."""
