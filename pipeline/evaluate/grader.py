"""Grading one episode: the verifiers on its end state, its diff against the base, `compare` with the task.

    grader = Grader(db_path, schema, config)          # one per run; every worker thread shares it
    grade = grader.grade(task, episode)                # closes the episode; a `Grade`
    grade.passed, grade.reasons, grade.verifiers, grade.diff_summary

In order, for one finished episode:

1. the task's verifiers run on the episode's own connection (its end state, nothing copied): each one's
   rows must equal `expected` as a multiset of canonical JSON rows (times with a zone read in UTC, as
   the gate wrote them). A checksum verifier ('untouched tables keep their rows', 'nothing changed': SQL
   exactly as `checksums_sql` writes it) reads only the tables the episode's successful calls changed
   (cascades included); every other table of a fresh copy of the base is the base's, so its row is the
   base's, read once per grader. Same rows as the whole SQL; an episode that is not a fresh copy of this
   grader's base (a persisting one) runs the whole SQL;
2. the tables the episode changed (every call's recorded changes, cascades included) and those the
   expected diff names are read out of the episode as Arrow, and the episode is closed (its copy deleted);
3. in the grader's own DuckDB instance, where the base is attached read-only, those tables become an
   in-memory catalog and are diffed against the base (`diff_catalogs`); `compare` grades that diff against
   the task's expected one under the task's policy (the domain's `grading:` defaults beneath it), naming
   base rows by their human column (`db_labeler`).

Only changed tables are copied and diffed: the tools are the only way to change an episode and record
every table they change (cascades included: the tool layer carries them out itself). Both the diff and
the checksum verifiers rest on that record: solvers reach an episode only through its tool calls, and
`Episode.connection`, which bypasses the log, is for privileged readers only.

Outcome: a feasible task passes when the diff matches and every verifier passes; an infeasible one when
nothing changed, every verifier passes and the solver declined (`cannot_complete`). Everything that keeps
an episode from being graded (a verifier that cannot run, a diff that fails) raises `GradingError`: an
infrastructure error, never the agent's failure.
"""

from __future__ import annotations

import datetime as dt
import itertools
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb

from pipeline.diff import Diff, DiffError, Policy, compare, db_labeler, diff_catalogs
from pipeline.diff.labels import DbLabeler
from pipeline.domain import DomainConfig
from pipeline.episode import Episode
from pipeline.errors import TerminalError
from pipeline.evaluate.timing import Stopwatch
from pipeline.schema.model import Schema
from pipeline.store.sql import quote_ident, quote_literal, table_ref
from pipeline.tasks import Task, domain_policy
from pipeline.tasks.verifiers import checksum_tables, rows_match
from pipeline.tasks.workspace import checksums_sql
from pipeline.values import dumps, json_value

BASE = "base"
"""The catalog name of the base database in the grader's instance."""
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


def utc(value: Any) -> Any:
    """`value` with every datetime that has a zone moved to UTC (the episode reads in the machine's zone)."""
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC)
    if isinstance(value, list | tuple):
        return [utc(v) for v in value]
    if isinstance(value, dict):
        return {k: utc(v) for k, v in value.items()}
    return value


def short(rows: Any) -> str:
    """Rows as canonical JSON, cut to `SHOWN` characters."""
    text = dumps(rows)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def diff_summary(diff: Diff) -> dict[str, Any]:
    """Totals and per-table counts of a diff."""
    return {**diff.summary, "tables": {name: t.counts() for name, t in sorted(diff.tables.items())}}


