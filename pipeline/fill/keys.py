"""Foreign keys: drawn from rows already written, with skewed popularity, in bulk.

    keys = TableKeys.build(con, schema, plan, config, "orders", seed=7, rows=3000)
    batch = keys.attach(batch, start, n)          # adds the FK columns of rows start..start+n

Every foreign key of a table's planned rows is drawn before its first batch, so link tables get pairs
without duplicates across batches and `per_parent` counts hold exactly. Parents are read from DuckDB
ordered by the referenced key; a seeded permutation ranks them and a child picks the parent of rank `r`
with weight 1/(r+1)^skew: a few parents are popular, most are not. Nullable foreign keys are NULL at the
domain's (or the column hint's) null rate. A parent table's ranking is seeded by its name, so the
same parents are popular for every child table. Keys that close a cycle are not drawn from stored rows:
nullable ones stay NULL for the second pass (`engine.fill_deferred`), NOT NULL ones draw from the keys
the later table will be written with (`planned_keys`), computed by its generator before any row exists.
A foreign key that shares columns with one drawn before it picks, per row, a parent that agrees on them.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa

from pipeline.errors import BuildError, DomainError
from pipeline.fill.checks import derive_checks
from pipeline.fill.config import DomainConfig
from pipeline.fill.generator import TableGenerator
from pipeline.graph.plan import FillPlan
from pipeline.schema.model import ForeignKey, Schema, Table
from pipeline.store.sql import quote_ident as _q
from pipeline.store.sql import table_ref
from validation.batch import arrow_type

DEFAULT_SKEW = 1.1
"""Exponent of the popularity power law (0 is uniform)."""

LINK_ROUNDS = 24
"""Redraw rounds for duplicate pairs of a link table before the leftover duplicates are dropped."""

SKEWED_ROUNDS = 3
"""Link-table redraw rounds that keep the popularity skew; later rounds draw uniformly."""

Order = tuple[int, int, bool]
"""(lo, hi, strict): positions of two foreign keys that a CHECK orders, `lo < hi` (or `<=`)."""


def rng_for(seed: int, table: str, purpose: str, *more: int) -> np.random.Generator:
    """A generator for one table and purpose, independent of other tables and of the fill order."""
    words = [seed % 2**64, zlib.crc32(table.lower().encode()), zlib.crc32(purpose.encode())]
    return np.random.default_rng([*words, *(m % 2**64 for m in more)])


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


def table_generator(table: Table, config: DomainConfig, seed: int):
    """The offline generator of a table's own columns (foreign-key columns excluded)."""
    return TableGenerator(table, config, seed=seed, exclude=fk_columns(table))


# --- parents and draws ----------------------------------------------------------------------------


def load_keys(con: duckdb.DuckDBPyConnection, table: str, columns: tuple[str, ...]) -> pa.Table:
    """The distinct non-NULL values of `columns` in `table`, ordered by them (the parents to draw from)."""
    cols = ", ".join(_q(c) for c in columns)
    where = " AND ".join(f"{_q(c)} IS NOT NULL" for c in columns)
    sql = f"SELECT DISTINCT {cols} FROM {table_ref(table)} WHERE {where} ORDER BY {cols}"
    return con.sql(sql).to_arrow_table()


def planned_keys(
    config: DomainConfig, table: Table, columns: list[str], *, seed: int, rows: int, batch_size: int
) -> pa.Table:
    """The values of `columns` that `table` will be written with, in row order, before it is written.

    The engine writes the table in the same batches from the same generator, and its repairs keep these
    columns, so the keys will exist.
    """
    made = set(_lower(fk_columns(table)))
    if any(c.lower() in made for c in columns):
        raise BuildError(
            f"table {table.name}: a cycle of NOT NULL foreign keys reaches {table.name}"
            f"({', '.join(columns)}), which are foreign-key columns themselves, so no key can be assigned "
            "before the rows are written. Make one foreign key of the cycle nullable."
        )
    gen = table_generator(table, config, seed)
    parts = [gen.generate(min(batch_size, rows - s), s).select(columns) for s in range(0, rows, batch_size)]
    if not parts:
        return pa.table({c: pa.nulls(0, arrow_type(table.column(c).type)) for c in columns})
    return pa.concat_tables(parts)


