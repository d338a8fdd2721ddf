"""`LLMGenerator`: the task generator behind `--backend openai`, one conversation per attempt.

    generator = LLMGenerator(workspace, toolkit, seed=7, settings=LLMSettings(backend="openai", model=...))
    proposal = generator.propose(Want(attempt=1, capability=None, infeasible=False))

It speaks to any OpenAI-compatible server through `LLMClient` (the LLM fill's settings, retries, response
cache and accounting), offers the model `run_sql`, the domain's tools and `submit_task`, and judges each
submission with the run's `Gate` inside the conversation, so that a rejection goes back to the model. The
accepted draft goes to the runner with that verdict (`Proposal.verdict`: the gate runs once); when the
submissions ran out, the last rejected draft and its verdict go, to be counted under the gate's reason.
Conversations that end without a submission are counted as skips (`llm_*` reasons). Without the run's
gate (`gate=None`, the generator used on its own) it judges with a gate of its own and hands over no
verdict, so a runner judges again.

Deterministic for a database, a seed and a cache: the opening depends only on them and the attempt, tool
results and gate verdicts are deterministic, and a rerun answers every turn from the response cache
(zero calls).
"""

from __future__ import annotations

import time
import weakref
from collections import Counter
from typing import TYPE_CHECKING, Any

from stateforge.errors import TerminalError
from stateforge.llm.settings import LLMSettings
from stateforge.tasks.gate import REASONS, Gate
from stateforge.tasks.generators import Proposal, Want
from stateforge.tasks.grading import domain_policy
from stateforge.tasks.llm.prompt import PROMPT, opening
from stateforge.tasks.llm.session import GeneratorLimits, Session
from stateforge.tasks.llm.sql import RUN_SQL_TOOL

if TYPE_CHECKING:
    from stateforge.llm.client import LLMClient
from stateforge.tasks.llm.submit import submit_tool
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit

WRITE_MARK = "[changes data]"
"""Put before a write tool's description, so the model (and the fake server's agent) know what it does."""
MAX_MISSES = 30
"""Conversations in a row without a kept task after which the generator stops (it is not working)."""
MAX_REFUSALS = 3
"""Conversations in a row the server refuses (TerminalError) before the run stops with that error."""


def generator_tools(toolkit: Toolkit) -> list[dict[str, Any]]:
    """What the model is offered: `run_sql`, the domain's tools (writes marked), `submit_task`."""
    tools = []
    for entry in toolkit.openai_tools():
        function = dict(entry["function"])
        if function["name"] == CANNOT_COMPLETE:
            continue  # a solver's way out; the generator hands in infeasible tasks with submit_task
        if toolkit[function["name"]].kind == "write":
            function["description"] = f"{WRITE_MARK} {function.get('description', '')}".rstrip()
        tools.append({"type": "function", "function": function})
    return [RUN_SQL_TOOL, *tools, submit_tool()]


class LLMGenerator:
    """A `Generator` (stateforge.tasks.generators) backed by an LLM agent; see the module docstring."""

    name = "openai"

    def __init__(
        self,
        workspace: Workspace,
        toolkit: Toolkit,
        *,
        seed: int,
        settings: LLMSettings,
        limits: GeneratorLimits | None = None,
        client: LLMClient | None = None,
        gate: Gate | None = None,
    ) -> None:
        self.workspace, self.toolkit, self.seed = workspace, toolkit, seed
        self.settings = settings
        self.limits = limits or GeneratorLimits()
        if client is None:  # openai is imported when a generator is made, not by every command
            from stateforge.llm.client import LLMClient

            client = LLMClient(settings)
        self.client = client
        if client is None:
            weakref.finalize(self, self.client.close)
        self.shared_gate = gate is not None
        self.gate = gate or Gate(
            workspace, toolkit, defaults=domain_policy(workspace.config, workspace.schema)
        )
        self.tools = generator_tools(toolkit)
        self.source = f"llm:{settings.model}"
        self.prompt_sha256 = ""
        self._misses = self._refusals = 0
        self.outcomes: Counter[str] = Counter()
        self.rejections: Counter[str] = Counter()
        self.faults: Counter[str] = Counter()
        self.turns = self.tool_calls = self.tokens = self.kept = 0

    @property
    def exhausted(self) -> bool:
        """True after `MAX_MISSES` conversations in a row kept nothing."""
        return self._misses >= MAX_MISSES

    def propose(self, want: Want) -> Proposal:
        """One conversation for `want`: the accepted draft, the last rejected one, or a skip with why."""
        started = time.perf_counter()
        limits = self.limits.model_dump()
        opened = opening(self.workspace, self.toolkit, want, seed=self.seed, limits=limits)
        self.prompt_sha256 = opened.prompt_sha256
        provenance = {
            "generator": "llm",
            "model": self.settings.model,
            "seed": self.seed,
            "attempt": want.attempt,
            "prompt_hashes": {PROMPT: opened.prompt_sha256},
        }
        session = Session(
            self.client, self.workspace, self.toolkit, self.gate, self.limits, self.tools, opened, provenance
        )
        try:
            outcome = session.run()
        except TerminalError as exc:
            self._refusals += 1
            if self._refusals >= MAX_REFUSALS:
                raise TerminalError(
                    f"the LLM server refused {self._refusals} conversations in a row; the last: {exc}"
                ) from exc
            self.outcomes["llm_refused"] += 1
            return Proposal(
                self.source, skipped="llm_refused", detail=str(exc), seconds=time.perf_counter() - started
            )
        self._refusals = 0
        self.turns += outcome.turns
        self.tool_calls += outcome.tool_calls
        self.tokens += outcome.tokens
        self.faults.update(outcome.faults)
        self.rejections.update(outcome.rejections)
        proposal = Proposal(self.source, seconds=time.perf_counter() - started)
        if outcome.draft is not None and (outcome.accepted or outcome.reason in REASONS):
            proposal.capabilities = outcome.draft.capabilities
            proposal.drafts = [outcome.draft]
            proposal.verdict = outcome.verdict if self.shared_gate else None
            self.outcomes["accepted" if outcome.accepted else "rejected"] += 1
        else:
            proposal.skipped, proposal.detail = outcome.reason or "llm_no_submission", outcome.detail
            self.outcomes[proposal.skipped] += 1
        return proposal

    def feedback(self, proposal: Proposal, kept: bool) -> None:
        """Count misses in a row (see `exhausted`)."""
        self._misses = 0 if kept else self._misses + 1
        self.kept += int(kept)

    def describe(self) -> dict[str, Any]:
        """The model, the prompt, the limits, the LLM accounting and what the conversations did."""
        return {
            "generator": self.name,
            "model": self.settings.model,
            "base_url": self.client.base_url,
            "prompt_hashes": {PROMPT: self.prompt_sha256} if self.prompt_sha256 else {},
            "limits": self.limits.model_dump(),
            "llm": self.client.stats.to_dict(),
            "conversations": {
                "outcomes": dict(sorted(self.outcomes.items())),
                "turns": self.turns,
                "tool_calls": self.tool_calls,
                "tokens": self.tokens,
                "rejections_fed_back": dict(sorted(self.rejections.items())),
                "faults": dict(sorted(self.faults.items())),
                "per_kept_task": {
                    "turns": round(self.turns / self.kept, 2),
                    "tool_calls": round(self.tool_calls / self.kept, 2),
                    "tokens": round(self.tokens / self.kept),
                }
                if self.kept
                else None,
            },
        }

    def close(self) -> None:
        """Close the LLM client (its HTTP connections and loop thread)."""
        self.client.close()
