"""The schema model: what a DDL file says about tables, columns and keys, dialect-free.

Plain dataclasses. Names keep the DDL's spelling; every lookup is case-insensitive, as in DuckDB.
Types are DuckDB type strings (`VARCHAR(120)`, `DECIMAL(10,2)`, `BIGINT`, `TIMESTAMP`, ...).
Every expression (a default, a CHECK, a generated column) is DuckDB SQL that DuckDB accepted at parse time;
one it refused is kept in `Table.unenforced`, as written, and left out of the database.

Namespaces: a table lives in a DuckDB schema (its `namespace`). Its identity, `Table.name`, the key used
everywhere (plans, sizes, reports, diffs, tool names), is its bare name in the default namespace `main`
(PostgreSQL's `public`, T-SQL's `dbo`, ...) and `namespace.name` in any other (`qualified`); `split_name`
inverts it. SQL reaches a table through `stateforge.store.sql.table_ref`, which quotes both parts.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from stateforge.errors import suggest  # noqa: F401 - its home was here; many modules import it from here

# ON DELETE / ON UPDATE actions, spelled as in SQL.
FK_ACTIONS = ("NO ACTION", "RESTRICT", "CASCADE", "SET NULL", "SET DEFAULT")

DEFAULT_CLOCK = datetime(2026, 6, 30, 23, 59, 59)
"""What now() means in a time-relative CHECK until a build pins it: the last second of the default time
window (`TimeWindow.end` in stateforge/fill/config.py). `load_domain` pins every schema to its pack's
window."""


DEFAULT_NAMESPACE = "main"
"""The DuckDB schema of tables in the DDL's default namespace; their identity is their bare name."""


def qualified(namespace: str, local: str) -> str:
    """A table's identity: `local` in the default namespace, else `namespace.local`.

    A bare name with a dot in it is qualified even in `main` (`main.a.b`), so that `split_name` reads every
    identity back unambiguously: the namespace is what comes before the first dot.
    """
    if namespace.lower() == DEFAULT_NAMESPACE and "." not in local:
        return local
    return f"{namespace}.{local}"


def split_name(name: str) -> tuple[str, str]:
    """(namespace, local name) of a table identity: `orders` -> (main, orders), `sales.orders` -> (sales,
    orders), `main.a.b` -> (main, a.b)."""
    namespace, dot, local = name.partition(".")
    if not dot:
        return DEFAULT_NAMESPACE, name
    return (DEFAULT_NAMESPACE if namespace.lower() == DEFAULT_NAMESPACE else namespace), local


def _norm(name: str) -> str:
    return name.lower()


@dataclass
class Column:
    """One column. `type` is a DuckDB type string; the numbers are split out for generators."""

    name: str
    type: str
    nullable: bool = True
    default: str | None = None
    """A DuckDB SQL expression, or None."""
    identity: bool = False
    """Auto-increment / serial / IDENTITY: the database hands out its values."""
    allowed_values: list[Any] | None = None
    """From ENUM, SET, an enum type or domain, or a CHECK (col IN (...))."""
    description: str | None = None
    length: int | None = None
    """VARCHAR(n) / CHAR(n): at most n characters."""
    precision: int | None = None
    """DECIMAL(p, s): p digits in all."""
    scale: int | None = None
    """DECIMAL(p, s): s digits after the point."""
    generated: str | None = None
    """A generated (computed) column's expression, DuckDB SQL over the other columns: DuckDB computes the
    column (VIRTUAL), so it is never filled, validated per batch or audited."""

    @property
    def base_type(self) -> str:
        """The type without its parameters: `DECIMAL(10,2)` -> `DECIMAL`, `INTEGER[]` -> `INTEGER[]`."""
        return re.sub(r"\(.*?\)", "", self.type).strip().upper()

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "nullable": self.nullable,
            "default": self.default,
            "identity": self.identity,
            "allowed_values": self.allowed_values,
            "description": self.description,
            "length": self.length,
            "precision": self.precision,
            "scale": self.scale,
            "generated": self.generated,
        }


@dataclass
class ForeignKey:
    """`columns` of the owning table reference `ref_columns` of `ref_table` (same length, same order)."""

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    on_delete: str = "NO ACTION"
    on_update: str = "NO ACTION"
    name: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "columns": list(self.columns),
            "ref_table": self.ref_table,
            "ref_columns": list(self.ref_columns),
            "on_delete": self.on_delete,
            "on_update": self.on_update,
        }


