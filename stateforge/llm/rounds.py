"""One batch through the LLM: first requests, validation, repair rounds, fallback (`LLMFill` calls it).

    run = BatchRun(fill, plan, con, batch, batch_no, counts)
    batch = run.run()

Rounds: round 0 sends every row to write (`stateforge/prompts/fill_rows.md`), later rounds send the rows that
failed
with their exact errors (`stateforge/prompts/repair_rows.md`). After each round the batch with the values
accepted so
far goes through `stateforge.validation.batch.validate_batch`; an accepted row that fails there on a column
the LLM
wrote is rejected and goes to the next round. What is left after the last round keeps its offline values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import duckdb
import pyarrow as pa

from stateforge.errors import TransientError
from stateforge.llm.context import Upstream, labelled_block
from stateforge.llm.prompts import prompt_sha256, render_messages
from stateforge.llm.reply import LLMReply, LLMRequest
from stateforge.llm.rows import jsonable
from stateforge.validation.batch import validate_batch

if TYPE_CHECKING:
    from stateforge.llm.fill import LLMFill, TableCounts, TablePlan

FILL, REPAIR = "fill_rows", "repair_rows"
"""The templates of the first requests and of the repair rounds."""

_WHAT = {"unique": "duplicates another row of the batch", "stored": "duplicates a row already stored",
         "check": "breaks CHECK ({detail})", "not_null": "is NULL in a NOT NULL column",
         "length": "is longer than the column allows", "allowed_values": "is not an allowed value",
         "range": "is out of the type's range", "dtype": "has the wrong type"}


class BatchRun:
    """One batch through the LLM: first requests, validation, repair rounds, fallback."""

    def __init__(self, fill: LLMFill, plan: TablePlan, con: duckdb.DuckDBPyConnection, batch: pa.Table,
                 batch_no: int, counts: TableCounts) -> None:
        self.fill, self.plan, self.con, self.batch, self.batch_no, self.counts = \
            fill, plan, con, batch, batch_no, counts
        names = {c.lower(): c for c in batch.column_names}
        self.names = names
        self.offline = {c: batch.column(names[c.lower()]).to_pylist() for c in plan.written}
        shown = batch.select([names[c.lower()] for c in plan.keys + plan.context]).to_pylist()
        keys = {names[c.lower()] for c in plan.keys}
        # context values that are NULL are left out: a null in the rows to complete means "write this"
        self.shown = [{k: jsonable(v) for k, v in row.items() if v is not None or k in keys} for row in shown]
        labelled = {names[c.lower()] for c in plan.shape.keys}
        self.keys = [{c: row[names[c.lower()]] for c in plan.shape.keys} for row in self.shown]
        self.fields = [{k: v for k, v in row.items() if k not in labelled} for row in self.shown]
        """What each row to complete shows under its label: the other keys, the context, the nulls."""
        self.accepted: dict[int, tuple[dict[str, Any], int]] = {}
        self.errors: dict[int, list[str]] = {}
        self.transport: set[int] = set()

    def todo(self) -> list[int]:
        """The rows to send: those with a meaning column that is not NULL in the offline batch."""
        columns = [self.offline[c] for c in self.plan.written]
        return [r for r in range(self.batch.num_rows) if any(values[r] is not None for values in columns)]

    def run(self) -> pa.Table:
        plan, counts = self.plan, self.counts
        todo = self.todo()
        counts.batches += 1
        counts.rows += len(todo)
        counts.rows_skipped += self.batch.num_rows - len(todo)
        if not todo:
            return self.batch
        upstream = Upstream.fetch(self.con, self.fill.schema, self.fill.config, plan.table, self.batch,
                                  seed=self.fill.seed)
        pending = todo
        for attempt in range(self.fill.repair_rounds + 1):
            if not pending:
                break
            failed = self._round(pending, attempt, upstream)
            failed |= self._validate()
            pending = sorted(failed - self.transport)
        counts.rows_fallback += len(pending)
        counts.rows_transport += len(self.transport)
        counts.rows_llm += sum(1 for _, a in self.accepted.values() if a == 0)
        counts.rows_repaired += sum(1 for _, a in self.accepted.values() if a > 0)
        counts.stats.add_rows(len(self.accepted))
        return self._compose()

    def _round(self, rows: list[int], attempt: int, upstream: Upstream) -> set[int]:
        """Send `rows` in chunks; the rows that came back without accepted values."""
        chunks = self.chunks(rows)
        if attempt == 0:
            self.counts.chunks += len(chunks)
        else:
            self.counts.repair_requests += len(chunks)
            self.counts.repair_rounds += 1
        requests = self.requests(rows, attempt, upstream)
        replies = self.fill.client.complete_many(requests, return_exceptions=True)
        failed: set[int] = set()
        for chunk, reply in zip(chunks, replies, strict=True):
            failed |= self._take(chunk, self.labels(chunk), reply, attempt)
        return failed

    def chunks(self, rows: list[int]) -> list[list[int]]:
        k = self.fill.rows_per_call
        return [rows[i : i + k] for i in range(0, len(rows), k)]

    def requests(self, rows: list[int], attempt: int, upstream: Upstream) -> list[LLMRequest]:
        """One request per chunk of `rows` (first requests with `attempt` 0, repairs after)."""
        return [self._request(chunk, attempt, i, upstream) for i, chunk in enumerate(self.chunks(rows))]

    def labels(self, rows: list[int]) -> list[str]:
        """The labels of `rows` in one request (and in its reply)."""
        return self.plan.shape.labels([self.keys[r] for r in rows])

    def _request(self, rows: list[int], attempt: int, chunk: int, upstream: Upstream) -> LLMRequest:
        plan = self.plan
        blank = dict.fromkeys(plan.written)
        labels = self.labels(rows)
        template = FILL if attempt == 0 else REPAIR
        to_write = {label: self.fields[r] | blank for label, r in zip(labels, rows, strict=True)}
        values = plan.parts.values() | {
            "upstream": upstream.render(rows, salt=f"{self.batch_no}:{attempt}:{chunk}"),
            "n": len(rows),
            "rows": labelled_block(to_write),
        }
        if attempt:
            values["errors"] = "\n".join(f"- {label}: {'; '.join(self.errors.get(r, []))}"
                                         for label, r in zip(labels, rows, strict=True))
        messages = render_messages(template, **values)
        extra = {"prompt": prompt_sha256(template)[:16], "table": plan.table.name, "batch": self.batch_no,
                 "attempt": attempt}
        return LLMRequest(messages, plan.shape.reply_schema(labels), f"{plan.table.name}_rows", extra)

    def _take(self, rows: list[int], labels: list[str], reply: LLMReply | BaseException, attempt: int
              ) -> set[int]:
        """Accept the valid rows of one reply; the rest are returned with their errors recorded."""
        if isinstance(reply, TransientError):
            self.counts.failures["transport"] += 1
            self.transport.update(rows)
            return set(rows)
        if isinstance(reply, BaseException):
            raise reply
        if not reply.ok:
            kind = "truncated" if reply.finish_reason == "length" else "malformed"
            self.counts.failures[kind] += 1
            for r in rows:
                self.errors[r] = [f"the answer was not valid JSON ({reply.error}); answer with JSON only"]
            return set(rows)
        outcomes, kinds = self.plan.shape.read_reply(reply.data, labels)
        self.counts.failures.update(kinds)
        failed = set()
        for r, outcome in zip(rows, outcomes, strict=True):
            if outcome.values is not None:
                self.accepted[r] = (outcome.values, attempt)
                self.errors.pop(r, None)
            else:
                self.errors[r] = outcome.errors
                failed.add(r)
        return failed

    def _compose(self) -> pa.Table:
        """The batch with the accepted values (cells NULL in the offline batch stay NULL)."""
        out = self.batch
        for column in self.plan.written:
            values = list(self.offline[column])
            for r, (accepted, _) in self.accepted.items():
                if values[r] is not None:
                    values[r] = accepted[column]
            i = out.schema.get_field_index(self.names[column.lower()])
            out = out.set_column(i, out.schema.field(i), pa.array(values, type=out.schema.field(i).type))
        return out

    def _validate(self) -> set[int]:
        """Run the offline batches' validation; accepted rows failing on a written column are rejected."""
        if not self.accepted:
            return set()
        candidate = self._compose()
        failures = validate_batch(self.con, self.plan.table, candidate, batch_no=self.batch_no, fks=[])
        written = {c.lower() for c in self.plan.written}
        rejected: set[int] = set()
        for f in failures:
            columns = [c for c in f.columns if c.lower() in written]
            if not columns:
                continue
            rows = [int(r) for r in f.rows] if f.count else list(self.accepted)
            for r in rows:
                if r not in self.accepted or r in rejected:
                    continue
                self.counts.failures[f.rule] += 1
                shown = {c: jsonable(self.accepted[r][0][c]) for c in columns}
                what = _WHAT.get(f.rule, f.rule).format(detail=f.detail)
                self.errors[r] = [f"{', '.join(f'{c}={v!r}' for c, v in shown.items())} {what}"]
                rejected.add(r)
        for r in rejected:
            del self.accepted[r]
        return rejected