def _distinct(keys: pa.Table) -> pa.Table:
    """The first occurrence of every non-NULL key: later duplicates will not survive validation."""
    frame = keys.to_pandas()
    return keys.filter(pa.array((~frame.duplicated(keep="first") & frame.notna().all(axis=1)).to_numpy()))


def popularity_cdf(n: int, rng: np.random.Generator, skew: float = DEFAULT_SKEW) -> np.ndarray:
    """Cumulative draw probabilities of `n` parents: a random rank each, weight 1/(rank+1)^skew."""
    weights = 1.0 / (rng.permutation(n) + 1.0) ** skew
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def draw(cdf: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` parent indices drawn with the probabilities of `cdf`."""
    return np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), len(cdf) - 1).astype(np.int64)


def duplicated(codes: np.ndarray) -> np.ndarray:
    """True for every occurrence of a value after its first (a hash pass, not a sort)."""
    return pd.Series(codes, copy=False).duplicated(keep="first").to_numpy()


def group_codes(left: list[pa.Array], right: list[pa.Array]) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes such that left row i and right row j get the same code iff their values are equal.

    A NULL on the left gets code -1 (it matches nothing).
    """
    n = len(left[0]) if left else 0
    codes = np.zeros(n + (len(right[0]) if right else 0), dtype=np.int64)
    nulls = np.zeros(n, dtype=bool)
    for a, b in zip(left, right, strict=True):
        both = pa.chunked_array([a, b.cast(a.type)]).combine_chunks().dictionary_encode()
        idx = both.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
        codes = codes * (len(both.dictionary) + 1) + idx
        nulls |= a.is_null().to_numpy(zero_copy_only=False)
    left_codes = codes[:n]
    left_codes[nulls] = -1
    return left_codes, codes[n:]


def match_draw(child: np.ndarray, parent: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """For each child code, a random parent index with the same code (-1 where there is none)."""
    if len(parent) == 0:
        return np.full(len(child), -1, dtype=np.int64)
    order = np.argsort(parent, kind="stable")
    keys, starts, counts = np.unique(parent[order], return_index=True, return_counts=True)
    pos = np.clip(np.searchsorted(keys, child), 0, len(keys) - 1)
    pick = starts[pos] + np.floor(rng.random(len(child)) * counts[pos]).astype(np.int64)
    return np.where(keys[pos] == child, order[pick], -1)


def earlier_in_group(codes: np.ndarray, rng: np.random.Generator, *, chain: bool, roots: int) -> np.ndarray:
    """For rows in order, a row before each one with the same code (-1 for the first `roots` of a group).

    Parents always come earlier, so following them never loops: the result is a forest. `chain` makes
    each row's parent the one just before it (for a UNIQUE self-reference: a list, one child each).
    """
    n = len(codes)
    order = np.lexsort((np.arange(n), codes))
    sorted_codes = codes[order]
    starts = np.r_[0, np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1] if n else np.zeros(0, int)
    group_start = np.repeat(starts, np.diff(np.r_[starts, n])) if n else np.zeros(0, int)
    rank = np.arange(n) - group_start
    offset = rank - 1 if chain else np.floor(rng.random(n) * rank).astype(np.int64)
    parent_sorted = np.where(rank >= max(roots, 1), order[group_start + np.maximum(offset, 0)], -1)
    out = np.empty(n, dtype=np.int64)
    out[order] = parent_sorted
    return out


def per_parent_counts(m: int, exactly: int | None, low: int, high: int, target: int, rng) -> np.ndarray:
    """Rows per parent: `exactly` each, or between low and high each, summing to `target` when it fits."""
    if exactly is not None:
        return np.full(m, exactly, dtype=np.int64)
    counts = rng.integers(low, high + 1, m)
    target = min(max(target, m * low), m * high)
    while (diff := target - int(counts.sum())) != 0:
        movable = np.flatnonzero(counts < high) if diff > 0 else np.flatnonzero(counts > low)
        chosen = rng.choice(movable, size=min(abs(diff), len(movable)), replace=False)
        counts[chosen] += 1 if diff > 0 else -1
    return counts


def link_draw(
    cdfs: list[np.ndarray],
    fixed: list[np.ndarray | None],
    n: int,
    rng: np.random.Generator,
    ordered: Sequence[Order] = (),
) -> tuple[list[np.ndarray], np.ndarray]:
    """Parent indices for `n` rows of a link table without duplicate combinations.

    `fixed[i]` holds indices decided already (`per_parent`, or a UNIQUE key drawn without replacement);
    the others are drawn with popularity, duplicates redrawn (uniformly after `SKEWED_ROUNDS`). `ordered`
    lists (lo, hi, strict) pairs that a CHECK orders (`lo < hi`): free pairs are swapped into order, rows
    that stay out of order are redrawn. Returns the indices and the mask of rows kept: rows still bad
    after `LINK_ROUNDS` are dropped (the key space is nearly full).
    """
    sizes = [len(c) for c in cdfs]
    free = [i for i, f in enumerate(fixed) if f is None]
    space = math.prod(sizes)
    if len(free) == len(fixed) and not ordered and n * 3 > space and space < 2**62:
        codes = rng.choice(space, size=n, replace=False)
        return list(np.unravel_index(codes, sizes)), np.ones(n, dtype=bool)
    idx = [f.copy() if f is not None else draw(cdfs[i], n, rng) for i, f in enumerate(fixed)]
    bad = np.zeros(n, dtype=bool)
    for round_ in range(LINK_ROUNDS):
        bad = _out_of_order(idx, ordered, free)
        bad |= duplicated(np.ravel_multi_index(idx, sizes) if space < 2**62 else _row_codes(idx))
        if not bad.any() or not free:
            break
        for i in free:
            k = int(bad.sum())
            idx[i][bad] = draw(cdfs[i], k, rng) if round_ < SKEWED_ROUNDS else rng.integers(0, sizes[i], k)
    return idx, ~bad


def _out_of_order(idx: list[np.ndarray], ordered: Sequence[Order], free: list[int]) -> np.ndarray:
    """Swap free (lo, hi) pairs into order in place; True where a row stays out of order."""
    bad = np.zeros(len(idx[0]) if idx else 0, dtype=bool)
    for lo, hi, strict in ordered:
        if lo in free and hi in free:
            swap = idx[lo] > idx[hi]
            idx[lo][swap], idx[hi][swap] = idx[hi][swap], idx[lo][swap]
        bad |= (idx[lo] >= idx[hi]) if strict else (idx[lo] > idx[hi])
    return bad


def ordered_pairs(table: Table, fks: list[ForeignKey]) -> list[Order]:
    """(lo, hi, strict) positions of single-column foreign keys into the same parent key that a CHECK
    orders (`lo < hi`, as in a friendship stored once per pair). Parents are loaded in key order, so
    ordering parent indices orders the values."""
    facts = derive_checks(table) if table.checks else None
    out = []
    for hi, fk in enumerate(fks):
        after = facts.get(fk.columns[0]) if facts is not None and len(fk.columns) == 1 else None
        for rule in after.after if after is not None else []:
            for lo, other in enumerate(fks):
                same = (len(other.columns) == 1 and other.columns[0].lower() == rule.column.lower()
                        and other.ref_table.lower() == fk.ref_table.lower()
                        and _lower(other.ref_columns) == _lower(fk.ref_columns))
                if same and not rule.gap:
                    out.append((lo, hi, rule.strict))
    return out


def _row_codes(idx: list[np.ndarray]) -> np.ndarray:
    _, inverse = np.unique(np.stack(idx, axis=1), axis=0, return_inverse=True)
    return inverse.ravel()


@dataclass
class TableKeys:
    """The foreign-key values of every planned row of one table."""

    table: Table
    rows: int
    """Rows to write: the plan's, or what `per_parent` and the parents' capacity allow."""
    fks: list[ForeignKey] = field(default_factory=list)
    """Foreign keys drawn in the first pass, in drawing order."""
    parents: list[pa.Table] = field(default_factory=list)
    """Per foreign key: the parent key values drawn from."""
    index: list[np.ndarray] = field(default_factory=list)
    """Per foreign key: the parent row of each planned row, -1 for NULL."""
    cdfs: list[np.ndarray] = field(default_factory=list)
    null_rates: list[float] = field(default_factory=list)
    deferred: list[ForeignKey] = field(default_factory=list)
    """Foreign keys left NULL for the second pass."""
    checked: list[ForeignKey] = field(default_factory=list)
    """Foreign keys whose parents are stored (the batch validation checks them)."""
    partial_link: bool = False
    """The link key has other columns too: its foreign keys are drawn as unique pairs only if they fit."""

    def attach(self, batch: pa.Table, start: int, n: int) -> pa.Table:
        """`batch` (rows start..start+n) with its foreign-key columns appended."""
        return self._append(batch, {p: ix[start : start + n] for p, ix in enumerate(self.index)})

    def position(self, columns: tuple[str, ...] | list[str]) -> int | None:
        """The drawing position of the foreign key over `columns`, if it is drawn here."""
        for p, fk in enumerate(self.fks):
            if sorted(_lower(fk.columns)) == sorted(_lower(list(columns))):
                return p
        return None

    def redraw(self, position: int, n: int, rng: np.random.Generator, *, uniform: bool = False
               ) -> dict[str, pa.Array]:
        """Fresh values of one foreign key's columns for `n` rows (NULL at its null rate).

        `uniform` ignores popularity: duplicates of a key come from popular parents, so their
        replacements should not.
        """
        m = len(self.cdfs[position])
        if not m:
            ix = np.full(n, -1, dtype=np.int64)
        else:
            ix = rng.integers(0, m, n) if uniform else draw(self.cdfs[position], n, rng)
        ix = np.where(rng.random(n) < self.null_rates[position], -1, ix)
        return self._values(position, ix)

    def fresh(self, batch: pa.Table, rng: np.random.Generator, keep: dict[str, pa.Array]) -> pa.Table:
        """Replacement rows: `batch` (generated rows) with the `keep` columns set, other keys redrawn."""
        for name, values in keep.items():
            found = [i for i, c in enumerate(batch.column_names) if c.lower() == name.lower()]
            batch = batch.set_column(found[0], name, values) if found else batch.append_column(name, values)
        have = set(_lower(batch.column_names))
        draws = {p: None for p, fk in enumerate(self.fks) if not set(_lower(fk.columns)) <= have}
        return self._append(batch, {p: self.redraw(p, batch.num_rows, rng) for p in draws})

    def _values(self, position: int, ix: np.ndarray) -> dict[str, pa.Array]:
        fk, parent = self.fks[position], self.parents[position]
        if parent.num_rows == 0:
            return {c: pa.nulls(len(ix), arrow_type(self.table.column(c).type)) for c in fk.columns}
        taken = parent.take(pa.array(np.maximum(ix, 0), mask=ix < 0))
        return {c: taken.column(i).combine_chunks() for i, c in enumerate(fk.columns)}

    def _append(self, batch: pa.Table, values: dict[int, np.ndarray | dict[str, pa.Array]]) -> pa.Table:
        have = set(_lower(batch.column_names))
        for position, ix in values.items():
            cols = ix if isinstance(ix, dict) else self._values(position, ix)
            for name, array in cols.items():
                if name.lower() not in have:
                    batch = batch.append_column(name, array.cast(arrow_type(self.table.column(name).type)))
                    have.add(name.lower())
        for name in (c for fk in self.deferred for c in fk.columns):
            if name.lower() not in have:
                typ = arrow_type(self.table.column(name).type)
                batch = batch.append_column(name, pa.nulls(batch.num_rows, typ))
                have.add(name.lower())
        return batch

    @classmethod
    def build(
        cls,
        con: duckdb.DuckDBPyConnection,
        schema: Schema,
        plan: FillPlan,
        config: DomainConfig,
        table: str,
        *,
        seed: int,
        rows: int,
        planned: dict[str, int] | None = None,
        batch_size: int | None = None,
        skew: float = DEFAULT_SKEW,
    ) -> TableKeys:
        """Draw the keys of up to `rows` rows of `table` (see the module docstring).

        `planned` gives the row counts of tables filled later (for NOT NULL cycles); `batch_size` must be
        the engine's, since planned keys are generated batch by batch.
        """
        t, bs, planned = schema.table(table), batch_size or config.batch_size, planned or {}
        rng = rng_for(seed, t.name, "keys")
        cfg = config.table_config(t.name)
        pp = cfg.per_parent if cfg is not None else None
        first = first_pass_fks(t, plan)
        pp_fk = per_parent_fk(t, pp.fk) if pp is not None else None
        pp_fk = pp_fk if any(pp_fk is fk for fk in first) else None  # a cycle's key cannot set the count
        link = link_key(t, plan) or link_key(t, plan, partial=True)
        in_link = [fk for fk in first if link and set(_lower(fk.columns)) <= set(_lower(link))]
        first = sorted(first, key=lambda fk: (fk is not pp_fk, not any(fk is x for x in in_link)))
        later = unbroken_fks(t, plan)
        keys = cls(table=t, rows=rows, deferred=deferred_fks(t, plan), checked=first,
                   partial_link=link_key(t, plan) is None)
        pk = set(_lower(t.primary_key))
        for fk in first + later:
            keys.fks.append(fk)
            own = fk.ref_table.lower() == t.name.lower()
            ref = schema.table(fk.ref_table)
            if own:
                parent = pa.table({})  # drawn by _draw_self once the row count is known
            elif any(fk is x for x in later):
                n_ref = _planned(planned, ref.name, t)
                parent = _distinct(planned_keys(config, ref, list(fk.ref_columns), seed=seed, rows=n_ref,
                                                batch_size=bs))
            else:
                parent = load_keys(con, ref.name, fk.ref_columns)
            nullable = all(t.column(c).nullable for c in fk.columns) and not pk & set(_lower(fk.columns))
            if not own and parent.num_rows == 0 and not nullable:
                raise BuildError(
                    f"table {t.name}: column(s) {', '.join(fk.columns)} must reference {ref.name}, which has "
                    f"no rows. Give {ref.name} rows (domain.yaml tables.{ref.name}.rows) or make the key "
                    "nullable."
                )
            keys.parents.append(parent)
            keys.cdfs.append(popularity_cdf(parent.num_rows, rng_for(seed, fk.ref_table, "popularity"), skew)
                             if parent.num_rows else np.zeros(0))
            plain = nullable and fk is not pp_fk and not any(fk is x for x in in_link)
            keys.null_rates.append(null_rate(config, t.name, fk.columns[0]) if plain else 0.0)
        keys._draw(rng, pp, pp_fk, in_link, config, seed, bs)
        return keys

    def _draw(self, rng, pp, pp_fk, in_link, config, seed, bs) -> None:
        t, n = self.table, self.rows
        sizes = [p.num_rows for p in self.parents]
        index: list[np.ndarray | None] = [None] * len(self.fks)
        if pp_fk is not None:
            i = _pos(self.fks, pp_fk)
            counts = per_parent_counts(sizes[i], pp.exactly, pp.min or 0, pp.max or 0, n, rng)
            index[i] = np.repeat(np.arange(sizes[i], dtype=np.int64), counts)
            n = len(index[i])
        unique = [i for i, fk in enumerate(self.fks) if is_unique_fk(t, fk) and self.null_rates[i] == 0
                  and fk.ref_table.lower() != t.name.lower()]
        for i in unique:
            n = min(n, sizes[i])
        ordered = ordered_pairs(t, self.fks[: len(self.checked)])  # parents loaded in key order only
        links = [_pos(self.fks, fk) for fk in in_link]
        if links and self.partial_link and n * 2 > math.prod(sizes[i] for i in links):
            links = []  # too dense to keep the pairs unique: the key's other columns must vary instead
        if links:
            n = min(n, math.prod(sizes[i] for i in links))
            for i in unique:  # a UNIQUE key of the link table: drawn without replacement
                if index[i] is None:
                    index[i] = rng.permutation(sizes[i])[:n].astype(np.int64)
            fixed = [index[i][:n] if index[i] is not None else None for i in links]
            local = [(links.index(a), links.index(b), strict) for a, b, strict in ordered
                     if a in links and b in links]
            drawn, keep = link_draw([self.cdfs[i] for i in links], fixed, n, rng, local)
            index = [ix[:n][keep] if ix is not None else None for ix in index]
            for i, ix in zip(links, drawn, strict=True):
                index[i] = ix[keep]
            n = int(keep.sum())
        index = [ix[:n] if ix is not None else None for ix in index]
        for i in range(len(self.fks)):
            if index[i] is None:
                index[i] = self._draw_one(i, n, rng, index, config, seed, bs)
        for lo, hi, strict in ordered if not links else []:  # (link tables order their pairs while drawing)
            index[lo], index[hi] = _in_order(index[lo], index[hi], strict, self.cdfs[hi], rng)
        self.index, self.rows = [ix for ix in index if ix is not None], n

    def _draw_one(self, i, n, rng, index, config, seed, bs) -> np.ndarray:
        t, fk = self.table, self.fks[i]
        pairs = zip(fk.columns, fk.ref_columns, strict=True)
        shared = [(c, r) for c, r in pairs if self._source(c, index) is not None]
        if fk.ref_table.lower() == t.name.lower():
            return self._draw_self(i, n, rng, index, shared, config, seed, bs)
        if shared:
            child, parent = group_codes(
                [self._column(c, index) for c, _ in shared],
                [self.parents[i].column(r).combine_chunks() for _, r in shared],
            )
            ix = match_draw(child, parent, rng)
        elif is_unique_fk(t, fk):
            m = self.parents[i].num_rows
            ix = np.r_[rng.permutation(m), np.full(max(n - m, 0), -1)][:n].astype(np.int64)
        else:
            ix = draw(self.cdfs[i], n, rng) if len(self.cdfs[i]) else np.full(n, -1, dtype=np.int64)
        return np.where(rng.random(n) < self.null_rates[i], -1, ix)

    def _draw_self(self, i, n, rng, index, shared, config, seed, bs) -> np.ndarray:
        """A NOT NULL self-reference: each row points at an earlier one (a group's first row at itself)."""
        t, fk = self.table, self.fks[i]
        made = set(_lower(fk_columns(t)))
        generated = [r for r in fk.ref_columns if r.lower() not in made]
        keys = planned_keys(config, t, generated, seed=seed, rows=n, batch_size=bs) if generated else None
        self.parents[i] = pa.table(
            {r: keys.column(r) if keys is not None and r in generated else self._column(r, index)
             for r in fk.ref_columns}
        )
        self.cdfs[i] = np.linspace(1.0 / max(n, 1), 1.0, n)
        values = [self._column(c, index) for c, _ in shared]
        if all(c.lower() == r.lower() for c, r in shared):
            codes = group_codes(values, values)[0] if shared else np.zeros(n, dtype=np.int64)
            parent = earlier_in_group(codes, rng, chain=is_unique_fk(t, fk), roots=0)
        else:
            refs = [self.parents[i].column(r).combine_chunks() for _, r in shared]
            parent = match_draw(*group_codes(values, refs), rng)
        free = [c for c in fk.columns if c.lower() not in {s.lower() for s, _ in shared}]
        if not any(t.column(c).nullable for c in free):
            parent = np.where(parent < 0, np.arange(n), parent)
        return parent

    def _source(self, column: str, index: list[np.ndarray | None]) -> int | None:
        for j, fk in enumerate(self.fks):
            if index[j] is not None and column.lower() in _lower(fk.columns):
                return j
        return None

    def _column(self, column: str, index: list[np.ndarray | None]) -> pa.Array:
        j = self._source(column, index)
        if j is None:
            raise BuildError(f"table {self.table.name}: no foreign key fills {column} before it is used.")
        return {k.lower(): v for k, v in self._values(j, index[j]).items()}[column.lower()]


def _in_order(lo: np.ndarray, hi: np.ndarray, strict: bool, cdf: np.ndarray, rng) -> tuple[np.ndarray, ...]:
    """Swap (lo, hi) parent indices into order; redraw `hi` where a strict order meets a tie."""
    both = (lo >= 0) & (hi >= 0)
    lo, hi = np.where(both, np.minimum(lo, hi), lo), np.where(both, np.maximum(lo, hi), hi)
    for round_ in range(LINK_ROUNDS if strict else 0):
        tie = both & (lo == hi)
        if not tie.any() or not len(cdf):
            break
        k = int(tie.sum())
        hi[tie] = draw(cdf, k, rng) if round_ < SKEWED_ROUNDS else rng.integers(0, len(cdf), k)
        lo, hi = np.where(both, np.minimum(lo, hi), lo), np.where(both, np.maximum(lo, hi), hi)
    return lo, hi


def _pos(fks: list[ForeignKey], fk: ForeignKey) -> int:
    return next(i for i, x in enumerate(fks) if x is fk)


def _planned(planned: dict[str, int], table: str, child: Table) -> int:
    for name, n in planned.items():
        if name.lower() == table.lower():
            return n
    raise BuildError(
        f"table {child.name}: the NOT NULL cycle through {table} needs its planned row count; pass rows= for "
        f"every table of the plan (plan_rows) to the engine."
    )
