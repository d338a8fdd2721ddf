"""Domain rules: run each rule's check, repair what it finds, clean what the repair left dangling.

    reports = apply_rules(con, schema, config)          # after every table is filled

A rule (domain.yaml `rules:`) is a query returning the rows that break it and the statements that repair
it. Each round checks every rule; the violated ones are repaired, each in one transaction together with
`clean_orphans`, which applies the foreign keys' own semantics to rows the repair left dangling: a child
whose NOT NULL (or ON DELETE CASCADE) key points nowhere is deleted, and so are its own children in turn;
a nullable key that points nowhere is set NULL. After `max_rounds` a rule that still finds rows fails the
build, naming the rule, the count and a sample row; a rule whose SQL DuckDB rejects is a `DomainError`.
"""

from __future__ import annotations

import functools
import time
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from stateforge.constraints import KINDS, Coverage, Reference, table_constraints
from stateforge.domain.config import DomainConfig, Rule
from stateforge.errors import BuildError, DomainError
from stateforge.schema.model import Schema, Table
from stateforge.store.sql import fk_casts, orphans_sql, table_ref
from stateforge.store.sql import quote_ident as _q

COVERAGE = Coverage(
    "the orphan cleanup (stateforge.validation.rules)",
    enforces={"foreign_key": ("delete", "set_null")},
    leaves={
        kind: "a repair's DELETE or UPDATE can only leave foreign keys dangling; its rule and the audit "
        "judge the rest"
        for kind in KINDS
        if kind != "foreign_key"
    },
)
"""The cleanup applies foreign-key semantics only: what it does with each kind of constraint."""


