"""Namespaces: which DuckDB schema a table of the DDL lives in, and which table a name stands for.

A DDL names tables bare (`orders`) or qualified (`sales.orders`, `[dbo].[T]`, `` `shop`.`t` ``). The
dialect's default namespace becomes DuckDB's `main` (its tables keep their bare names as identities);
every other namespace becomes a DuckDB schema of the same name (identity `sales.orders`):

| dialect  | default namespace                                 | where a bare name is looked up      |
|----------|---------------------------------------------------|-------------------------------------|
| postgres | `public`                                          | `SET search_path` / `SET SCHEMA`    |
| duckdb   | `main`                                            | `SET search_path` / `USE`, in order |
| tsql     | `dbo`                                             | `dbo`                               |
| sqlite   | `main` (and `temp`)                               | `main`                              |
| mysql    | the first `USE db`, else the first qualifier (*)  | the current database (`USE`)        |
| oracle   | the first `ALTER SESSION SET CURRENT_SCHEMA`, else the first qualifier (*) | the current schema |

(*) the first namespace that qualifies a CREATE TABLE: the database or schema the file is installed as.

A bare CREATE TABLE goes to the current namespace (the first of the search path). A catalog (the first
part of `db.schema.table`) is dropped. Until MySQL or Oracle has named its default, a qualified reference
is also looked for in the default namespace (an installer run as `hr` writes `employees` and `hr.employees`
for one table). A bare reference is looked up along the search path as it stood where it was written; with
no search path (pg_dump empties it and qualifies every name), in the default namespace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from stateforge.schema.model import DEFAULT_NAMESPACE, qualified

_FIXED_DEFAULT = {"postgres": "public", "duckdb": "main", "tsql": "dbo", "sqlite": "main"}
_ALSO_DEFAULT = {"sqlite": ("temp",), "postgres": ("pg_temp",), "duckdb": ("temp",)}
RESERVED = frozenset({"stateforge", "information_schema", "pg_catalog"})
"""DuckDB schemas that cannot hold the DDL's tables: Stateforge's metadata, DuckDB's catalogs."""

_PART = r"(?:\"(?:[^\"]|\"\")+\"|`[^`]+`|\[[^\]]+\]|[\w$#]+)"
_NAME_PART = re.compile(_PART)
_SEARCH_PATH = re.compile(r"SET\s+(?:(?:SESSION|LOCAL|GLOBAL)\s+)?search_path\s*(?:=|\bTO\b)\s*(?P<path>.+)",
                          re.I | re.S)  # fmt: skip
_SET_CONFIG = re.compile(r"set_config\s*\(\s*'search_path'\s*,\s*'(?P<path>[^']*)'", re.I)
_SET_SCHEMA = re.compile(r"SET\s+SCHEMA\s+(?P<path>'[^']*'|\S+)\s*$", re.I)
_USE = re.compile(rf"USE\s+(?P<name>{_PART}(?:\s*\.\s*{_PART})?)\s*$", re.I)
_SESSION = re.compile(rf"ALTER\s+SESSION\s+SET\s+CURRENT_SCHEMA\s*=\s*(?P<name>{_PART})", re.I)


class ReservedNamespace(ValueError):
    """A DDL namespace whose name DuckDB or Stateforge reserve (the caller says where, and what to do)."""

    def __init__(self, namespace: str) -> None:
        super().__init__(namespace)
        self.namespace = namespace

    @property
    def message(self) -> str:
        return f'schema "{self.namespace}" cannot hold tables here: DuckDB or Stateforge reserve that name'

    @property
    def hint(self) -> str:
        return f"Rename the schema {self.namespace} in the DDL (and every name qualified with it)."


class Ref(NamedTuple):
    """A table name as the DDL writes it: its namespace (None when bare) and its name, unquoted."""

    namespace: str | None
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}.{self.name}" if self.namespace else self.name


def unquote(part: str) -> str:
    """`"a""b"` -> `a"b`, `` `t` `` -> `t`, `[T]` -> `T`; a bare word as is."""
    if len(part) > 1 and part[0] == part[-1] == '"':
        return part[1:-1].replace('""', '"')
    if len(part) > 1 and (part[0], part[-1]) in (("`", "`"), ("[", "]")):
        return part[1:-1]
    return part


