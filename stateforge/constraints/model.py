"""The description of what a table's constraints allow, derived once from the schema model.

    tc = table_constraints(table)            # cached per table definition
    tc.column("price").high                  # Decimal("999.99") for DECIMAL(5,2)
    [k.columns for k in tc.unique_keys]      # the primary key first, then each UNIQUE key once

Every consumer that turns constraints into checks (the batch validation's Arrow and DuckDB halves, the
audit, the orphan cleanup, the DDL, the LLM's reply schema and row model) reads this description and
nothing else of the model's constraints, and states in a `Coverage` how it handles each of `KINDS`: so a
new kind of constraint is described here once, and every consumer must say what it does with it before
it even imports.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pyarrow as pa
import sqlglot
from sqlglot import exp

from stateforge.constraints.checks import ColumnFacts, derive_checks
from stateforge.schema.model import Check, Column, ForeignKey, Table
from stateforge.types import arrow_type, decimal_params, indexable, int_limits, type_kind

KINDS: tuple[str, ...] = (
    "type",
    "range",
    "max_length",
    "not_null",
    "allowed_values",
    "unique",
    "foreign_key",
    "check",
    "default",
)
"""Every kind of constraint the description carries:

- `type`: the DuckDB type and the Arrow type a batch carries it in;
- `range`: the values the type can hold (integer widths, DECIMAL(p, s) precision);
- `max_length`: VARCHAR(n) / CHAR(n);
- `not_null`: NOT NULL, and primary-key columns;
- `allowed_values`: ENUM, enum types, `CHECK (col IN (...))`;
- `unique`: the primary key and UNIQUE keys (NULLs never clash);
- `foreign_key`: references to a parent's key (MATCH SIMPLE: a NULL part exempts the row);
- `check`: CHECK constraints, and what they say about single columns (bounds, lengths, lists);
- `default`: identity columns and defaults (the database fills a column left out).
"""


@dataclass(frozen=True)
class UniqueKey:
    """The primary key or one UNIQUE key."""

    columns: tuple[str, ...]
    primary: bool
    nullable: bool
    """Some column may be NULL: such a row collides with nothing (SQL semantics)."""
    indexed: bool = True
    """DuckDB can index every column's type; False for a key over a list, STRUCT, MAP or INTERVAL, which
    the DDL leaves out (the batch checks and the audit enforce it)."""


@dataclass(frozen=True)
class Reference:
    """One foreign key of the table, and what happens to a row whose parent is gone."""

    fk: ForeignKey
    nullable: tuple[str, ...]
    """Its columns that may be NULL (not NOT NULL, not in the primary key)."""

    @property
    def columns(self) -> tuple[str, ...]:
        return self.fk.columns

    @property
    def ref_table(self) -> str:
        return self.fk.ref_table

    @property
    def ref_columns(self) -> tuple[str, ...]:
        return self.fk.ref_columns

    @property
    def dangling(self) -> str:
        """`set_null` when a dangling row can keep living without its parent, else `delete`."""
        return "set_null" if self.nullable and self.fk.on_delete != "CASCADE" else "delete"


@dataclass(frozen=True)
class ColumnConstraints:
    """Everything the table's constraints say about one column."""

    name: str
    type: str
    """The DuckDB type."""
    arrow: pa.DataType | None
    """The Arrow type of its values (None: a type the generator cannot make, carried as text)."""
    kind: str
    """The type family (`stateforge.types.type_kind`): int, decimal, str, ts, ..."""
    low: int | Decimal | None
    high: int | Decimal | None
    """The type's range: integer widths, DECIMAL(p, s); None for other types."""
    max_length: int | None
    """VARCHAR(n): at most n characters."""
    nullable: bool
    """False for NOT NULL and primary-key columns."""
    allowed: tuple[Any, ...]
    """The allowed values, without NULL (empty: any value)."""
    allowed_by_check: bool
    """A CHECK of the table already enforces exactly `allowed` (so nothing else needs to)."""
    unique: tuple[UniqueKey, ...]
    """The keys it is part of."""
    references: tuple[Reference, ...]
    """The foreign keys it is part of."""
    checks: tuple[Check, ...]
    """The CHECKs that read it."""
    facts: ColumnFacts | None
    """What those CHECKs say about it alone: bounds, lengths, a list of values, NOT NULL."""
    identity: bool
    default: str | None

    @property
    def required(self) -> bool:
        """A batch must carry the column: the database has no identity or default to fill it."""
        return not (self.identity or self.default is not None)

    @property
    def enforced_allowed(self) -> tuple[Any, ...]:
        """The allowed values that no CHECK enforces already: the list a check of its own must enforce."""
        return () if self.allowed_by_check else self.allowed


@dataclass(frozen=True)
class TableConstraints:
    """Everything the constraints of one table say, column by column and key by key."""

    table: str
    columns: tuple[ColumnConstraints, ...]
    primary_key: tuple[str, ...]
    unique_keys: tuple[UniqueKey, ...]
    """The primary key (if any), then every UNIQUE key once (compared case-insensitively)."""
    references: tuple[Reference, ...]
    checks: tuple[Check, ...]
    unhandled_checks: tuple[Check, ...]
    """The CHECKs that say more than `facts` capture: only a query of the whole CHECK enforces them."""

    def column(self, name: str) -> ColumnConstraints:
        """The column called `name` (case-insensitive); KeyError naming the table otherwise."""
        key = name.lower()
        for c in self.columns:
            if c.name.lower() == key:
                return c
        raise KeyError(f"table {self.table} has no column {name!r}")


