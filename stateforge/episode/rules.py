"""The domain's rules (domain.yaml `rules`), checked after every call that changed a table they read.

A rule's `check` is a query returning the rows that break it. Which tables and columns it reads is found
once with sqlglot; after a call, only the rules reading a changed table run, and of a table the call only
updated, only those whose check mentions a column it set (a rule that cannot be parsed always runs). The
base database is clean (the build's audit and repairs guarantee it), so any row a check finds
after a call was broken by that call, which is then rolled back.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from stateforge.errors import DomainError
from stateforge.schema.model import Schema
from stateforge.tools.constraints import show
from stateforge.tools.errors import RuleError
from stateforge.tools.sqlcheck import tables_of

SAMPLE = 3


@dataclass(frozen=True)
class RuleCheck:
    """One rule, ready to run: its SQL without a trailing `;` and the tables it reads (None: unknown)."""

    name: str
    description: str | None
    sql: str
    tables: frozenset[str] | None
    columns: frozenset[str] | None = None
    """Every column name the check mentions (lower case, any table); None: unknown (a `SELECT *`, or
    the check could not be parsed), every column counts."""

    def applies(self, changed: set[str], columns: Mapping[str, frozenset[str] | None] | None = None) -> bool:
        """Whether a call that changed `changed` (table names) can break this rule. With `columns` (per
        table, the columns its updates set; None where rows were inserted or deleted), a table only
        updated in columns the check never mentions cannot: the check's result depends on the values it
        reads and on which rows exist, and neither changed."""
        hit = {t.lower() for t in changed}
        if self.tables is not None:
            hit &= self.tables
        if not hit:
            return False
        if columns is None or self.columns is None:
            return True
        return any(columns.get(t) is None or columns[t] & self.columns for t in hit)

    def violations(self, con: duckdb.DuckDBPyConnection) -> tuple[int, list[dict[str, Any]]]:
        """(count, first rows) of what the check finds now."""
        try:
            cursor = con.execute(f"SELECT * FROM ({self.sql}) AS broken LIMIT {SAMPLE + 1}")
            names = [d[0] for d in cursor.description or []]
            rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
            if len(rows) <= SAMPLE:
                return len(rows), rows
            [(count,)] = con.execute(f"SELECT count(*) FROM ({self.sql}) AS broken").fetchall()
        except duckdb.Error as exc:
            raise DomainError(
                f"rule {self.name}: its check failed in DuckDB: {exc}. Fix `check` of the rule "
                "in domain.yaml."
            ) from exc
        return int(count), rows[:SAMPLE]

    def error(self, count: int, rows: list[dict[str, Any]]) -> RuleError:
        """The error a call gets for breaking this rule."""
        why = f" ({self.description.strip().rstrip('.')})" if self.description else ""
        sample = "; ".join("{" + ", ".join(f"{k}: {show(v)}" for k, v in r.items()) + "}" for r in rows)
        return RuleError(
            f"the change would break the rule {self.name}{why}: {count} offending row"
            f"{'s' if count != 1 else ''}, e.g. {sample}. Nothing was changed.",
            rule=self.name,
        )


def columns_of(tree: exp.Expr) -> frozenset[str] | None:
    """Lower-case names of every column a parsed check mentions (`USING` ones included); None when it
    selects `*` or `t.*` from a table (any column may matter). `count(*)` reads no column, and a `*` over
    a CTE or a subquery only the columns that one names (they are in the tree too)."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    for star in tree.find_all(exp.Star):
        if isinstance(star.parent, exp.Count):
            continue
        select = star.find_ancestor(exp.Select)
        if select is None:
            return None
        sources = [select.args.get("from_") or select.args.get("from"), *(select.args.get("joins") or [])]
        for source in filter(None, sources):
            table = source.this
            if isinstance(table, exp.Table) and (table.db or table.name.lower() not in ctes):
                return None
    names = {c.name.lower() for c in tree.find_all(exp.Column) if c.name}
    # a whole row read by its table's name or alias (`hash(e)`, `e::VARCHAR`) reads every column
    sources = {t.alias_or_name.lower() for t in tree.find_all(exp.Table)} | {
        t.name.lower() for t in tree.find_all(exp.Table)}
    if any(not c.table and c.name.lower() in sources for c in tree.find_all(exp.Column)):
        return None
    for join in tree.find_all(exp.Join):
        if join.args.get("kind", "").upper() == "NATURAL" or join.args.get("method", "").upper() == "NATURAL":
            return None
        names.update(i.name.lower() for i in join.args.get("using") or [] if getattr(i, "name", None))
    return frozenset(names)


def compile_rules(rules: list[Any], schema: Schema) -> list[RuleCheck]:
    """A `RuleCheck` per rule of the domain config, with the schema tables its check reads."""
    known = {t.name.lower() for t in schema.tables}
    out = []
    for rule in rules:
        sql = rule.check.strip().rstrip(";").strip()
        mentioned, columns = _reads(sql)
        tables = None if mentioned is None else frozenset(mentioned & known)
        out.append(
            RuleCheck(name=rule.name, description=rule.description, sql=sql, tables=tables, columns=columns)
        )
    return out


@lru_cache(maxsize=1024)
def _reads(sql: str) -> tuple[frozenset[str] | None, frozenset[str] | None]:
    """The tables and columns a check's SQL mentions (None, None: it does not parse). Cached: the gate
    compiles the rules again for every task it checks, and a parse is what that costs."""
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
        return frozenset(tables_of(tree)), columns_of(tree)
    except sqlglot.errors.SqlglotError:
        return None, None