@dataclass
class Check:
    """A CHECK constraint as SQL that DuckDB accepts, with the columns it reads."""

    sql: str
    columns: tuple[str, ...] = ()
    name: str | None = None
    relative: str | None = None
    """A time-relative CHECK (now(), CURRENT_DATE, SYSDATE, GETDATE()) as written, in DuckDB SQL; `sql` is
    then the same CHECK with the clock pinned to `Schema.clock`, so that the store, the audit and the
    generator all judge it against the build's time window, never the wall clock."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "sql": self.sql, "columns": list(self.columns)}
        if self.relative is not None:
            out["relative"] = self.relative
        return out


@dataclass
class Unenforced:
    """An expression of the DDL that DuckDB cannot run: kept in the model as written, left out of the
    database (the CHECK is not enforced, the default not applied, the column filled like any other)."""

    kind: str
    """"check", "default" or "generated"."""
    sql: str
    """The expression as the DDL writes it, in its own dialect."""
    reason: str
    """Why DuckDB cannot use it (its own error, or what sqlglot could not translate)."""
    column: str | None = None
    name: str | None = None
    """The constraint's name, for a named CHECK."""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "column": self.column, "name": self.name, "sql": self.sql,
                "reason": self.reason}


@dataclass
class Seed:
    """Rows that an `INSERT ... VALUES` of the DDL gives a table: inserted as given, before any generated
    row, and kept (the generator adds rows only where the table's planned size asks for more)."""

    columns: tuple[str, ...]
    """The columns the INSERT lists, spelled as the table spells them (every column when it lists none)."""
    values: str
    """The rows, as DuckDB SQL: `VALUES (1, 'a'), (2, 'b')`."""
    rows: int
    file: str | None = None
    line: int | None = None
    """Where the INSERT is, for messages."""
    literals: list[tuple[str | None, ...]] | None = field(default=None, repr=False, compare=False)
    """The same rows as text (None for NULL), when every value is a plain literal (a dump's data): loaded
    into DuckDB through Arrow, which costs far less than DuckDB parsing a long VALUES list. Not stored."""

    def to_dict(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "values": self.values, "rows": self.rows, "file": self.file,
                "line": self.line}


@dataclass(frozen=True)
class Note:
    """Something the parser approximated or left out, at a file and line, on a table and column."""

    message: str
    file: str | None = None
    line: int | None = None
    table: str | None = None
    column: str | None = None

    def __str__(self) -> str:
        where = f"{self.file}: " if self.file else ""
        if self.line:
            where = f"{self.file or 'line'}:{self.line}: "
        what = f"table {self.table}" + (f", column {self.column}" if self.column else "") + ": "
        return where + (what if self.table else "") + self.message


@dataclass
class Table:
    name: str
    columns: list[Column] = field(default_factory=list)
    primary_key: tuple[str, ...] = ()
    unique: list[tuple[str, ...]] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    description: str | None = None
    line: int | None = None
    """Line of the CREATE TABLE in the source file, when known."""
    file: str | None = None
    """The file of the CREATE TABLE, when known (an included file, or the DDL file itself)."""
    partitions: list[str] = field(default_factory=list)
    """Partitions folded into this table (PostgreSQL PARTITION OF / ATTACH PARTITION), by name."""
    unenforced: list[Unenforced] = field(default_factory=list)
    """Defaults, CHECKs and generated columns that DuckDB cannot run, as written (see `Unenforced`)."""
    seeds: list[Seed] = field(default_factory=list)
    """The DDL's `INSERT ... VALUES` rows for this table, in file order (see `Seed`)."""

    @property
    def seeded_rows(self) -> int:
        """How many rows the DDL's INSERTs give this table."""
        return sum(s.rows for s in self.seeds)

    @property
    def namespace(self) -> str:
        """The DuckDB schema the table lives in: `main`, or the namespace its DDL gives it (`sales`)."""
        return split_name(self.name)[0]

    @property
    def local_name(self) -> str:
        """The table's name inside its namespace: `orders` for both `orders` and `sales.orders`."""
        return split_name(self.name)[1]

    def column(self, name: str) -> Column:
        """The column called `name` (case-insensitive); KeyError with a suggestion otherwise."""
        key = _norm(name)
        for col in self.columns:
            if _norm(col.name) == key:
                return col
        raise KeyError(f'table {self.name} has no column "{name}".{suggest(name, self.column_names)}')

    def has_column(self, name: str) -> bool:
        return any(_norm(c.name) == _norm(name) for c in self.columns)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def generated_columns(self) -> list[str]:
        """The generated columns (DuckDB computes them; nothing fills them)."""
        return [c.name for c in self.columns if c.generated is not None]

    @property
    def unique_keys(self) -> list[tuple[str, ...]]:
        """The primary key (if any) followed by every UNIQUE constraint."""
        keys = [self.primary_key] if self.primary_key else []
        return keys + [u for u in self.unique if u]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "columns": [c.to_dict() for c in self.columns],
            "primary_key": list(self.primary_key),
            "unique": [list(u) for u in self.unique],
            "foreign_keys": [fk.to_dict() for fk in self.foreign_keys],
            "checks": [c.to_dict() for c in self.checks],
            "partitions": list(self.partitions),
            "unenforced": [u.to_dict() for u in self.unenforced],
        } | ({"seeds": [s.to_dict() for s in self.seeds]} if self.seeds else {})


