"""The toolkit of a composed pack (`members:` in domain.yaml): the union of its members' tools.

    # stateforge/packs/workplace/tools/__init__.py
    def toolkit(schema):
        return union_toolkit(Path(__file__).parent.parent, schema)

Each member's tools are loaded from the member pack and checked against its own schema, then wrapped:

- **names**: a tool keeps its name when no other member has one of the same name; names two or more
  members share are each prefixed by the member's schema (`hr_list_people`, `itsm_list_people`). The members
  are taken in `members:` order and each member's tools in its own order, so the listing is deterministic;
  `cannot_complete` is the one standard tool of the union.
- **tables**: the declared reads and writes are qualified into the member's schema (`hr.employees`), so the
  coverage, the declaration check of every call and the diff name the tables by their identities.
- **SQL**: a member's tools write bare names (`FROM employees`). A call runs with DuckDB's search path set
  to the member's schema in the episode's catalog (`SET search_path = '"episode"."hr"'`: DuckDB then looks
  a bare name up in temp, that schema, main and pg_catalog, in that order; the setting is the
  connection's, not the transaction's) and `env`'s model lookups (`env.insert("employees", ...)`) resolve
  in it too (`Env.within`); the previous search path is put back after the call, whatever happens.
- **records kept in step** (`sync:`): a tool that writes a system of record's table (`hr.employees`) also
  brings the columns that follow it in the other members' tables (`itsm.users.manager_id`) to its new
  values (or to what it derives, `derived:`: a worker's job title through their position), in the same call
  and through the write helpers (so the call's changes and the diff hold them), and declares those tables
  as written.
- **the actor**: the composed domain's actor (`actors:`) is the member's person through `members.<m>.person`
  (a SELECT of the member's `actors.key` with one `?`), or directly when the member's people table is the
  composed one; their roles are the member's (`actors.roles` of the member, qualified). A member without
  `actors:` acts for no one (its tools take whom they act for as arguments, as on their own).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from stateforge.domain import DomainConfig, DomainPack, load_config
from stateforge.domain.compose import member_actors, qualifier
from stateforge.domain.config import Sync
from stateforge.domain.loader import member_pack
from stateforge.schema.model import Schema
from stateforge.store.sql import quote_ident, table_ref
from stateforge.tools.actor import Actor, person_roles
from stateforge.tools.base import Tool
from stateforge.tools.context import Expr
from stateforge.tools.env import Env
from stateforge.tools.errors import ToolDefinitionError, ToolError
from stateforge.tools.toolkit import CANNOT_COMPLETE, Toolkit


@dataclasses.dataclass(frozen=True)
class MemberTools:
    """One member of a composed pack, as its tools need it."""

    namespace: str
    config: DomainConfig
    """A config holding only the member's `actors:`, qualified into its schema (for `person_roles`)."""
    person_sql: str | None
    """SQL from the composed actor's key to the member's; None when the member acts for no one."""

    def actor(self, env: Env) -> Actor | None:
        """The member's person for the episode's actor (None: no actor, or a member without actors)."""
        if env.actor is None or self.config.actors is None or self.person_sql is None:
            return None
        con = env._ctx.con
        found = con.execute(self.person_sql, [env.actor.person]).fetchall()
        if len(found) != 1 or found[0][0] is None:
            raise ToolError(f"{env.actor.person} has no account in {self.namespace}, so its tools cannot act "
                            "for them.")
        person = str(found[0][0])
        return Actor(person=person, roles=person_roles(con, self.config, person) or ())


def union_toolkit(root: Path, schema: Schema, *, name: str | None = None) -> Toolkit:
    """The union of the member packs' toolkits of the composed pack at `root` (see the module docstring)."""
    from stateforge.tools.loader import toolkit_for

    composed = load_config(root / "domain.yaml")
    members: list[tuple[MemberTools, Toolkit, Schema]] = []
    for namespace, spec in composed.members.items():
        member = member_pack(root, spec.pack)
        kit = toolkit_for(member.schema, member.name, pack_dir=member.root)
        members.append((_member(composed, namespace, member), kit, member.schema))
    counts = Counter(t.name for _, kit, _ in members for t in kit if t.name != CANNOT_COMPLETE)
    union = Toolkit(name=name or composed.name)
    composed_members = composed.members
    for member, kit, own in members:
        q = qualifier(member.namespace, own, composed_members[member.namespace])
        for item in kit:
            if item.name == CANNOT_COMPLETE:
                continue
            shown = f"{member.namespace}_{item.name}" if counts[item.name] > 1 else item.name
            union.add(_synced(dataclasses.replace(
                item, name=shown, run=_in_schema(member, item), reads=tuple(q.table(t) for t in item.reads),
                writes=tuple(q.table(t) for t in item.writes)), composed.sync))
    for rule in composed.sync:
        _check_sync(rule, schema, composed)
    union.check(schema)
    return union


