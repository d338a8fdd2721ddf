"""One generator conversation: the agent loop that turns a model's tool calls into a task draft.

    outcome = Session(client, workspace, toolkit, gate, limits, tools, opening, provenance).run()

The model gets `run_sql` (read-only, on its own episode), the domain's tools acting on that episode, and
`submit_task`. Every call is answered with a result the model reads; failures are data (`error (<kind>):
...`): malformed arguments, an unknown tool, an SQL error, a tool's refusal, a submission that does not
fit. A submission is judged by the gate at once: accepted, the conversation ends; rejected, the gate's
reason goes back, the episode is reset to the base state (kept as it is when the reason is about the
wording or the declarations, `KEEP_STATE`), and the model may try again, up to
`max_submissions`. The limits on turns, tool calls and tokens end a conversation that goes nowhere, as
a counted outcome (`llm_turn_limit`, ...), never an exception. Transport failures that outlast the
client's retries end it as `llm_unavailable`; the server's refusal of a request (TerminalError) is
raised for the generator to judge.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from stateforge.episode import Episode
from stateforge.errors import TransientError
from stateforge.llm.tooluse import ToolCall, tool_message
from stateforge.schema.model import suggest
from stateforge.tasks.draft import Call, Draft
from stateforge.tasks.gate import REFUSALS, Gate, GateResult
from stateforge.tasks.llm.prompt import Opening
from stateforge.tasks.llm.sql import RUN_SQL, run_sql
from stateforge.tasks.llm.submit import SUBMIT_TASK, parse_submission, to_draft
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit

if TYPE_CHECKING:  # the client (and openai) is imported by whoever makes one, not by every command
    from stateforge.llm.client import LLMClient

CONVERSATION = "task-generator"
"""The conversation's name in the cache key."""

NUDGE = (
    "You have not submitted a task yet. Make the change with the write tools and call submit_task; "
    "a conversation that ends without a submission produces nothing."
)


KEEP_STATE = frozenset({
    "invalid", "no_goal", "duplicate_instruction", "ambiguous_reference", "not_absent", "hidden_value",
    "goal_not_met", "goal_already_true", "distractor_absent",
})
"""Rejections about a submission's wording or declarations, not its change: the episode keeps its state
(the writes need not be redone)."""


class GeneratorLimits(BaseModel):
    """Bounds on one generator conversation (a conversation that reaches one ends, counted)."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_attribute_docstrings=True)

    max_turns: int = Field(60, ge=1)
    """Assistant turns (requests to the model) per conversation."""
    max_tool_calls: int = Field(120, ge=1)
    """Tool calls per conversation, of any tool."""
    max_tokens: int = Field(400_000, ge=1_000)
    """Prompt plus completion tokens per conversation, as the server reports them (cached turns count)."""
    max_submissions: int = Field(3, ge=1)
    """Submissions the gate judges per conversation: a rejection is fed back until these run out."""
    sql_rows: int = Field(50, ge=1, le=1_000)
    """Rows `run_sql` returns at most."""
    sql_chars: int = Field(20_000, ge=1_000)
    """Characters of JSON `run_sql` returns at most."""
    sql_timeout: float = Field(10.0, gt=0)
    """Seconds one `run_sql` query may run."""


@dataclass
class Outcome:
    """How a conversation ended."""

    draft: Draft | None = None
    """The accepted draft; or the last rejected one once the submissions ran out (None: none made)."""
    accepted: bool = False
    verdict: GateResult | None = None
    """The gate's verdict on `draft`."""
    reason: str | None = None
    """Why nothing was accepted: a gate reason, or `llm_turn_limit`, `llm_tool_call_limit`,
    `llm_token_limit`, `llm_no_submission`, `llm_unavailable`."""
    detail: str | None = None
    turns: int = 0
    tool_calls: int = 0
    tokens: int = 0
    submissions: int = 0
    rejections: list[str] = field(default_factory=list)
    """The gate's reasons for the submissions it rejected, in order."""
    faults: Counter[str] = field(default_factory=Counter)
    """What the model got wrong and was told: malformed_arguments, unknown_tool, truncated, bad_submission,
    sql_error, tool_error, tool_bug, nothing_to_submit."""

    def details(self) -> dict[str, Any]:
        """The deterministic facts of the conversation, for the task's provenance."""
        return {
            "turns": self.turns,
            "tool_calls": self.tool_calls,
            "tokens": self.tokens,
            "submissions": self.submissions,
            "rejections": list(self.rejections),
            "faults": dict(sorted(self.faults.items())),
        }


