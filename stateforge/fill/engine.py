"""The fill engine: one table, in batches, each batch validated and repaired before it is written.

    report = fill_table(con, schema, plan, config, "users", seed=7, rows=plan_rows(schema, plan, config))

Per table, in one DuckDB transaction: draw every foreign key of the planned rows (`TableKeys`), then per
batch: generate the table's own columns -> attach the keys -> number sequences, compute expressions ->
fit the times to the parents' (`stateforge.fill.time_fit`) -> validate (`stateforge.validation.batch`) ->
repair (`stateforge.validation.repair`) -> insert through Arrow. Checks DuckDB makes itself on INSERT
(keys, NOT NULL, declared CHECKs) are left to it unless a batch fails another check; a refused INSERT
refills the table checking everything first (`fill_table`'s `trust_declared`). The order of the tables,
the second pass (`stateforge.fill.deferred`) and the domain's rules are stages of a build
(`stateforge.build.run.STAGES`).
Every random choice comes from a generator seeded by (seed, table, purpose, batch), so the same inputs
give byte-identical tables whatever was filled before (which is what makes resumed builds exact). That
also lets a worker thread make the next batch's rows (generated columns and drawn keys, a pure function
of the batch's place) while this one is validated and inserted, which DuckDB does without the GIL.
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor

import duckdb
import numpy as np
import pyarrow as pa

from stateforge.domain.config import DomainConfig
from stateforge.errors import BuildError
from stateforge.fill.generator import apply_expressions, apply_sequences, expression_columns, sequence_columns
from stateforge.fill.key_kinds import per_parent_fk, unbroken_fks
from stateforge.fill.keys import TableKeys, table_generator
from stateforge.fill.limits import Limit, cap, parent_limits
from stateforge.fill.report import TableReport
from stateforge.fill.sampling import rng_for
from stateforge.fill.seeds import insert_seeds
from stateforge.fill.shortfall import shortfall_reason
from stateforge.fill.time_fit import IndexedFit, TimeFit
from stateforge.graph.plan import FillPlan
from stateforge.schema.model import ForeignKey, Schema, Table
from stateforge.store.sql import table_ref
from stateforge.validation.batch import Failure, validate_batch
from stateforge.validation.batch_ranges import WrittenRanges
from stateforge.validation.batch_trust import Enforced, enforced_constraints
from stateforge.validation.repair import MAX_ROUNDS, RepairContext, RepairOutcome, repair_batch

Enrich = Callable[[duckdb.DuckDBPyConnection, Table, pa.Table, int], pa.Table]
"""A hook that rewrites a finished batch before validation (the LLM fill: `stateforge.llm.fill.LLMFill`)."""


def _rows_for(rows: dict[str, int] | int, table: str) -> int:
    if isinstance(rows, int):
        return rows
    found = [n for name, n in rows.items() if name.lower() == table.lower()]
    if not found:
        raise KeyError(f"rows: no row count for table {table} (size every table with plan_rows).")
    return found[0]


def fill_table(
    con: duckdb.DuckDBPyConnection,
    schema: Schema,
    plan: FillPlan,
    config: DomainConfig,
    table: str,
    *,
    seed: int,
    rows: dict[str, int] | int,
    batch_size: int | None = None,
    on_batch: Callable[[str, int, int], None] | None = None,
    record: Callable[[duckdb.DuckDBPyConnection, TableReport], None] | None = None,
    rounds: int = MAX_ROUNDS,
    enrich: Enrich | None = None,
    trust_declared: bool = True,
) -> TableReport:
    """Fill one table in one transaction (rows left by an interrupted fill are deleted first).

    `rows` is the plan's sizes (or this table's count); `record(con, report)` runs inside the transaction,
    just before COMMIT, so that progress is recorded with the rows. `enrich(con, table, batch, batch_no)`
    rewrites each complete batch (keys, sequences and expressions filled) before it is validated;
    replacement rows made by repairs are not enriched. Returns the table's report.

    `trust_declared` (without `enrich`) leaves to DuckDB's INSERT the checks it makes itself (keys, NOT
    NULL, declared CHECKs: `stateforge.validation.batch_trust`); a batch that fails any other check is
    checked in
    full before it is repaired, and if DuckDB refuses a batch the table is rolled back and filled again
    with every check (`TableReport.refilled`). Either way the rows are those of a fill with every check.
    """
    kwargs = dict(seed=seed, rows=rows, batch_size=batch_size, on_batch=on_batch, record=record,
                  rounds=rounds, enrich=enrich)
    if trust_declared and enrich is None:
        try:
            return _fill(con, schema, plan, config, table, trusted=True, **kwargs)
        except _Refused:  # rolled back: the same fill, checking everything before each INSERT
            return _fill(con, schema, plan, config, table, trusted=False, **kwargs, refilled=True)
    return _fill(con, schema, plan, config, table, trusted=False, **kwargs)


class _Refused(Exception):
    """DuckDB refused a batch whose keys, NOT NULLs or CHECKs were left to it: fill again, checking all."""


def _fill(con, schema: Schema, plan: FillPlan, config: DomainConfig, table: str, *, seed: int,
          rows: dict[str, int] | int, batch_size: int | None, on_batch, record, rounds: int,
          enrich: Enrich | None, trusted: bool, refilled: bool = False) -> TableReport:
    t = schema.table(table)
    bs = batch_size or config.batch_size
    planned = _rows_for(rows, t.name)
    started = time.perf_counter()
    enforced = enforced_constraints(con, t) if trusted else None
    con.begin()
    try:
        con.execute(f"DELETE FROM {table_ref(t.name)}").fetchall()
        seeds = insert_seeds(con, t, plan.order)  # the DDL's INSERT rows first; generated rows only past them
        seeded = seeds.num_rows if seeds is not None else 0
        keys = TableKeys.build(con, schema, plan, config, t.name, seed=seed, rows=max(planned - seeded, 0),
                               planned=rows if isinstance(rows, dict) else None, batch_size=bs)
        fresh_from = max(planned, keys.rows)  # replacement rows get ordinals past the planned ones
        writer = _BatchWriter(con, schema, plan, config, t, keys, seed=seed, fresh_from=fresh_from + seeded)
        writer.batch_size = bs
        if seeds is not None:  # generated ordinals (and so ids) start past the seeds; their keys are stored
            writer.offset, writer.written = seeded, seeded
            writer.ranges.add(seeds)
        if writer.fit is not None and enrich is None:  # rows as the keys drew them: numpy look-ups
            writer.fast_fit = IndexedFit.build(con, writer.fit, keys, seed)
        writer.enrich = enrich
        writer.fks = checked_fks(t, config, keys, enriched=enrich is not None)
        writer.enforced = enforced
        report = TableReport(t.name, rows=seeded, planned=planned, refilled=refilled, seeded=seeded)
        repairs: Counter[str] = Counter()
        spans = [(start, min(bs, keys.rows - start)) for start in range(0, keys.rows, bs)]
        with _Ahead(writer.raw, spans) as ahead:
            for b in range(len(spans)):
                written, counts = writer.write(b, ahead.take(b), rounds)
                report.rows += written
                report.batches += 1
                repairs.update(counts)
                if on_batch is not None:
                    on_batch(t.name, report.rows, keys.rows + seeded)
        report.repairs = dict(sorted(repairs.items()))
        report.shortfall = max(planned - report.rows, 0)
        if report.shortfall:
            report.short_reason = shortfall_reason(t, plan, config, keys, wanted=max(planned - seeded, 0),
                                                   written=report.rows - seeded, repairs=report.repairs)
        report.seconds = time.perf_counter() - started
        if record is not None:
            record(con, report)
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return report


class _BatchWriter:
    """Makes, checks, repairs and inserts the batches of one table."""

    def __init__(self, con, schema: Schema, plan: FillPlan, config: DomainConfig, table: Table,
                 keys: TableKeys, *, seed: int, fresh_from: int) -> None:
        self.con, self.config, self.table, self.keys, self.seed = con, config, table, keys, seed
        self.gen = table_generator(table, config, seed)
        self.counters: dict = {}
        self.enrich: Enrich | None = None
        self.fks: list[ForeignKey] = list(keys.checked)
        """The foreign keys each batch is checked for (`checked_fks`)."""
        self.written = 0
        self.offset = 0
        """Generated rows' first ordinal: past the table's seed rows (`stateforge.fill.seeds`)."""
        self.enforced: Enforced | None = None
        """Checks left to DuckDB's INSERT (`stateforge.validation.batch_trust`); None: every check runs
        first."""
        self.ranges = WrittenRanges(table)
        """The key values written so far: a batch's stored-key look-ups skip keys it cannot repeat (the
        table was emptied before batch 0 and only this writer writes it, in one transaction)."""
        self.next_fresh = fresh_from
        self.keep = _kept_columns(schema, plan, config, table)
        self.order = [c.name for c in table.columns]
        self.source = schema.source
        self.fit = TimeFit.build(schema, config, table)
        """The time order each batch is fitted to before it is checked (`stateforge.fill.time_fit`)."""
        self.batch_size = config.batch_size
        self.fast_fit: IndexedFit | None = None
        self.limits: list[Limit] | None = None
        """The `at_most` hints' parent values (`stateforge.fill.limits`), read before the first batch."""

    def finish(self, batch: pa.Table) -> pa.Table:
        """Sequences and expressions, then the DDL's column order."""
        batch = apply_sequences(batch, self.table, self.config, self.counters)
        batch = apply_expressions(batch, self.table, self.config)
        present = {c.lower(): c for c in batch.column_names}
        return batch.select([present[c.lower()] for c in self.order if c.lower() in present])

    def fresh(self, n: int, keep: dict[str, pa.Array], rng: np.random.Generator) -> pa.Table:
        """`n` replacement rows generated at ordinals past the planned range."""
        start, self.next_fresh = self.next_fresh, self.next_fresh + n
        return self.finish(self.keys.fresh(self.gen.generate(n, start), rng, keep))

    def raw(self, start: int, n: int) -> pa.Table:
        """Rows start..start+n: generated columns and drawn keys (pure: safe in another thread)."""
        return self.keys.attach(self.gen.generate(n, start + self.offset), start, n)

    def write(self, b: int, raw: pa.Table, rounds: int) -> tuple[int, Counter[str]]:
        """Finish, check, repair and insert batch `b` (its `raw` rows); rows written and repairs."""
        rng = rng_for(self.seed, self.table.name, "repair", b)
        if self.limits is None:
            self.limits = parent_limits(self.con, self.config, self.table, self.keys)
        batch = self.finish(cap(raw, self.limits, self.keys, b * self.batch_size))
        if self.enrich is not None:
            batch = self.enrich(self.con, self.table, batch, b)
        if self.fast_fit is not None:
            batch = self.fast_fit.apply(batch, b * self.batch_size)
        elif self.fit is not None:
            batch = self.fit.apply(self.con, batch, b * self.batch_size)
        ctx = RepairContext(self.table, rng, self.keys, lambda k, keep: self.fresh(k, keep, rng), self.keep,
                            self.source)

        def validate(x: pa.Table, enforced: Enforced | None = None) -> list[Failure]:
            stored = self.ranges.keys_to_check(x) if self.written else False
            return validate_batch(self.con, self.table, x, batch_no=b, fks=self.fks, stored=stored,
                                  enforced=enforced)

        if self.enforced is not None and not validate(batch, self.enforced):
            outcome = RepairOutcome(batch, Counter(), 0, 0)  # DuckDB's INSERT checks the rest
        else:  # a batch with failures is checked in full before it is repaired, as without trust
            outcome = repair_batch(batch, validate, ctx, rounds=rounds, first=self.written == 0)
        if outcome.batch.num_rows:
            self.con.register("__sf_insert", outcome.batch)
            try:
                sql = f"INSERT INTO {table_ref(self.table.name)} BY NAME SELECT * FROM __sf_insert"
                self.con.execute(sql).fetchall()
            except duckdb.Error as exc:
                if self.enforced is not None:
                    raise _Refused(str(exc)) from exc
                raise BuildError(
                    f"table {self.table.name}, batch {b}: DuckDB refused a validated batch ({exc}). "
                    "The batch checks missed a constraint: report it with the DDL of the table."
                ) from exc
            finally:
                with contextlib.suppress(duckdb.Error):  # keep the error above, not "transaction aborted"
                    self.con.unregister("__sf_insert")
        self.ranges.add(outcome.batch)
        self.written += outcome.batch.num_rows
        return outcome.batch.num_rows, outcome.repairs


