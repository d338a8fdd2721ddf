"""What the evaluation report tabulates and plots, computed from a run's records (no HTML here).

    rows = task_rows(records, task_order)      # one `TaskRow` per task: trials, passes, cost, tokens
    groups = failure_groups(records)           # the commonest failures, grouped by kind of mismatch

A failure kind as the grader writes it (`EpisodeRecord.failures`) is `<mismatch kind> <table>`
(`missing_update listeners`), `<verifier kind> check` (`goal check`) or a sentence about declining
(`declined a feasible task`, `not declined`, `changed an infeasible task`); `failure_groups` turns them
into groups people read ("missing update", "goal check failed") with the tables involved.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from stateforge.evaluate.records import EpisodeRecord, TaskFacts

MISMATCHES = {
    "missing_insert": "missing insert", "unexpected_insert": "unexpected insert",
    "insert_value": "wrong value in an insert", "missing_delete": "missing delete",
    "unexpected_delete": "unexpected delete", "missing_update": "missing update",
    "unexpected_update": "unexpected update", "update_value": "wrong value in an update",
}
"""The grader's mismatch kinds (`stateforge.diff.verdict.MismatchKind`) in words."""


@dataclass
class TaskRow:
    """One task of a run: its facts and how its episodes went."""

    task_id: str
    facts: TaskFacts
    trials: list[EpisodeRecord] = field(default_factory=list)

    @property
    def graded(self) -> list[EpisodeRecord]:
        """Its episodes that were graded (infrastructure errors left out)."""
        return [r for r in self.trials if r.outcome != "infra_error"]

    @property
    def passed(self) -> int:
        return sum(r.outcome == "pass" for r in self.trials)

    @property
    def score(self) -> float | None:
        """Avg@k of the task: the share of its graded trials that passed (None: none was graded)."""
        graded = self.graded
        return self.passed / len(graded) if graded else None

    def mean(self, attribute: str) -> float:
        """The mean of a numeric field over its graded episodes (0 when none)."""
        graded = self.graded
        return sum(float(getattr(r, attribute)) for r in graded) / len(graded) if graded else 0.0

    @property
    def tokens(self) -> float:
        """Mean prompt + completion tokens of a graded episode."""
        return self.mean("prompt_tokens") + self.mean("completion_tokens")


def task_rows(records: list[EpisodeRecord], order: list[str] | None = None) -> list[TaskRow]:
    """One row per task, in `order` (the run's task ids; tasks it lacks follow in record order), trials
    sorted."""
    rows: dict[str, TaskRow] = {}
    for record in records:
        rows.setdefault(record.task_id, TaskRow(record.task_id, record.task)).trials.append(record)
    for row in rows.values():
        row.trials.sort(key=lambda r: r.trial)
    rank = {t: i for i, t in enumerate(order or [])}
    return sorted(rows.values(), key=lambda r: rank.get(r.task_id, len(rank)))


@dataclass
class FailureGroup:
    """Failures of one kind (`missing update`), the episodes that had it, and the tables involved."""

    label: str
    episodes: list[EpisodeRecord] = field(default_factory=list)
    tables: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    """A few of the grader's reasons that belong to this kind, word for word."""


def failure_label(kind: str) -> tuple[str, str | None]:
    """(the group in words, the table) of one failure kind as the grader writes it."""
    head, _, rest = kind.partition(" ")
    if head in MISMATCHES:
        return MISMATCHES[head], rest or None
    if kind.endswith(" check"):
        return f"{kind} failed", None
    return kind, None


def _matches(label: str, table: str | None, reason: str) -> bool:
    """Whether one of the grader's reasons is an instance of this group (for examples)."""
    if table is not None:
        words = label.split()[-1]  # insert / update / delete
        return table in reason and words in reason
    if label.endswith("check failed"):
        return reason.startswith(label.removesuffix(" failed").replace(" check", " check '"))
    return label.split()[0] in reason


def failure_groups(records: list[EpisodeRecord], examples: int = 3) -> list[FailureGroup]:
    """The failures of the failed episodes by group, the commonest first (an episode counts once a group)."""
    groups: dict[str, FailureGroup] = {}
    for record in records:
        if record.outcome != "fail":
            continue
        seen: dict[str, set[str]] = defaultdict(set)
        for kind in record.failures:
            label, table = failure_label(kind)
            group = groups.setdefault(label, FailureGroup(label))
            if not seen[label]:
                group.episodes.append(record)
            if table is not None and table not in seen[label]:
                group.tables[table] += 1
            seen[label].add(table or "")
            for reason in record.reasons:
                if len(group.examples) < examples and reason not in group.examples \
                        and _matches(label, table, reason):
                    group.examples.append(reason)
    return sorted(groups.values(), key=lambda g: (-len(g.episodes), g.label))
