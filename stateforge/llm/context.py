"""What a fill prompt tells the model about a table: its DDL, the columns to write, the upstream rows that
the new rows reference, and the rows themselves. Every piece is deterministic text (stable order, stable
JSON), so that equal inputs give equal requests and the response cache answers a rebuild.

    parts = TableParts.build(config, table, keys, written)                     # once per table
    upstream = Upstream.fetch(con, schema, config, table, batch)               # one query per FK per batch
    upstream.render(row_indices, salt="b3:r0:c2")                              # the parents of one chunk
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import duckdb
import pyarrow as pa

from stateforge.constraints import table_constraints
from stateforge.domain.config import DomainConfig
from stateforge.llm.columns import describe_columns
from stateforge.llm.rows import jsonable
from stateforge.schema.model import ForeignKey, Schema, Table
from stateforge.store.sql import column_list, fk_casts, in_list_sql, quote_ident, read_as, table_ref

MAX_FKS = 3
"""Parent tables shown per chunk (the most important first)."""

MAX_PARENTS = 20
"""Parent rows shown per foreign key per chunk (a seeded sample when a chunk references more)."""

TEXT_LIMIT = 80
"""Characters of a parent's text value shown (longer ones are cut with an ellipsis)."""


def dumps(value: Any) -> str:
    """Compact, stable JSON (key order as given, UTF-8 kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def rows_block(rows: list[dict[str, Any]]) -> str:
    """A JSON array with one row per line (upstream rows)."""
    return "[\n" + ",\n".join(dumps(r) for r in rows) + "\n]"


def labelled_block(rows: dict[str, dict[str, Any]]) -> str:
    """A JSON object of rows by label, one per line: the rows to complete, as the reply names them."""
    return "{\n" + ",\n".join(f"{dumps(label)}:{dumps(row)}" for label, row in rows.items()) + "\n}"


def table_ddl(table: Table) -> str:
    """The table's DDL as the model reads it: columns with types, NOT NULL and their comments, then the
    keys, foreign keys and CHECKs."""
    entries: list[tuple[str, str | None]] = [
        (f"{c.name} {c.type}{' NOT NULL' if not c.nullable else ''}", c.description) for c in table.columns
    ]
    codes = [f"PRIMARY KEY ({', '.join(table.primary_key)})"] if table.primary_key else []
    codes += [f"UNIQUE ({', '.join(u)})" for u in table.unique if u]
    codes += [f"FOREIGN KEY ({', '.join(fk.columns)}) REFERENCES {fk.ref_table} ({', '.join(fk.ref_columns)})"
              for fk in table.foreign_keys]
    tc = table_constraints(table)
    codes += [f"CHECK ({c.sql})" for c in tc.checks]
    codes += [f"CHECK ({in_list_sql(c.name, c.enforced_allowed)})" for c in tc.columns if c.enforced_allowed]
    entries += [(code, None) for code in codes]
    lines = []
    for i, (code, comment) in enumerate(entries):
        comma = "," if i < len(entries) - 1 else ""
        note = f"  -- {' '.join(comment.split())}" if comment else ""
        lines.append(f"  {code}{comma}{note}")
    return f"CREATE TABLE {table.name} (\n" + "\n".join(lines) + "\n);"


def column_notes(table: Table, written: list[str]) -> str:
    """One line per column to write: type, NOT NULL, length, allowed values, uniqueness, description."""
    notes = []
    tc = table_constraints(table)
    for name in written:
        c, described = tc.column(name), table.column(name).description
        parts = [c.type, "NOT NULL" if not c.nullable else "may be null"]
        if c.max_length:
            parts.append(f"at most {c.max_length} characters")
        if c.allowed:
            parts.append("one of " + dumps([jsonable(v) for v in c.allowed]))
        for key in c.unique:
            others = [k for k in key.columns if k.lower() != name.lower()]
            parts.append(f"unique together with {', '.join(others)}" if others else "unique")
        text = f"- {c.name}: {'; '.join(parts)}"
        notes.append(text + (f". {described}" if described else ""))
    return "\n".join(notes)


@dataclass(frozen=True)
class TableParts:
    """The parts of a table's prompts that are the same for every chunk."""

    domain: str
    table: str
    table_description: str
    ddl: str
    columns: str
    keys: str

    @classmethod
    def build(cls, config: DomainConfig, table: Table, keys: list[str], written: list[str]) -> TableParts:
        """The fixed parts for `table`: `keys` name the rows (`columns.label_columns`), `written` are
        the columns the model writes."""
        cfg = config.table_config(table.name)
        described = (cfg.description if cfg and cfg.description else None) or table.description
        return cls(
            domain=(config.description or config.name).strip(),
            table=table.name,
            table_description=(described or "(no description)").strip(),
            ddl=table_ddl(table),
            columns=column_notes(table, written),
            keys=", ".join(keys) or "the row's position",
        )

    def values(self) -> dict[str, str]:
        """The template values these parts fill."""
        return {"domain": self.domain, "table": self.table, "table_description": self.table_description,
                "ddl": self.ddl, "columns": self.columns, "keys": self.keys}


