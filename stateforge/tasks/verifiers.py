"""The verifiers of a task: SQL with expected rows, of four kinds (EnterpriseOps-Gym's).

    goal          the asked change is there (the recipe's goals; for an infeasible task: nothing changed)
    integrity     keys, NOT NULL, CHECK, lengths and foreign keys of the changed tables, the foreign keys
                  into them of their children (`stateforge.validation.checks`), and every domain rule
                  reading a changed table
    policy        every domain policy with a `check` that reads a changed table
    side_effect   the tables the task does not change keep their rows (a row count and a checksum of the
                  row hashes per table), and the changed ones have the row counts the expected diff implies

Every verifier is one self-contained SELECT (parameters inlined as literals, tables as `main."name"`),
so a grader runs it on an episode's end state as is, and compares the rows it returns with `expected`
as a multiset of canonical JSON rows (`rows_match`).
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
import weakref
from collections.abc import Iterable, Sequence
from decimal import Decimal
from typing import Any

import sqlglot
from sqlglot.tokens import TokenType

from stateforge.diff import Diff
from stateforge.domain import DomainConfig
from stateforge.episode import compile_rules
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_literal, table_ref
from stateforge.tasks.draft import Goal
from stateforge.tasks.model import Verifier
from stateforge.tasks.workspace import Workspace, checksums_sql
from stateforge.validation.checks import build_checks
from stateforge.values import dumps, json_value


def literal(value: Any) -> str:
    """A value as a typed DuckDB literal: DATE '...', TIMESTAMP '...', 12.50, 'text', NULL, [1, 2]."""
    if isinstance(value, dt.datetime):
        kind = "TIMESTAMPTZ" if value.tzinfo is not None else "TIMESTAMP"
        return f"{kind} {quote_literal(value.isoformat(sep=' '))}"
    if isinstance(value, dt.date):
        return f"DATE {quote_literal(value.isoformat())}"
    if isinstance(value, dt.time):
        return f"TIME {quote_literal(value.isoformat())}"
    if isinstance(value, Decimal | uuid.UUID):
        return quote_literal(str(value)) if isinstance(value, uuid.UUID) else str(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, float) and value != value:
        return "'NaN'::DOUBLE"
    return quote_literal(value)


def inline(sql: str, params: Sequence[Any] | None) -> str:
    """`sql` with its `?` placeholders replaced by the literals of `params`, in order (string literals and
    comments that contain a `?` are left alone)."""
    params = list(params or [])
    tokens = sqlglot.tokenize(sql, read="duckdb")
    # `?::BIGINT[]` (a placeholder cast at once) is one QDCOLON token: its `?` is a placeholder too
    marks = [
        t
        for t in tokens
        if (t.token_type == TokenType.PLACEHOLDER and t.text == "?")
        or (t.token_type == TokenType.QDCOLON and t.text == "?::")
    ]
    if len(marks) != len(params):
        raise ValueError(
            f"the SQL has {len(marks)} ? placeholders but {len(params)} parameters were given:\n{sql}"
        )
    out = sql
    for token, value in reversed(list(zip(marks, params, strict=True))):
        out = out[: token.start] + literal(value) + out[token.start + 1 :]
    return out


def rows_match(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> bool:
    """Whether two row lists hold the same canonical rows, in any order."""
    return sorted(dumps(json_value(r)) for r in actual) == sorted(dumps(json_value(r)) for r in expected)


def goal_verifiers(goals: Iterable[Goal]) -> list[tuple[Verifier | None, Goal, str]]:
    """(verifier or None while its expected rows are unknown, goal, inlined SQL) per goal."""
    out = []
    for goal in goals:
        sql = inline(goal.sql, goal.params)
        made = (
            None
            if goal.expected is None
            else Verifier(kind="goal", name=goal.name, sql=sql, expected=goal.expected)
        )
        out.append((made, goal, sql))
    return out


def unchanged(ws: Workspace, tables: list[str], *, kind: str, name: str) -> Verifier:
    """`tables` keep their rows: each one's row count and checksum as on the base (`checksums_sql`)."""
    base = ws.checksums()
    return Verifier(
        kind=kind,  # type: ignore[arg-type]
        name=name,
        sql=checksums_sql(tables),
        expected=[base[t] for t in sorted(tables)],
    )


