"""The verifiers a grader answers with less than their whole SQL, each with the rows that SQL returns.

    rows = grader._answer(episode, verifier, state)     # None: run the verifier's SQL

Recognised by their SQL text exactly as the gate writes it (`stateforge.tasks.verifiers`), for an episode on
a fresh copy of the grader's base:

    checksums     'untouched tables keep their rows', 'nothing changed': from the row groups' sums
    row counts    'row counts of the changed tables': the same
    keys          'keys and constraints of <table>': counted from the rows read for the diff (`pykeys.py`),
                  or narrowed SQL (`narrow.py`)
    rule          'rule <name>': from the checks the episode's calls ran, when its log is complete

`VerifierAnswers` is a part of `Grader` (a base class holding these methods); the caches are the grader's.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Sequence
from functools import partial
from typing import Any

import duckdb

from stateforge.constraints import table_constraints
from stateforge.diff.labels import DbLabeler
from stateforge.diff.specs import TableSpec
from stateforge.episode import Episode
from stateforge.evaluate.basefacts import BaseFacts
from stateforge.evaluate.delta import Sums, rowid_filter, totals
from stateforge.evaluate.gradestate import BASE, EpisodeState, TableChange, utc
from stateforge.evaluate.narrow import LOCAL, CannotNarrow, narrowed_sql
from stateforge.evaluate.pykeys import Rows, orphans, too_long
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident
from stateforge.tasks.verifiers import (
    KEYS_NAME,
    checksum_tables,
    constraint_names,
    constraints_sql,
    count_sql,
    row_count_tables,
)
from stateforge.validation.checks import CheckQuery, build_checks
from stateforge.validation.declared import Declared, declared_constraints
from stateforge.values import json_value

RULE_NAME = "rule "
"""The name of a domain rule's verifier, before the rule's name (`stateforge.tasks.verifiers`)."""


class VerifierAnswers:
    """The short cuts of `Grader` (see the module docstring)."""

    _plans: dict[str, tuple[str, list[str], list[CheckQuery]] | None]
    _facts: BaseFacts
    _specs: dict[str, TableSpec]
    _lock: threading.Lock
    group: int
    schema: Schema

    def _thread(self) -> tuple[duckdb.DuckDBPyConnection, DbLabeler]:
        raise NotImplementedError  # the grader's

    def _base_groups(self, specs: list[TableSpec]) -> dict[str, Sums]:
        raise NotImplementedError  # the grader's

    def _answer(self, episode: Episode, verifier: Any, state: EpisodeState) -> list[dict[str, Any]] | None:
        """The rows of a verifier with a short cut, as its whole SQL returns them; None for the others.

        Checksums and row counts ('untouched tables keep their rows', 'nothing changed', 'row counts of the
        changed tables') come from the group sums: a table the episode did not write has the base's. A
        'keys and constraints' verifier runs with less (`_keys`); a rule's from the calls' own checks
        (`_rule`)."""
        plan = self._plan(verifier)
        if plan is None:
            return None
        kind, tables, checks = plan
        if kind == "keys":
            return self._keys(episode, verifier.sql, tables[0], checks, state)
        if kind == "rule":
            return self._rule(episode, verifier.sql, tables[0], state)
        specs = [self._specs[t.lower()] for t in tables]
        base = self._base_groups(specs)
        rows = []
        for table in tables:
            mine = state.changed.get(table.lower()) if table.lower() in (state.written or ()) else None
            count, checksum = self._totals(table.lower(), base[table.lower()], mine)
            rows.append(
                {"table": table, "rows": count, "checksum": checksum} if kind == "checksums"
                else {"table": table, "rows": count}
            )
        return [json_value(r) for r in sorted(rows, key=lambda r: r["table"].encode())]

    def _totals(self, table: str, base: Sums, mine: TableChange | None) -> tuple[int, int]:
        """(rows, hash sum) of `table` at the episode's end (`delta.totals`): the base's, read once per
        base, moved by the groups that differ (every other group's count and sum are the base's)."""
        found = self._facts.totals.get(table)
        if found is None:
            found = totals(base)
            with self._lock:
                self._facts.totals[table] = found
        if mine is None:
            return found
        if mine.totals is None:
            count, checksum = found
            for g in mine.groups:
                old, new = base.get(g, (0, 0)), mine.sums.get(g, (0, 0))
                count, checksum = count + new[0] - old[0], checksum + new[1] - old[1]
            mine.totals = (count, checksum)
        return mine.totals

    def _plan(self, verifier: Any) -> tuple[str, list[str], list[CheckQuery]] | None:
        """How `_answer` answers a verifier, worked out once per SQL text: ("checksums" or "counts", its
        tables, []), ("keys", [its table], its checks), ("rule", [the rule's name], []), or None (its SQL
        is run)."""
        if verifier.sql in self._plans:
            return self._plans[verifier.sql]
        found: tuple[str, list[str], list[CheckQuery]] | None = None
        if (tables := checksum_tables(verifier.sql)) is not None:
            found = ("checksums", tables, [])
        elif (tables := row_count_tables(verifier.sql)) is not None:
            found = ("counts", tables, [])
        elif verifier.kind == "integrity" and verifier.name.startswith(KEYS_NAME):
            table = verifier.name[len(KEYS_NAME):]
            every = build_checks(self.schema, [table]) if self.schema.has_table(table) else []
            named = {q.constraint: q for q in every}
            checks = [named[c] for c in constraint_names(verifier.sql) if c in named]  # all, or some keys
            made = constraints_sql([(q.constraint, q.offenders) for q in checks]) if checks else None
            if made == verifier.sql:
                found = ("keys", [self.schema.table(table).name], checks)
        elif verifier.kind == "integrity" and verifier.name.startswith(RULE_NAME):
            found = ("rule", [verifier.name[len(RULE_NAME):]], [])
        if found is not None and found[0] != "rule" and any(t.lower() not in self._specs for t in found[1]):
            found = None
        with self._lock:
            self._plans[verifier.sql] = found
        return found

    def _keys(
        self, episode: Episode, sql: str, table: str, checks: list[CheckQuery], state: EpisodeState
    ) -> list[dict[str, Any]] | None:
        """A 'keys and constraints' verifier answered with less than its whole SQL, or None (run it whole).

        When the base breaks none of its constraints (checked once per verifier), the rows outside the
        changed groups are the base's (`delta.py`), and the checks of the rows the grader read for the
        diff are counted in Python (`pykeys.py`): foreign keys (the changed rows against the parent's
        keys on the end state, the unchanged rows holding a removed parent key) and VARCHAR lengths (the
        changed rows). The PRIMARY KEY, UNIQUE, NOT NULL and CHECK constraints count 0: on an unchanged
        table because they read its rows alone; on a changed one because DuckDB enforces on every write
        those its catalog declares (`stateforge.validation.declared`, which the build's audit trusts the same
        way),
        when the episode changed data alone (its catalog is the base's: `EpisodeState.data_only`).
        A table or parent diffed in DuckDB goes to `_keys_sql`."""
        if not self._clean_on_base(sql):
            return None
        mine = state.changed.get(table.lower())
        changed = mine is not None and bool(mine.groups)
        if changed and not state.data_only:
            return None
        if changed and mine.end_rows is None:  # type: ignore[union-attr]
            return self._keys_sql(episode, checks, state, changed)
        own = self._rows(table, mine if changed else None)
        declared = self._declared_constraints() if changed else set()
        counted = []
        try:
            for q in checks:
                if q.kind == "foreign_key":
                    parent = state.changed.get((q.ref_table or "").lower())
                    if parent is not None and not parent.groups:
                        parent = None
                    if parent is not None and parent.end_rows is None:
                        raise CannotNarrow("its parent was diffed in DuckDB")
                    moved = None if parent is None else self._rows(q.ref_table or "", parent)
                    counted.append((q.constraint, orphans(own, moved, q, self._key_counts)))
                elif q.kind == "max_length" and changed:
                    limit = self._limits(table)[q.columns[0]]
                    counted.append((q.constraint, too_long(own, q.columns[0], limit)))
                elif q.kind not in LOCAL or (changed and (q.declared is None or q.declared not in declared)):
                    raise CannotNarrow(f"{q.kind} {q.constraint}")
        except CannotNarrow:
            return self._keys_sql(episode, checks, state, changed)
        found = [{"violated": name, "n": n} for name, n in counted if n > 0]
        return sorted(found, key=lambda r: str(r["violated"]).encode())

    def _keys_sql(
        self, episode: Episode, checks: list[CheckQuery], state: EpisodeState, changed: bool
    ) -> list[dict[str, Any]] | None:
        """`_keys` in SQL on the episode: a changed table without the constraints DuckDB enforces, an
        unchanged one narrowed to the rows whose parent key the episode removed (`narrow.py`)."""
        if changed:
            declared = self._declared_constraints()
            left = [q for q in checks if q.declared is None or q.declared not in declared]
            narrowed = constraints_sql([(q.constraint, q.offenders) for q in left]) if left else None
        else:
            try:
                narrowed = narrowed_sql(checks, partial(self._removed, state))
            except CannotNarrow:
                return None
        if narrowed is None:
            return []
        # SQL of our own making, different for every episode: run as is, not through `Episode.query`'s
        # check (which parses each new text with sqlglot)
        result = episode.connection.execute(narrowed)
        names = [d[0] for d in result.description or []]
        return [json_value(utc(dict(zip(names, row, strict=True)))) for row in result.fetchall()]

    def _rows(self, table: str, found: TableChange | None) -> Rows:
        """The rows of `table`'s changed groups (none when `found` is None) for `pykeys.py`."""
        spec = self._specs[table.lower()]
        if found is None:
            return Rows(spec.label, spec.column_names, [], [])
        return Rows(spec.label, spec.column_names, found.base_rows or [], found.end_rows or [])

    def _key_counts(self, table: str, columns: Sequence[str]) -> Counter[tuple[Any, ...]]:
        """How many base rows of `table` hold each value of `columns` (NULLs left out); once per base."""
        key = (table.lower(), tuple(c.lower() for c in columns))
        if key not in self._facts.counts:
            cursor, _ = self._thread()
            cols = ", ".join(quote_ident(c) for c in columns)
            present = " AND ".join(f"{quote_ident(c)} IS NOT NULL" for c in columns)
            rows = cursor.execute(
                f"SELECT {cols}, count(*) FROM {self._specs[table.lower()].ref(BASE)} WHERE {present} "
                "GROUP BY ALL"
            ).fetchall()
            found = Counter({tuple(r[:-1]): r[-1] for r in rows})
            with self._lock:
                self._facts.counts[key] = found
        return self._facts.counts[key]

    def _limits(self, table: str) -> dict[str, int]:
        """The VARCHAR(n) lengths of `table`'s columns."""
        columns = table_constraints(self.schema.table(table)).columns
        return {c.name: c.max_length for c in columns if c.max_length}

    def _declared_constraints(self) -> set[Declared]:
        """The constraints the base's catalog declares (`stateforge.validation.declared`), read once per
        base."""
        if self._facts.declared is None:
            cursor, _ = self._thread()
            found = declared_constraints(cursor)
            with self._lock:
                self._facts.declared = found
        return self._facts.declared

    def _rule(
        self, episode: Episode, sql: str, name: str, state: EpisodeState
    ) -> list[dict[str, Any]] | None:
        """A domain rule's verifier ('rule <name>'), from the checks the episode's calls already ran.

        The tool layer runs a rule after every call that changed a table it reads, and rolls back a call
        that breaks it (`stateforge.episode.rules`). So when the log is complete (`EpisodeState.complete`),
        the
        tables the rule reads last changed with a call after which it held: it holds on the end state (0
        violations); when no call changed them, they are the base's, and so are the rule's rows (read once
        per grader). None (run it) when the verifier's SQL is not the episode's check of that name, the
        rule's tables are not known, the log may be incomplete, or the last call to change its tables did
        not run it."""
        rule = next((r for r in episode.rules if r.name == name), None)
        if rule is None or rule.tables is None or count_sql(rule.sql) != sql or not state.complete:
            return None
        touched = [r for r in state.log if r.ok and rule.tables & {t.lower() for t in r.changes}]
        if not touched:
            return self._on_base(sql)
        return [{"violations": 0}] if rule.name in touched[-1].rules_checked else None

    def _on_base(self, sql: str) -> list[dict[str, Any]]:
        """The rows `sql` returns on the base, as canonical JSON; once per text."""
        if sql not in self._facts.rows_of:
            cursor, _ = self._thread()
            result = cursor.execute(sql)
            names = [d[0] for d in result.description or []]
            rows = [json_value(dict(zip(names, r, strict=True))) for r in result.fetchall()]
            with self._lock:
                self._facts.rows_of[sql] = rows
        return self._facts.rows_of[sql]

    def _removed(self, state: EpisodeState, parent: str, columns: Any) -> list[tuple[Any, ...]] | None:
        """The values of `parent`'s `columns` its changed groups held on the base and no longer hold (a
        superset of the keys the episode removed), None when no group of it changed."""
        found = state.changed.get(parent.lower())
        if found is None or not found.groups:
            return None
        if found.end_rows is not None:
            names = [c.name.lower() for c in found.spec.columns]
            at = [names.index(c.lower()) for c in columns]
            old = {tuple(r[i] for i in at) for r in found.base_rows or []}
            new = {tuple(r[i] for i in at) for r in found.end_rows}
            return sorted((k for k in old - new if None not in k), key=repr)
        if state.end is None:
            return None
        cursor, _ = self._thread()
        cols = ", ".join(quote_ident(c) for c in columns)
        present = " AND ".join(f"{quote_ident(c)} IS NOT NULL" for c in columns)
        return cursor.execute(
            f"SELECT DISTINCT {cols} FROM {found.spec.ref(BASE)} "
            f"WHERE ({rowid_filter(found.groups, size=self.group)}) AND {present} "
            f"EXCEPT SELECT {cols} FROM {found.spec.ref(state.end)}"
        ).fetchall()

    def _clean_on_base(self, sql: str) -> bool:
        """Whether `sql` (a 'keys and constraints' verifier) returns no row on the base; once per text."""
        if sql not in self._facts.clean:
            cursor, _ = self._thread()
            clean = not cursor.execute(sql).fetchall()
            with self._lock:
                self._facts.clean[sql] = clean
        return self._facts.clean[sql]
