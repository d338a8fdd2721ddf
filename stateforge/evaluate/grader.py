"""Grading one episode: the verifiers on its end state, its diff against the base, `compare` with the task.

    grader = Grader(db_path, schema, config)          # one per run; every worker thread shares it
    grade = grader.grade(task, episode)                # closes the episode; a `Grade`
    grade.passed, grade.reasons, grade.verifiers, grade.diff_summary

In order, for one finished episode:

1. export: the tables the episode may have changed (those its successful calls recorded, cascades
   included, and those the expected diff names; every table when a write went around the calls) are cut
   into groups of rowids, and each group's row count and hash sum is compared with the base's (read once
   per base and process: `basefacts.py`): only the rows of the groups that differ are read out of the
   episode (`delta.py`; of a table the log shows only appended to, only the groups from the base's last
   one on are summed), with the base's rows of the same groups (each group read once per base);
2. diff: those rows are diffed in Python (`rowdiff.py`; a table without a key, or with one Python cannot
   order, in the grader's own DuckDB instance, the base's rows read in place): the diff of the whole
   tables (`delta.py` says why);
3. verifiers: the task's verifiers run on the episode's own connection (its end state, nothing copied):
   each one's rows must equal `expected` as a multiset of canonical JSON rows (times with a zone read in
   UTC, as the gate wrote them). For an episode on a fresh copy of this grader's base, four kinds are
   answered with less, each with the rows its whole SQL gives (`answers.py`): checksums and row counts
   from the group sums, 'keys and constraints' from the rows read for the diff, a domain rule from the
   checks the calls ran when the log is complete;
4. the episode is closed (its copy goes back to the pool), and `compare` grades the diff against the
   task's expected one under the task's policy (the domain's `grading:` defaults beneath it), naming base
   rows by their human column (`db_labeler`).

Only tables the episode may have changed are read: the tools are the only way to change an episode and
record every table they change (cascades included: the tool layer carries them out itself). A write
through `Episode.connection`, which bypasses the log, is caught by `Episode.unlogged_writes`; then, or
when that cannot tell (a CHECKPOINT through that connection), every table of the base is summed and
diffed, and the short cuts that trust the log are off. All of it is public SQL on the episode's tables.

Outcome: a feasible task passes when the diff matches and every verifier passes; an infeasible one when
nothing changed, every verifier passes and the solver declined (`cannot_complete`). A failed feasible
task's reasons end with the policies that refused its calls (`refusal_reasons`), a failed policy verifier
names its policy (`policy check <name>`): which rule or procedure the solver ran into or broke. Everything
that keeps an episode from being graded (a verifier that cannot run, a diff that fails) raises
`GradingError`: an infrastructure error, never the agent's failure.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from stateforge.diff import Diff, DiffError, Policy, compare, db_labeler, diff_specs
from stateforge.diff.labels import DbLabeler
from stateforge.diff.specs import TableSpec, table_specs
from stateforge.domain import DomainConfig
from stateforge.episode import Episode
from stateforge.errors import TerminalError
from stateforge.evaluate.answers import VerifierAnswers
from stateforge.evaluate.basefacts import base_facts, settle_facts
from stateforge.evaluate.delta import (
    GROUP,
    Sums,
    appended_from,
    changed_groups,
    group_sums,
    rowid_filter,
)
from stateforge.evaluate.gradestate import BASE, EpisodeState, TableChange, utc
from stateforge.evaluate.rowdiff import Row, diff_rows, python_diffs
from stateforge.evaluate.timing import Stopwatch
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident, quote_literal, table_ref
from stateforge.tasks import Task, domain_policy
from stateforge.tasks.verifiers import (
    rows_match,
)
from stateforge.validation.checks import CheckQuery
from stateforge.values import dumps, json_value

CACHED_ROWS = 200_000
"""Base rows of changed groups a grader keeps (about, in groups) before it forgets them all."""
MAX_REASONS = 12
"""Mismatch sentences kept per episode (the rest are counted)."""
SHOWN = 300
"""Characters of a verifier's expected or actual rows quoted in a reason."""


class GradingError(TerminalError):
    """An episode could not be graded (a verifier that does not run, a diff that fails): the message names
    the task and what failed. An infrastructure error, not the agent's."""