def _check_sync(rule: Sync, schema: Schema, composed: DomainConfig) -> None:
    where = f"{composed.source}: sync {rule.source} -> {rule.target}"
    for name in (rule.source, rule.target):
        if not schema.has_table(name):
            raise ToolDefinitionError(f"{where}: no table {name} in the composed schema.")
    source, target = schema.table(rule.source), schema.table(rule.target)
    if len(source.primary_key) != 1:
        raise ToolDefinitionError(f"{where}: {rule.source} needs a primary key of one column.")
    if not rule.columns and not rule.derived:
        raise ToolDefinitionError(f"{where}: name the target's columns to follow (columns: or derived:).")
    for table, columns in ((target, [rule.key, *rule.columns, *rule.derived]),
                           (source, list(rule.columns.values()))):
        have = {c.name.lower() for c in table.columns}
        missing = [c for c in columns if c.lower() not in have]
        if missing:
            raise ToolDefinitionError(f"{where}: {table.name} has no column {missing[0]}.")


def _synced(item: Tool, rules: list[Sync]) -> Tool:
    """`item`, bringing the `sync:` targets of the tables it writes in step after each call."""
    writes = {t.lower() for t in item.writes}
    mine = [r for r in rules if r.source.lower() in writes]
    if not mine:
        return item
    run = item.run

    def synced(env: Env, arguments: BaseModel) -> Any:
        out = run(env, arguments)
        for rule in mine:
            source = rule.source.lower()
            if source not in {t.lower() for t in env.changes.tables}:
                continue
            columns = env.changes.columns.get(source)
            if rule.derived or columns is None or columns & {c.lower() for c in rule.columns.values()}:
                keep_in_step(env, rule)
        return out

    extra = [r.target for r in mine if r.target.lower() not in writes]
    return dataclasses.replace(item, run=synced, writes=(*item.writes, *dict.fromkeys(extra)))


def keep_in_step(env: Env, rule: Sync) -> int:
    """Give the rows of `rule.target` the values of their `rule.source` row where they differ; the count."""
    [pk] = env.table(rule.source).primary_key
    source, target, key = table_ref(rule.source), table_ref(rule.target), quote_ident(rule.key)
    follows = {t: f"s.{quote_ident(s)}" for t, s in rule.columns.items()} | {
        t: f"({sql})" for t, sql in rule.derived.items()}
    differs = " OR ".join(f"t.{quote_ident(t)} IS DISTINCT FROM {value}" for t, value in follows.items())
    where = (f"{key} IN (SELECT s.{quote_ident(pk)} FROM {source} AS s JOIN {target} AS t "
             f"ON t.{key} = s.{quote_ident(pk)} WHERE ({differs})"
             f"{f' AND ({rule.where})' if rule.where else ''})")
    row = f"{target}.{key}"
    values = {t: Expr(f"SELECT {value} FROM {source} AS s WHERE s.{quote_ident(pk)} = {row}")
              for t, value in follows.items()}
    return env.update_where(rule.target, where, [], values)


def _member(composed: DomainConfig, namespace: str, member: DomainPack) -> MemberTools:
    spec = composed.members[namespace]
    q = qualifier(namespace, member.schema, spec)
    where = str(member.config.source or member.name)
    actors = member_actors(q, member.config.actors, where)
    person_sql = spec.person
    own = composed.actors
    if actors is not None and person_sql is None:
        if own is None or own.table.lower() != actors.table.lower():
            raise ToolDefinitionError(
                f"{composed.source}: members.{namespace}: the {member.name} pack's tools act for a "
                f"person of {actors.table}; say who that is for the workplace's actor with `person: SELECT "
                f"<{actors.key}> FROM ... WHERE <{own.key if own else 'key'}> = ?`.")
        person_sql = (f"SELECT {quote_ident(actors.key)} FROM {table_ref(actors.table)} "
                      f"WHERE CAST({quote_ident(own.key)} AS VARCHAR) = ?")
    return MemberTools(namespace, DomainConfig(name=namespace, actors=actors), person_sql)


def _in_schema(member: MemberTools, item: Tool) -> Any:
    """`item.run` with the member's schema on DuckDB's search path and the member's person as the actor."""
    run = item.run

    def in_schema(env: Env, arguments: BaseModel) -> Any:
        con = env._ctx.con
        # the episode's file is attached under a name of its own: the schema is qualified by that catalog
        [(before, catalog)] = con.execute(
            "SELECT current_setting('search_path'), current_database()").fetchall()
        inner = env.within(member.namespace, member.actor(env))
        path = f"{quote_ident(catalog)}.{quote_ident(member.namespace)}".replace("'", "''")
        con.execute(f"SET search_path = '{path}'")
        try:
            return run(inner, arguments)
        finally:
            con.execute(f"SET search_path = '{str(before).replace(chr(39), chr(39) * 2)}'")
            env.reads_unknown = env.reads_unknown or inner.reads_unknown

    return in_schema
