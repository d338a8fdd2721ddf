"""How each foreign key is filled: its kind (first pass, second pass, planned, link pair, 1:1, per_parent),
and what a hint on its columns may say.

    first_pass_fks(table, plan)                       # drawn from stored parent rows
    cdf = parent_cdf(config, "meeting_attendees", fk, n_parents, seed)
    check_key_hints(config, schema)                   # from stateforge.fill.check_config

A foreign key is drawn, not generated, so a hint on one of its columns may only shape the draw:
`distribution` (`uniform` or `zipf`), `skew` (the popularity exponent; 0 is uniform), `null_rate`, and
`llm: false`. `expr` computes the key instead: in the first pass after the row's other columns, in the
second pass (keys that close a cycle, `stateforge.fill.deferred`) in DuckDB over the stored rows. Keys filled
in the second pass may also take `values` (with `weights`) or a `constant`. Anything else is a
`DomainError` naming the column and what it may use (docs/domain-packs.md, "Foreign keys").
"""

from __future__ import annotations

import numpy as np

from stateforge.domain.config import ColumnHint, DomainConfig
from stateforge.errors import DomainError
from stateforge.fill.sampling import DEFAULT_SKEW, popularity_cdf, rng_for
from stateforge.graph.plan import FillPlan, plan_fill
from stateforge.schema.model import ForeignKey, Schema, Table

KEY_HINTS = frozenset({"distribution", "skew", "null_rate", "expr", "llm", "follows"})
"""Hint keys any foreign-key column may use."""

SECOND_PASS_HINTS = frozenset({"values", "weights", "constant", "shares"})
"""Hint keys only keys filled by the second pass may use (the first pass draws keys from stored rows)."""


def _lower(cols: tuple[str, ...] | list[str]) -> list[str]:
    return [c.lower() for c in cols]


def _in(table: Table, fk: ForeignKey, keys: list) -> bool:
    return any(
        d.table.lower() == table.name.lower() and _lower(d.fk.columns) == _lower(fk.columns)
        and d.fk.ref_table.lower() == fk.ref_table.lower()
        for d in keys
    )


def deferred_fks(table: Table, plan: FillPlan) -> list[ForeignKey]:
    """Nullable foreign keys that close a cycle: NULL in the first pass, filled by the second."""
    return [fk for fk in table.foreign_keys if _in(table, fk, plan.deferred)]


def unbroken_fks(table: Table, plan: FillPlan) -> list[ForeignKey]:
    """NOT NULL foreign keys into a table filled later (or into this one): drawn from planned keys."""
    return [fk for fk in table.foreign_keys if _in(table, fk, plan.unbroken)]


def first_pass_fks(table: Table, plan: FillPlan) -> list[ForeignKey]:
    """Foreign keys whose parents are written before this table (drawn from stored rows)."""
    return [fk for fk in table.foreign_keys if not _in(table, fk, plan.deferred + plan.unbroken)]


def fk_columns(table: Table) -> list[str]:
    """Every column of the table that belongs to a foreign key, in DDL order."""
    names = {c.lower() for fk in table.foreign_keys for c in fk.columns}
    return [c.name for c in table.columns if c.name.lower() in names]


def per_parent_fk(table: Table, column: str) -> ForeignKey:
    """The foreign key that `per_parent.fk` names (by one of its columns)."""
    for fk in table.foreign_keys:
        if column.lower() in _lower(fk.columns):
            return fk
    raise DomainError(
        f'tables.{table.name}.per_parent.fk: table {table.name} has no foreign key column "{column}".'
    )


def link_key(table: Table, plan: FillPlan, *, partial: bool = False) -> tuple[str, ...] | None:
    """The first unique key made only of the columns of 2+ first-pass foreign keys to other tables.

    With `partial`, a key with other columns too counts (`(song_id, artist_id, role)`): its foreign-key
    columns are returned, and drawing them without duplicates keeps the whole key unique.
    """
    fks = [fk for fk in first_pass_fks(table, plan) if fk.ref_table.lower() != table.name.lower()]
    for key in table.unique_keys:
        cols = set(_lower(key))
        inside = [fk for fk in fks if set(_lower(fk.columns)) <= cols]
        covered = {c for fk in inside for c in _lower(fk.columns)}
        if len(inside) >= 2 and (covered == cols or partial):
            return tuple(c for c in key if c.lower() in covered)
    return None


def is_unique_fk(table: Table, fk: ForeignKey) -> bool:
    """True when the foreign key's columns are exactly a unique key of the table (a 1:1 relation)."""
    return any(sorted(_lower(k)) == sorted(_lower(fk.columns)) for k in table.unique_keys)


def null_rate(config: DomainConfig, table: str, column: str) -> float:
    """The share of NULLs for a nullable column: its hint's, else the domain's."""
    hint = config.hint(table, column)
    return hint.null_rate if hint is not None and hint.null_rate is not None else config.null_rate


