"""Foreign keys: drawn from rows already written, with skewed popularity, in bulk.

    keys = TableKeys.build(con, schema, plan, config, "orders", seed=7, rows=3000)
    batch = keys.attach(batch, start, n)          # adds the FK columns of rows start..start+n

Every foreign key of a table's planned rows is drawn before its first batch, so link tables get pairs
without duplicates across batches and `per_parent` counts hold exactly. Parents are read from DuckDB
ordered by the referenced key; a seeded permutation ranks the n parents, a child picks the one of rank `r`
with weight 1/(r+1+n/100)^skew (`sampling`): a few are popular, most not. The skew is `DEFAULT_SKEW` unless a
hint on one of the key's columns sets it (`distribution: uniform | zipf`, `skew: <float>`; `key_skew`):
it holds for plain and composite keys, link-table pairs, `per_parent` min/max fan-out and the repairs'
redraws. Nullable foreign keys are NULL at the domain's (or the column hint's) null rate. A parent
table's ranking is seeded by its name, so the same parents are popular for every child table. Keys that
close a cycle are not drawn from stored rows: nullable ones stay NULL for the second pass
(`stateforge.fill.deferred`), NOT NULL ones draw from the keys the later table will be written with
(`planned_keys`), computed by its generator before any row exists. A foreign key that shares columns with
one drawn before it picks, per row, a parent that agrees on them. A key whose columns are narrower than
the parent's key draws only among the parents it can hold (`key_types`). The numpy draws are in
`sampling`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa

from stateforge.constraints.checks import derive_checks
from stateforge.domain.config import DomainConfig
from stateforge.errors import BuildError, DomainError, guard
from stateforge.fill.generator import TableGenerator
from stateforge.fill.key_kinds import (
    deferred_fks,
    first_pass_fks,
    fk_columns,
    is_unique_fk,
    key_skew,
    link_key,
    null_rate,
    parent_cdf,
    per_parent_fk,
    unbroken_fks,
)
from stateforge.fill.key_types import holdable_parents
from stateforge.fill.sampling import (
    DEFAULT_SKEW,
    Order,
    by_rank,
    draw,
    earlier_in_group,
    group_codes,
    in_order,
    link_draw,
    lookup,
    match_draw,
    per_parent_counts,
    quantile_counts,
    rng_for,
)
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import ForeignKey, Schema, Table
from stateforge.store.sql import quote_ident as _q
from stateforge.store.sql import table_ref
from stateforge.types import batch_arrow_type


def _lower(cols: tuple[str, ...] | list[str]) -> list[str]:
    return [c.lower() for c in cols]


def table_generator(table: Table, config: DomainConfig, seed: int):
    """The offline generator of a table's own columns (foreign-key columns excluded)."""
    return TableGenerator(table, config, seed=seed, exclude=fk_columns(table))


# --- parents and draws ----------------------------------------------------------------------------


def load_keys(con: duckdb.DuckDBPyConnection, table: str | Table, columns: tuple[str, ...]) -> pa.Table:
    """The distinct non-NULL values of `columns` in `table`, ordered by them (the parents to draw from).

    Given the `Table`, columns that are a NOT NULL primary or unique key of it (as most referenced columns
    are) are read without DISTINCT and the NULL filter: DuckDB enforced both on every row written to the
    table, so the result is the same, for a sort instead of a hash aggregate and a sort (2-3x less)."""
    cols = ", ".join(_q(c) for c in columns)
    name = table.name if isinstance(table, Table) else table
    if isinstance(table, Table) and is_not_null_key(table, columns):
        return con.sql(f"SELECT {cols} FROM {table_ref(name)} ORDER BY {cols}").to_arrow_table()
    where = " AND ".join(f"{_q(c)} IS NOT NULL" for c in columns)
    sql = f"SELECT DISTINCT {cols} FROM {table_ref(name)} WHERE {where} ORDER BY {cols}"
    return con.sql(sql).to_arrow_table()


def is_not_null_key(table: Table, columns: tuple[str, ...] | list[str]) -> bool:
    """`columns` are exactly the primary key of `table` (never NULL in SQL), or a UNIQUE key of it whose
    columns are all NOT NULL."""
    wanted = sorted(_lower(list(columns)))
    if table.primary_key and sorted(_lower(list(table.primary_key))) == wanted:
        return True
    return any(sorted(_lower(list(k))) == wanted for k in table.unique) and not any(
        table.column(c).nullable for c in columns)


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
        return pa.table({c: pa.nulls(0, batch_arrow_type(table.column(c).type)) for c in columns})
    return pa.concat_tables(parts)