class Grader:
    """Grades episodes of one base database, from any number of threads (see the module docstring)."""

    def __init__(self, db_path: str | Path, schema: Schema, config: DomainConfig) -> None:
        self.path = Path(db_path).resolve()
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
        self._lock = threading.Lock()
        self._cursors: list[duckdb.DuckDBPyConnection] = []
        self._plans: dict[str, list[str] | None] = {}
        self._base_sums: dict[str, dict[str, Any]] = {}

    def _thread(self) -> tuple[duckdb.DuckDBPyConnection, DbLabeler]:
        """This thread's cursor (on the base, in UTC) and its labeler (whose cache it keeps)."""
        found = getattr(self._local, "state", None)
        if found is None:
            with self._lock:
                cursor = self._con.cursor()
                self._cursors.append(cursor)
            cursor.execute(f"USE {BASE}")
            cursor.execute("SET TimeZone = 'UTC'")
            found = self._local.state = (cursor, db_labeler(cursor, self.schema))
        return found

    def grade(self, task: Task, episode: Episode, watch: Stopwatch | None = None) -> Grade:
        """Grade `episode` (finished) against `task`, and close it; `GradingError` when it cannot be.
        `watch` times the parts: verifiers, export, diff, compare."""
        watch = watch or Stopwatch()
        try:
            log = episode.log
            with watch.part("verifiers"):
                written = self._written(episode, log)
                verifiers = [self._verify(task, episode, v, written) for v in task.verifiers]
            with watch.part("export"):
                declined = episode.declined
                changed = self._changed_tables(task, log)
                con = episode.connection
                tables = {name: con.sql(f"FROM {table_ref(name)}").to_arrow_table() for name in changed}
        finally:
            episode.close()
        with watch.part("diff"):
            actual = self._diff(task, tables)
        with watch.part("compare"):
            _, labels = self._thread()
            try:
                verdict = compare(
                    task.diff, actual, schema=self.schema, policy=task.grading_policy.over(self.defaults),
                    labels=labels,
                )
            except DiffError as exc:
                raise GradingError(f"task {task.id}: its expected diff cannot be compared: {exc}") from exc
        mismatches = [m.message for m in verdict.mismatches[:MAX_REASONS]]
        if len(verdict.mismatches) > MAX_REASONS:
            mismatches.append(f"... and {len(verdict.mismatches) - MAX_REASONS} more mismatches")
        checks = [
            f"{v.kind} check {v.name!r} failed: expected {short(e.expected)}, got {short(v.actual)}"
            for v, e in zip(verifiers, task.verifiers, strict=True)
            if not v.passed
        ]
        failures = list(dict.fromkeys(f"{m.kind} {m.table}" for m in verdict.mismatches))
        failures += list(dict.fromkeys(f"{v.kind} check" for v in verifiers if not v.passed))
        if task.feasible:
            reasons = mismatches + checks
            if declined is not None and reasons:
                reasons.insert(0, f"declined (cannot_complete: {declined!r}) a task that can be done")
                failures.insert(0, "declined a feasible task")
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
        )

    # --- the steps --------------------------------------------------------------------------------

    def _written(self, episode: Episode, log: list[Any]) -> set[str] | None:
        """The tables (lower case) the episode's successful calls changed, cascades included; None when the
        episode is not a fresh copy of this grader's base (a persisting one, or another base), whose
        unwritten tables cannot be taken for the base's."""
        if episode.path == episode.base_path or episode.base_path.resolve() != self.path:
            return None
        return {t.lower() for result in log if result.ok for t in result.changes}

    def _verify(
        self, task: Task, episode: Episode, verifier: Any, written: set[str] | None = None
    ) -> VerifierResult:
        """Run one verifier on the end state. A checksum verifier ('untouched tables keep their rows',
        'nothing changed') reads only the tables in `written`: every other one is the base's, so its row
        is the base's, read once per grader (`_base_checksums`)."""
        try:
            tables = None if written is None else self._checksum_plan(verifier.sql)
            if tables is None:
                rows = [json_value(utc(row)) for row in episode.query(verifier.sql)]
            else:
                rows = self._checksums(episode, tables, written or set())
        except Exception as exc:  # noqa: BLE001 - any failure to run is the task's or the harness's
            raise GradingError(
                f"task {task.id}: the {verifier.kind} verifier {verifier.name!r} cannot run on the end state "
                f"({type(exc).__name__}: {exc}). The task file may be from another build: regenerate it."
            ) from exc
        passed = rows_match(rows, verifier.expected)
        return VerifierResult(verifier.kind, verifier.name, passed, None if passed else rows)

    def _checksum_plan(self, sql: str) -> list[str] | None:
        """`checksum_tables(sql)`, parsed once per SQL text."""
        if sql not in self._plans:
            found = checksum_tables(sql)
            with self._lock:
                self._plans[sql] = found
        return self._plans[sql]

    def _checksums(self, episode: Episode, tables: list[str], written: set[str]) -> list[dict[str, Any]]:
        """The rows `checksums_sql(tables)` returns on the episode: the written tables read on it, the
        others the base's."""
        mine = [t for t in tables if t.lower() in written]
        rows = [json_value(row) for row in episode.query(checksums_sql(mine))] if mine else []
        base = self._base_checksums([t for t in tables if t.lower() not in written])
        rows += [base[t] for t in tables if t.lower() not in written]
        return sorted(rows, key=lambda r: r["table"].encode())

    def _base_checksums(self, tables: list[str]) -> dict[str, dict[str, Any]]:
        """(table, rows, checksum) of `tables` on the base, each table read once per grader."""
        missing = [t for t in tables if t not in self._base_sums]
        if missing:
            cursor, _ = self._thread()
            cursor.execute(checksums_sql(missing))
            names = [d[0] for d in cursor.description or []]
            found = {r[0]: json_value(dict(zip(names, r, strict=True))) for r in cursor.fetchall()}
            with self._lock:
                self._base_sums.update(found)
        return {t: self._base_sums[t] for t in tables}

    def _changed_tables(self, task: Task, log: list[Any]) -> list[str]:
        """Tables a successful call changed, and those the expected diff names (the schema's spelling)."""
        names = {t for result in log if result.ok for t in result.changes} | set(task.diff.tables)
        out = set()
        for name in names:
            if not self.schema.has_table(name):
                raise GradingError(
                    f"task {task.id}: table {name!r} is not in the database's model; the task file is from "
                    "another build. Regenerate the tasks on this database."
                )
            out.add(self.schema.table(name).name)
        return sorted(out)

    def _diff(self, task: Task, tables: dict[str, Any]) -> Diff:
        """The diff from the base to the exported tables, in an in-memory catalog of this thread."""
        if not tables:
            return Diff(tables={})
        cursor, _ = self._thread()
        catalog = f"end_{next(self._names)}"
        cursor.execute(f"ATTACH ':memory:' AS {quote_ident(catalog)}")
        try:
            for name, data in tables.items():
                target = f"{quote_ident(catalog)}.main.{quote_ident(name)}"
                cursor.execute(f"CREATE TABLE {target} AS FROM {BASE}.main.{quote_ident(name)} LIMIT 0")
                view = f"{catalog}_rows"  # a name of this episode's own
                cursor.register(view, data)
                try:
                    cursor.execute(f"INSERT INTO {target} FROM {quote_ident(view)}")
                finally:
                    cursor.unregister(view)
            return diff_catalogs(
                cursor, BASE, catalog, tables=list(tables), names=(str(self.path), "the episode")
            )
        except (DiffError, duckdb.Error) as exc:
            raise GradingError(f"task {task.id}: the episode's diff failed: {exc}") from exc
        finally:
            cursor.execute(f"USE {BASE}")
            cursor.execute(f"DETACH {quote_ident(catalog)}")

    def close(self) -> None:
        """Close the grader's instance (the base file is never written)."""
        with self._lock:
            for cursor in self._cursors:
                cursor.close()
            self._cursors.clear()
        self._con.close()


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