def ref_of_text(text: str) -> Ref:
    """The Ref of a (possibly qualified, possibly quoted) name written as text: `"HR"."EMP"`, `[dbo].[T]`."""
    parts = [unquote(p) for p in _NAME_PART.findall(text)]
    if not parts:
        return Ref(None, text)
    return Ref(parts[-2] if len(parts) > 1 else None, parts[-1])


@dataclass
class Namespaces:
    """The namespaces of one parse: the default one, the current one, the search path."""

    dialect: str
    default: str | None = None
    """The DDL's namespace that is DuckDB's `main`; None until MySQL / Oracle names it."""
    path: list[str] = field(default_factory=list)
    """Where a bare name is looked up, in order; the first is where a bare CREATE TABLE goes."""
    spelled: dict[str, str] = field(default_factory=dict)
    """Lower-case namespace -> its first spelling, so that `Sales` and `sales` are one DuckDB schema."""

    def __post_init__(self) -> None:
        self.default = _FIXED_DEFAULT.get(self.dialect)

    # --- statements that move the session ---------------------------------------------------------

    def read_setting(self, text: str) -> bool:
        """Apply `SET search_path`, pg_dump's `set_config('search_path', ...)`, `USE db` or `ALTER SESSION
        SET CURRENT_SCHEMA`; False when `text` is none of them."""
        match = _SEARCH_PATH.match(text) or _SET_SCHEMA.match(text) or _SET_CONFIG.search(text)
        if match is not None:
            if self.dialect in ("postgres", "duckdb"):
                names = [unquote(p.strip()) for p in match["path"].strip().strip("'").split(",")]
                names = [unquote(n.strip("'")) for n in names]
                self.path = [n for n in names if n and not n.startswith("$") and n.lower() not in RESERVED]
            return True
        if (match := _USE.match(text)) is not None:
            if self.dialect in ("mysql", "duckdb"):
                self._current(ref_of_text(match["name"]).name)
            return True  # T-SQL's USE picks a database (a catalog), not a schema
        if (match := _SESSION.match(text)) is not None:
            self._current(unquote(match["name"]))
            return True
        return False

    def _current(self, name: str) -> None:
        if self.default is None:
            self.default = name
        self.path = [name]

    # --- names ------------------------------------------------------------------------------------

    def duckdb_namespace(self, namespace: str | None) -> str:
        """The DuckDB schema of a namespace as the DDL writes it (None: the current one)."""
        if namespace is None:
            namespace = self.path[0] if self.path else None
            if namespace is None:
                return DEFAULT_NAMESPACE
        if self._is_default(namespace):
            return DEFAULT_NAMESPACE
        if namespace.lower() in RESERVED:
            raise ReservedNamespace(namespace)
        return self.spelled.setdefault(namespace.lower(), namespace)

    def _is_default(self, namespace: str) -> bool:
        low = namespace.lower()
        if low == DEFAULT_NAMESPACE or low in _ALSO_DEFAULT.get(self.dialect, ()):
            return True
        return self.default is not None and low == self.default.lower()

    def created(self, ref: Ref) -> str:
        """The identity of a table that a CREATE TABLE names `ref` (MySQL and Oracle: the first qualifier
        names the default namespace, unless USE / ALTER SESSION did)."""
        if ref.namespace is not None and self.default is None and self.dialect in ("mysql", "oracle"):
            self.default = ref.namespace
        return qualified(self.duckdb_namespace(ref.namespace), ref.name)

    def candidates(self, ref: Ref, path: tuple[str, ...] | None = None) -> list[str]:
        """The identities `ref` may stand for, in the order to try them (`path`: the search path the
        reference was written under, default the current one)."""
        if ref.namespace is not None:
            found = [qualified(self.duckdb_namespace(ref.namespace), ref.name)]
            if self.default is None and self.dialect in ("mysql", "oracle"):
                found.append(qualified(DEFAULT_NAMESPACE, ref.name))
            return found
        path = tuple(self.path) if path is None else path
        if not path:  # no search path (pg_dump empties it and qualifies every name): the default namespace
            return [qualified(DEFAULT_NAMESPACE, ref.name)]
        return list(dict.fromkeys(qualified(self.duckdb_namespace(n), ref.name) for n in path))