def _distinct(keys: pa.Table) -> pa.Table:
    """The first occurrence of every non-NULL key: later duplicates will not survive validation."""
    frame = keys.to_pandas()
    return keys.filter(pa.array((~frame.duplicated(keep="first") & frame.notna().all(axis=1)).to_numpy()))


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
    """Per foreign key: cumulative draw probabilities of its parents (`parent_cdf`)."""
    skews: list[float | None] = field(default_factory=list)
    """Per foreign key: the skew a hint sets (`key_skew`); per_parent fan-out and draws that must agree
    with a key drawn before follow popularity only then."""
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

    def via(self, column: str, where: str, *, not_at: int | None = None) -> int:
        """The drawing position of the single-column foreign key `column` that a hint reads its parent
        through (`follows.via`, `at_most.via`); a DomainError naming the hint `where` otherwise."""
        p = self.position([column])
        if p is None or p == not_at or len(self.fks[p].columns) != 1:
            raise DomainError(f"{where}: via {column} is not a single-column foreign key of "
                              f"{self.table.name} drawn in the first pass; name one of its foreign keys.")
        return p

    def parent_rows(self, con: duckdb.DuckDBPyConnection, p: int, select: str, where: str, fix: str
                    ) -> tuple[pa.Table, np.ndarray]:
        """`select` (SQL over a row of key `p`'s parent table) for every parent row, after the parent's key,
        and each drawn parent's row among them (-1: none); a DomainError naming the hint `where` and `fix`
        when DuckDB cannot compute it."""
        fk = self.fks[p]
        try:
            stored = con.sql(f"SELECT {_q(fk.ref_columns[0])}, {select} "
                             f"FROM {table_ref(fk.ref_table)}").to_arrow_table()
        except duckdb.Error as exc:
            raise DomainError(f"{where}: DuckDB could not read {fk.ref_table} ({exc}); {fix}") from None
        at = lookup(*group_codes([self.parents[p].column(0).combine_chunks()],
                                 [stored.column(0).combine_chunks()]))
        return stored, at

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
            return {c: pa.nulls(len(ix), batch_arrow_type(self.table.column(c).type)) for c in fk.columns}
        taken = parent.take(pa.array(np.maximum(ix, 0), mask=ix < 0))
        return {c: taken.column(i).combine_chunks() for i, c in enumerate(fk.columns)}

    def _append(self, batch: pa.Table, values: dict[int, np.ndarray | dict[str, pa.Array]]) -> pa.Table:
        have = set(_lower(batch.column_names))
        for position, ix in values.items():
            cols = ix if isinstance(ix, dict) else self._values(position, ix)
            for name, array in cols.items():
                if name.lower() not in have:
                    typ = batch_arrow_type(self.table.column(name).type)
                    batch = batch.append_column(name, array.cast(typ))
                    have.add(name.lower())
        for name in (c for fk in self.deferred for c in fk.columns):
            if name.lower() not in have:
                typ = batch_arrow_type(self.table.column(name).type)
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
        the engine's, since planned keys are generated batch by batch. `skew` is the popularity exponent
        of keys whose columns have no hint setting one.
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
        for fk in first + later:
            with guard("reading the parents' keys", table=t.name, column=", ".join(fk.columns),
                       passthrough=(duckdb.Error,)):
                keys._add(con, schema, config, fk, later, pp_fk, in_link, planned, seed, bs, skew)
        with guard("drawing the foreign keys", table=t.name):
            keys._draw(rng, pp, pp_fk, in_link, config, seed, bs)
        with guard("following the parents' keys (follows)", table=t.name, passthrough=(duckdb.Error,)):
            keys._follow(con, schema, config)
        return keys

    def _follow(self, con: duckdb.DuckDBPyConnection, schema: Schema, config: DomainConfig) -> None:
        """Set the keys hinted `follows` to their parent's value along the `via` key (`Follows`): on every
        row but each parent's last `floor((1 - at_least) * children)` rows, and none of a parent `unless`
        holds for."""
        for i, fk in enumerate(self.fks):
            hint = config.hint(self.table.name, fk.columns[0]) if len(fk.columns) == 1 else None
            follows = hint.follows if hint is not None else None
            if follows is None or not len(self.index[i]):
                continue
            where = f"columns.{self.table.name}.{fk.columns[0]}.follows"
            a = self.via(follows.via, where, not_at=i)
            parent = schema.table(self.fks[a].ref_table)
            column = follows.column or fk.columns[0]
            unless = f"coalesce(({follows.unless}), false)" if follows.unless else "false"
            # the parent row of each planned row, its value, and that value's place among this key's parents
            stored, at = self.parent_rows(
                con, a, f"{_q(column)}, {unless}", where,
                f"name a column of {parent.name} ({column}) and SQL over its row (`unless`).")
            mine = self.index[a]
            row = np.where(mine >= 0, at[np.maximum(mine, 0)], -1)
            value = lookup(*group_codes([stored.column(1).combine_chunks()],
                                        [self.parents[i].column(0).combine_chunks()]))
            free = stored.column(2).combine_chunks().to_numpy(zero_copy_only=False).astype(bool)
            target = np.where(row >= 0, value[np.maximum(row, 0)], -1)
            target = np.where((row >= 0) & ~free[np.maximum(row, 0)], target, -1)
            # each parent's last rows (in drawing order, which numbers sequences within it) are its guests
            order = np.argsort(mine, kind="stable")
            counts = np.bincount(np.maximum(mine, 0), minlength=len(self.parents[a]))
            starts = np.cumsum(counts) - counts
            rank = np.empty(len(mine), dtype=np.int64)
            rank[order] = np.arange(len(mine)) - starts[np.maximum(mine[order], 0)]
            guests = np.floor((1.0 - follows.at_least) * counts[np.maximum(mine, 0)] + 1e-9)
            follow = (target >= 0) & (counts[np.maximum(mine, 0)] - 1 - rank >= guests)
            self.index[i] = np.where(follow, target, self.index[i])

    def _add(self, con, schema, config, fk, later, pp_fk, in_link, planned, seed, bs, skew) -> None:
        """Load (or plan) the parents of one foreign key and set its draw probabilities and NULL rate."""
        t = self.table
        pk = set(_lower(t.primary_key))
        self.fks.append(fk)
        own = fk.ref_table.lower() == t.name.lower()
        ref = schema.table(fk.ref_table)
        if own:
            parent = pa.table({})  # drawn by _draw_self once the row count is known
        elif any(fk is x for x in later):
            n_ref = _planned(planned, ref.name, t)
            parent = _distinct(planned_keys(config, ref, list(fk.ref_columns), seed=seed, rows=n_ref,
                                            batch_size=bs))
        else:
            parent = load_keys(con, ref, fk.ref_columns)
        if not own:
            parent = holdable_parents(parent, fk, t, parent=ref.name)
        nullable = all(t.column(c).nullable for c in fk.columns) and not pk & set(_lower(fk.columns))
        if not own and parent.num_rows == 0 and not nullable:
            raise BuildError(
                f"table {t.name}: column(s) {', '.join(fk.columns)} must reference {ref.name}, which has "
                f"no rows. Give {ref.name} rows (domain.yaml tables.{ref.name}.rows) or make the key "
                "nullable."
            )
        self.parents.append(parent)
        self.cdfs.append(parent_cdf(config, t.name, fk, parent.num_rows, seed, skew))
        self.skews.append(key_skew(config, t.name, fk))
        plain = nullable and fk is not pp_fk and not any(fk is x for x in in_link)
        self.null_rates.append(null_rate(config, t.name, fk.columns[0]) if plain else 0.0)

    def _draw(self, rng, pp, pp_fk, in_link, config, seed, bs) -> None:
        t, n = self.table, self.rows
        sizes = [p.num_rows for p in self.parents]
        index: list[np.ndarray | None] = [None] * len(self.fks)
        if pp_fk is not None:
            i = _pos(self.fks, pp_fk)
            popular = self.cdfs[i] if self.skews[i] else None  # a hinted skew: popular parents get more
            if pp.points():  # a declared heavy tail: the most popular parents get the most
                counts = by_rank(quantile_counts(sizes[i], pp.points()), self.cdfs[i])
            else:
                counts = per_parent_counts(sizes[i], pp.exactly, pp.min or 0, pp.max or 0, n, rng, popular)
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
            index[lo], index[hi] = in_order(index[lo], index[hi], strict, self.cdfs[hi], rng)
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
            weights = np.diff(self.cdfs[i], prepend=0.0) if self.skews[i] is not None else None
            ix = match_draw(child, parent, rng, weights)
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