def checked_fks(table: Table, config: DomainConfig, keys: TableKeys, *, enriched: bool) -> list[ForeignKey]:
    """The foreign keys whose parents a batch's validation must look up in DuckDB.

    A key drawn from another table's stored rows has its parent by construction: `TableKeys` draws it
    from that table's distinct stored keys, and the repairs' redraws and fresh rows draw from the same
    parents (the other repairs drop rows or leave these columns alone). So the anti-join of each batch
    only re-proves it, and is skipped. It stays where something else may write the key's columns: an
    `enrich` hook (the LLM fill), a `sequence` or `expr` hint, a VARCHAR(n) that `truncate_to_length`
    may shorten, a reference to the table itself (the parent may come later in the same batch), and keys
    not drawn from stored rows at all (cycles: planned keys, second pass). The build's final audit checks
    every foreign key of the file whatever is skipped here, so a broken guarantee fails the build.
    """
    if enriched:
        return list(keys.checked)
    computed = {c.lower() for c in expression_columns(table, config) + sequence_columns(table, config)}

    def guaranteed(fk: ForeignKey) -> bool:
        return (
            fk.ref_table.lower() != table.name.lower()
            and not any(c.lower() in computed for c in fk.columns)
            and not any(table.column(c).length for c in fk.columns)
        )

    return [fk for fk in keys.checked if not guaranteed(fk)]


