"""The gate: every draft, from any generator, is replayed and checked before it becomes a task.

    gate = Gate(workspace, toolkit, defaults=domain_policy(config, schema))
    result = gate.check(draft)          # GateResult: .task (kept) or .rejection (reason, detail)

In order (the first failure rejects, counted by its reason in the generation report):

- `invalid`: no capability, an unknown one, no call, a bad policy; `no_goal`: a feasible draft without a
  goal verifier; `duplicate_instruction`: the same words (normalised) as a kept task;
- `ambiguous_reference` / `not_absent`: a reference query does not return its expected count on the base;
- the calls replayed on a fresh episode: `replay_failed` (a feasible task's call failed), `tool_bug` (a tool
  failed with a definition or internal error); an infeasible task must meet a tool, constraint or rule
  error (`infeasible_not_refused`, `infeasible_wrong_error`) and change nothing
  (`infeasible_changes_state`); a `forbidden` one of a domain with policies must name its policy
  (`infeasible_no_policy`) and be
  refused by exactly that policy (`infeasible_wrong_policy`); one that names a procedure (`kind:
  procedure`, which no tool enforces) is proved the other way: its last call, the write the request asks
  for, runs first on its own episode and must succeed and break the procedure
  (`infeasible_wrong_error`, `infeasible_procedure_kept`); the task is then the calls before it, which
  change nothing, and the decline, with the procedure's verifier beside `nothing_changed`; a feasible task
  must change something (`empty_diff`);
- `replay_differs`: the generator saw another diff on its own episode;
- `duplicate_diff`: the same expected diff as a kept task;
- `unreachable`: a changed table no tool writes (directly or by cascade);
- `distractor_absent` (before the replay): a declared near-boundary distractor matches no row;
- `hidden_value`: a written value the solver cannot know (`hidden.py`);
- `unreached_argument`: an argument of a write call that is not stated in the instruction, returned by an
  earlier call of the reference, nor declared derived (`reachable.py`; not for LLM drafts, whose calls
  are their writes only);
- verifiers on the expected end state: `goal_not_met`, `goal_already_true` (it already holds on the
  base), `integrity`, `policy`, `side_effect`;
- `nondeterministic`: a second replay on another fresh episode gives another diff or outcome.

The first replay is the generator's own run when it hands one over (`Draft.observed`: a recipe's calls,
reads included, on a fresh episode through this toolkit): the gate diffs that episode rather than running
every call a third time. The second replay, on a new episode, runs the writes of the calls the first one
made, up to and with the call it stopped at (a read included, when a read was refused): a read tool changes
nothing (its queries cannot write, `sqlcheck`), so the reads between writes cannot move the diff, and the
outcomes and the diff are what must come out the same. (Running every write of the draft instead, past a
refused read, is what once gave another diff: an infeasible variant whose lookup of a made-up name fails
had its writes run and succeed.)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from stateforge import __version__
from stateforge.diff import DiffError, Policy
from stateforge.diff.policy import normalize_text
from stateforge.episode import ToolResult
from stateforge.errors import DomainError
from stateforge.tasks.difficulty import difficulty, knob_count, structure
from stateforge.tasks.draft import Call, Draft, Observed
from stateforge.tasks.hidden import LOOSE, HiddenCheck, unreachable, written
from stateforge.tasks.model import (
    CAPABILITIES,
    DIFFICULTIES,
    Infeasibility,
    Provenance,
    ReferenceCall,
    Task,
    Verifier,
    content_id,
)
from stateforge.tasks.plan import reference_plan
from stateforge.tasks.reachable import unreached_arguments
from stateforge.tasks.verifiers import (
    goal_verifiers,
    integrity_verifiers,
    nothing_changed,
    policy_verifiers,
    procedure_verifier,
    rows_match,
    side_effect_verifiers,
)
from stateforge.tasks.workspace import EndState, Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit

REASONS: dict[str, str] = {
    "invalid": "the draft is malformed (capabilities, calls, policy)",
    "no_goal": "a feasible draft without a goal verifier",
    "duplicate_instruction": "the same instruction as a kept task",
    "ambiguous_reference": "a named entity is not picked out by exactly one row",
    "not_absent": "what an infeasible task names exists after all",
    "replay_failed": "a call of a feasible task failed on replay",
    "tool_bug": "a tool failed with a definition or internal error",
    "empty_diff": "a feasible task changes nothing",
    "infeasible_not_refused": "every call of an infeasible task succeeded",
    "infeasible_wrong_error": "an infeasible task failed with an error other than tool/constraint/rule",
    "infeasible_changes_state": "an infeasible task changed the database before it was refused",
    "infeasible_no_policy": "a forbidden infeasible task names no policy whose refusal proves it",
    "infeasible_wrong_policy": "an infeasible task was refused by another policy than the one it names",
    "infeasible_procedure_kept": "the write a procedure-declined task asks for keeps the procedure",
    "replay_differs": "the replay's diff differs from the one the generator saw",
    "duplicate_diff": "the same expected diff as a kept task",
    "unreachable": "a changed table no tool can write",
    "hidden_value": "a written value is neither stated, readable, derived nor loosely compared",
    "unreached_argument": "a write argument is neither stated, returned by an earlier call, nor derived",
    "distractor_absent": "a near-boundary distractor the task declares is not in the data",
    "goal_not_met": "a goal verifier fails on the expected end state",
    "goal_already_true": "a goal verifier already holds on the initial state",
    "integrity": "a key, constraint or domain rule fails on the expected end state",
    "policy": "a domain policy fails on the expected end state",
    "side_effect": "a side-effect verifier fails on the expected end state",
    "nondeterministic": "a second replay gives another diff or outcome",
}
"""Every rejection reason, with what it means (the report and docs/tasks.md use these names)."""

REFUSALS = ("tool", "constraint", "rule")
"""The error kinds that prove an infeasible task: the service refused the request."""


@dataclass(frozen=True)
class Rejection:
    """Why a draft was not kept: a reason of `REASONS` and a sentence naming what failed."""

    reason: str
    detail: str


class Rejected(Exception):  # noqa: N818 - control flow inside the gate
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.rejection = Rejection(reason, detail)


@dataclass
class GateResult:
    """The outcome of one check: a task or a rejection, and how long it took."""

    task: Task | None
    rejection: Rejection | None
    seconds: float
    changed_rows: int = 0


@dataclass
class Replayed:
    """One replay of a draft's calls: the calls made (up to the first failure), their results, the state."""

    calls: list[Call]
    results: list[ToolResult]
    end: EndState
    failure: ToolResult | None = None


