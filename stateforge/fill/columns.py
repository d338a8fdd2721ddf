"""Planning a table's columns: one `ColumnSpec` each, in the order they must be generated."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np

from stateforge.constraints.checks import After, CheckFacts, ColumnFacts, derive_checks
from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.errors import DomainError
from stateforge.fill.frequencies import table_for, weights_for
from stateforge.fill.infer import infer, kind_of, paired_start
from stateforge.fill.spec import ColumnSpec, new_spec, resolve_bounds, resolve_gaps
from stateforge.fill.topics import topic_of
from stateforge.schema.model import Column, Table
from stateforge.types import decimal_params, text_length

_NAME_STRATEGIES = {"first_name": "first", "last_name": "last", "full_name": "full"}
_NEEDS_NAMES = ("email", "username", "full_name")
_NEEDS_KIND = ("artist_name", "bio")
"""Vocabularies whose form follows a categorical column of the row (see `ColumnSpec.kind_column`)."""
_KIND_WORDS = ("type", "kind", "category")


def is_key(column: Column, table: Table) -> bool:
    """Identity columns and single-column integer (or DECIMAL / NUMBER) primary keys: numbered `start+1 ..`
    by the generator (whole numbers, which any integer column referencing them can hold)."""
    if column.identity or (column.default or "").lower().startswith("nextval("):
        return True
    single_pk = len(table.primary_key) == 1 and table.primary_key[0].lower() == column.name.lower()
    if not single_pk or kind_of(column) not in ("int", "decimal"):
        return False
    precision, scale = decimal_params(column.type) if kind_of(column) == "decimal" else (0, 0)
    return scale == 0 or precision - scale >= 9  # not a DECIMAL(5,2) key: 999 whole numbers, 99,999 values


def is_single_unique(column: Column, table: Table) -> bool:
    name = column.name.lower()
    return any(len(key) == 1 and key[0].lower() == name for key in table.unique_keys)


def plan_columns(table: Table, config: DomainConfig, exclude: Collection[str] = ()) -> list[ColumnSpec]:
    """A spec for every column not in `exclude`, in generation order (bases before dependents).

    Generated columns are never planned: DuckDB computes them.
    """
    facts = derive_checks(table)
    skip = {c.lower() for c in exclude} | {c.lower() for c in table.generated_columns}
    specs = {
        c.name.lower(): choose(c, table, config, facts) for c in table.columns if c.name.lower() not in skip
    }
    for _check, name, _why in facts.impossible:  # NOT NULL ones stop the plan (`require_satisfiable`)
        if name in specs and specs[name].strategy != "expr":
            specs[name].strategy, specs[name].values, specs[name].null_rate = "values", [None], 1.0
    _link_after(specs, table, config, facts)
    _link_names(specs)
    order = _order(specs, table)
    _shrink_bases(order, specs)
    return order


def choose(column: Column, table: Table, config: DomainConfig, facts: CheckFacts) -> ColumnSpec:
    """The spec of one column, before it is linked to the others."""
    hint = config.hint(table.name, column.name) or ColumnHint()
    found: ColumnFacts = facts.get(column.name) or ColumnFacts()
    inference = infer(column, table)
    strategy, reason = _from_hint(hint), "hint"
    if strategy is None and is_key(column, table):
        strategy, reason = "sequence", "key"
    allowed = column.allowed_values or found.values
    if strategy is None and allowed:
        strategy, reason = "values", ("values" if column.allowed_values else "check")
    if strategy is None and found.pattern and kind_of(column) == "str":
        strategy, reason = "code", "check"  # a LIKE / regular expression that fixes every character
    if strategy is None and kind_of(column) == "str":
        strategy = _like_strategy(found.like)  # `LIKE '%_@_%'` asks for e-mail addresses, say
        reason = "check" if strategy else reason
    if strategy is None:
        strategy, reason = inference.strategy, inference.reason
    inferred: dict[str, Any] = inference.params if inference.strategy == strategy else {}
    spec = new_spec(column, strategy, hint, reason)
    spec.topic = topic_of(table)
    if strategy == "values" and spec.values is None:
        spec.values = list(allowed or [])
    frequencies = table_for(inference.strategy, spec.topic)
    if reason in ("values", "check") and spec.values and frequencies is not None:
        spec.weights = weights_for(spec.values, frequencies)  # the DDL's codes, weighted by real use
    spec.pool = spec.pool or inferred.get("pool")
    spec.pattern = spec.pattern or (found.pattern if reason == "check" else None) or inferred.get("pattern")
    spec.like, spec.case, spec.trimmed = list(found.like), found.case, found.trimmed
    if found.decimals is not None and spec.kind in ("decimal", "float"):
        spec.decimals = found.decimals if spec.decimals is None else min(spec.decimals, found.decimals)
    spec.unit = hint.unit or inferred.get("unit", "s")
    if hint.distribution is None and "distribution" in inferred:
        spec.distribution = inferred["distribution"]
    spec.unique = (
        bool(hint.unique)
        if hint.unique is not None
        else (is_single_unique(column, table) and strategy != "sequence")
    )
    resolve_bounds(spec, found, inferred, config)
    in_key = spec.key in {k.lower() for k in table.primary_key}
    never_null = (
        not column.nullable
        or in_key
        or found.not_null
        or column.identity
        or strategy in ("sequence", "constant", "expr")
    )
    spec.null_rate = (
        0.0 if never_null else (hint.null_rate if hint.null_rate is not None else config.null_rate)
    )
    lengths = [n for n in (text_length(column.type, column.length), found.max_len) if n is not None]
    spec.max_len = min(lengths) if lengths else None
    spec.min_len = found.min_len
    return spec


_LIKE_STRATEGIES = (("@", "email"), ("http", "url"), ("www.", "url"))


def _like_strategy(patterns: list[str]) -> str | None:
    """The strategy whose values a LIKE pattern describes (an e-mail address, a URL), if any."""
    for pattern in patterns:
        for mark, strategy in _LIKE_STRATEGIES:
            if mark in pattern.lower():
                return strategy
    return None


def _from_hint(hint: ColumnHint) -> str | None:
    if hint.expr is not None:
        return "expr"
    if hint.strategy is not None:
        return hint.strategy
    for key, strategy in (
        ("faker", "faker"),
        ("values", "values"),
        ("constant", "constant"),
        ("pattern", "code"),
        ("within", "sequence"),
    ):
        if getattr(hint, key) is not None:
            return strategy
    return None


def _compatible(dependent: ColumnSpec, base: ColumnSpec) -> bool:
    time_like = {"ts", "date"}
    if dependent.domain in time_like and base.domain in time_like:
        return True
    return dependent.domain == base.domain and dependent.domain in ("num", "time")


def _link_after(specs: dict[str, ColumnSpec], table: Table, config: DomainConfig, facts: CheckFacts) -> None:
    heuristic: list[tuple[ColumnSpec, str]] = []
    for spec in specs.values():
        if not spec.generated or spec.domain == "other":
            continue
        found = facts.get(spec.name) or ColumnFacts()
        links: list[After] = []
        if spec.hint.after is not None:
            links.append(After(spec.hint.after, strict=spec.hint.min_gap is None))
        links += found.after
        usable = []
        for link in links:
            base = specs.get(link.column.lower())
            if base is not None and base.generated and _compatible(spec, base):
                usable.append(link)
            elif link.column == spec.hint.after:
                raise DomainError(
                    f"{config.source or 'domain.yaml'}: columns.{table.name}.{spec.name}.after: "
                    f'"{link.column}" is not a {spec.domain} column generated with this table '
                    "(foreign keys, expressions and grouped sequences are filled later)."
                )
        if usable:
            spec.after = list(dict.fromkeys(specs[link.column.lower()].name for link in usable))
            resolve_gaps(spec, any(link.strict for link in usable), max(link.gap for link in usable))
        elif spec.domain in ("ts", "date"):
            start = paired_start(spec.column, table)
            if start is not None and start.lower() in specs:
                heuristic.append((spec, start))
    for spec, start in heuristic:
        base = specs[start.lower()]
        if base.generated and _compatible(spec, base) and spec.key not in _ancestors(base, specs):
            spec.after = [base.name]
            resolve_gaps(spec, False, 0.0)


def _link_names(specs: dict[str, ColumnSpec]) -> None:
    roles = {}
    for spec in specs.values():
        role = _NAME_STRATEGIES.get(spec.strategy)
        if role and spec.generated and role not in roles:
            roles[role] = spec.name
    for spec in specs.values():
        if spec.strategy in _NEEDS_NAMES:
            spec.sources = {role: col for role, col in roles.items() if col != spec.name}
            if spec.strategy == "full_name":
                spec.sources.pop("full", None)
    kinds = [s for s in specs.values() if s.strategy == "values" and s.generated and s.values
             and any(s.key == w or s.key.endswith("_" + w) for w in _KIND_WORDS)]
    names = [s for s in specs.values() if s.generated and (s.key == "name" or s.key.endswith("_name"))]
    for spec in specs.values():
        if spec.strategy in _NEEDS_KIND and kinds:
            spec.kind_column = kinds[0].name
        if spec.strategy == "tag" and names:
            spec.sources = {"name": names[0].name}  # a tag abbreviates the row's name


def _deps(spec: ColumnSpec) -> list[str]:
    kind = [spec.kind_column] if spec.kind_column else []
    return [name.lower() for name in [*spec.after, *spec.sources.values(), *kind]]


def _ancestors(spec: ColumnSpec, specs: dict[str, ColumnSpec]) -> set[str]:
    seen: set[str] = set()
    todo = _deps(spec)
    while todo:
        name = todo.pop()
        if name not in seen and name in specs:
            seen.add(name)
            todo += _deps(specs[name])
    return seen


def _order(specs: dict[str, ColumnSpec], table: Table) -> list[ColumnSpec]:
    """Depth-first topological order that keeps the table's order where it can."""
    order: list[ColumnSpec] = []
    state: dict[str, int] = {}

    def visit(key: str, path: list[str]) -> None:
        if state.get(key) == 2:
            return
        if state.get(key) == 1:
            cycle = " -> ".join([*path[path.index(key) :], key])
            raise DomainError(f"table {table.name}: columns depend on each other in a cycle: {cycle}.")
        state[key] = 1
        for dep in _deps(specs[key]):
            if dep in specs:
                visit(dep, [*path, key])
        state[key] = 2
        order.append(specs[key])

    for key in specs:
        visit(key, [])
    return order


def _shrink_bases(order: list[ColumnSpec], specs: dict[str, ColumnSpec]) -> None:
    """Keep each base at least `min_gap` below its dependent's upper bound, so both bounds hold."""
    for spec in reversed(order):
        if not spec.after or spec.hi is None:
            continue
        for name in spec.after:
            base = specs[name.lower()]
            limit = spec.hi - spec.min_gap
            if base.domain == "date" and spec.domain == "ts":
                limit = np.datetime64(limit, "D")
            elif base.domain == "ts" and spec.domain == "date":
                limit = np.datetime64(limit, "us")
            if base.hi is not None and limit < base.hi:
                base.hi = limit
                base.lo = min(base.lo, base.hi)
