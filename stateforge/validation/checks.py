"""The integrity checks, as SQL derived from the schema model.

Each check is one set-based query, `CheckQuery.offenders`, that returns one row per offending row (or,
for PRIMARY KEY and UNIQUE, one row per duplicated key value) with just the columns worth showing: the
row's key (its primary key, else DuckDB's `rowid`) and the constrained columns. `audit()` counts and
samples it; `install_views()` counts it in the `stateforge.violations` view. SQL semantics throughout:
a NULL never collides in a UNIQUE key, passes a CHECK, and exempts a foreign key from the orphan check
(MATCH SIMPLE: any NULL among a composite key's columns and the row is not checked).

The builders are an ordered tuple of pure functions, `CHECKS`, each `(schema, table) -> [CheckQuery]`,
reading the table's constraints from their one description (`stateforge.constraints`); `COVERAGE` says
which check enforces each kind of constraint.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from stateforge.constraints import Coverage, table_constraints
from stateforge.errors import guard
from stateforge.schema.model import Schema, Table
from stateforge.store.sql import (
    column_list,
    describe_key,
    fk_casts,
    in_list_sql,
    orphans_sql,
    quote_ident,
    quote_literal,
    table_ref,
)
from stateforge.validation.declared import Declared, declared

KINDS = ("primary_key", "unique", "not_null", "max_length", "check", "foreign_key", "allowed_values")
"""Every check kind, in the order the audit runs them on each table."""

COVERAGE = Coverage(
    "the audit (stateforge.validation.checks)",
    enforces={
        "max_length": ("max_length",),
        "not_null": ("not_null",),
        "allowed_values": ("allowed_values", "check"),
        "unique": ("primary_key", "unique"),
        "foreign_key": ("foreign_key",),
        "check": ("check",),
    },
    leaves={
        "type": "a stored value always has its column's type (DuckDB converts or refuses on insert)",
        "range": "a stored value always fits its column's type (DuckDB refuses one out of range)",
        "default": "fills a value on insert: nothing to find in stored rows",
    },
)
"""Which audit check enforces each kind of constraint (allowed values enforced by a CHECK: `check`)."""


@dataclass(frozen=True)
class CheckQuery:
    """One constraint of one table, and the SQL that finds the rows breaking it."""

    kind: str
    """One of `KINDS`."""
    table: str
    constraint: str
    """The constraint's name from the DDL, else a readable form: `orders(customer_id) -> customers(id)`."""
    columns: tuple[str, ...]
    """The constrained columns."""
    offenders: str
    """SQL: one row per offence, with the `sample_columns`."""
    sample_columns: tuple[str, ...]
    ref_table: str | None = None
    """Foreign keys: the parent table."""
    ref_columns: tuple[str, ...] = ()
    """Foreign keys: the parent's columns."""
    column_types: tuple[str, ...] = ()
    """Foreign keys: the types of `columns`, as the model declares them (the audit counts the orphans of
    keys to the same parent key with the same types in one anti-join:
    `stateforge.validation.audit.offence_counts`)."""
    key_casts: tuple[str | None, ...] = ()
    """Foreign keys: the type each of `columns` is read as to meet its key (`fk_casts`; None: as it is)."""
    declared: Declared | None = None
    """The constraint of the DuckDB catalog that enforces it on every write, when DuckDB can
    (`stateforge.validation.declared`); None for foreign keys and VARCHAR(n), which only the audit
    enforces."""

    def sample_sql(self, sample: int) -> str:
        """SQL for one row: the number of offences and up to `sample` of them (smallest keys first)."""
        if sample <= 0:
            return f"SELECT count(*), NULL FROM ({self.offenders}) AS o"
        fields = ", ".join(f"{quote_literal(c)}: o.{quote_ident(c)}" for c in self.sample_columns)
        return f"SELECT count(*), min({{{fields}}}, {int(sample)}) FROM ({self.offenders}) AS o"


