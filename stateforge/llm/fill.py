"""The LLM fill: the enricher the fill engine calls on every offline batch, before validation and insert.

    fill = LLMFill(schema, config, settings, seed=7)
    batch = fill(con, table, batch, batch_no)     # meaning columns rewritten by the LLM where it did well
    fill.report("songs"); fill.to_dict(); fill.close()

Per batch (`rounds.BatchRun`): the rows whose meaning columns (`columns.meaning_columns`) are not all
NULL are cut into chunks of `rows_per_call`, each sent with its upstream rows (`context.Upstream`) through
`LLMClient.complete_many` (concurrent, bounded by the client's semaphore). Each reply names its rows by
the labels the request gave them, as required properties of the reply's JSON schema (so a server that
decodes under the schema cannot invent or drop a key); each row is validated
(`rows.RowShape.read_reply`), then the batch with the accepted values goes through
`stateforge.validation.batch.validate_batch`, the same validation as offline batches. Rows that failed
anywhere go
back with their exact errors (`stateforge/prompts/repair_rows.md`) for up to `repair_rounds` rounds; the rest
keep
the offline values (`fallback`), as do the rows of a request whose retries ran out (`transport`). The
engine's validation and repair then run on the result as on any batch, so a build never fails because
a model misbehaved. Requests are pure functions of the inputs, so a rebuild is answered by the cache.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from stateforge.domain.config import DomainConfig
from stateforge.llm.accounting import LLMStats
from stateforge.llm.client import LLMClient
from stateforge.llm.columns import context_columns, label_columns, meaning_columns, shown_keys
from stateforge.llm.context import TableParts, Upstream
from stateforge.llm.prompts import prompt_hashes
from stateforge.llm.reply import LLMRequest
from stateforge.llm.rounds import BatchRun
from stateforge.llm.rows import RowShape
from stateforge.llm.settings import LLMSettings
from stateforge.schema.model import Schema, Table

ROWS_PER_CALL = 20
"""Rows per request: enough to spread the fixed part of the prompt, few enough to keep replies short."""

REPAIR_ROUNDS = 2
"""Times rows that failed validation go back to the model before the offline values take over."""


@dataclass
class TablePlan:
    """What the LLM does for one table: the columns it writes, the keys and context shown with each row,
    the reply's shape and the fixed prompt parts."""

    table: Table
    written: list[str]
    keys: list[str]
    context: list[str]
    shape: RowShape
    parts: TableParts


