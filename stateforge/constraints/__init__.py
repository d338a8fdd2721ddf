"""What a table's constraints allow, described once: the one source of every check derived from them.

- `model`: `table_constraints(table)` -> `TableConstraints` (per column: type, range, length, NULLs,
  allowed values, the keys, foreign keys and CHECKs it is part of, identity and default), `KINDS`, and
  `Coverage`, which each consumer fills in to say how it handles every kind.
- `checks`: what CHECK constraints say about single columns (IN lists, bounds, lengths, column order),
  read by the description, the generator and the LLM's reply schema.

Consumers: `stateforge.validation.batch` (Arrow and DuckDB halves), `stateforge.validation.batch_pandera`
(the same column rules
as a pandera schema, an export), `stateforge.validation.checks` (the audit),
`stateforge.validation.rules` (the orphan cleanup), `stateforge.store.create` (the DDL),
`stateforge.llm.rows` (the
reply schema and row model). `tests/constraints` holds each of them to every kind.
"""

from __future__ import annotations

from stateforge.constraints.model import (
    KINDS,
    ColumnConstraints,
    Coverage,
    Reference,
    TableConstraints,
    UniqueKey,
    table_constraints,
)

__all__ = [
    "KINDS",
    "ColumnConstraints",
    "Coverage",
    "Reference",
    "TableConstraints",
    "UniqueKey",
    "table_constraints",
]
