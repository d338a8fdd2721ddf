"""The domain's rules (domain.yaml `rules`), checked after every call that changed a table they read.

A rule's `check` is a query returning the rows that break it. Which tables it reads is found once with
sqlglot; after a call, only the rules reading a changed table run (a rule that cannot be parsed always
runs). The base database is clean (the build's audit and repairs guarantee it), so any row a check finds
after a call was broken by that call, which is then rolled back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb
import sqlglot

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

    def applies(self, changed: set[str]) -> bool:
        """Whether a call that changed `changed` (table names) can break this rule."""
        return self.tables is None or bool(self.tables & {t.lower() for t in changed})

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


def compile_rules(rules: list[Any], schema: Schema) -> list[RuleCheck]:
    """A `RuleCheck` per rule of the domain config, with the schema tables its check reads."""
    known = {t.name.lower() for t in schema.tables}
    out = []
    for rule in rules:
        sql = rule.check.strip().rstrip(";").strip()
        try:
            tables: frozenset[str] | None = frozenset(
                tables_of(sqlglot.parse_one(sql, read="duckdb")) & known
            )
        except sqlglot.errors.SqlglotError:
            tables = None
        out.append(RuleCheck(name=rule.name, description=rule.description, sql=sql, tables=tables))
    return out
