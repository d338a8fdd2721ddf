"""The actor of an episode: the person the tools act for, and their roles (docs/tools.md, "The actor").

    actor = Actor(person="LC00012345", roles=("member",))
    episode = Episode.open(db, actor=actor)       # checked against domain.yaml `actors:` (`bind_actor`)
    env.actor.person, env.actor.roles             # what a tool reads instead of a "who am I" argument

A task names its actor (`Task.actor`); the harness opens every episode of the task as that actor, and
`stateforge mcp ... --as PERSON [--role R]` binds one per server. `bind_actor` checks that the person is
one row of the pack's people table and that each role is one they hold.
"""

from __future__ import annotations

from typing import Any

import duckdb
from pydantic import BaseModel, ConfigDict, Field, field_validator

from stateforge.domain import DomainConfig
from stateforge.errors import DomainError
from stateforge.store.sql import quote_ident, table_ref


class Actor(BaseModel):
    """Who an episode acts as: a person (the value of domain.yaml `actors.key`) and the roles they act in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    person: str = Field(min_length=1, description="The person's key: the value of domain.yaml `actors.key`.")
    roles: tuple[str, ...] = Field(
        default=(), description="The roles they act in (each one the pack's `actors.roles` allows them)."
    )

    @field_validator("person", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    def has_role(self, role: str) -> bool:
        """Whether the actor acts in `role`."""
        return role in self.roles

    def describe(self) -> str:
        """`LC00012345 (member)`: for messages and instructions."""
        return f"{self.person} ({', '.join(self.roles)})" if self.roles else self.person


class NoActor(DomainError):
    """An actor that the pack does not declare or that its data does not hold (bad input: exit 2)."""


def person_roles(con: duckdb.DuckDBPyConnection, config: DomainConfig, person: str) -> tuple[str, ...] | None:
    """The roles `person` may hold (in the pack's order), or None when no row of the people table is them."""
    spec = config.actors
    assert spec is not None
    column = spec.role_column
    selected = quote_ident(column) if column is not None else "NULL"
    rows = con.execute(
        f"SELECT {selected} FROM {table_ref(spec.table)} WHERE CAST({quote_ident(spec.key)} AS VARCHAR) = ?",
        [person],
    ).fetchall()
    if len(rows) != 1:
        return None
    query = spec.role_query
    if query is not None:
        return tuple(str(r[0]) for r in con.execute(query, [person]).fetchall() if r[0] is not None)
    if column is None:
        return tuple(spec.roles)  # type: ignore[arg-type]
    value = rows[0][0]
    if value is None:
        return ()
    return tuple(str(v) for v in value) if isinstance(value, list | tuple) else (str(value),)


def bind_actor(
    con: duckdb.DuckDBPyConnection, config: DomainConfig, actor: Actor | str | None
) -> Actor | None:
    """`actor` checked against the pack's `actors:` on `con`, its roles filled in when none were given (every
    role the person holds). A `NoActor` error names the person, the table and the fix."""
    if actor is None:
        return None
    if isinstance(actor, str):
        actor = Actor(person=actor)
    spec = config.actors
    where = f"{config.source or 'domain.yaml'}"
    if spec is None:
        raise NoActor(
            f"this episode was asked to act as {actor.person!r}, but {where} declares no `actors:` (who "
            "the tools act for). Drop --as / the task's actor, or declare `actors: {table, key, roles}`."
        )
    held = person_roles(con, config, actor.person)
    if held is None:
        raise NoActor(
            f"no {spec.table} row has {spec.key} = {actor.person!r}: an episode acts as one person of "
            f"{spec.table}; give a {spec.key} that exists."
        )
    if not actor.roles:
        return actor.model_copy(update={"roles": held})
    unknown = [r for r in actor.roles if r not in held]
    if unknown:
        listed = ", ".join(held) or "none"
        raise NoActor(
            f"{spec.table} {actor.person} does not hold the role {unknown[0]!r} (their roles: {listed}); "
            "give one of them with --role, or none to act in all."
        )
    return actor
