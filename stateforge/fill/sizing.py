"""How many rows each table gets.

    rows = plan_rows(schema, plan, config, scale=2.0)        # domain.yaml sizes, doubled
    rows = plan_rows(schema, plan, config, rows=500)         # 500 per root table, children by fan-out

A table's size comes from, in order: `per_parent.exactly` (parent rows x exactly); a `per_parent`
distribution (`quantiles` between min and max: what it sums to over the parents); `per_parent` min/max
(its `rows` target, or the midpoint fan-out, kept inside [parents x min, parents x max]); `rows` in
domain.yaml x scale (unless `rows=N` is given); else fan-out from the roots: a root gets N, a child
3 x its largest parent, a link table (a key made of 2+ foreign keys) min(5 N, product of its parents).
A table with `scale: false` keeps its `rows` (or its per_parent target) as they are: neither `scale`
nor `rows=N` changes it (reference tables: genres, plans, heroes).
Every size is then capped by what the table's unique keys can hold (a UNIQUE foreign key column cannot
have more rows than its parent) and is at least 1. Pure and deterministic: no I/O, no randomness.
"""

from __future__ import annotations

import math

from stateforge.domain.config import DomainConfig
from stateforge.fill.key_kinds import first_pass_fks, link_key, per_parent_fk
from stateforge.fill.sampling import quantile_counts
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import Column, ForeignKey, Schema, Table
from stateforge.schema.types import INTEGER_TYPES

DEFAULT_ROWS = 100
"""Rows of a root table for a bare DDL file (no domain.yaml sizes)."""

FANOUT = 3
"""Children per parent row, by default."""

LINK_FANOUT = 5
"""Rows of a link table per root row, by default (capped by the pairs its parents allow)."""

MAX_MULTIPLE = 30
"""No table sized by fan-out gets more than this many times the root size (deep chains stay small)."""


def plan_rows(
    schema: Schema,
    plan: FillPlan,
    config: DomainConfig,
    *,
    scale: float = 1.0,
    rows: int | None = None,
) -> dict[str, int]:
    """Rows for every table of `plan.order` (keys spelled as in the plan)."""
    root = max(1, round((rows if rows is not None else DEFAULT_ROWS) * scale))
    sizes: dict[str, int] = {}
    for name in plan.order:
        table = schema.table(name)
        n = _wanted(table, plan, config, sizes, root, scale, explicit=rows is not None)
        cap = capacity(table, plan, config, sizes)
        sizes[name] = max(min(n, cap) if cap is not None else n, 0 if _exactly_zero(config, name) else 1)
    return sizes


def _exactly_zero(config: DomainConfig, name: str) -> bool:
    cfg = config.table_config(name)
    return bool(cfg and cfg.per_parent and cfg.per_parent.exactly == 0)


def _wanted(
    table: Table,
    plan: FillPlan,
    config: DomainConfig,
    sizes: dict[str, int],
    root: int,
    scale: float,
    *,
    explicit: bool,
) -> int:
    cfg = config.table_config(table.name)
    fixed = cfg is not None and not cfg.scale
    sized = cfg is not None and cfg.rows is not None and (fixed or not explicit)  # the pack's rows hold
    factor = 1.0 if fixed else scale
    if cfg is not None and cfg.per_parent is not None:
        fk = per_parent_fk(table, cfg.per_parent.fk)
        parents = _size_of(sizes, fk.ref_table, root)
        pp = cfg.per_parent
        if pp.exactly is not None:
            return parents * pp.exactly
        if pp.points():  # a declared distribution: its sum
            return int(quantile_counts(parents, pp.points()).sum())
        low, high = parents * (pp.min or 0), parents * (pp.max or 0)
        target = cfg.rows * factor if sized else parents * ((pp.min or 0) + pp.max) / 2
        return int(min(max(round(target), low), high))
    if cfg is not None and cfg.rows is not None and sized:
        return max(1, round(cfg.rows * factor))
    parents = [_size_of(sizes, fk.ref_table, None) for fk in _parent_fks(table, plan)]
    parents_known = [p for p in parents if p is not None]
    if not parents_known:
        return root
    if link_key(table, plan) is not None:
        return min(root * LINK_FANOUT, math.prod(parents_known))
    return min(max(parents_known) * FANOUT, root * MAX_MULTIPLE)


def _parent_fks(table: Table, plan: FillPlan) -> list[ForeignKey]:
    """Foreign keys to other tables filled before this one."""
    return [fk for fk in first_pass_fks(table, plan) if fk.ref_table.lower() != table.name.lower()]


def _size_of(sizes: dict[str, int], table: str, default: int | None) -> int | None:
    for name, n in sizes.items():
        if name.lower() == table.lower():
            return n
    return default


def capacity(table: Table, plan: FillPlan, config: DomainConfig, sizes: dict[str, int]) -> int | None:
    """The most rows the table's unique keys allow given its parents' sizes; None when unbounded.

    A key over foreign-key columns only allows the product of the parents' rows. A key over foreign keys
    and other columns allows that product times the other columns' domain (allowed values, BOOLEAN,
    hinted `values` or integer min..max), halved: random draws near a full key space collide too often.
    Keys with a free column (text, a sequence, a timestamp) are unbounded.
    """
    fks = [fk for fk in _parent_fks(table, plan) if not all(table.column(c).nullable for c in fk.columns)]
    caps: list[int] = []
    for key in table.unique_keys:
        cols = {c.lower() for c in key}
        inside = [fk for fk in fks if {c.lower() for c in fk.columns} <= cols]
        if not inside:
            domain = [_domain_size(table, table.column(c), config) for c in key]
            if all(d is not None for d in domain):  # e.g. a UNIQUE BOOLEAN holds 2 rows
                caps.append(math.prod(d for d in domain if d is not None))
            continue
        parents = [_size_of(sizes, fk.ref_table, None) for fk in inside]
        if any(p is None for p in parents):
            continue
        covered = {c.lower() for fk in inside for c in fk.columns}
        rest = [table.column(c) for c in key if c.lower() not in covered]
        product = math.prod(p for p in parents if p is not None)
        if not rest:
            caps.append(product)
            continue
        domain = [_domain_size(table, c, config) for c in rest]
        if all(d is not None for d in domain):
            caps.append(max(1, product * math.prod(d for d in domain if d is not None) // 2))
    return min(caps) if caps else None


def _domain_size(table: Table, column: Column, config: DomainConfig) -> int | None:
    """How many distinct values a generated column can take, when small and known; else None."""
    hint = config.hint(table.name, column.name)
    if hint is not None:
        if hint.strategy == "sequence" or hint.expr is not None:
            return None
        if hint.values is not None:
            return len(hint.values)
        if hint.constant is not None:
            return 1
        if isinstance(hint.min, int) and isinstance(hint.max, int) and column.base_type in INTEGER_TYPES:
            return hint.max - hint.min + 1
    if column.allowed_values:
        return len([v for v in column.allowed_values if v is not None])
    if column.base_type in ("BOOLEAN", "BOOL"):
        return 2
    return None