def ordered_fks(table: Table, config: DomainConfig) -> list[ForeignKey]:
    """Foreign keys by importance: the `per_parent` one, then NOT NULL ones, then the rest (DDL order)."""
    cfg = config.table_config(table.name)
    main = cfg.per_parent.fk.lower() if cfg and cfg.per_parent else None

    def rank(item: tuple[int, ForeignKey]) -> tuple[int, int]:
        i, fk = item
        first = main is not None and main in (c.lower() for c in fk.columns)
        nullable = any(table.column(c).nullable for c in fk.columns)
        return (0 if first else 1 if not nullable else 2, i)

    return [fk for _, fk in sorted(enumerate(table.foreign_keys), key=rank)]


@dataclass
class _Parents:
    fk: ForeignKey
    columns: list[str]
    keys: list[tuple[Any, ...] | None]
    """Per batch row: its foreign key values (None when NULL)."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = field(default_factory=dict)


@dataclass
class Upstream:
    """The stored parent rows a batch references, a few describing columns each."""

    table: Table
    parents: list[_Parents]
    seed: int = 0

    @classmethod
    def fetch(cls, con: duckdb.DuckDBPyConnection, schema: Schema, config: DomainConfig, table: Table,
              batch: pa.Table, *, seed: int = 0) -> Upstream:
        """One query per foreign key (at most `MAX_FKS` with describing columns) for the whole batch."""
        parents = []
        for fk in ordered_fks(table, config):
            parent = schema.table(fk.ref_table)
            columns = [c for c in describe_columns(parent, config) if c.lower() not in
                       {r.lower() for r in fk.ref_columns}]
            if not columns:
                continue
            lists = [batch.column(c).to_pylist() for c in fk.columns]
            keys = [None if any(v is None for v in k) else tuple(k) for k in zip(*lists, strict=True)]
            found = _Parents(fk, columns, keys)
            found.rows = _load(con, parent.name, fk.ref_columns, columns, {k for k in keys if k is not None},
                               fk_casts(table, fk, parent))
            parents.append(found)
            if len(parents) == MAX_FKS:
                break
        return cls(table, parents, seed)

    def render(self, rows: list[int], salt: str) -> str:
        """The block of upstream rows for the batch rows `rows` (first referenced first)."""
        blocks = []
        for p in self.parents:
            seen: dict[tuple[Any, ...], None] = {}
            for r in rows:
                key = p.keys[r]
                if key is not None and key in p.rows:
                    seen.setdefault(key, None)
            keys = list(seen)
            if len(keys) > MAX_PARENTS:
                rng = random.Random(f"{self.seed}:{self.table.name}:{','.join(p.fk.columns)}:{salt}")
                keep = set(rng.sample(range(len(keys)), MAX_PARENTS))
                keys = [k for i, k in enumerate(keys) if i in keep]
            if keys:
                via = ", ".join(p.fk.columns)
                block = rows_block([p.rows[k] for k in keys])
                blocks.append(f"{p.fk.ref_table} (referenced by {via}):\n{block}")
        if not blocks:
            return "Upstream rows: none referenced."
        head = "Upstream rows these rows reference (already stored; keep the new values coherent with them):"
        return "\n".join([head, *blocks])


def _load(con: duckdb.DuckDBPyConnection, parent: str, ref: tuple[str, ...], columns: list[str],
          keys: set[tuple[Any, ...]], casts: tuple[str | None, ...] | None = None,
          ) -> dict[tuple[Any, ...], dict[str, Any]]:
    """Parent rows by the batch's key (as the referencing columns hold it: '27' for key 27 when a VARCHAR
    column references an INTEGER key, `casts`): the key columns and the describing ones, text cut to
    `TEXT_LIMIT`."""
    if not keys:
        return {}
    ordered = sorted(keys, key=repr)
    wanted = pa.table({f"k{i}": [k[i] for k in ordered] for i in range(len(ref))})
    casts = casts or (None,) * len(ref)
    con.register("__sf_llm_keys", wanted)
    try:
        on = " AND ".join(f"p.{quote_ident(r)} = {read_as(f'k.k{i}', casts[i])}" for i, r in enumerate(ref))
        held = ", ".join(f"k.k{i}" for i in range(len(ref)))
        sql = (f"SELECT {held}, {column_list([*ref, *columns], 'p')} FROM {table_ref(parent)} AS p "
               f"JOIN __sf_llm_keys AS k ON {on}")
        found = con.sql(sql).fetchall()
    finally:
        con.unregister("__sf_llm_keys")
    out = {}
    names = [*ref, *columns]
    for row in found:
        key, values = tuple(row[: len(ref)]), row[len(ref):]
        out[key] = {n: _cut(jsonable(v)) for n, v in zip(names, values, strict=True)}
    return out


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > TEXT_LIMIT:
        return value[: TEXT_LIMIT - 1].rstrip() + "…"
    return value
