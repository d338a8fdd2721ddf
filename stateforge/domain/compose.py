"""Composing packs: one database that holds several packs, each in a DuckDB schema of its own.

    # domain.yaml of a composed pack
    members:
      hr: {pack: hr}
      itsm: {pack: itsm, person: "SELECT u.user_name FROM itsm.users AS u ... WHERE e.work_email = ?"}
      meeting: {pack: meeting, shift_days: 91}

The schema is every member's DDL read under `SET search_path TO <schema>` (so `employees` of the HR pack is
`hr.employees`, of the meeting pack `meeting.employees`), then the composed pack's own `schema.sql`: the
foreign keys across members, written with qualified names. The config is every member's, each qualified
into its schema: table and column keys (`hr.employees.work_email`), and every SQL text it states (rules,
policies, repairs, `expr` and `via` hints, the actors' role query) with each bare table of the member
qualified (sqlglot), dates and times moved by `shift_days`; then the composed pack's own keys, which add
to (and for `tables:` / `columns:` override) what the members say. The result is an ordinary pack: the
fill, the audit, the diff and the gate need nothing else. Only a member's Python (tools, recipes) still
writes bare names: `stateforge.tools.compose` runs it with DuckDB's search path set to its schema.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from stateforge.domain.config import (
    Actors,
    ColumnHint,
    DomainConfig,
    Member,
    RoleQuery,
    TimeOrder,
)
from stateforge.errors import DomainError
from stateforge.schema.model import Schema, qualified


def _is_time_type(data_type: exp.DataType) -> bool:
    """DATE, TIMESTAMP (sqlglot reads DuckDB's as TIMESTAMPNTZ), DATETIME: the literals a shift moves."""
    return str(data_type.this.name).startswith(("DATE", "TIMESTAMP"))


@dataclass(frozen=True)
class Qualifier:
    """How one member's SQL and keys become the composed domain's."""

    namespace: str
    tables: frozenset[str]
    """The member's table names, lower case (what a bare name in its SQL may stand for)."""
    shift: dt.timedelta = dt.timedelta(0)

    def table(self, name: str) -> str:
        """A member table's identity in the composed schema: `employees` -> `hr.employees`."""
        return qualified(self.namespace, name)

    def sql(self, text: str, *, where: str) -> str:
        """`text` with every bare table of the member qualified and every DATE / TIMESTAMP literal
        shifted (CTE names and other schemas' tables are left alone)."""
        try:
            tree = sqlglot.parse_one(text, read="duckdb")
        except sqlglot.errors.SqlglotError as exc:
            raise DomainError(f"{where}: the SQL does not parse, so it cannot be qualified into schema "
                              f"{self.namespace}: {str(exc).splitlines()[0]}") from None
        ctes = {c.alias_or_name.lower() for c in tree.find_all(exp.CTE)}
        for table in tree.find_all(exp.Table):
            name = table.name.lower()
            if not table.args.get("db") and name in self.tables and name not in ctes:
                table.set("db", exp.to_identifier(self.namespace))
        if self.shift:
            for cast in tree.find_all(exp.Cast):
                if _is_time_type(cast.to) and isinstance(cast.this, exp.Literal) and cast.this.is_string:
                    cast.set("this", exp.Literal.string(self._moved(cast.this.this, where)))
        return tree.sql(dialect="duckdb")

    def _moved(self, literal: str, where: str) -> str:
        try:
            if len(literal.strip()) == 10:
                return (dt.date.fromisoformat(literal.strip()) + self.shift).isoformat()
            return (dt.datetime.fromisoformat(literal.strip()) + self.shift).isoformat(sep=" ")
        except ValueError:
            raise DomainError(f"{where}: the literal {literal!r} is not an ISO date or time, so "
                              "shift_days cannot move it; write it as YYYY-MM-DD[ HH:MM:SS].") from None

    def value(self, value: Any) -> Any:
        """A date or time of the config moved by the shift; anything else as is."""
        if self.shift and isinstance(value, dt.date | dt.datetime):
            return value + self.shift
        return value


def compose_config(config: DomainConfig, members: dict[str, tuple[DomainConfig, Schema]]) -> DomainConfig:
    """The composed domain's config: each member's qualified (`Qualifier`), then `config`'s own keys."""
    tables: dict[str, Any] = {}
    columns: dict[str, ColumnHint] = {}
    rules, policies = [], []
    created: dict[str, str | None] = {}
    ignore: list[str] = []
    grading: dict[str, Any] = {}
    min_scale = config.min_scale
    for namespace, (member, schema) in members.items():
        q = qualifier(namespace, schema, config.members[namespace])
        where = f"{member.source or member.name}"
        tables.update({q.table(k): v for k, v in member.tables.items()})
        for key, hint in member.columns.items():
            columns[f"{namespace}.{key}"] = _hint(q, hint, f"{where}: columns.{key}")
        rules += [r.model_copy(update={"check": q.sql(r.check, where=f"{where}: rules {r.name}.check"),
                                       "repair": [q.sql(s, where=f"{where}: rules {r.name}.repair")
                                                  for s in r.repair]}) for r in member.rules]
        for p in member.policies:
            check = q.sql(p.check, where=f"{where}: policies {p.name}.check") if p.check else None
            repair = [q.sql(s, where=f"{where}: policies {p.name}.repair") for s in p.repair]
            policies.append(p.model_copy(update={"check": check, "repair": repair}))
        created.update({q.table(k): v for k, v in member.time_order.created.items()})
        ignore += [f"{namespace}.{item}" for item in member.time_order.ignore]
        grading.update({k if k.startswith("*.") else f"{namespace}.{k}": v
                        for k, v in member.grading.items()})
        if member.min_scale is not None:
            min_scale = max(min_scale or 0, member.min_scale)
    tables.update(config.tables)
    columns.update(config.columns)
    grading.update(config.grading)
    created.update(config.time_order.created)
    composed = config.model_copy(update={
        "tables": tables, "columns": columns, "rules": [*config.rules, *rules],
        "policies": [*config.policies, *policies], "grading": grading, "min_scale": min_scale,
        "time_order": TimeOrder(created=created, ignore=[*ignore, *config.time_order.ignore],
                                windows=config.time_order.windows),
    })
    composed._source = config.source
    return composed


def qualifier(namespace: str, schema: Schema, member: Member) -> Qualifier:
    """The `Qualifier` of one member (its schema model: the member pack's own, unqualified)."""
    return Qualifier(namespace, frozenset(t.name.lower() for t in schema.tables),
                     dt.timedelta(days=member.shift_days))


def member_actors(q: Qualifier, actors: Actors | None, where: str) -> Actors | None:
    """A member's `actors:` qualified into its schema (the member's tools act for a person of it)."""
    if actors is None:
        return None
    roles: Any = actors.roles
    if isinstance(roles, RoleQuery):
        roles = RoleQuery(query=q.sql(roles.query, where=f"{where}: actors.roles.query"))
    return Actors(table=q.table(actors.table), key=actors.key, roles=roles)


def _hint(q: Qualifier, hint: ColumnHint, where: str) -> ColumnHint:
    # rebuilt from what the YAML set (not model_copy): the validators derive fields from values_by, and a
    # copy would record those as given, which the recorded config then refuses to validate
    data = hint.model_dump(exclude_unset=True)
    for key in ("min", "max", "constant"):
        if key in data:
            data[key] = q.value(data[key])
    if data.get("values_by") is not None:
        data.pop("expr", None)  # values_by's own, made again by the validator
    elif data.get("expr") is not None:
        data["expr"] = q.sql(data["expr"], where=f"{where}.expr")
    if data.get("values") is not None:
        data["values"] = [q.value(v) for v in data["values"]]
    if (data.get("values_by") or {}).get("via") is not None:
        data["values_by"]["via"] = q.sql(data["values_by"]["via"], where=f"{where}.values_by.via")
    return ColumnHint.model_validate(data)


def composed_ddl(root: Path, members: dict[str, Path]) -> str:
    """The DDL of a composed pack: each member's `schema.sql` under its schema, then the pack's own."""
    parts = []
    for namespace, ddl in members.items():
        parts.append(f"CREATE SCHEMA {namespace};\nSET search_path TO {namespace};\n"
                     f"{ddl.read_text(encoding='utf-8-sig')}\n")
    own = root / "schema.sql"
    tail = own.read_text(encoding="utf-8-sig") if own.is_file() else ""
    parts.append("SET search_path TO main;\n" + tail)
    return "\n".join(parts)