def _dedupe(columns: Sequence[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for c in columns:
        if c.lower() not in seen:
            seen.add(c.lower())
            out.append(c)
    return tuple(out)


def _row_key(table: Table, nullable: Sequence[str] = ()) -> tuple[str, ...]:
    """The columns that name a row: the primary key, or `rowid` if there is none or it may be NULL here."""
    pk = {c.lower() for c in table.primary_key}
    if table.primary_key and not pk & {c.lower() for c in nullable}:
        return table.primary_key
    return ("rowid",)


def _not_null(columns: Sequence[str]) -> str:
    return " AND ".join(f"{quote_ident(c)} IS NOT NULL" for c in columns)


def _duplicates(table: Table, kind: str, key: Sequence[str]) -> CheckQuery:
    cols = column_list(key)
    sql = (
        f"SELECT {cols} FROM {table_ref(table.name)} WHERE {_not_null(key)} "
        f"GROUP BY {cols} HAVING count(*) > 1"
    )
    label = "PRIMARY KEY" if kind == "primary_key" else "UNIQUE"
    constraint = f"{label} {describe_key(table.name, key)}"
    return CheckQuery(kind, table.name, constraint, tuple(key), sql, tuple(key),
                      declared=declared(table.name, label, tuple(key)))


def primary_key_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Duplicate primary-key values (rows with a NULL in the key are left to the NOT NULL check)."""
    keys = table_constraints(table).unique_keys
    return [_duplicates(table, "primary_key", k.columns) for k in keys if k.primary]


def unique_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Duplicate values of each UNIQUE key; a row with a NULL in the key collides with nothing."""
    keys = table_constraints(table).unique_keys
    return [_duplicates(table, "unique", k.columns) for k in keys if not k.primary]


def not_null_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """NULLs in NOT NULL columns; primary-key columns are NOT NULL whatever the column says."""
    out = []
    for col in table_constraints(table).columns:
        if col.nullable:
            continue
        key = _row_key(table, nullable=[col.name])
        sql = f"SELECT {column_list(key)} FROM {table_ref(table.name)} WHERE {quote_ident(col.name)} IS NULL"
        constraint = f"NOT NULL {describe_key(table.name, [col.name])}"
        out.append(CheckQuery("not_null", table.name, constraint, (col.name,), sql, key,
                              declared=declared(table.name, "NOT NULL", (col.name,))))
    return out


def max_length_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Strings longer than their VARCHAR(n): DuckDB accepts and ignores the length, so the audit checks it."""
    out = []
    for col in table_constraints(table).columns:
        if not col.max_length:
            continue
        shown = _dedupe(_row_key(table) + (col.name,))
        sql = (
            f"SELECT {column_list(shown)} FROM {table_ref(table.name)} "
            f"WHERE length({quote_ident(col.name)}::VARCHAR) > {int(col.max_length)}"
        )
        constraint = f"{describe_key(table.name, [col.name])} at most {col.max_length} characters"
        out.append(CheckQuery("max_length", table.name, constraint, (col.name,), sql, shown))
    return out


def check_constraint_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Rows for which a CHECK is FALSE (NULL passes, as in SQL)."""
    out = []
    for chk in table_constraints(table).checks:
        shown = _dedupe(_row_key(table) + tuple(chk.columns))
        sql = f"SELECT {column_list(shown)} FROM {table_ref(table.name)} WHERE NOT ({chk.sql})"
        constraint = chk.name or f"CHECK ({chk.sql})"
        out.append(CheckQuery("check", table.name, constraint, tuple(chk.columns), sql, shown,
                              declared=declared(table.name, "CHECK", check_sql=chk.sql)))
    return out


def foreign_key_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Orphans: rows whose foreign-key columns are all non-NULL and match no row of the parent (anti-join)."""
    out = []
    for ref in table_constraints(table).references:
        fk = ref.fk
        parent = schema.table(fk.ref_table).name
        shown = _dedupe(_row_key(table) + tuple(fk.columns))
        casts = fk_casts(table, fk, schema.table(parent))
        sql = orphans_sql(
            table_ref(table.name), fk.columns, table_ref(parent), fk.ref_columns, column_list(shown, "c"),
            casts,
        )
        readable = f"{describe_key(table.name, fk.columns)} -> {describe_key(parent, fk.ref_columns)}"
        out.append(
            CheckQuery(
                "foreign_key", table.name, fk.name or readable, tuple(fk.columns), sql, shown,
                ref_table=parent, ref_columns=tuple(fk.ref_columns),
                column_types=tuple(table.column(c).type for c in fk.columns), key_casts=casts,
            )
        )
    return out


def allowed_values_checks(schema: Schema, table: Table) -> list[CheckQuery]:
    """Non-NULL values outside a column's allowed values (unless a CHECK of the table already says so)."""
    out = []
    for col in table_constraints(table).columns:
        if not col.enforced_allowed:
            continue
        shown = _dedupe(_row_key(table) + (col.name,))
        values = ", ".join(quote_literal(v) for v in col.enforced_allowed)
        name = quote_ident(col.name)
        sql = (
            f"SELECT {column_list(shown)} FROM {table_ref(table.name)} "
            f"WHERE {name} IS NOT NULL AND {name} NOT IN ({values})"
        )
        constraint = f"{describe_key(table.name, [col.name])} IN ({values})"
        enforced_by = in_list_sql(col.name, col.enforced_allowed)  # as `stateforge.store.create` declares it
        out.append(CheckQuery("allowed_values", table.name, constraint, (col.name,), sql, shown,
                              declared=declared(table.name, "CHECK", check_sql=enforced_by)))
    return out


CheckBuilder = Callable[[Schema, Table], list[CheckQuery]]

CHECKS: tuple[CheckBuilder, ...] = (
    primary_key_checks,
    unique_checks,
    not_null_checks,
    max_length_checks,
    check_constraint_checks,
    foreign_key_checks,
    allowed_values_checks,
)


def build_checks(schema: Schema, tables: Sequence[str] | None = None) -> list[CheckQuery]:
    """Every check of `tables` (default: all), table by table in DDL order, kinds in `KINDS` order."""
    selected = schema.tables if tables is None else [schema.table(t) for t in tables]
    queries: list[CheckQuery] = []
    for table in selected:
        for build in CHECKS:
            stage = f"writing the audit's {build.__name__.removesuffix('_checks')} checks"
            with guard(stage, table=table.name):
                queries += build(schema, table)
    return queries


def row_count_sql(tables: Sequence[str]) -> str:
    """One query for every table's row count: rows (table_name, row_count)."""
    parts = [
        f"SELECT {quote_literal(t)} AS table_name, count(*) AS row_count FROM {table_ref(t)}" for t in tables
    ]
    empty = "SELECT NULL::VARCHAR AS table_name, NULL::BIGINT AS row_count WHERE false"
    return "\nUNION ALL\n".join(parts) or empty