@dataclass
class Schema:
    """Every table of one DDL file, in the order the file defines them."""

    tables: list[Table] = field(default_factory=list)
    dialect: str = "duckdb"
    source: str | None = None
    """The DDL file's path, for messages."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Statements that are not tables (functions, triggers, views, ...), counted by kind."""
    notes: list[Note] = field(default_factory=list)
    """What the parser approximated or left out (a type with no DuckDB equivalent, a partial unique index,
    an expression DuckDB cannot run, ...), each at its file and line."""
    clock: datetime = DEFAULT_CLOCK
    """The instant now() stands for in time-relative CHECKs (`Check.relative`): see `pin_clock`."""

    _index: dict[str, Table] = field(default_factory=dict, init=False, repr=False, compare=False)
    _indexed: tuple[int, ...] = field(default=(), init=False, repr=False, compare=False)

    def table(self, name: str) -> Table:
        """The table called `name` (case-insensitive); KeyError with a suggestion otherwise."""
        found = self._find(name)
        if found is None:
            raise KeyError(f'no table "{name}".{suggest(name, self.table_names)}')
        return found

    def has_table(self, name: str) -> bool:
        return self._find(name) is not None

    def _find(self, name: str) -> Table | None:
        """The first table called `name`, from an index of the names rebuilt whenever the list of tables
        changed (a build looks tables up tens of thousands of times); a table renamed since is found by
        reading the list again."""
        key = _norm(name)
        indexed = tuple(map(id, self.tables))
        if indexed != self._indexed:
            self._index = {}
            for t in self.tables:
                self._index.setdefault(_norm(t.name), t)
            self._indexed = indexed
        found = self._index.get(key)
        if found is not None and _norm(found.name) == key:
            return found
        return next((t for t in self.tables if _norm(t.name) == key), None)

    @property
    def table_names(self) -> list[str]:
        return [t.name for t in self.tables]

    @property
    def namespaces(self) -> list[str]:
        """The DuckDB schemas the tables live in besides `main`, in the order they first appear."""
        seen: dict[str, str] = {}
        for t in self.tables:
            if t.namespace != DEFAULT_NAMESPACE:
                seen.setdefault(t.namespace.lower(), t.namespace)
        return list(seen.values())

    def display_name(self, name: str) -> str:
        """`name` as messages show it: qualified (`main.orders`) when another namespace has a table of the
        same local name, so that the reader cannot take one for the other; the identity otherwise."""
        namespace, local = split_name(name)
        if namespace == DEFAULT_NAMESPACE and "." not in local:
            if any(t.local_name.lower() == local.lower() and t.namespace != namespace for t in self.tables):
                return f"{namespace}.{local}"
        return name

    def pin_clock(self, when: datetime) -> None:
        """Make now() in every time-relative CHECK stand for `when` (the end of a build's time window)."""
        from stateforge.schema.clock import pinned_sql  # sqlglot stays out of the model's import

        self.clock = when
        for table in self.tables:
            for check in table.checks:
                if check.relative is not None:
                    check.sql = pinned_sql(check.relative, when)

    def to_dict(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "source": self.source,
            "clock": self.clock.isoformat(sep=" "),
            "tables": [t.to_dict() for t in self.tables],
            "skipped_statements": dict(sorted(self.skipped.items())),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Schema:
        """The inverse of `to_dict` (used to read the model back from a database's metadata)."""
        tables = []
        for t in data["tables"]:
            tables.append(
                Table(
                    name=t["name"],
                    description=t.get("description"),
                    columns=[Column(**c) for c in t["columns"]],
                    primary_key=tuple(t["primary_key"]),
                    unique=[tuple(u) for u in t["unique"]],
                    foreign_keys=[
                        ForeignKey(
                            columns=tuple(fk["columns"]),
                            ref_table=fk["ref_table"],
                            ref_columns=tuple(fk["ref_columns"]),
                            on_delete=fk.get("on_delete", "NO ACTION"),
                            on_update=fk.get("on_update", "NO ACTION"),
                            name=fk.get("name"),
                        )
                        for fk in t["foreign_keys"]
                    ],
                    checks=[
                        Check(sql=c["sql"], columns=tuple(c["columns"]), name=c.get("name"),
                              relative=c.get("relative"))
                        for c in t["checks"]
                    ],
                    partitions=list(t.get("partitions", [])),
                    unenforced=[Unenforced(**u) for u in t.get("unenforced", [])],
                    seeds=[Seed(**{**s, "columns": tuple(s["columns"])}) for s in t.get("seeds", [])],
                )
            )
        clock = data.get("clock")
        return cls(
            tables=tables,
            dialect=data.get("dialect", "duckdb"),
            source=data.get("source"),
            skipped=Counter(data.get("skipped_statements", {})),
            clock=datetime.fromisoformat(clock) if clock else DEFAULT_CLOCK,
        )