class _Ahead:
    """The raw rows of the batch after the one being written, made by a worker thread in the meantime."""

    def __init__(self, make: Callable[[int, int], pa.Table], spans: Sequence[tuple[int, int]]) -> None:
        self.make, self.spans = make, spans
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="stateforge-fill")
        self.pending: dict[int, Future[pa.Table]] = {}

    def take(self, b: int) -> pa.Table:
        """Batch `b`'s raw rows (made now if they were not made ahead); batch b+1's start being made."""
        for i in (b, b + 1):
            if i < len(self.spans) and i not in self.pending:
                self.pending[i] = self.pool.submit(self.make, *self.spans[i])
        return self.pending.pop(b).result()

    def __enter__(self) -> _Ahead:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _kept_columns(schema: Schema, plan: FillPlan, config: DomainConfig, table: Table) -> tuple[str, ...]:
    """Columns replacement rows keep: the per_parent key, and keys other tables drew before these rows."""
    keep: list[str] = []
    cfg = config.table_config(table.name)
    if cfg is not None and cfg.per_parent is not None:
        keep += per_parent_fk(table, cfg.per_parent.fk).columns
    for other in schema.tables:
        for fk in unbroken_fks(other, plan):
            if fk.ref_table.lower() == table.name.lower():
                keep += [c for c in fk.ref_columns if c.lower() not in {k.lower() for k in keep}]
    return tuple(keep)