_CHECKSUM_NAME = re.compile(r"SELECT '((?:[^']|'')*)' AS \"table\", count\(\*\) AS \"rows\", ")


def checksum_tables(sql: str) -> list[str] | None:
    """The tables of a verifier whose SQL is exactly `checksums_sql(tables)` (as `unchanged` writes it:
    one (table, rows, checksum) row per table), in its order; None for any other SQL.

    A grader uses it to answer such a verifier per table: a table the episode never wrote has the base's
    row, so only the written ones need reading. The SQL is rebuilt from the names found and must equal
    `sql` character for character, so an edited or foreign verifier is never taken for one.
    """
    if not sql.startswith("SELECT * FROM (SELECT '"):
        return None
    names = [m.group(1).replace("''", "'") for m in _CHECKSUM_NAME.finditer(sql)]
    if not names or checksums_sql(names) != sql:
        return None
    return names


def nothing_changed(ws: Workspace) -> Verifier:
    """The goal of an infeasible task: every table keeps its rows."""
    return unchanged(ws, [t.name for t in ws.schema.tables], kind="goal", name="nothing changed")


def side_effect_verifiers(ws: Workspace, diff: Diff) -> list[Verifier]:
    """Untouched tables keep their rows; changed tables have the row counts the diff implies."""
    touched = {name.lower() for name in diff.tables}
    untouched = [t.name for t in ws.schema.tables if t.name.lower() not in touched]
    out = []
    if untouched:
        out.append(unchanged(ws, untouched, kind="side_effect", name="untouched tables keep their rows"))
    counts = []
    for name in sorted(diff.tables):
        change = diff.tables[name]
        counts.append({"rows": ws.count(name) + len(change.inserted) - len(change.deleted), "table": name})
    out.append(
        Verifier(
            kind="side_effect",
            name="row counts of the changed tables",
            sql=row_counts_sql([c["table"] for c in counts]),
            expected=counts,
        )
    )
    return out


def row_counts_sql(tables: list[str]) -> str:
    """One SELECT of (table, rows) per table, ordered by table: the row count verifier's SQL."""
    parts = [f'SELECT {quote_literal(t)} AS "table", count(*) AS "rows" FROM {table_ref(t)}' for t in tables]
    return "SELECT * FROM (" + " UNION ALL ".join(parts) + ') AS c ORDER BY "table"'


_COUNT_NAME = re.compile(r"SELECT '((?:[^']|'')*)' AS \"table\", count\(\*\) AS \"rows\" FROM ")


def row_count_tables(sql: str) -> list[str] | None:
    """The tables of a verifier whose SQL is exactly `row_counts_sql(tables)`, in its order; None for any
    other SQL (rebuilt from the names found and compared character for character, as `checksum_tables`)."""
    if not sql.startswith("SELECT * FROM (SELECT '"):
        return None
    names = [m.group(1).replace("''", "'") for m in _COUNT_NAME.finditer(sql)]
    if not names or row_counts_sql(names) != sql:
        return None
    return names


def integrity_verifiers(schema: Schema, config: DomainConfig, diff: Diff) -> list[Verifier]:
    """Constraints of the changed tables, the foreign keys into them of the tables referencing them, and
    the rules reading them.

    A table the task does not change is held to the base's rows by the side-effect verifiers, so of its
    constraints only its foreign keys into a changed table can break without them failing: its
    verifier checks those alone (an HR person is referenced by most of a hybrid's tables)."""
    touched = {name.lower() for name in diff.tables}
    out = []
    for table in schema.tables:
        own = table.name.lower() in touched
        if own or any(fk.ref_table.lower() in touched for fk in table.foreign_keys):
            verifier = keys_verifier(schema, table.name, None if own else touched)
            if verifier is not None:
                out.append(verifier)
    for rule in compile_rules(config.rules, schema):
        if rule.tables is None or rule.tables & touched:
            out.append(_count_verifier("integrity", f"rule {rule.name}", rule.sql))
    return out


