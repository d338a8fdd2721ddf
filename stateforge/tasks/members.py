"""A member pack's recipes inside a composed pack: its steps and casts, run with their SQL qualified.

    from stateforge.packs.hr.tasks.stories import hand_over_team, revoke_everything
    from stateforge.tasks.members import in_member

    OFFBOARD = Storyline("offboard_everywhere", cast,
                         (in_member("hr", hand_over_team), in_member("hr", revoke_everything),
                          close_calendar))

A member's recipes write bare table names (`FROM employees`) and dates on the member's own clock; in the
composed database its tables live in the member's DuckDB schema (`hr.employees`) and its dates moved by
`shift_days`. `MemberContext` is the recipe context as the member's code sees it: every SQL text it hands
over (`sql`, `one`, `pick`, `sample`, `state`, `refer`, `distractor`, `goal`) is qualified by the member's
`Qualifier` (stateforge.domain.compose), as the member's rules and policies are, table names of `unique` and
`policy` too; a tool named as the member names it is called by its name in the union (`list_direct_reports`
-> `hr_list_direct_reports` where two members share it); and `act_as` on the member's people table signs in
the composed domain's actor who is that person.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from stateforge.domain.compose import Qualifier
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tasks.compose import Step, Story
from stateforge.tasks.context import RecipeContext
from stateforge.tasks.recipes import RecipeDefinitionError
from stateforge.tools.actor import Actor


class MemberContext:
    """`ctx` as the recipes of the member `namespace` of a composed pack see it (module docstring)."""

    def __init__(self, ctx: RecipeContext, namespace: str) -> None:
        config = ctx.workspace.config
        if namespace not in config.members:
            raise RecipeDefinitionError(
                f"recipe {ctx.recipe.name}: {namespace!r} is not a member of {config.name} "
                f"(members: {', '.join(config.members) or 'none'})."
            )
        prefix = f"{namespace.lower()}."
        tables = frozenset(t.name.lower()[len(prefix):] for t in ctx.schema.tables
                           if t.name.lower().startswith(prefix))
        self.base = ctx
        self.namespace = namespace
        self.qualifier = Qualifier(namespace, tables, dt.timedelta(days=config.members[namespace].shift_days))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.base, name)

    def qualify(self, sql: str) -> str:
        """The member's SQL in the composed database."""
        return self.qualifier.sql(sql, where=f"recipe {self.base.recipe.name} ({self.namespace})")

    def tool(self, name: str) -> str:
        """The union's name of the member's tool `name`."""
        shared = f"{self.namespace}_{name}"
        return shared if name not in self.base.toolkit and shared in self.base.toolkit else name

    # --- SQL ------------------------------------------------------------------------------------------

    def sql(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        return self.base.sql(self.qualify(sql), params)

    def one(self, sql: str, params: Any = None) -> dict[str, Any] | None:
        return self.base.one(self.qualify(sql), params)

    def scalar(self, sql: str, params: Any = None) -> Any:
        return self.base.scalar(self.qualify(sql), params)

    def pick(self, sql: str, params: Any = None, *, what: str = "candidate") -> dict[str, Any]:
        return self.base.pick(self.qualify(sql), params, what=what)

    def sample(
        self, sql: str, params: Any = None, *, k: int, what: str = "candidate"
    ) -> list[dict[str, Any]]:
        return self.base.sample(self.qualify(sql), params, k=k, what=what)

    def state(self, sql: str, params: Sequence[Any] | None = None) -> list[dict[str, Any]]:
        return self.base.state(self.qualify(sql), params)

    def refer(self, entity: str, sql: str, params: Sequence[Any] | None = None, *, expected: int = 1) -> None:
        self.base.refer(entity, self.qualify(sql), params, expected=expected)

    def unique(self, entity: str, table: str, **equals: Any) -> None:
        self.base.unique(entity, self.qualifier.table(table), **equals)

    def distractor(self, entity: str, sql: str, params: Sequence[Any] | None = None) -> None:
        self.base.distractor(entity, self.qualify(sql), params)

    def goal(self, name: str, sql: str, params: Sequence[Any] | None = None,
             expected: list[Mapping[str, Any]] | None = None) -> None:
        self.base.goal(name, self.qualify(sql), params, expected)

    def policy(self, column: str, rule: str | Mapping[str, Any]) -> None:
        table, _, name = column.rpartition(".")
        self.base.policy(f"{self.qualifier.table(table)}.{name}" if table and table != "*" else column, rule)

    # --- tools ----------------------------------------------------------------------------------------

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        return self.base.call(self.tool(tool), arguments, step=step)

    def read(self, tool: str, arguments: Mapping[str, Any] | None = None, *, step: str | None = None) -> Any:
        return self.base.read(self.tool(tool), arguments, step=step)

    def blocked(self, tool: str, arguments: Mapping[str, Any], **how: Any) -> None:
        self.base.blocked(self.tool(tool), arguments, **how)

    def act_as(self, table: str, key: Mapping[str, Any], roles: Sequence[str] | str = ()) -> Actor:
        """Sign in as the member's person `key` of `table`: the composed actor who is that person (the
        composed `actors:` table must be the member's `table`)."""
        spec = self.base.workspace.config.actors
        qualified = self.qualifier.table(table)
        if spec is None or spec.table.lower() != qualified.lower():
            raise RecipeDefinitionError(
                f"recipe {self.base.recipe.name}: act_as({table!r}) of member {self.namespace}: the composed "
                f"actors are {spec.table if spec else 'not declared'}, not {qualified}; cast the task with "
                "the composed pack's own act_as.")
        where = " AND ".join(f"{quote_ident(c)} = ?" for c in key)
        found = self.base.sql(
            f"SELECT {quote_ident(spec.key)} AS k FROM {table_ref(qualified)} WHERE {where}",
                              list(key.values()))
        if len(found) != 1:
            raise RecipeDefinitionError(
                f"recipe {self.base.recipe.name}: act_as: {dict(key)} names {len(found)} rows of "
                f"{qualified}.")
        return self.base.act_as(spec.table, {spec.key: found[0]["k"]}, roles)


def in_member(namespace: str, item: Step) -> Step:
    """The member's step `item`, run with the story's context as that member's (`MemberContext`)."""

    def run(story: Story) -> None:
        with _as_member(story, namespace):
            item.run(story)

    return dataclasses.replace(item, run=run)


def member_cast(namespace: str, cast: Callable[..., None]) -> Callable[..., None]:
    """The member's cast `cast`, run with the story's context as that member's (other arguments passed on)."""

    def run(story: Story, *args: Any, **kwargs: Any) -> None:
        with _as_member(story, namespace):
            cast(story, *args, **kwargs)

    run.__wrapped__ = cast  # type: ignore[attr-defined]  # where the storyline's source is
    return run


class _as_member:  # noqa: N801 (a context manager read as a phrase)
    def __init__(self, story: Story, namespace: str) -> None:
        self.story, self.namespace, self.outer = story, namespace, story.ctx

    def __enter__(self) -> None:
        if not isinstance(self.outer, MemberContext):
            self.story.ctx = MemberContext(self.outer, self.namespace)  # type: ignore[assignment]

    def __exit__(self, *exc: object) -> None:
        self.story.ctx = self.outer