@dataclass
class RuleReport:
    """One domain rule: violations its check found over all rounds, how many were repaired, rounds run."""

    name: str
    kind: str = "rule"
    """The check's kind (`stateforge.domain.config.CheckKind`)."""
    found: int = 0
    """Rows its check returned, summed over the rounds that found some."""
    repaired: int = 0
    """Rows its repair statements changed (updated, deleted or inserted, as DuckDB counts them), summed
    over the rounds; not the same number as `found` (one UPDATE may fix several violations at once)."""
    rounds: int = 0
    seconds: float = 0.0
    """Time spent checking and repairing it, over the rounds."""
    orphans: dict[str, int] = field(default_factory=dict)
    """Rows its repairs left dangling, cleaned by foreign-key semantics (`delete t(c)` / `set_null t(c)`)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "found": self.found,
            "repaired": self.repaired,
            "rounds": self.rounds,
            "seconds": round(self.seconds, 3),
            "orphans": dict(sorted(self.orphans.items())),
        }


def _dangling(schema: Schema, table: Table, ref: Reference, select: str) -> str:
    """The rows of `table` whose foreign key `ref` is set and has no parent (an anti-join)."""
    parent = schema.table(ref.ref_table)
    return orphans_sql(table_ref(table), ref.columns, table_ref(parent), ref.ref_columns, select,
                       fk_casts(table, ref.fk, parent))


def clean_orphans(
    con: duckdb.DuckDBPyConnection, schema: Schema, tables: Collection[str] | None = None
) -> dict[str, int]:
    """Delete or set NULL the rows whose foreign keys point nowhere, until none is left.

    `tables` limits the search to foreign keys into or out of those tables (the ones a repair changed);
    tables whose rows get deleted join the search. Returns the rows changed per
    `delete table(columns)` / `set_null table(columns)`. One query counts the dangling rows of every
    candidate key; only keys with some are cleaned. Runs in the caller's transaction, if any.
    """
    # a changed table's own keys may dangle, and so may its children's; after a DELETE only the children's
    parents = children = None if tables is None else {t.lower() for t in tables}
    totals: Counter[str] = Counter()
    while True:
        actions = [a for a in _actions(schema) if parents is None or children is None
                   or a[3].lower() in parents or a[2].lower() in children]
        if not actions:
            break
        count = " UNION ALL ".join(
            f"SELECT {i} AS i, count(*) AS n FROM ({rows}) AS o" for i, (*_, rows) in enumerate(actions)
        )
        dangling = sorted(i for i, n in con.execute(count).fetchall() if n)
        if not dangling:
            break
        parents, children = set(), set()
        for i in dangling:
            label, sql, child, _, _ = actions[i]
            [(n,)] = con.execute(sql).fetchall()
            totals[label] += int(n)
            if label.startswith("delete"):
                parents.add(child.lower())
    return dict(sorted(totals.items()))


def _actions(schema: Schema) -> list[tuple[str, str, str, str, str]]:
    """Per foreign key: (label, the cleaning statement, child table, parent table, its dangling rows)."""
    out = []
    for table in schema.tables:
        for ref in table_constraints(table).references:
            rows = _dangling(schema, table, ref, "1")
            which = f"WHERE rowid IN ({_dangling(schema, table, ref, 'c.rowid')})"
            label = f"{ref.dangling} {table.name}({', '.join(ref.columns)})"
            if ref.dangling == "set_null":
                sets = ", ".join(f"{_q(c)} = NULL" for c in ref.nullable)
                sql = f"UPDATE {table_ref(table.name)} SET {sets} {which}"
            else:
                sql = f"DELETE FROM {table_ref(table.name)} {which}"
            out.append((label, sql, table.name, schema.table(ref.ref_table).name, rows))
    return out


@functools.lru_cache(maxsize=512)
def _parsed(statement: str) -> exp.Expression | None:
    """`statement` parsed once (a repair's statements are read three ways; a time-order rule's SQL takes
    sqlglot tens of milliseconds); None when it does not parse. The tree is only read."""
    try:
        return sqlglot.parse_one(statement, read="duckdb")
    except sqlglot.errors.SqlglotError:
        return None


def changed_tables(statements: list[str]) -> set[str] | None:
    """The tables that DELETE, UPDATE or INSERT statements write to; None when one cannot be parsed."""
    out: set[str] = set()
    for statement in statements:
        tree = _parsed(statement)
        if tree is None:
            return None
        if isinstance(tree, exp.Delete | exp.Update | exp.Insert):
            target = tree.this.find(exp.Table) if not isinstance(tree.this, exp.Table) else tree.this
            if target is None:
                return None
            out.add(target.name)
        elif not isinstance(tree, exp.Select):
            return None  # something else (MERGE, a DDL, ...): search everywhere
    return out


def _writes(statement: str) -> bool:
    """Whether `statement` is a DELETE, UPDATE or INSERT (whose result is the count of rows changed)."""
    return isinstance(_parsed(statement), exp.Delete | exp.Update | exp.Insert)


def _count(con: duckdb.DuckDBPyConnection, rule: Rule) -> int:
    sql = rule.check.strip().rstrip(";")
    try:
        [(n,)] = con.execute(f"SELECT count(*) FROM ({sql}) AS violations").fetchall()
    except duckdb.Error as exc:
        raise DomainError(
            f"rule {rule.name}: its check failed in DuckDB: {exc}. Fix `check` of the rule in domain.yaml."
        ) from exc
    return int(n)


def _sample(con: duckdb.DuckDBPyConnection, rule: Rule) -> dict[str, object]:
    result = con.execute(f"SELECT * FROM ({rule.check.strip().rstrip(';')}) AS violations LIMIT 1")
    names, rows = [d[0] for d in result.description], result.fetchall()
    return dict(zip(names, rows[0], strict=True)) if rows else {}


def read_tables(schema: Schema, sql: str) -> set[str] | None:
    """The tables of `schema` a rule's check reads (bare lower-case names); None when that cannot be
    told: the SQL does not parse, or it reads something that is neither a table of the schema nor one of
    its own CTEs (a view, a table function)."""
    tree = _parsed(sql)
    if tree is None:
        return None
    tables = {t.name.split(".")[-1].lower() for t in schema.tables}
    ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
    names = {t.name.lower() for t in tree.find_all(exp.Table)}
    if any(not n or (n not in tables and n not in ctes) for n in names):
        return None
    return names - ctes


def _bare(names: Collection[str]) -> set[str]:
    return {n.split(".")[-1].lower() for n in names}


def _key_columns(schema: Schema, table: str) -> set[str] | None:
    """The columns of `table` a foreign key reads (its own keys' and those its children reference), lower
    case; None when `table` is not in the schema."""
    bare = table.split(".")[-1].lower()
    found = [t for t in schema.tables
             if t.name.lower() == table.lower() or t.name.split(".")[-1].lower() == bare]
    if len(found) != 1:
        return None
    mine = found[0]
    cols = {c.lower() for fk in mine.foreign_keys for c in fk.columns}
    for other in schema.tables:
        for fk in other.foreign_keys:
            if fk.ref_table.lower() == mine.name.lower():
                cols |= {c.lower() for c in fk.ref_columns}
    return cols


def may_dangle(schema: Schema, statement: str, changed: int) -> set[str] | None:
    """The tables whose foreign keys `statement` (having changed `changed` rows) may have left dangling:
    none for a SELECT, a statement that changed nothing, or an UPDATE of columns no foreign key reads;
    the target otherwise; None when that cannot be told."""
    tree = _parsed(statement)
    if tree is None:
        return None
    if isinstance(tree, exp.Select) or (changed == 0 and isinstance(tree, exp.Delete | exp.Update)):
        return set()
    targets = changed_tables([statement])
    if targets is None or len(targets) != 1:
        return targets
    [target] = targets
    if isinstance(tree, exp.Update):
        keys = _key_columns(schema, target)
        sets = [e.this for e in tree.expressions if isinstance(e, exp.EQ)]
        if keys is not None and all(isinstance(c, exp.Column) for c in sets) \
                and not {c.name.lower() for c in sets} & keys:
            return set()
    return targets


def _repair(con: duckdb.DuckDBPyConnection, schema: Schema, rule: Rule, report: RuleReport
            ) -> set[str] | None:
    """Run the rule's repair and clean what it left dangling, in one transaction; the tables written
    (bare lower-case names; None: not known). Only the tables a statement may have left dangling
    (`may_dangle`) are searched for orphans."""
    con.begin()
    try:
        risky: set[str] | None = set()
        for i, statement in enumerate(rule.repair):
            try:
                result = con.execute(statement).fetchall()
            except duckdb.Error as exc:
                raise DomainError(
                    f"rule {rule.name}: repair statement {i + 1} failed in DuckDB: {exc}. "
                    "Fix `repair` of the rule in domain.yaml."
                ) from exc
            n = None
            if _writes(statement) and result and len(result[0]) == 1:
                n = int(result[0][0])  # DuckDB answers a DML statement with its row count
                report.repaired += n
            dangle = may_dangle(schema, statement, -1 if n is None else n)
            risky = None if risky is None or dangle is None else risky | dangle
        changed = changed_tables(rule.repair)
        written = None if changed is None else _bare(changed)
        cleaned = clean_orphans(con, schema, risky) if risky is None or risky else {}
        for key, n in cleaned.items():
            report.orphans[key] = report.orphans.get(key, 0) + n
            if written is not None and n:  # "delete table(columns)" / "set_null table(columns)"
                written |= _bare([key.split(" ", 1)[1].rsplit("(", 1)[0]])
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return written


def domain_checks(schema: Schema, config: DomainConfig) -> list[Rule]:
    """Every check the built data must hold, in the order the build repairs them: the time order inferred
    from the DDL (`stateforge.validation.time_order`, parents first), the text of `values_by` hints
    (`stateforge.validation.text_fit`), the domain's rules (consistency, family, limit, text), then its
    state policies and procedures (kind `policy`)."""
    from stateforge.graph import plan_fill
    from stateforge.validation.text_fit import text_rules
    from stateforge.validation.time_order import time_rules

    try:
        order = plan_fill(schema).order
    except Exception:  # an unplannable schema is reported by the fill itself; keep the DDL's order
        order = schema.table_names
    return (time_rules(schema, config, order) + text_rules(schema, config) + list(config.rules)
            + [p.as_rule() for p in config.policies if p.checked])


def apply_rules(
    con: duckdb.DuckDBPyConnection, schema: Schema, config: DomainConfig, max_rounds: int = 8,
    rules: list[Rule] | None = None,
) -> list[RuleReport]:
    """Check and repair every domain check (`domain_checks`, or `rules`) until none finds a row (see the
    module docstring).

    A rule is counted again only if a repair since its last count wrote to a table its check reads
    (`read_tables`): its rows are unchanged, so is its answer."""
    all_rules = domain_checks(schema, config) if rules is None else rules
    reports = [RuleReport(rule.name, rule.kind) for rule in all_rules]
    reads = [read_tables(schema, rule.check) for rule in all_rules]
    # a rule's answer is known while no table it reads was written since it was counted: `writes[t]` is
    # the number of the last repair that wrote t ("*": a repair whose targets are not known)
    writes: dict[str, int] = {}
    counted = [-1] * len(all_rules)
    found = [0] * len(all_rules)
    repairs = 0

    def fresh(i: int) -> bool:
        if counted[i] < 0 or reads[i] is None:
            return False
        last = max([writes.get(t, -1) for t in reads[i]] + [writes.get("*", -1)])
        return last < counted[i]

    def count(i: int) -> int:
        if not fresh(i):
            started = time.perf_counter()
            found[i] = _count(con, all_rules[i])
            counted[i] = repairs + 1
            reports[i].seconds += time.perf_counter() - started
        return found[i]

    def repair(i: int) -> None:
        nonlocal repairs
        started = time.perf_counter()
        changed = _repair(con, schema, all_rules[i], reports[i])
        repairs += 1
        for t in ["*"] if changed is None else changed:
            writes[t] = repairs
        counted[i] = -1  # its own repair may write none of what it reads: count it again all the same
        reports[i].seconds += time.perf_counter() - started

    # the time order first, in one pass parents-first: a child checked after its parents' repair is
    # repaired once, not once per round of a chain
    for i, rule in enumerate(all_rules):
        if rule.kind != "time":
            continue
        # a self-reference (a referral, a reply) settles one link of a chain per repair
        for _ in range(max_rounds):
            n = count(i)
            if not n or not rule.repair:
                break
            reports[i].found += n
            reports[i].rounds += 1
            repair(i)
    for round_ in range(max_rounds + 1):
        violated = [i for i in range(len(all_rules)) if count(i)]
        if not violated:
            break
        for i in violated:
            rule, rep, n = all_rules[i], reports[i], found[i]
            what = "rule" if rule.kind == "rule" else f"{rule.kind} check"
            if round_ == max_rounds or not rule.repair:
                why = f"still finds {n} row(s) after {max_rounds} rounds of repairs" if rule.repair else (
                    f"finds {n} row(s) and has no repair statements")
                raise BuildError(
                    f"{what} {rule.name} {why}, e.g. {_sample(con, rule)}. Fix the rule's repair in "
                    "domain.yaml, or make the data right by construction with a column hint (sequence, "
                    "after, expr)."
                )
            rep.found += n
            rep.rounds += 1
            repair(i)
    return reports