@dataclass
class VerifierResult:
    """One verifier on the end state."""

    kind: str
    name: str
    passed: bool
    actual: list[dict[str, Any]] | None = None
    """The rows it returned, kept when it failed."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "name": self.name, "passed": self.passed}
        if not self.passed:
            out["actual"] = self.actual
        return out


@dataclass
class Grade:
    """The grade of one episode."""

    passed: bool
    reasons: list[str]
    """Why it failed, in words (empty when it passed)."""
    verifiers: list[VerifierResult]
    diff_summary: dict[str, Any]
    """The actual diff: `{"inserted", "deleted", "updated"}` totals and `tables` -> counts."""
    mismatches: int = 0
    """How many mismatches `compare` found (the reasons quote the first `MAX_REASONS`)."""
    declined: str | None = None
    failures: list[str] = field(default_factory=list)
    """What kinds of failure it had, for counting across episodes: `missing_insert playlists`,
    `goal check`, `not declined`, ..."""
    exact: bool = False
    """Passed with the end state exactly the expected one, every column compared without tolerance."""


def short(rows: Any) -> str:
    """Rows as canonical JSON, cut to `SHOWN` characters."""
    text = dumps(rows)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def diff_summary(diff: Diff) -> dict[str, Any]:
    """Totals and per-table counts of a diff."""
    return {**diff.summary, "tables": {name: t.counts() for name, t in sorted(diff.tables.items())}}


class Grader(VerifierAnswers):
    """Grades episodes of one base database, from any number of threads (see the module docstring)."""

    def __init__(
        self, db_path: str | Path, schema: Schema, config: DomainConfig, *, group: int = GROUP
    ) -> None:
        self.path = Path(db_path).resolve()
        self.group = group
        """Rowids per group (`delta.py`)."""
        self.schema = schema
        self.defaults: Policy = domain_policy(config, schema)
        self._con = duckdb.connect(":memory:", config={"threads": 1})
        try:
            self._con.execute(f"ATTACH {quote_literal(str(self.path))} AS {BASE} (READ_ONLY)")
        except duckdb.Error as exc:
            self._con.close()
            raise GradingError(f"{self.path} cannot be opened as a DuckDB database: {exc}") from exc
        self._local = threading.local()
        self._names = itertools.count(1)
        # what the base holds, shared with this process's other graders of the file (`basefacts.py`)
        self._facts = base_facts(self.path, group)
        self._lock = self._facts.lock
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._plans: dict[str, tuple[str, list[str], list[CheckQuery]] | None] = {}
        if self._facts.specs is None:
            specs, _ = table_specs(self._con, BASE, BASE, names=(str(self.path), str(self.path)))
            with self._lock:
                self._facts.specs = {s.label.lower(): s for s in specs}
        self._specs: dict[str, TableSpec] = self._facts.specs

    def _thread(self) -> tuple[duckdb.DuckDBPyConnection, DbLabeler]:
        """This thread's cursor (on the base, in UTC) and its labeler (whose cache it keeps)."""
        found = getattr(self._local, "state", None)
        if found is None:
            with self._lock:
                cursor = self._con.cursor()
                self._cursors.append(cursor)
            cursor.execute(f"USE {BASE}")
            cursor.execute("SET TimeZone = 'UTC'")
            # an in-memory catalog of this thread's own, where `_diff` puts an episode's changed rows
            self._local.end = f"end_{next(self._names)}"
            cursor.execute(f"ATTACH ':memory:' AS {quote_ident(self._local.end)}")
            found = self._local.state = (cursor, db_labeler(cursor, self.schema))
        return found

    def grade(self, task: Task, episode: Episode, watch: Stopwatch | None = None) -> Grade:
        """Grade `episode` (finished) against `task`, and close it; `GradingError` when it cannot be.
        `watch` times the parts: export, diff, verifiers, close, compare."""
        watch = watch or Stopwatch()
        state: EpisodeState | None = None
        try:
            log = episode.log
            with watch.part("export"):
                declined = episode.declined
                state = self._export(task, episode, log)
            with watch.part("diff"):
                actual = self._diff(task, state)
            with watch.part("verifiers"):
                verifiers = [self._verify(task, episode, v, state) for v in task.verifiers]
        finally:
            with watch.part("close"):
                episode.close()
        with watch.part("compare"):
            _, labels = self._thread()
            try:
                policy = task.grading_policy.over(self.defaults)
                verdict = compare(task.diff, actual, schema=self.schema, policy=policy, labels=labels)
            except DiffError as exc:
                raise GradingError(f"task {task.id}: its expected diff cannot be compared: {exc}") from exc
            exact = verdict.passed and self._exact(task, actual, policy, labels)
        mismatches = [m.message for m in verdict.mismatches[:MAX_REASONS]]
        if len(verdict.mismatches) > MAX_REASONS:
            mismatches.append(f"... and {len(verdict.mismatches) - MAX_REASONS} more mismatches")
        checks = [
            f"{v.kind} check {v.name!r} failed: expected {short(e.expected)}, got {short(v.actual)}"
            for v, e in zip(verifiers, task.verifiers, strict=True)
            if not v.passed
        ]
        failures = list(dict.fromkeys(f"{m.kind} {m.table}" for m in verdict.mismatches))
        # a policy verifier's failure names the policy (`policy one_copy_per_title`): which rule was broken
        failures += list(dict.fromkeys(
            f"policy check {v.name.removeprefix('policy ')}" if v.kind == "policy" else f"{v.kind} check"
            for v in verifiers if not v.passed
        ))
        if task.feasible:
            reasons = mismatches + checks
            if declined is not None and reasons:
                reasons.insert(0, f"declined (cannot_complete: {declined!r}) a task that can be done")
                failures.insert(0, "declined a feasible task")
            if reasons:  # what the tools refused on the way, by policy: the wrong actor, a broken rule
                reasons += refusal_reasons(log)
        else:
            reasons = infeasible_reasons(task, actual, declined, mismatches, checks)
            failures = [
                *(["changed an infeasible task"] if not actual.empty else []),
                *(["not declined"] if declined is None else []),
                *(failures if not actual.empty else [f for f in failures if f.endswith("check")]),
            ]
        return Grade(
            passed=not reasons,
            reasons=reasons,
            verifiers=verifiers,
            diff_summary=diff_summary(actual),
            mismatches=len(verdict.mismatches),
            declined=declined,
            failures=failures if reasons else [],
            exact=exact and not reasons,
        )

    def _exact(self, task: Task, actual: Diff, policy: Policy, labels: Any) -> bool:
        """Whether `actual`, which passed under `policy`, is also the expected diff with every column compared
        exactly: a pass no column rule's tolerance made (what tells an equivalent mutant from an escape)."""
        touched = {t.lower() for t in (*actual.tables, *task.diff.tables)}
        if not any(name.rpartition(".")[0].lower() in (touched | {"*"}) for name in policy.columns):
            return True
        return compare(task.diff, actual, schema=self.schema, policy=Policy(), labels=labels).passed

    # --- the steps --------------------------------------------------------------------------------

    def _written(self, episode: Episode, log: list[Any]) -> tuple[set[str] | None, bool]:
        """The tables (lower case) the episode may have changed, and whether its log records every write:
        those its successful calls recorded (cascades included) when every committed write was a call's
        (`Episode.unlogged_writes`), else every table of the base (not complete); (None, False) when the
        episode is not a fresh copy of this grader's base (a persisting one, or another base), whose
        unwritten tables cannot be taken for the base's."""
        if episode.path == episode.base_path or episode.base_path.resolve() != self.path:
            return None, False
        if episode.unlogged_writes() is not False:
            return set(self._specs), False
        return {t.lower() for result in log if result.ok for t in result.changes}, True

    def _export(self, task: Task, episode: Episode, log: list[Any]) -> EpisodeState:
        """The groups of rows that differ from the base's in every table the episode may have changed
        (`_changed_tables`), and the episode's rows in them: as Python rows for a table diffed in Python
        (`rowdiff.py`), with the base's rows of the same groups; as Arrow for the others."""
        written, complete = self._written(episode, log)
        specs = [self._specs[t] for t in self._changed_tables(task, log, written)]
        con = episode.connection
        refs = [table_ref(spec.label) for spec in specs]
        try:
            base = self._base_groups(specs)
            sums = self._end_sums(con, specs, refs, base, written if complete else None, log)
            # a complete log: every write was a call's, and a call writes rows, never the catalog
            out = EpisodeState(written, data_only=complete, complete=complete, log=log)
            for spec, ref, mine in zip(specs, refs, sums, strict=True):
                found = TableChange(spec, mine, changed_groups(base[spec.label.lower()], mine))
                if found.groups:
                    sql = f"SELECT * FROM {ref} WHERE {rowid_filter(found.groups, size=self.group)}"
                    if python_diffs(spec):
                        found.end_rows = con.execute(sql).fetchall()
                        found.base_rows = self._base_rows(spec, found.groups)
                    else:
                        found.rows = con.sql(sql).to_arrow_table()
                out.changed[spec.label.lower()] = found
        except duckdb.Error as exc:
            raise GradingError(f"task {task.id}: the episode's changed rows cannot be read: {exc}") from exc
        return out

    def _end_sums(
        self, con: duckdb.DuckDBPyConnection, specs: list[TableSpec], refs: list[str],
        base: dict[str, Sums], logged: set[str] | None, log: list[Any],
    ) -> list[Sums]:
        """The episode's group sums of each table (`delta.group_sums`), one statement for all, scanning
        less where the log is complete (`logged`: the tables it names, None when it may miss a write): a
        table it names no write to has the base's groups; of one it shows only appended to, only the
        groups from the base's last one on (where appended rows start) are summed, the others are the
        base's."""
        appended = set() if logged is None else _appended_only(log)
        out: list[Sums | None] = [None] * len(specs)
        todo: list[int] = []
        wheres: list[str | None] = []
        starts: dict[int, int] = {}
        for i, spec in enumerate(specs):
            label = spec.label.lower()
            if logged is not None and label not in logged:
                out[i] = base[label]
                continue
            todo.append(i)
            if label in appended:
                starts[i] = appended_from(base[label])
                wheres.append(f"t.rowid >= {starts[i] * self.group}")
            else:
                wheres.append(None)
        found = group_sums(con, [refs[i] for i in todo], self.group, wheres)
        for i, sums in zip(todo, found, strict=True):
            if i in starts:
                mine = base[specs[i].label.lower()]
                sums = {**{g: v for g, v in mine.items() if g < starts[i]}, **sums}
            out[i] = sums
        return [s if s is not None else {} for s in out]

    def _base_rows(self, spec: TableSpec, groups: list[int]) -> list[Row]:
        """The base's rows of `groups` of `spec`'s table, each group read once per base (up to
        `CACHED_ROWS` rows kept)."""
        label = spec.label.lower()
        found = {(label, g): self._facts.group_rows.get((label, g)) for g in groups}
        missing = [g for (_, g), rows in found.items() if rows is None]
        if missing:
            cursor, _ = self._thread()
            read: dict[tuple[str, int], list[Row]] = {(label, g): [] for g in missing}
            sql = (
                f"SELECT rowid // {int(self.group)}, * FROM {spec.ref(BASE)} "
                f"WHERE {rowid_filter(missing, size=self.group)}"
            )
            for g, *row in cursor.execute(sql).fetchall():
                read[(label, g)].append(tuple(row))
            found.update(read)
            with self._lock:
                if len(self._facts.group_rows) * self.group > CACHED_ROWS:  # keep memory flat on a big base
                    self._facts.group_rows.clear()
                self._facts.group_rows.update(read)
        return [row for key in found for row in found[key] or ()]

    def _changed_tables(self, task: Task, log: list[Any], written: set[str] | None) -> list[str]:
        """Tables a successful call changed, those `written` names and those the expected diff names (lower
        case)."""
        names = {t for result in log if result.ok for t in result.changes} | set(task.diff.tables)
        out = set(written or ())
        for name in names:
            if not self.schema.has_table(name) or self.schema.table(name).name.lower() not in self._specs:
                raise GradingError(
                    f"task {task.id}: table {name!r} is not in the database's model; the task file is from "
                    "another build. Regenerate the tasks on this database."
                )
            out.add(self.schema.table(name).name.lower())
        return sorted(out)

    def _base_groups(self, specs: list[TableSpec]) -> dict[str, Sums]:
        """The groups of `specs`' tables on the base, each table read once per base."""
        missing = [s for s in specs if s.label.lower() not in self._facts.sums]
        if missing:
            cursor, _ = self._thread()
            found = group_sums(cursor, [s.ref(BASE) for s in missing], self.group)
            with self._lock:
                self._facts.sums.update({s.label.lower(): f for s, f in zip(missing, found, strict=True)})
        return {s.label.lower(): self._facts.sums[s.label.lower()] for s in specs}

    def _diff(self, task: Task, state: EpisodeState) -> Diff:
        """The diff from the base to the episode: the differing groups of each table, diffed in Python
        (`rowdiff.py`), or, for a table Python cannot diff, in DuckDB: the base's rows read in place
        (limited to those groups' rowids), the episode's from this thread's in-memory catalog. The same as
        the whole tables' diff (`delta.py`)."""
        moved = [c for c in state.changed.values() if c.groups]
        tables = {
            c.spec.label: diff_rows(c.spec, c.base_rows or [], c.end_rows, utc)
            for c in moved
            if c.end_rows is not None
        }
        rest = [c for c in moved if c.end_rows is None]
        if rest:
            tables |= self._engine_diff(task, state, rest).tables
        return Diff(tables={name: tables[name] for name in sorted(tables) if not tables[name].empty})

    def _engine_diff(self, task: Task, state: EpisodeState, moved: list[TableChange]) -> Diff:
        """`_diff` in DuckDB, for tables without a key or with one Python cannot order."""
        cursor, _ = self._thread()
        end = self._local.end
        try:
            for c in moved:
                target = c.spec.ref(end)
                if c.spec.schema != "main":
                    namespace = f"{quote_ident(end)}.{quote_ident(c.spec.schema)}"
                    cursor.execute(f"CREATE SCHEMA IF NOT EXISTS {namespace}")
                cursor.execute(f"CREATE OR REPLACE TABLE {target} AS FROM {c.spec.ref(BASE)} LIMIT 0")
                view = f"{end}_rows"  # a name of this thread's own
                cursor.register(view, c.rows)
                try:
                    cursor.execute(f"INSERT INTO {target} FROM {quote_ident(view)}")
                finally:
                    cursor.unregister(view)
            state.end = end
            where = {c.spec.label: rowid_filter(c.groups, size=self.group) for c in moved}
            return diff_specs(cursor, [c.spec for c in moved], BASE, end, where=where)
        except (DiffError, duckdb.Error) as exc:
            raise GradingError(f"task {task.id}: the episode's diff failed: {exc}") from exc

    def _verify(self, task: Task, episode: Episode, verifier: Any, state: EpisodeState) -> VerifierResult:
        """Run one verifier on the end state, or answer it from what the episode changed
        (`_answer`) when it is of a kind with a short cut and the episode is a fresh copy of the base."""
        try:
            rows = None if state.written is None else self._answer(episode, verifier, state)
            if rows is None:
                rows = [json_value(utc(row)) for row in episode.query(verifier.sql)]
        except Exception as exc:  # noqa: BLE001 - any failure to run is the task's or the harness's
            raise GradingError(
                f"task {task.id}: the {verifier.kind} verifier {verifier.name!r} cannot run on the end state "
                f"({type(exc).__name__}: {exc}). The task file may be from another build: regenerate it."
            ) from exc
        passed = rows_match(rows, verifier.expected)
        return VerifierResult(verifier.kind, verifier.name, passed, None if passed else rows)

    def close(self) -> None:
        """Close the grader's instance (the base file is never written)."""
        with self._lock:
            for cursor in self._cursors:
                cursor.close()
            self._cursors.clear()
        self._con.close()
        settle_facts(self.path, self.group, self._facts)