def keys_verifier(schema: Schema, table: str, into: Iterable[str] | None = None) -> Verifier | None:
    """The 'keys and constraints' verifier of `table`: every check of it (`stateforge.validation.checks`),
    or with `into` (table names) only its foreign keys into those tables; None when that is no check."""
    built = _built_for(schema)
    if table not in built:
        built[table] = build_checks(schema, [table])
    checks = built[table]
    if into is not None:
        parents = {name.lower() for name in into}
        checks = [q for q in checks if q.kind == "foreign_key" and (q.ref_table or "").lower() in parents]
    if not checks:
        return None
    return Verifier(
        kind="integrity",
        name=f"{KEYS_NAME}{table}",
        sql=constraints_sql([(q.constraint, q.offenders) for q in checks]),
        expected=[],
    )


_BUILT: dict[int, tuple[weakref.ref[Schema], dict[str, list[Any]]]] = {}
"""Each live schema's checks by table: they depend on the schema alone, and the gate asks for every table
that references a changed one in every task (building them was 4% of a workplace task's CPU)."""


def _built_for(schema: Schema) -> dict[str, list[Any]]:
    entry = _BUILT.get(id(schema))
    if entry is None or entry[0]() is not schema:  # a new schema, perhaps at a dead one's address
        entry = (weakref.ref(schema), {})
        _BUILT[id(schema)] = entry
    return entry[1]


KEYS_NAME = "keys and constraints of "
"""The name of a table's constraints verifier, before the table's name."""


def constraints_sql(counts: list[tuple[str, str]]) -> str:
    """The SELECT of (violated, n) for each (constraint, SQL of its offending rows) with offences, ordered
    by constraint: what a 'keys and constraints' verifier runs (and expects no row of)."""
    parts = [
        f"SELECT {quote_literal(name)} AS violated, (SELECT count(*) FROM ({sql}) AS o) AS n"
        for name, sql in counts
    ]
    return "SELECT violated, n FROM (" + " UNION ALL ".join(parts) + ") AS c WHERE n > 0 ORDER BY violated"


_CONSTRAINT_NAME = re.compile(r"SELECT '((?:[^']|'')*)' AS violated, \(SELECT count\(\*\) FROM \(")


def constraint_names(sql: str) -> list[str]:
    """The constraints a `constraints_sql` text counts, in its order (a candidate list: the caller
    rebuilds the SQL from them and compares it character for character, as `row_count_tables`)."""
    return [m.group(1).replace("''", "'") for m in _CONSTRAINT_NAME.finditer(sql)]


def policy_verifiers(schema: Schema, config: DomainConfig, diff: Diff) -> list[Verifier]:
    """The domain's policies with a `check` that reads a changed table: no offending row."""
    touched = {name.lower() for name in diff.tables}
    checked = [p for p in config.policies if p.check]
    return [
        _count_verifier("policy", f"policy {p.name}", p.sql)
        for p in compile_rules(checked, schema)
        if p.tables is None or p.tables & touched
    ]


def procedure_verifier(schema: Schema, config: DomainConfig, name: str) -> Verifier:
    """The policy verifier of one checked policy (a procedure an infeasible task is proved by)."""
    (compiled,) = compile_rules([p for p in config.policies if p.name == name and p.check], schema)
    return _count_verifier("policy", f"policy {name}", compiled.sql)


def count_sql(sql: str) -> str:
    """The SQL of a rule's or a policy's verifier: the number of rows its check finds (`violations`)."""
    return f"SELECT count(*) AS violations FROM ({sql}) AS broken"


def _count_verifier(kind: str, name: str, sql: str) -> Verifier:
    return Verifier(
        kind=kind,  # type: ignore[arg-type]
        name=name,
        sql=count_sql(sql),
        expected=[{"violations": 0}],
    )