@dataclass
class Gate:
    """Checks drafts against one base database and toolkit; remembers what it kept (for duplicates)."""

    workspace: Workspace
    toolkit: Toolkit
    defaults: Policy | None = None
    """The domain's default comparison policy (`grading:`), under every task's own rules."""
    _diffs: dict[str, str] = field(default_factory=dict)
    _instructions: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.coverage = self.toolkit.coverage(self.workspace.schema)
        self.fingerprint = self.workspace.fingerprint()

    def check(self, draft: Draft) -> GateResult:
        """Replay and check `draft`: a `GateResult` holding the kept task or the rejection."""
        started = time.perf_counter()
        try:
            task = self._check(draft)
        except Rejected as rejected:
            return GateResult(None, rejected.rejection, time.perf_counter() - started)
        changed = sum(task.diff.summary.values())
        return GateResult(task, None, time.perf_counter() - started, changed)

    def forget(self) -> None:
        """Forget the kept tasks (duplicates are then judged afresh)."""
        self._diffs.clear()
        self._instructions.clear()

    # --- the checks -------------------------------------------------------------------------------

    def _check(self, draft: Draft) -> Task:
        self._shape(draft)
        words = normalize_text(draft.instruction)
        if words in self._instructions:
            raise Rejected("duplicate_instruction", f"same instruction as task {self._instructions[words]}")
        policy = self._policy(draft)
        self._references(draft)
        self._distractors(draft)
        draft, broken = self._procedure_proof(draft)
        with self._replay(draft) as first:
            self._outcome(draft, first, broken)
            diff = first.end.diff
            diff_key = hashlib.sha256(diff.to_json().encode()).hexdigest()
            if draft.feasible and diff_key in self._diffs:
                raise Rejected("duplicate_diff", f"same expected diff as task {self._diffs[diff_key]}")
            if draft.observed_diff is not None and draft.observed_diff.to_json() != diff.to_json():
                raise Rejected("replay_differs", "the replay's diff differs from the generator's")
            missing = unreachable(diff, self.coverage, self.workspace.schema)
            if missing:
                raise Rejected("unreachable", f"unreachable: {', '.join(missing)} (no tool writes it)")
            hidden = HiddenCheck(self.workspace, self.toolkit, self.coverage, draft, diff, policy).hidden()
            if hidden:
                raise Rejected("hidden_value", f"hidden value: {', '.join(hidden)}")
            # an LLM draft holds the writes only (it found its values with SQL): `hidden_value` judges it
            solution = draft.provenance.get("generator", "recipe") != "llm"
            loose = [v for t, c, v, _ in written(diff) if policy.rule(t, c).rule in LOOSE]
            unreached = solution and unreached_arguments(
                draft, first.calls, first.results, self.toolkit, exempt=loose
            )
            if unreached:
                raise Rejected("unreached_argument", f"write arguments from nowhere: {', '.join(unreached)}")
            verifiers = self._verifiers(draft, first)
            calls, results = list(first.calls), list(first.results)
            failure = first.failure
        rerun = [i for i, c in enumerate(calls)
                 if self._is_write(c.tool) or (failure is not None and i == len(calls) - 1)]
        with self._replay(draft, only=[calls[i] for i in rerun]) as second:
            outcome = [(calls[i].tool, results[i].ok, results[i].error_kind) for i in rerun]
            again = [(c.tool, r.ok, r.error_kind) for c, r in zip(second.calls, second.results, strict=True)]
            if second.end.diff.to_json() != diff.to_json() or again != outcome:
                raise Rejected("nondeterministic", "a second replay gave another diff or outcome")
        task = self._task(draft, calls, results, failure, diff.to_dict(), policy, verifiers, broken)
        self._instructions[words] = task.id
        if draft.feasible:
            self._diffs[diff_key] = task.id
        return task

    def _shape(self, draft: Draft) -> None:
        unknown = [c for c in draft.capabilities if c not in CAPABILITIES]
        if not draft.capabilities or unknown:
            raise Rejected(
                "invalid", f"capabilities {list(draft.capabilities)}: give one or more of the five"
            )
        if draft.difficulty not in DIFFICULTIES:
            raise Rejected("invalid", f"difficulty {draft.difficulty!r}")
        if not draft.instruction.strip():
            raise Rejected("invalid", "an empty instruction")
        if not [c for c in draft.calls if c.tool != CANNOT_COMPLETE]:
            raise Rejected("invalid", "no tool call")
        if draft.feasible and not draft.goals:
            raise Rejected("no_goal", "a feasible task needs a goal verifier (ctx.goal)")
        if not draft.feasible and draft.infeasible is None:
            raise Rejected("invalid", "an infeasible draft must say why (its kind and reason)")
        if not draft.feasible and draft.infeasible is not None:
            named = draft.infeasible.policy
            # a bare DDL states no policies: its forbidden tasks are refused by rules and key actions
            if draft.infeasible.kind == "forbidden" and named is None and self.workspace.config.policies:
                raise Rejected(
                    "infeasible_no_policy",
                    "a forbidden task names the policy whose refusal proves it (ctx.infeasible(policy=...))",
                )
            known = [p.name for p in self.workspace.config.policies]
            if named is not None and named not in known:
                raise Rejected(
                    "invalid", f"infeasible policy {named!r} is not in domain.yaml (its policies: {known})"
                )

    def _policy(self, draft: Draft) -> Policy:
        try:
            policy = Policy.model_validate({"columns": draft.policy}).over(self.defaults)
            policy.check(self.workspace.schema)
        except (ValueError, DiffError) as exc:
            raise Rejected("invalid", f"policy: {exc}") from None
        return policy

    def _references(self, draft: Draft) -> None:
        for ref in draft.references:
            try:
                rows = self.workspace.query(ref.sql, ref.params)
            except Exception as exc:  # noqa: BLE001 - a reference that cannot run proves nothing
                raise Rejected("invalid", f"reference {ref.entity!r} does not run: {exc}") from None
            found = next(iter(rows[0].values())) if rows and rows[0] else None
            if found != ref.expected:
                reason = "not_absent" if ref.expected == 0 else "ambiguous_reference"
                raise Rejected(reason, f"reference {ref.entity!r} matches {found} rows, not {ref.expected}")

    def _distractors(self, draft: Draft) -> None:
        for ref in draft.provenance.get("distractors", []):
            try:
                rows = self.workspace.query(ref["sql"], ref.get("params", []))
            except Exception as exc:  # noqa: BLE001 - a distractor query that cannot run proves nothing
                raise Rejected("invalid", f"distractor {ref['entity']!r} does not run: {exc}") from None
            found = next(iter(rows[0].values())) if rows and rows[0] else None
            if not found:
                raise Rejected("distractor_absent", f"distractor {ref['entity']!r} matches no row")

    def _is_write(self, tool: str) -> bool:
        return tool not in self.toolkit or self.toolkit[tool].kind != "read"

    def _observed(self, draft: Draft) -> Observed | None:
        """The generator's run of exactly these calls through this toolkit, not taken yet; else None."""
        seen = draft.observed
        if seen is None or seen.taken or seen.toolkit is not self.toolkit or seen.episode.closed:
            return None
        made = [c for c in draft.calls if c.tool != CANNOT_COMPLETE]
        if len(made) != len(seen.results):
            return None
        if any(c.tool != r.tool for c, r in zip(made, seen.results, strict=True)):
            return None
        seen.taken = True
        return seen

    @contextmanager
    def _replay(self, draft: Draft, *, only: list[Call] | None = None) -> Iterator[Replayed]:
        """Run the draft's calls on a fresh episode, as the task's actor, stopping at the first failure;
        yield the end state. The generator's own run stands for the first replay when it handed one over
        (the module docstring); `only` runs just these calls, in order, on a new episode (the check of
        determinism: the writes the first replay made and the call it stopped at)."""
        seen = None if only is not None else self._observed(draft)
        if seen is not None:
            episode = seen.episode
        else:
            try:
                episode = self.workspace.episode(self.toolkit, actor=draft.actor)
            except DomainError as exc:  # the actor is no one of the people table, or lacks the role
                raise Rejected("invalid", f"actor: {exc}") from None
        calls, results, failure = [], [], None
        given = iter(seen.results) if seen is not None else None
        try:
            for call in draft.calls if only is None else only:
                if call.tool == CANNOT_COMPLETE:
                    continue  # an infeasible task's decline is added by the gate
                result = next(given) if given is not None else episode.call(call.tool, call.arguments)
                calls.append(call)
                results.append(result)
                if not result.ok:
                    failure = result
                    break
        except BaseException:
            self.workspace.discard(episode)
            raise
        with self.workspace.end_state(episode) as end:
            yield Replayed(calls, results, end, failure)

    def _procedure(self, draft: Draft):
        """The procedure (a `kind: procedure` policy) an infeasible draft names, or None."""
        if draft.feasible or draft.infeasible is None:
            return None
        return self.workspace.config.procedure(draft.infeasible.policy)

    def _procedure_proof(self, draft: Draft) -> tuple[Draft, str | None]:
        """An infeasible draft proved by a procedure (the tools allow what the organisation forbids): its
        last call is the write the request asks for, which must succeed and leave rows that break the
        procedure. Returns the draft without that write (the task: the reads, then the decline) and what
        the proof found; any other draft as it is, and None."""
        procedure = self._procedure(draft)
        if procedure is None:
            return draft, None
        made = [c for c in draft.calls if c.tool != CANNOT_COMPLETE]
        if not made or not self._is_write(made[-1].tool):
            raise Rejected("invalid", f"a task declined by procedure {procedure.name} ends with the write "
                                      "that would break it (ctx.blocked(..., policy=...))")
        with self._replay(draft) as proof:
            if proof.failure is not None:
                raise Rejected(
                    "infeasible_wrong_error",
                    f"{proof.failure.tool} failed ({proof.failure.error_kind}: {proof.failure.error}): "
                    f"procedure {procedure.name} is not enforced by the tools, so the write it forbids must "
                    "succeed to prove the task",
                )
            sql = procedure_verifier(self.workspace.schema, self.workspace.config, procedure.name).sql
            found = proof.end.query(sql)[0]["violations"]
            before = self.workspace.query(sql)[0]["violations"]
        if found <= before:
            raise Rejected("infeasible_procedure_kept",
                           f"{made[-1].tool} keeps procedure {procedure.name}: nothing proves the request "
                           "breaks it")
        why = (f"{made[-1].tool} would break procedure {procedure.name} ({found - before} rows of its "
               "check): the tools allow it, the organisation does not")
        proof = ReferenceCall(tool=made[-1].tool, arguments=proof.calls[-1].arguments)
        infeasible = draft.infeasible.model_copy(update={"proof": proof})  # type: ignore[union-attr]
        return replace(draft, calls=made[:-1], observed=None, infeasible=infeasible), why

    def _outcome(self, draft: Draft, replay: Replayed, broken: str | None = None) -> None:
        failure, diff = replay.failure, replay.end.diff
        if broken is not None:  # proved by a procedure: the reads before the write change nothing
            if failure is not None:
                raise Rejected("replay_failed", f"{failure.tool} ({failure.error_kind}): {failure.error}")
            if not diff.empty:
                raise Rejected("infeasible_changes_state",
                               f"calls before the forbidden write changed {sorted(diff.tables)}")
            return
        if failure is not None and failure.infra_error:
            raise Rejected("tool_bug", f"{failure.tool} failed ({failure.error_kind}): {failure.error}")
        if draft.feasible:
            if failure is not None:
                at = len(replay.calls)
                raise Rejected(
                    "replay_failed", f"call {at} {failure.tool} ({failure.error_kind}): {failure.error}"
                )
            if diff.empty:
                raise Rejected("empty_diff", "the calls change nothing")
            return
        if failure is None:
            raise Rejected(
                "infeasible_not_refused", "every call succeeded: the variant breaks no precondition"
            )
        if failure.error_kind not in REFUSALS:
            raise Rejected(
                "infeasible_wrong_error", f"{failure.tool} failed with {failure.error_kind}: {failure.error}"
            )
        if not diff.empty:
            raise Rejected(
                "infeasible_changes_state", f"calls before the refusal changed {sorted(diff.tables)}"
            )
        named = draft.infeasible.policy if draft.infeasible is not None else None
        if named is not None and failure.policy != named:
            got = f"policy {failure.policy}" if failure.policy else f"no policy ({failure.error_kind} error)"
            raise Rejected(
                "infeasible_wrong_policy",
                f"{failure.tool} was refused by {got}, not by policy {named}: {failure.error}",
            )

    def _verifiers(self, draft: Draft, replay: Replayed) -> list[Verifier]:
        ws, end, diff = self.workspace, replay.end, replay.end.diff
        if not draft.feasible:
            goals = [nothing_changed(ws)]
            procedure = self._procedure(draft)
            if procedure is not None:  # a solver that does what was asked fails naming the procedure
                goals.append(procedure_verifier(ws.schema, ws.config, procedure.name))
        else:
            goals = []
            for made, goal, sql in goal_verifiers(draft.goals):
                try:
                    after, before = end.query(sql), ws.query_json(sql)
                except Exception as exc:  # noqa: BLE001 - a goal that does not run is the draft's fault
                    raise Rejected("invalid", f"goal {goal.name!r} does not run: {exc}") from None
                verifier = made or Verifier(kind="goal", name=goal.name, sql=sql, expected=after)
                if not rows_match(after, verifier.expected):
                    raise Rejected("goal_not_met", f"goal {goal.name!r} fails on the expected end state")
                if rows_match(before, verifier.expected):
                    raise Rejected("goal_already_true", f"goal {goal.name!r} already holds before the task")
                goals.append(verifier)
        checks = [
            *integrity_verifiers(ws.schema, ws.config, diff),
            *policy_verifiers(ws.schema, ws.config, diff),
            *(side_effect_verifiers(ws, diff) if draft.feasible else []),
        ]
        to_run = checks if draft.feasible else [*goals, *checks]  # feasible goals were run above
        for verifier in to_run:
            if not rows_match(end.query(verifier.sql), verifier.expected):
                reason = "goal_not_met" if verifier.kind == "goal" else verifier.kind
                raise Rejected(
                    reason, f"{verifier.kind} verifier {verifier.name!r} fails on the expected end state"
                )
        return goals + checks

    def _task(
        self,
        draft: Draft,
        calls: list[Call],
        results: list[ToolResult],
        failure: ToolResult | None,
        diff: dict[str, Any],
        policy: Policy,
        verifiers: list[Verifier],
        broken: str | None = None,
    ) -> Task:
        made = list(calls)
        infeasible = None
        if not draft.feasible and draft.infeasible is not None:
            made.append(Call(CANNOT_COMPLETE, {"reason": draft.infeasible.because}))
            infeasible = Infeasibility(
                kind=draft.infeasible.kind,
                because=draft.infeasible.because,
                error=failure.error if failure is not None else broken,
                policy=draft.infeasible.policy,
                proof=draft.infeasible.proof,
            )
        p = draft.provenance
        provenance = Provenance(
            generator=p.get("generator", "recipe"),
            recipe=p.get("recipe"),
            model=p.get("model"),
            seed=int(p.get("seed", 0)),
            attempt=int(p.get("attempt", 0)),
            prompt_hashes=dict(p.get("prompt_hashes", {})),
            stateforge_version=__version__,
            derived=list(draft.derived),
            infeasible=infeasible,
            details=dict(p.get("details", {})),
            horizon=len(made),
            storyline=p.get("storyline"),
            steps=list(p.get("steps", [])),
            knobs=dict(p.get("knobs", {})),
            distractors=list(p.get("distractors", [])),
        )
        task = Task(
            id="pending",
            domain=self.workspace.domain,
            db_fingerprint=self.fingerprint,
            instruction=draft.instruction.strip(),
            capabilities=list(draft.capabilities),
            difficulty=self._difficulty(draft, made),
            feasible=draft.feasible,
            reference_calls=[ReferenceCall(tool=c.tool, arguments=c.arguments) for c in made],
            reference_plan=reference_plan(
                made,
                [*results, *([None] * (len(made) - len(results)))],
                draft.derived if draft.feasible else (),
            ),
            expected_diff=diff,
            policy=policy.to_dict(),
            verifiers=verifiers,
            provenance=provenance,
            references=list(draft.references),
            actor=draft.actor,
        )
        return task.model_copy(update={"id": content_id(task.model_dump(mode="json"))})


    def _difficulty(self, draft: Draft, made: list[Call]) -> str:
        """The label from the task's structure (`difficulty.py`), not the draft's own."""
        horizon, writes = structure(
            [c.tool for c in made], lambda t: t in self.toolkit and self.toolkit[t].kind == "write"
        )
        return difficulty(horizon, writes, knob_count(draft.provenance), draft.capabilities)