def _appended_only(log: list[Any]) -> set[str]:
    """Tables (lower case) the successful calls of `log` changed by appending rows alone (no update or
    delete of theirs touched one)."""
    counts: dict[str, set[str]] = {}
    for result in log:
        if result.ok:
            for table, changed in result.changes.items():
                counts.setdefault(table.lower(), set()).update(k for k, n in changed.items() if n)
    return {table for table, kinds in counts.items() if kinds <= {"inserted"}}


def refusal_reasons(log: list[Any]) -> list[str]:
    """One reason per policy that refused a call of the episode, in the order met: `the policy
    itil_role_required refused resolve_incident: ...`. A feasible task's failure ends with them, so that a
    solver acting as someone without the role, or against a product rule, fails naming the policy."""
    found: dict[str, str] = {}
    for result in log:
        if not result.ok and result.policy and result.policy not in found:
            found[result.policy] = f"the policy {result.policy} refused {result.tool}: {result.error}"
    return list(found.values())


def infeasible_reasons(
    task: Task, actual: Diff, declined: str | None, mismatches: list[str], checks: list[str]
) -> list[str]:
    """Why an infeasible task failed: something changed (what, in words), or the solver did not decline.

    The checks' failures are quoted only when nothing changed: a change already explains the "nothing
    changed" verifier's failure, while a failing check with an empty diff is worth seeing.
    """
    why = task.provenance.infeasible.because if task.provenance.infeasible else "it cannot be done"
    out = []
    if not actual.empty:
        counts = "; ".join(
            f"{name}: " + ", ".join(f"{n} {kind}" for kind, n in t.counts().items() if n)
            for name, t in sorted(actual.tables.items())
        )
        out.append(f"changed the database although the task cannot be done ({why}): {counts}")
        out += mismatches
    if declined is None:
        out.append(f"did not decline the task, which cannot be done ({why}): it should call cannot_complete")
    return out + (checks if actual.empty else [])

