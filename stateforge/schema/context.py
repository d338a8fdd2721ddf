"""What the parser carries from statement to statement: the schema so far, user types, open keys."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from sqlglot import exp

from stateforge.errors import SchemaError
from stateforge.schema.model import Check, Column, ForeignKey, Note, Schema, Table, qualified, suggest
from stateforge.schema.namespaces import Namespaces, Ref, ReservedNamespace

T = TypeVar("T")


@dataclass
class UserType:
    """An enum type, a domain or a type alias: what a column of that type inherits."""

    template: Column
    checks: list[exp.ColumnConstraint] = field(default_factory=list)
    """Domain CHECKs (with their names), written over VALUE."""


@dataclass
class OpenKey:
    """A foreign key whose referenced table may come later in the file: resolved at the end."""

    table: Table
    fk: ForeignKey
    line: int
    file: str | None = None
    ref: Ref | None = None
    """The referenced table as written (`fk.ref_table` is its text until resolved)."""
    path: tuple[str, ...] = ()
    """The search path where the key was written: a bare name is looked up along it."""


@dataclass
class Context:
    """The state of one parse, and the helpers every reader uses to find names and report errors."""

    dialect: str
    source: str | None
    """The file being read: the DDL file, or the included file the current statement comes from."""
    schema: Schema
    user_types: dict[str, UserType] = field(default_factory=dict)
    open_keys: list[OpenKey] = field(default_factory=list)
    other_relations: set[str] = field(default_factory=set)
    """Lower-case names of views and materialized views: indexes and comments on them are skipped."""
    line: int = 0
    """Line of the statement being read."""
    tables: dict[str, Table] = field(default_factory=dict)
    """The schema's tables by lower-case name: Schema.table() scans, too slow for 2,000-table dumps."""
    partitions: dict[str, Table] = field(default_factory=dict)
    """Lower-case names of partitions folded into a parent table -> that table."""
    table: str | None = None
    """The table being read, for internal errors (see `Builder.read`)."""
    column: str | None = None
    """The column being read, for internal errors."""
    drop_missing_references: bool = False
    """Drop (with a note) foreign keys to tables the DDL does not define, instead of failing."""
    ignore_seed_inserts: bool = False
    """Leave the DDL's INSERT ... VALUES rows out (counted as skipped statements), instead of seeding."""
    seed_rows: dict[int, list[str]] = field(default_factory=dict)
    """id(Seed) -> its rows as DuckDB SQL tuples, one each, until the seeds are checked (seeds.py)."""
    sources: dict[tuple[str, str, str], tuple[exp.Expr, int]] = field(default_factory=dict)
    """(table, kind, column or CHECK sql) -> (the expression as the DDL writes it, its line); written out
    as SQL only for the few that DuckDB refuses."""
    untyped: set[tuple[str, str]] = field(default_factory=set)
    """(table, column) of generated columns written without a type: DuckDB's type is taken."""
    rules: dict[str, tuple[exp.ColumnConstraint, int]] = field(default_factory=dict)
    """T-SQL `CREATE RULE`s by lower-case name: the CHECK over VALUE each stands for, and its line."""
    typed_columns: dict[str, list[tuple[Table, Column]]] = field(default_factory=dict)
    """Lower-case user type -> the columns defined with it so far (a rule bound to the type later)."""
    ns: Namespaces = field(init=False)
    """The namespaces: the default one, the current one, the search path (see namespaces.py)."""

    def __post_init__(self) -> None:
        self.ns = Namespaces(self.dialect)

    # --- table names --------------------------------------------------------------------------------

    def created_name(self, ref: Ref) -> str:
        """The identity (`Table.name`) of the table a CREATE TABLE names `ref`."""
        return self._guard_reserved(lambda: self.ns.created(ref))

    def relation_name(self, ref: Ref) -> str:
        """The identity of a view or partition that a statement creates as `ref` (no default is claimed)."""
        return self._guard_reserved(lambda: qualified(self.ns.duckdb_namespace(ref.namespace), ref.name))

    def resolve(self, ref: Ref, path: tuple[str, ...] | None = None) -> str:
        """The identity `ref` stands for: the first candidate along the search path that is a table, a
        partition or a view so far, else the first candidate (for the error that names it)."""
        found = self._guard_reserved(lambda: self.ns.candidates(ref, path))
        for name in found:
            if name.lower() in self.tables or self.elsewhere(name):
                return name
        return found[0]

    def _guard_reserved(self, make: Callable[[], T]) -> T:
        try:
            return make()
        except ReservedNamespace as err:
            raise self.error(err.message, table=self.table, hint=err.hint) from None

    def written(
        self, table: Table, kind: str, key: str, node: exp.Expr, at: exp.Expr | None = None
    ) -> None:
        """Remember how the DDL writes an expression, and its line (that of `at`, else of `node`), for
        `Table.unenforced` and the note if DuckDB refuses it."""
        # A detached copy: the node itself would keep its whole statement's tree alive (through `parent`).
        self.sources[(table.name.lower(), kind, key.lower())] = (node.copy(), self.at(at or node))

    def add_table(self, table: Table) -> None:
        """Append `table` to the schema (the caller checked its name is new)."""
        self.schema.tables.append(table)
        self.tables[table.name.lower()] = table

    def has_table(self, name: str) -> bool:
        """Whether a table called `name` (in any case) is defined so far."""
        return name.lower() in self.tables

    def elsewhere(self, name: str) -> bool:
        """Whether `name` is a view or a partition folded into its parent: statements on it are skipped."""
        return name.lower() in self.other_relations or name.lower() in self.partitions

    def at(self, node: exp.Expr | None) -> int:
        """The file line of `node` (its first identifier), else the line of the statement being read."""
        ident = node if isinstance(node, exp.Identifier) else (node.find(exp.Identifier) if node else None)
        offset = ident.meta.get("line") if ident is not None else None
        return self.line + offset - 1 if offset else self.line

    def error(
        self,
        message: str,
        *,
        table: str | None = None,
        column: str | None = None,
        hint: str | None = None,
        line: int | None = None,
    ) -> SchemaError:
        """A SchemaError for the file being read, at `line` or the current statement's line."""
        return SchemaError(
            message, file=self.source, line=line or self.line, table=table, column=column, hint=hint
        )

    def note(
        self,
        message: str,
        *,
        table: str | None = None,
        column: str | None = None,
        line: int | None = None,
        file: str | None = None,
    ) -> None:
        """Record something the parser approximated or left out, at the statement's file and line."""
        self.schema.notes.append(
            Note(message, file=file or self.source, line=line or self.line, table=table, column=column)
        )

    def find_table(self, name: str, what: str, node: exp.Expr | None = None) -> Table:
        """The table `name`; SchemaError naming `what` wanted it, with the closest name, otherwise."""
        if self.has_table(name):
            return self.tables[name.lower()]
        raise self.error(
            f'{what} names table "{name}", which is not defined.{suggest(name, self.schema.table_names)}',
            table=name,
            hint="Define the table first (CREATE TABLE), or fix the name.",
            line=self.at(node),
        )

    def find_columns(
        self,
        table: Table,
        names: list[str | None],
        what: str,
        node: exp.Expr | None = None,
    ) -> tuple[str, ...]:
        """`names` spelled as `table` spells them; SchemaError for a missing column or an expression."""
        out = []
        for name in names:
            if name is None:
                raise self.error(
                    f"{what} lists an expression where a column is expected",
                    table=table.name,
                    hint="Name plain columns.",
                    line=self.at(node),
                )
            if not table.has_column(name):
                raise self.error(
                    f'{what} names column "{name}", which table {table.name} does not have.'
                    f"{suggest(name, table.column_names)}",
                    table=table.name,
                    column=name,
                    hint=f"Fix the column name, or add the column to {table.name}.",
                    line=self.at(node),
                )
            out.append(table.column(name).name)
        return tuple(out)


def add_check(table: Table, check: Check) -> None:
    """Append `check` unless the table already has the same SQL."""
    if all(c.sql != check.sql for c in table.checks):
        table.checks.append(check)