def draft_of(task: Task) -> Draft:
    """A stored task as a draft again (to check it anew: against a rebuilt database, after a tool change).

    The goals are the task's goal verifiers with their expected rows; an infeasible task's decline and its
    "nothing changed" goal are left out (the gate adds them back), a procedure-declined task's proof write put
    back at the end of its calls (the gate proves it again). The plan is derived again from the
    calls: the words a recipe gave its steps are not stored in a task, so only the plan (and the id) may
    differ from the original."""
    from stateforge.tasks.draft import Goal

    infeasible = task.provenance.infeasible
    return Draft(
        instruction=task.instruction,
        capabilities=tuple(task.capabilities),
        difficulty=task.difficulty,
        calls=[Call(c.tool, dict(c.arguments)) for c in task.reference_calls if c.tool != CANNOT_COMPLETE]
        + ([Call(infeasible.proof.tool, dict(infeasible.proof.arguments))] if infeasible and infeasible.proof
           else []),
        feasible=task.feasible,
        goals=[Goal(v.name, v.sql, [], v.expected) for v in task.verifiers if v.kind == "goal"]
        if task.feasible
        else [],
        references=list(task.references),
        policy=dict(task.policy["columns"]),
        derived=list(task.provenance.derived),
        infeasible=Infeasibility(kind=infeasible.kind, because=infeasible.because, policy=infeasible.policy)
        if infeasible
        else None,
        provenance={
            "generator": task.provenance.generator,
            "recipe": task.provenance.recipe,
            "model": task.provenance.model,
            "seed": task.provenance.seed,
            "attempt": task.provenance.attempt,
            "prompt_hashes": task.provenance.prompt_hashes,
            "details": task.provenance.details,
            "storyline": task.provenance.storyline,
            "steps": task.provenance.steps,
            "knobs": task.provenance.knobs,
            "distractors": [d.model_dump(mode="json") for d in task.provenance.distractors],
        },
        actor=task.actor,
    )