@dataclass(frozen=True)
class Coverage:
    """How one consumer of the description handles each kind of constraint.

    `enforces`: kind -> the consumer's own names for what enforces it (rules, keywords, clauses);
    `leaves`: kind -> why this consumer need not (who does it instead). Together they must name every
    kind of `KINDS` exactly once, so a kind added to the description cannot be forgotten by a consumer.
    """

    consumer: str
    enforces: Mapping[str, tuple[str, ...]]
    leaves: Mapping[str, str]

    def __post_init__(self) -> None:
        named = list(self.enforces) + list(self.leaves)
        missing = [k for k in KINDS if k not in named]
        unknown = sorted(set(named) - set(KINDS))
        twice = sorted({k for k in named if named.count(k) > 1})
        if missing or unknown or twice:
            raise TypeError(
                f"{self.consumer}: its Coverage must name each constraint kind once (missing {missing}, "
                f"unknown {unknown}, twice {twice}); say how it enforces a new kind, or why it need not"
            )


_CACHE: dict[str, TableConstraints] = {}


def table_constraints(table: Table) -> TableConstraints:
    """The description of `table`'s constraints (built once per table definition)."""
    key = json.dumps(table.to_dict(), sort_keys=True, default=str)
    found = _CACHE.get(key)
    if found is None:
        if len(_CACHE) > 512:  # many tables (property tests): start over rather than grow
            _CACHE.clear()
        found = _CACHE[key] = _describe(table)
    return found


def _describe(table: Table) -> TableConstraints:
    pk = {c.lower() for c in table.primary_key}

    def nullable(column: Column) -> bool:
        return column.nullable and column.name.lower() not in pk

    keys: list[UniqueKey] = []
    seen: set[tuple[str, ...]] = set()
    for i, key in enumerate(table.unique_keys):
        norm = tuple(c.lower() for c in key)
        if key and norm not in seen:
            seen.add(norm)
            primary = i == 0 and bool(table.primary_key)
            keys.append(UniqueKey(tuple(key), primary, any(nullable(table.column(c)) for c in key),
                                  all(indexable(table.column(c).type) for c in key)))
    references = tuple(
        Reference(fk, tuple(c for c in fk.columns if nullable(table.column(c)))) for fk in table.foreign_keys
    )
    facts = derive_checks(table)
    columns = []
    for column in table.columns:
        if column.generated is not None:  # DuckDB computes it and allows no constraint on it
            continue
        name = column.name.lower()
        allowed = tuple(v for v in column.allowed_values or [] if v is not None)
        low, high = _type_range(column)
        by_check = bool(allowed) and any(_is_in_list(c.sql, name, allowed) for c in table.checks)
        columns.append(
            ColumnConstraints(
                name=column.name,
                type=column.type,
                arrow=arrow_type(column.type),
                kind=type_kind(column.type),
                low=low,
                high=high,
                max_length=column.length,
                nullable=nullable(column),
                allowed=allowed,
                allowed_by_check=by_check,
                unique=tuple(k for k in keys if name in (c.lower() for c in k.columns)),
                references=tuple(r for r in references if name in (c.lower() for c in r.columns)),
                checks=tuple(c for c in table.checks if name in (x.lower() for x in c.columns)),
                facts=facts.get(column.name),
                identity=column.identity,
                default=column.default,
            )
        )
    return TableConstraints(
        table.name, tuple(columns), tuple(table.primary_key), tuple(keys), references, tuple(table.checks),
        tuple(facts.unhandled),
    )


def _type_range(column: Column) -> tuple[int | Decimal | None, int | Decimal | None]:
    limits = int_limits(column.type)
    if limits is not None:
        return limits
    typ = arrow_type(column.type)
    if typ is not None and pa.types.is_decimal(typ) and type_kind(column.type) == "decimal":
        precision, scale = decimal_params(column.type)
        whole, fraction = "9" * (precision - scale) or "0", "9" * scale
        bound = Decimal(f"{whole}.{fraction}" if fraction else whole)  # exact at any precision
        return bound.copy_negate(), bound
    return None, None


def _is_in_list(sql: str, column: str, allowed: tuple[Any, ...]) -> bool:
    """The CHECK is `column IN (<literals>)` over exactly the `allowed` values (in any order)."""
    try:
        tree = sqlglot.parse_one(sql, dialect="duckdb")
    except sqlglot.errors.SqlglotError:
        return False
    while isinstance(tree, exp.Paren):
        tree = tree.this
    if not isinstance(tree, exp.In) or not isinstance(tree.this, exp.Column):
        return False
    if tree.this.name.lower() != column or tree.args.get("query"):
        return False
    try:
        listed = {str(e.to_py()) for e in tree.expressions}
    except ValueError:  # not a literal
        return False
    return listed == {str(v) for v in allowed}
