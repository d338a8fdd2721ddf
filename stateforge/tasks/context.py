"""`RecipeContext`: everything a recipe uses to make one task draft (docs/tasks.md is the guide).

    row = ctx.pick("SELECT u.username, u.display_name, p.playlist_id, p.title FROM playlists p "
                   "JOIN users u ON u.user_id = p.owner_id WHERE p.is_public", what="public playlist")
    ctx.refer(f"playlist '{row['title']}' of @{row['username']}",
              "SELECT count(*) FROM playlists p JOIN users u ON u.user_id = p.owner_id "
              "WHERE u.username = ? AND p.title = ?", [row["username"], row["title"]])
    ctx.speaker(row["display_name"], row["username"])
    ctx.say(["Please make my playlist {title:q} private.", "Hide {title:q} from my profile."],
            title=row["title"])
    ctx.call("update_playlist", {"username": row["username"], "playlist": row["title"], "is_public": False})
    ctx.derived(False, "'private' means is_public = false")
    ctx.goal("the playlist is private", "SELECT is_public FROM playlists WHERE playlist_id = ?",
             [row["playlist_id"]])
    ctx.infeasible("missing", swap={row["title"]: row["title"] + " Mix"},
                   because=f"@{row['username']} has no playlist called '{row['title']} Mix'")

Reads (`sql`, `one`, `scalar`, `pick`, `sample`) run on the base, read-only, never the wall clock. Calls
(`call`, `read`) run through the solver's own toolkit on an episode of the base, in order, and become the
task's reference calls. The rest records what the gate checks: references, goals, derived values, the
comparison policy, and an infeasible variant.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from stateforge.diff import ColumnRule
from stateforge.episode import Episode, ToolResult
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tasks.draft import Call, Draft, Goal, Observed
from stateforge.tasks.model import (
    CAPABILITIES,
    DIFFICULTIES,
    INFEASIBLE_KINDS,
    Derivation,
    Infeasibility,
    Reference,
)
from stateforge.tasks.recipes import CallFailed, Recipe, RecipeDefinitionError, Skip
from stateforge.tasks.verifiers import procedure_verifier
from stateforge.tasks.wording import Style, fields_of, render, same_value
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit
from stateforge.tools.actor import Actor, NoActor
from stateforge.values import json_row, json_value

SPEAKER_PHRASES = (
    "I'm {name} ({handle}).",
    "This is {name} ({handle}).",
    "Hi, {name} here ({handle}).",
    "Hello, it's {name} ({handle}).",
)


@dataclass
class Part:
    """One `say` of the instruction: the template chosen, its values, and the text it gave."""

    template: str
    values: dict[str, Any]
    text: str


@dataclass
class VariantSpec:
    """What `ctx.infeasible(...)` asked for; made into a draft once the recipe has finished."""

    kind: str
    because: str
    swap: dict[Any, Any] = field(default_factory=dict)
    calls: list[Call] | None = None
    instruction: str | None = None
    proofs: list[Reference] = field(default_factory=list)
    policy: str | None = None


class RecipeContext:
    """The context of one attempt of one recipe (see the module docstring)."""

    def __init__(
        self,
        workspace: Workspace,
        toolkit: Toolkit,
        recipe: Recipe,
        *,
        seed: int,
        attempt: int,
        rng: random.Random | None = None,
    ) -> None:
        self.workspace = workspace
        self.toolkit = toolkit
        self.recipe = recipe
        self.seed, self.attempt = seed, attempt
        self.rng = rng or random.Random(f"{seed}:{recipe.name}:{attempt}")
        """The seeded random generator of this attempt: use it for every choice."""
        self.style = Style.pick(self.rng)
        """How this instruction writes dates and times."""
        self.difficulty: str = recipe.difficulty
        """The draft's difficulty (the recipe's, unless the recipe changes it)."""
        self.capabilities: list[str] = list(recipe.capabilities)
        self._episode: Episode | None = None
        self._calls: list[Call] = []
        self._results: list[ToolResult] = []
        self._parts: list[Part] = []
        self._references: list[Reference] = []
        self._goals: list[Goal] = []
        self._policy: dict[str, Any] = {}
        self._derived: list[Derivation] = []
        self._variant: VariantSpec | None = None
        self._distractors: list[Reference] = []
        self._actor: Actor | None = None
        self.declined: Infeasibility | None = None
        """Set by `blocked`: this draft is the infeasible task (a refused write after the reads)."""
        self.provenance: dict[str, Any] = {}
        """Extra provenance of the draft (a storyline's name, steps and knobs)."""

    # --- what the recipe may know -----------------------------------------------------------------

    @property
    def schema(self) -> Schema:
        """The model of the database (tables, keys, foreign keys, comments)."""
        return self.workspace.schema

    @property
    def domain(self) -> str:
        return self.workspace.domain

    @property
    def now(self) -> dt.datetime:
        """The environment's frozen clock (what tools see as `env.now`)."""
        return self.workspace.info.now

    @property
    def today(self) -> dt.date:
        return self.now.date()

    # --- privileged reads on the base -------------------------------------------------------------

    def sql(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """The rows of one SELECT on the base (DuckDB's Python values). Order them (ORDER BY) when the
        order matters: a query without ORDER BY may return rows in any order."""
        return self.workspace.query(sql, params)

    def one(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> dict[str, Any] | None:
        """The single row of a query on the base, or None; more than one row is a recipe bug (ValueError)."""
        rows = self.sql(sql, params)
        if len(rows) > 1:
            raise ValueError(f"ctx.one: the query returned {len(rows)} rows, expected at most one:\n{sql}")
        return rows[0] if rows else None

    def scalar(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> Any:
        """The first value of the first row (None when there is no row)."""
        rows = self.sql(sql, params)
        return next(iter(rows[0].values())) if rows and rows[0] else None

    def pick(
        self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None, *, what: str = "candidate"
    ) -> dict[str, Any]:
        """One row of the query, chosen with the seeded rng (the same one for the same seed, whatever order
        DuckDB returns rows in); `Skip("no <what>")` when there is none."""
        inner = sql.strip().rstrip(";")
        total = self.scalar(f"SELECT count(*) FROM ({inner}) AS candidates", params)
        if not total:
            raise Skip(f"no {what}")
        index = self.rng.randrange(int(total))
        rows = self.sql(f"SELECT * FROM ({inner}) AS candidates ORDER BY ALL LIMIT 1 OFFSET {index}", params)
        return rows[0]

    def sample(
        self,
        sql: str,
        params: Sequence[Any] | Mapping[str, Any] | None = None,
        *,
        k: int,
        what: str = "candidate",
    ) -> list[dict[str, Any]]:
        """`k` distinct rows of the query chosen with the seeded rng (fewer if there are fewer; `Skip` if
        none), in the order of the query's columns."""
        inner = sql.strip().rstrip(";")
        rows = self.sql(f"SELECT * FROM ({inner}) AS candidates ORDER BY ALL", params)
        if not rows:
            raise Skip(f"no {what}")
        chosen = sorted(self.rng.sample(range(len(rows)), min(k, len(rows))))
        return [rows[i] for i in chosen]

    def choice(self, items: Iterable[Any]) -> Any:
        """One of `items`, chosen with the seeded rng (`Skip` when there are none)."""
        pool = list(items)
        if not pool:
            raise Skip("nothing to choose from")
        return self.rng.choice(pool)

    # --- acting through the solver's tools --------------------------------------------------------

    @property
    def episode(self) -> Episode:
        """The episode the recipe acts on (opened at the first call). Its run of the calls is handed to the
        gate with the draft (`Draft.observed`), which diffs it instead of replaying every call again."""
        if self._episode is None:
            self._episode = self.workspace.episode(self.toolkit, diffed=True, actor=self._actor)
        return self._episode

    @property
    def actor(self) -> Actor | None:
        """Who the task is done as (`act_as`), or None."""
        return self._actor

    def act_as(self, table: str, key: Mapping[str, Any], roles: Sequence[str] | str = ()) -> Actor:
        """Do the task as a person: `key` (`{"card_number": "LC00012345"}`, the pack's `actors.key` column)
        must name exactly one row of `table` (the pack's `actors.table`; recorded as a reference, as
        `introduce` does), and `roles` be roles they hold (none: every role they hold). Call it before the
        first tool call: the episode, the gate's replay and every solver's episode act as them."""
        spec = self.workspace.config.actors
        where = f"recipe {self.recipe.name}: ctx.act_as({table!r}, {dict(key)!r})"
        if spec is None:
            raise RecipeDefinitionError(
                f"{where}: the pack's domain.yaml declares no `actors:`; declare them "
                "(`actors: {table: ..., key: ..., roles: ...}`) or do not act as anyone."
            )
        if table.lower() != spec.table.lower() or [k.lower() for k in key] != [spec.key.lower()]:
            raise RecipeDefinitionError(
                f"{where}: the pack's actors are {spec.table} named by {spec.key}; pass "
                f"ctx.act_as({spec.table!r}, {{{spec.key!r}: ...}})."
            )
        if self._calls:
            raise RecipeDefinitionError(f"{where}: called after the first tool call; act as them first.")
        [value] = key.values()
        self.unique(f"actor {value}", table, **key)
        wanted = Actor(person=str(value), roles=(roles,) if isinstance(roles, str) else tuple(roles))
        if self._episode is not None:  # reads made before (none recorded) were made as no one
            self.close()
        self._actor = wanted
        try:
            actor = self.episode.actor
        except NoActor as exc:  # a role they do not hold: the situation does not fit the recipe
            self._actor = None
            raise Skip("actor not bound", str(exc)) from None
        self._actor = actor
        return actor

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        """Call a tool on the episode, record it as a reference call, and return its value.

        `step`: the plan's words for this call ("Remove 12 songs from it"; derived from the call when
        None). A failed call raises `CallFailed` (the attempt is counted as skipped, with the tool and why).
        """
        result = self.episode.call(tool, dict(arguments or {}))
        self._calls.append(Call(tool=tool, arguments=result.arguments, step=step))
        self._results.append(result)
        if not result.ok:
            raise CallFailed(tool, result.error_kind, result.error)
        return result.value

    def read(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        """Call a read tool the solver needs for a later step (cross-step tasks), recorded like `call`."""
        if tool in self.toolkit and self.toolkit[tool].kind != "read":
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name}: ctx.read({tool!r}): a write tool; use ctx.call."
            )
        return self.call(tool, arguments, step=step)

    def blocked(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        kind: str,
        because: str,
        policy: str | None = None,
    ) -> None:
        """Make the write the domain refuses (the blocker found by working) and end the draft as an
        infeasible task to decline with `because`. `policy`: the domain.yaml policy whose refusal proves it
        (required for `forbidden` where the domain states policies). `Skip` when the tool does not refuse
        it, or refuses it by another policy.

        When `policy` is a procedure (`kind: procedure`: the tools allow what the organisation forbids),
        the write must succeed and leave rows that break the procedure's check (`Skip` otherwise); the gate
        proves it again on its own episode and keeps the calls before it, then the decline."""
        if kind not in INFEASIBLE_KINDS:
            raise RecipeDefinitionError(f"recipe {self.recipe.name}: infeasible kind {kind!r}.")
        procedure = self.workspace.config.procedure(policy)
        result = self.episode.call(tool, dict(arguments))
        if procedure is not None:
            if not result.ok:
                raise CallFailed(tool, result.error_kind, result.error)
            sql = procedure_verifier(self.workspace.schema, self.workspace.config, procedure.name).sql
            if not self.episode.query(sql)[0]["violations"]:
                raise Skip("procedure kept", f"{tool} breaks no row of procedure {procedure.name}")
            self._calls.append(Call(tool=tool, arguments=result.arguments))
            self._results.append(result)
            self.declined = Infeasibility(kind=kind, because=because, policy=procedure.name)
            return
        if result.ok:
            raise Skip("blocker not refused", f"{tool} succeeded: the situation breaks no rule")
        if result.error_kind not in ("tool", "constraint", "rule"):
            raise CallFailed(tool, result.error_kind, result.error)
        if policy is not None and result.policy != policy:
            raise Skip("blocker refused by another policy", f"{tool}: {result.policy or result.error_kind}")
        self._calls.append(Call(tool=tool, arguments=result.arguments))
        self._results.append(result)
        # the policy that proves the task: the one the recipe names, else the refusal's (the gate requires
        # the replay's refusal to carry exactly it)
        self.declined = Infeasibility(kind=kind, because=because, policy=policy or result.policy)

    def state(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        """Rows of one SELECT on the episode as it is now (after the calls so far)."""
        return self.episode.query(sql, list(params or []))

    # --- the instruction ----------------------------------------------------------------------------

    def say(self, variants: str | Sequence[str], **values: Any) -> str:
        """Add a sentence to the instruction: one of `variants` (chosen with the rng), its `{fields}`
        written the way a user writes them (`stateforge.tasks.wording`). Returns the text."""
        options = [variants] if isinstance(variants, str) else list(variants)
        if not options:
            raise RecipeDefinitionError(f"recipe {self.recipe.name}: ctx.say needs at least one phrasing.")
        template = self.rng.choice(options)
        missing = fields_of(template) - set(values)
        if missing:
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name}: ctx.say: the phrasing {template!r} uses "
                f"{', '.join(sorted(missing))}, which were not given."
            )
        text = render(template, values, self.style)
        self._parts.append(Part(template, dict(values), text))
        return text

    def speaker(self, name: str, handle: str | None = None, variants: Sequence[str] = SPEAKER_PHRASES) -> str:
        """Open the instruction as the user speaking: "I'm Maria Lopez (@mlopez)." A username gets an @ in
        the text (an e-mail address is written as is); `name` and `handle` stay values of the sentence, so
        an infeasible variant can swap them."""
        if handle is None:
            return self.say([v.replace(" ({handle})", "") for v in variants], name=name)
        if "@" not in handle:
            variants = [v.replace("({handle})", "(@{handle})") for v in variants]
        return self.say(list(variants), name=name, handle=handle)

    @property
    def instruction(self) -> str:
        """The instruction so far."""
        return " ".join(p.text for p in self._parts)

    # --- what the gate checks ------------------------------------------------------------------------

    def refer(self, entity: str, sql: str, params: Sequence[Any] | None = None, *, expected: int = 1) -> None:
        """Record a reference: a count query on the base that must return `expected` (1: the attributes the
        instruction states pick out exactly one `entity`). `Skip("ambiguous reference")` otherwise."""
        values = [json_value(p) for p in params or []]
        found = self.scalar(sql, list(params or []))
        if found != expected:
            raise Skip("ambiguous reference", f"{entity}: {found} matches where {expected} was expected")
        self._references.append(Reference(entity=entity, sql=sql.strip(), params=values, expected=expected))

    def unique(self, entity: str, table: str, **equals: Any) -> None:
        """`refer` for one table: the row of `table` whose columns equal `equals` (None: IS NULL)."""
        model = self.schema.table(table)
        where, params = [], []
        for column, value in equals.items():
            name = quote_ident(model.column(column).name)
            if value is None:
                where.append(f"{name} IS NULL")
            else:
                where.append(f"{name} = ?")
                params.append(value)
        sql = f"SELECT count(*) FROM {table_ref(model.name)} WHERE {' AND '.join(where) or 'TRUE'}"
        self.refer(entity, sql, params)

    def distractor(self, entity: str, sql: str, params: Sequence[Any] | None = None) -> None:
        """Record a near-boundary distractor: a count query on the base that returns 1 or more (an item
        just outside a bound, a same-name entity); `Skip` when it returns 0. The gate checks it again."""
        found = self.scalar(sql, list(params or []))
        if not found:
            raise Skip("no distractor", f"{entity}: none in the data")
        self._distractors.append(
            Reference(entity=entity, sql=sql.strip(), params=[json_value(p) for p in params or []],
                      expected=int(found))
        )

    def goal(
        self,
        name: str,
        sql: str,
        params: Sequence[Any] | None = None,
        expected: list[Mapping[str, Any]] | None = None,
    ) -> None:
        """Record a goal verifier: after the task, `sql` returns `expected` (default: what it returns on the
        expected end state), and before it, something else. Avoid ids the episode allocates."""
        rows = None if expected is None else [json_row(dict(r)) for r in expected]
        self._goals.append(Goal(name=name, sql=sql.strip(), params=list(params or []), expected=rows))

    def policy(self, column: str, rule: str | Mapping[str, Any]) -> None:
        """Compare `table.column` (or `*.column`) by `rule` when grading: normalized, ignore, any_non_null,
        {rule: numeric, abs: 0.01}, {rule: time, seconds: 60}, exact."""
        self._policy[column] = ColumnRule.model_validate(rule).to_data()

    def derived(self, value: Any, how: str) -> Any:
        """Declare a value the solver works out from what the tools show ("the playlist's 4 songs after
        the removal"); returns `value`. The gate's "nothing hidden" check accepts it."""
        self._derived.append(Derivation(value=json_value(value), how=how))
        return value

    def also(self, *capabilities: str) -> None:
        """Add capabilities this draft exercises beyond the recipe's."""
        for cap in capabilities:
            if cap not in CAPABILITIES:
                raise RecipeDefinitionError(f"recipe {self.recipe.name}: unknown capability {cap!r}.")
            if cap not in self.capabilities:
                self.capabilities.append(cap)

    def skip(self, reason: str, detail: str | None = None) -> None:
        """Give up this attempt: the database offers no situation for the recipe (counted by `reason`)."""
        raise Skip(reason, detail)

    def infeasible(
        self,
        kind: str,
        *,
        because: str,
        swap: Mapping[Any, Any] | None = None,
        calls: Sequence[Call | tuple[str, Mapping[str, Any]]] | None = None,
        instruction: str | None = None,
        proof: Reference | tuple[str, str, Sequence[Any], int] | None = None,
        policy: str | None = None,
    ) -> None:
        """Offer an infeasible variant of this draft: the same request with a precondition broken.

        `kind`: missing (what it names does not exist), forbidden (a rule or policy forbids it), capacity
        (a limit is exceeded) or hours (a time outside opening hours). `because`: the reason a solver gives
        when it declines. `swap`: values to replace in the instruction (its `say` values, re-rendered),
        the call arguments and the references' parameters, e.g. a title by one the base does not have;
        `calls` / `instruction` replace those outright. `proof`: an extra reference (entity, sql, params,
        expected), e.g. a count that must be 0. For `missing`, every reference whose parameters the swap
        changed must then match 0 rows. `policy`: the domain.yaml policy whose refusal proves the variant
        (required for `forbidden`). The gate proves the variant: its calls must fail with a tool,
        constraint or rule error (a `PolicyRefusal` of exactly `policy` when one is named) and change
        nothing.
        """
        if kind not in INFEASIBLE_KINDS:
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name}: infeasible kind {kind!r} is not one of "
                f"{', '.join(INFEASIBLE_KINDS)}."
            )
        if not swap and calls is None and instruction is None:
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name}: ctx.infeasible needs swap=, calls= or instruction= to change."
            )
        made_calls = None
        if calls is not None:
            made_calls = [c if isinstance(c, Call) else Call(c[0], dict(c[1])) for c in calls]
        proofs = []
        if proof is not None:
            proofs.append(
                proof
                if isinstance(proof, Reference)
                else Reference(
                    entity=proof[0], sql=proof[1], params=[json_value(p) for p in proof[2]], expected=proof[3]
                )
            )
        self._variant = VariantSpec(kind, because, dict(swap or {}), made_calls, instruction, proofs, policy)

    # --- the drafts -------------------------------------------------------------------------------

    def close(self) -> None:
        """Discard the episode (the recipe's copy of the base)."""
        if self._episode is not None:
            episode, self._episode = self._episode, None
            self.workspace.discard(episode)

    def drafts(self) -> tuple[Draft, Draft | None]:
        """The feasible draft and the infeasible variant (or None) this attempt made."""
        if not self._calls:
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name} ({self.recipe.source}) made no tool call: a task is what its "
                "calls do. Call ctx.call(...), or ctx.skip(...) when there is nothing to do."
            )
        if not self._parts:
            raise RecipeDefinitionError(
                f"recipe {self.recipe.name} ({self.recipe.source}) wrote no instruction: call ctx.say(...)."
            )
        if self.difficulty not in DIFFICULTIES:
            raise RecipeDefinitionError(f"recipe {self.recipe.name}: difficulty {self.difficulty!r}.")
        provenance = {
            "generator": "recipe",
            "recipe": self.recipe.name,
            "seed": self.seed,
            "attempt": self.attempt,
            **self.provenance,
        }
        if self._distractors:
            provenance["distractors"] = [d.model_dump(mode="json") for d in self._distractors]
        observed = None
        if self._episode is not None and not self._episode.closed and len(self._results) == len(self._calls):
            observed = Observed(self._episode, self.toolkit, list(self._results))
        if self.declined is not None:
            declined = Draft(
                instruction=self.instruction,
                capabilities=tuple(self.capabilities),
                difficulty=self.difficulty,
                calls=list(self._calls),
                feasible=False,
                references=list(self._references),
                policy=dict(self._policy),
                derived=list(self._derived),
                infeasible=self.declined,
                provenance=provenance,
                observed=observed,
                actor=self._actor,
            )
            return declined, None
        draft = Draft(
            instruction=self.instruction,
            capabilities=tuple(self.capabilities),
            difficulty=self.difficulty,
            calls=list(self._calls),
            goals=list(self._goals),
            references=list(self._references),
            policy=dict(self._policy),
            derived=list(self._derived),
            provenance=provenance,
            observed=observed,
            actor=self._actor,
        )
        return draft, (self._make_variant(draft) if self._variant is not None else None)

    def _make_variant(self, draft: Draft) -> Draft:
        spec = self._variant
        assert spec is not None
        swap = [(json_value(old), json_value(new)) for old, new in spec.swap.items()]
        if spec.instruction is not None:
            instruction = spec.instruction
        else:
            texts = [
                render(p.template, {k: _swap_raw(v, spec.swap) for k, v in p.values.items()}, self.style)
                for p in self._parts
            ]
            instruction = " ".join(texts)
            if instruction == draft.instruction:
                raise RecipeDefinitionError(
                    f"recipe {self.recipe.name}: ctx.infeasible: the swap changes nothing in the "
                    "instruction; "
                    "swap a value given to ctx.say, or pass instruction=."
                )
        calls = (
            spec.calls
            if spec.calls is not None
            else [Call(c.tool, _swap_json(c.arguments, swap)) for c in draft.calls]
        )
        references = []
        for ref in draft.references:
            params = _swap_json(ref.params, swap)
            changed = params != ref.params
            expected = 0 if changed and spec.kind == "missing" else ref.expected
            references.append(Reference(entity=ref.entity, sql=ref.sql, params=params, expected=expected))
        return Draft(
            instruction=instruction,
            capabilities=draft.capabilities,
            difficulty=draft.difficulty,
            calls=calls,
            feasible=False,
            references=references + spec.proofs,
            policy=dict(draft.policy),
            derived=[Derivation(value=_swap_json(d.value, swap), how=d.how) for d in draft.derived],
            infeasible=Infeasibility(kind=spec.kind, because=spec.because, policy=spec.policy),
            provenance=dict(draft.provenance),
            actor=_swap_actor(draft.actor, spec.swap),
        )


