"""The pack's domain rules and policies, checked on the file as it is now.

    results = check_rules(con, config, build_report)     # [RuleResult], rules first, then policies

A rule's `check` returns the rows that break it: the build repaired them, so a built database should
return none. A policy's optional `check` does the same for what the product allows. The pack's config
is the one stored in the file (`stateforge.build_meta` 'inputs'), so the report needs no pack folder.
A check DuckDB rejects is reported as such (its error), not raised: the rest of the report still holds.
"""

from __future__ import annotations

from typing import Any

import duckdb

from stateforge.domain.config import DomainConfig
from stateforge.report.model import RuleResult
from stateforge.schema.model import Schema
from stateforge.validation.rules import domain_checks
from stateforge.values import json_row

SAMPLES = 3
"""Offending rows shown per rule."""


def _run(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[int, list[dict[str, Any]]]:
    """The rows a check returns: how many, and the first `SAMPLES` (one evaluation of the check)."""
    body = sql.strip().rstrip(";")
    result = con.execute(
        f"SELECT count(*) OVER () AS __rows, * FROM ({body}) AS v LIMIT {SAMPLES}")
    names = [d[0] for d in result.description][1:]
    rows = result.fetchall()
    samples = [json_row(dict(zip(names, row[1:], strict=True))) for row in rows]
    return (int(rows[0][0]) if rows else 0), samples


def _check(con: duckdb.DuckDBPyConnection, result: RuleResult) -> RuleResult:
    if result.sql:
        try:
            result.violations, result.samples = _run(con, result.sql)
        except duckdb.Error as exc:
            result.error = f"{type(exc).__name__}: {exc}".splitlines()[0]
    return result


def check_rules(
    con: duckdb.DuckDBPyConnection, config: DomainConfig, build: dict[str, Any] | None = None,
    schema: Schema | None = None,
) -> list[RuleResult]:
    """Run every domain check on `con` (with `schema`: the inferred time order too, `domain_checks`), by
    kind (policy, time, family, limit, text, rule), then the action policies (no check: the tools enforce
    them); a check carries the build report's figures for it."""
    built = {r.get("name"): r for r in (build or {}).get("rules", [])}
    checks = (domain_checks(schema, config) if schema is not None else
              list(config.rules) + [p.as_rule() for p in config.policies if p.checked])
    out = [
        _check(con, RuleResult(rule.name, rule.kind, rule.description, rule.check, None,
                               build=built.get(rule.name)))
        for rule in checks
    ]
    out += [RuleResult(p.name, "policy", p.description, None, None)
            for p in config.policies if p.kind == "action"]
    return out


def stored_config(inputs: dict[str, Any] | None) -> tuple[DomainConfig | None, str | None]:
    """The pack's config recorded by the build, or None and why not (a file no build made, a config
    this version cannot read)."""
    if not inputs or "config" not in inputs:
        return None, "The file records no pack config (it was not made by `stateforge build-domain`)."
    try:
        return DomainConfig.model_validate(inputs["config"]), None
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        return None, f"The pack config stored in the file cannot be read by this version ({first})."