@dataclass
class TableCounts:
    """The LLM path's account of one table, for the build report."""

    columns: list[str]
    batches: int = 0
    rows: int = 0
    """Rows sent to the LLM (rows whose meaning columns are all NULL are not: `rows_skipped`)."""
    rows_llm: int = 0
    rows_repaired: int = 0
    rows_fallback: int = 0
    rows_transport: int = 0
    rows_skipped: int = 0
    chunks: int = 0
    """First requests (one per chunk of `rows_per_call` rows)."""
    repair_requests: int = 0
    repair_rounds: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    stats: LLMStats = field(default_factory=LLMStats)

    def to_dict(self) -> dict[str, Any]:
        llm = self.stats.to_dict()
        prompt = llm["prompt_tokens"] + llm["cached_prompt_tokens"]
        names = ("batches", "rows", "rows_llm", "rows_repaired", "rows_fallback", "rows_transport",
                 "rows_skipped", "chunks", "repair_requests", "repair_rounds")
        return {"columns": list(self.columns), **{n: getattr(self, n) for n in names},
                "failures": dict(sorted(self.failures.items())), "calls": llm["calls"],
                "cache_hits": llm["cache_hits"], "retries": llm["total_retries"], "cost_usd": llm["cost_usd"],
                "calls_per_chunk": round(llm["calls"] / self.chunks, 3) if self.chunks else 0.0,
                "prompt_tokens_per_row": round(prompt / self.rows, 1) if self.rows else 0.0, "llm": llm}

    def add(self, other: TableCounts) -> None:
        for name in ("batches", "rows", "rows_llm", "rows_repaired", "rows_fallback", "rows_transport",
                     "rows_skipped", "chunks", "repair_requests", "repair_rounds"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures.update(other.failures)
        self.stats.merge(other.stats)


class LLMFill:
    """The enrich hook of the fill engine: `fill(con, table, batch, batch_no) -> batch`."""

    def __init__(self, schema: Schema, config: DomainConfig, settings: LLMSettings, *, seed: int,
                 rows_per_call: int = ROWS_PER_CALL, repair_rounds: int = REPAIR_ROUNDS,
                 client: LLMClient | None = None) -> None:
        from stateforge.llm.backends import get_backend

        if rows_per_call < 1 or repair_rounds < 0:
            raise ValueError("rows_per_call must be >= 1 and repair_rounds >= 0")
        self.schema, self.config, self.settings, self.seed = schema, config, settings, seed
        self.rows_per_call, self.repair_rounds = rows_per_call, repair_rounds
        self.client = client if client is not None else get_backend(settings.backend).client(settings)
        self._plans: dict[str, TablePlan | None] = {}
        self._counts: dict[str, TableCounts] = {}

    def plan(self, table: Table) -> TablePlan | None:
        """The table's plan (None when the LLM writes nothing there), made once."""
        key = table.name.lower()
        if key not in self._plans:
            written = meaning_columns(table, self.config, whole_rows=self.settings.whole_rows)
            labels = label_columns(table)
            self._plans[key] = TablePlan(
                table, written, shown_keys(table), context_columns(table, self.config, written),
                RowShape.build(table, labels, written), TableParts.build(self.config, table, labels, written),
            ) if written else None
        return self._plans[key]

    def counts(self, table: Table | str) -> TableCounts:
        name = table if isinstance(table, str) else table.name
        t = self.schema.table(name)
        if t.name not in self._counts:
            plan = self.plan(t)
            self._counts[t.name] = TableCounts(plan.written if plan else [])
        return self._counts[t.name]

    def __call__(
        self, con: duckdb.DuckDBPyConnection, table: Table, batch: pa.Table, batch_no: int
    ) -> pa.Table:
        """`batch` with the meaning columns written by the LLM where its values passed validation."""
        plan = self.plan(table)
        if plan is None or batch.num_rows == 0:
            return batch
        counts = self.counts(table)
        # The engine fills one table at a time and `complete_many` returns when every call is done, so
        # pointing the client's counters at this table's gives per-table accounting (`to_dict` sums them).
        self.client.stats = counts.stats
        run = BatchRun(self, plan, con, batch, batch_no, counts)
        return run.run()

    def preview(
        self, con: duckdb.DuckDBPyConnection, table: Table, batch: pa.Table, batch_no: int = 0
    ) -> list[LLMRequest]:
        """The first requests `batch` would send, without sending them (to read a prompt, or test it)."""
        plan = self.plan(table)
        if plan is None:
            return []
        run = BatchRun(self, plan, con, batch, batch_no, TableCounts(plan.written))
        upstream = Upstream.fetch(con, self.schema, self.config, table, batch, seed=self.seed)
        return run.requests(run.todo(), 0, upstream)

    def report(self, table: Table | str) -> dict[str, Any]:
        """The table's account: rows by path, requests, rounds, failures by kind, calls, tokens, cost."""
        return self.counts(table).to_dict()

    def to_dict(self) -> dict[str, Any]:
        """Totals, per table, the prompt hashes and the settings (without the API key)."""
        total = TableCounts([])
        for counts in self._counts.values():
            total.add(counts)
        settings = self.settings.model_dump(mode="json", exclude={"api_key", "prices"})
        settings["api_key_set"] = self.settings.api_key is not None
        price = self.settings.price_for(self.settings.model)
        settings["price"] = price.model_dump() if price else None
        totals = {k: v for k, v in total.to_dict().items() if k != "columns"}
        tables = {name: c.to_dict() for name, c in sorted(self._counts.items()) if c.columns}
        return {"settings": settings, "rows_per_call": self.rows_per_call,
                "repair_rounds": self.repair_rounds, "prompts": prompt_hashes(), "totals": totals,
                "tables": tables}

    def close(self) -> None:
        """Close the LLM client."""
        self.client.close()

    def __enter__(self) -> LLMFill:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