class Session:
    """One conversation (see the module docstring). Runs in the caller's thread; `run` once."""

    def __init__(
        self,
        client: LLMClient,
        workspace: Workspace,
        toolkit: Toolkit,
        gate: Gate,
        limits: GeneratorLimits,
        tools: list[dict[str, Any]],
        opening: Opening,
        provenance: dict[str, Any],
    ) -> None:
        self.client, self.workspace, self.toolkit, self.gate = client, workspace, toolkit, gate
        self.limits, self.tools, self.opening, self.provenance = limits, tools, opening, provenance
        self.outcome = Outcome()
        self.writes: list[Call] = []
        self.refusal: Call | None = None
        self.done = False
        self._episode: Episode | None = None

    @property
    def episode(self) -> Episode:
        """The conversation's own episode (open while `run` runs)."""
        if self._episode is None:
            raise RuntimeError("the session's episode is open only while Session.run runs")
        return self._episode

    def run(self) -> Outcome:
        """Converse until a task is accepted, the submissions run out, or a limit is reached."""
        self._episode = self.workspace.episode(self.toolkit, diffed=False)
        try:
            self._converse()
        finally:
            self.workspace.discard(self._episode)
            self._episode = None
        return self.outcome

    def _end(self, reason: str, detail: str | None) -> None:
        if not self.outcome.accepted and self.outcome.reason is None:
            self.outcome.reason, self.outcome.detail = reason, detail

    def _converse(self) -> None:
        out, limits = self.outcome, self.limits
        messages = [dict(m) for m in self.opening.messages]
        nudged = False
        key = {"prompt": self.opening.prompt_sha256}
        while not self.done:
            if out.turns >= limits.max_turns:
                return self._end("llm_turn_limit", f"no accepted task after {out.turns} turns")
            if out.tokens >= limits.max_tokens:
                return self._end("llm_token_limit", f"{out.tokens} tokens used (limit {limits.max_tokens})")
            try:
                reply = self.client.run(
                    self.client.complete_tools(messages, self.tools, name=CONVERSATION, cache_key=key)
                )
            except TransientError as exc:
                return self._end("llm_unavailable", str(exc))
            out.turns += 1
            out.tokens += reply.usage.prompt_tokens + reply.usage.completion_tokens
            if reply.truncated:
                out.faults["truncated"] += 1
            messages.append(reply.message())
            if not reply.tool_calls:
                if nudged:
                    return self._end("llm_no_submission", (reply.content or "")[:300] or "an empty reply")
                nudged = True
                messages.append({"role": "user", "content": NUDGE})
                continue
            for call in reply.tool_calls:
                out.tool_calls += 1
                if out.tool_calls > limits.max_tool_calls:
                    self._end("llm_tool_call_limit", f"more than {limits.max_tool_calls} tool calls")
                    self.done = True
                    break
                messages.append(tool_message(call.id, self._execute(call)))
                if self.done:
                    break

    # --- the tools ----------------------------------------------------------------------------------

    def _execute(self, call: ToolCall) -> str:
        """The result text of one call (a failure is `error (<kind>): ...`)."""
        faults, limits = self.outcome.faults, self.limits
        if call.error is not None or call.arguments is None:
            faults["malformed_arguments"] += 1
            return f"error (arguments): {call.error}. Call {call.name} again, its arguments one JSON object."
        if call.name == RUN_SQL:
            text = run_sql(
                self.episode,
                call.arguments.get("sql"),
                max_rows=limits.sql_rows,
                max_chars=limits.sql_chars,
                timeout=limits.sql_timeout,
            )
            if text.startswith("error"):
                faults["sql_error"] += 1
            return text
        if call.name == SUBMIT_TASK:
            return self._submit(call.arguments)
        if call.name not in self.toolkit or call.name == CANNOT_COMPLETE:
            faults["unknown_tool"] += 1
            names = [RUN_SQL, SUBMIT_TASK, *(t.name for t in self.toolkit if t.name != CANNOT_COMPLETE)]
            return f"error (unknown_tool): there is no tool {call.name!r}.{suggest(call.name, names)}"
        result = self.episode.call(call.name, call.arguments)
        if self.toolkit[call.name].kind == "write":
            if result.ok:
                self.writes.append(Call(call.name, dict(call.arguments)))
                self.refusal = None
            elif result.error_kind in REFUSALS:
                self.refusal = Call(call.name, dict(call.arguments))
        if result.ok:
            return result.content()
        faults["tool_bug" if result.infra_error else "tool_error"] += 1
        return f"error ({result.error_kind}): {result.error}"

    def _submit(self, arguments: dict[str, Any]) -> str:
        out = self.outcome
        submission = parse_submission(arguments)
        if isinstance(submission, str):
            out.faults["bad_submission"] += 1
            return submission
        calls = list(self.writes)
        if not submission.feasible and self.refusal is not None:
            calls.append(self.refusal)
        if not calls:
            out.faults["nothing_to_submit"] += 1
            what = "a successful write call" if submission.feasible else "a write call the product refused"
            return (
                f"error (submit): there is no {what} since the last reset to submit. Make the change first."
            )
        out.submissions += 1
        details = {"start_table": self.opening.start_table, "conversation": out.details()}
        draft = to_draft(submission, calls, dict(self.provenance) | {"details": details})
        verdict = self.gate.check(draft)
        out.draft, out.verdict = draft, verdict
        if verdict.task is not None:
            out.accepted, out.reason, out.detail = True, None, None
            self.done = True
            return json.dumps({"status": "accepted", "task_id": verdict.task.id})
        assert verdict.rejection is not None
        reason, detail = verdict.rejection.reason, verdict.rejection.detail
        out.rejections.append(reason)
        left = self.limits.max_submissions - out.submissions
        if left <= 0:
            self._end(reason, detail)
            self.done = True
            return f"error (rejected): the gate rejected the task ({reason}): {detail}. No submissions left."
        if reason in KEEP_STATE:
            return (
                f"error (rejected): the gate rejected the task ({reason}): {detail}. This is about the "
                "submission's wording or declarations: your changes are kept, so fix the instruction, goals, "
                "references or derived values and call submit_task again "
                f"({left} submission{'s' if left > 1 else ''} left)."
            )
        self.episode.reset()
        self.writes, self.refusal = [], None
        return (
            f"error (rejected): the gate rejected the task ({reason}): {detail}. The database was reset to "
            f"its initial state, so your changes are undone. Make the change again (or a better task) and "
            f"call submit_task again ({left} submission{'s' if left > 1 else ''} left)."
        )