def _swap_actor(actor: Actor | None, swap: Mapping[Any, Any]) -> Actor | None:
    """The variant's actor: the person swapped like every other value (the swapped person speaks). A
    swapped-in person acts in the roles they hold (the episode binds them), so a variant "asked by someone
    without the role" is refused by the tools, not rejected by the gate; the same person keeps the roles."""
    if actor is None:
        return None
    person = str(_swap_raw(actor.person, swap))
    if person == actor.person:
        return actor
    return actor.model_copy(update={"person": person, "roles": ()})


def _swap_raw(value: Any, swap: Mapping[Any, Any]) -> Any:
    """`value` with every item equal to a key of `swap` replaced (lists item by item)."""
    if isinstance(value, list | tuple):
        return type(value)(_swap_raw(v, swap) for v in value)
    for old, new in swap.items():
        if value == old or same_value(json_value(value), json_value(old)):
            return new
    return value


def _swap_json(value: Any, swap: list[tuple[Any, Any]]) -> Any:
    """A JSON value with every leaf equal to an old value of `swap` replaced by the new one."""
    if isinstance(value, dict):
        return {k: _swap_json(v, swap) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap_json(v, swap) for v in value]
    for old, new in swap:
        if same_value(value, old) and not isinstance(value, bool):
            return new
    return value