def key_skew(config: DomainConfig, table: str, fk: ForeignKey) -> float | None:
    """The popularity exponent a hint on one of the key's columns sets (None: no hint sets one).

    `check_key_hints` makes sure the hints of one key's columns agree.
    """
    for column in fk.columns:
        hint = config.hint(table, column)
        if hint is not None and (skew := hint.popularity(DEFAULT_SKEW)) is not None:
            return skew
    return None


def parent_cdf(
    config: DomainConfig, table: str, fk: ForeignKey, n: int, seed: int, default: float = DEFAULT_SKEW
) -> np.ndarray:
    """Draw probabilities of the `n` parents of `fk`: the parent table's ranking, the key's skew."""
    if not n:
        return np.zeros(0)
    skew = key_skew(config, table, fk)
    return popularity_cdf(n, rng_for(seed, fk.ref_table, "popularity"), default if skew is None else skew)


def check_key_hints(config: DomainConfig, schema: Schema, plan: FillPlan | None = None) -> None:
    """Raise `DomainError` for a hint on a foreign-key column that uses a key the draw cannot honour."""
    plan = plan or plan_fill(schema)
    for key, hint in config.columns.items():
        table_name, column = key.rsplit(".", 1)
        table = schema.table(table_name)
        fks = [fk for fk in table.foreign_keys if column.lower() in _lower(fk.columns)]
        where = f"columns.{key}"
        if not fks:
            if hint.skew is not None:
                config.fail(f"{where}.skew", f'"{column}" is not a foreign-key column; skew shapes how '
                      "often each parent is drawn. Use distribution (normal, lognormal, zipf) for values.")
            if hint.follows is not None:
                config.fail(f"{where}.follows", f'"{column}" is not a foreign-key column; follows sets a '
                      "foreign key to its parent's value along another key.")
            continue
        via = [hint.follows.via.lower()] if hint.follows is not None else None
        if via and not any(_lower(fk.columns) == via and all(fk is not f for f in fks)
                           for fk in table.foreign_keys):
            config.fail(f"{where}.follows.via", f'"{hint.follows.via}" is not a single-column foreign key of '
                  f"{table.name} other than {column}'s: name the key to the parent whose value it takes.")
        second = [fk for fk in fks if any(fk is d for d in deferred_fks(table, plan))]
        allowed = KEY_HINTS | (SECOND_PASS_HINTS if len(second) == len(fks) else frozenset())
        extra = sorted(set(hint.model_fields_set) - allowed)
        if extra:
            why = (" values, weights and constant only for keys filled in the second pass (nullable keys "
                   "that close a cycle); use expr to compute a key") if set(extra) & SECOND_PASS_HINTS else ""
            config.fail(where, f'"{column}" is a foreign-key column: its hint may use '
                  f"{', '.join(sorted(allowed))}, not {', '.join(extra)}.{why}")
        _check_shape(config, table, column, hint, fks, where)
        for fk in second:
            _check_second_pass(config, table, fk, where)


def _check_shape(config: DomainConfig, table: Table, column: str, hint: ColumnHint, fks: list[ForeignKey],
                 where: str) -> None:
    if hint.distribution not in (None, "uniform", "zipf"):
        config.fail(f"{where}.distribution", "a foreign key is drawn with distribution uniform or zipf "
              f"(how often each parent is picked), not {hint.distribution}.")
    if hint.llm:
        config.fail(f"{where}.llm", "foreign keys are never written by the LLM; remove llm: true.")
    skew = hint.popularity(DEFAULT_SKEW)
    if skew is None:
        return
    if hint.sets_value():
        config.fail(where, "distribution/skew shape random draws, while expr, values or constant set the "
              "key itself: keep one of them.")
    cfg = config.table_config(table.name)
    for fk in fks:
        what = None
        if fk.ref_table.lower() == table.name.lower():
            what = "a self-reference points at an earlier row of its table (a forest); shape it with expr"
        elif is_unique_fk(table, fk):
            what = "a UNIQUE foreign key takes every parent at most once"
        elif cfg is not None and cfg.per_parent is not None and cfg.per_parent.exactly is not None \
                and cfg.per_parent.fk.lower() in _lower(fk.columns):
            what = f"per_parent.exactly gives every parent {cfg.per_parent.exactly} rows"
        if what:
            config.fail(where, f"popularity does not apply to {column}: {what}.")
        other = key_skew(config, table.name, fk)
        if other is not None and other != skew:
            config.fail(where, f"the columns of foreign key ({', '.join(fk.columns)}) set different skews "
                  f"({other} and {skew}): give the hint on one column.")


def _check_second_pass(config: DomainConfig, table: Table, fk: ForeignKey, where: str) -> None:
    """A key of the second pass is computed from hints on all its own columns or on none."""
    others = {c.lower() for k in table.foreign_keys if k is not fk for c in k.columns}
    free = [c for c in fk.columns if c.lower() not in others]
    hinted = [c for c in free if (h := config.hint(table.name, c)) is not None and h.sets_value()]
    if hinted and len(hinted) != len(free):
        missing = ", ".join(c for c in free if c not in hinted)
        config.fail(where, f"foreign key ({', '.join(fk.columns)}) is filled in the second pass from "
              f"expr/values/constant hints, so {missing} needs one too.")
