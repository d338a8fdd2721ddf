"""The rule-based agent's reading and planning (`agent.py`): which tool plays which part, the tables and rows
it has read, and the write it tries next.

A plan for write attempt `j` of round `r` is a pure function of the conversation: the candidates (a write
tool, and a table whose columns fill all its required parameters) are shuffled with a seed of the
conversation, `r` and `j`, those of a table the first user message names put first; the first one
whose rows are unread asks for them (an SQL query), the first one with rows that fit the parameters'
types makes the plan.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from stateforge.fakellm.conversation import Conversation, PastCall, ToolSpec
from stateforge.fakellm.words import singular

WRITE_MARK = "[changes data]"
"""A tool whose description contains this changes the database (the generator marks its write tools)."""
COLUMNS_SQL = (
    "SELECT table_name, column_name, data_type FROM information_schema.columns "
    "WHERE table_schema = 'main' ORDER BY table_name, ordinal_position"
)
ROWS_READ = 40
_FRACTION = re.compile(r"\d:\d\d\.\d")
_CREATE = {"create", "add", "insert", "new", "register", "book", "make", "post", "open", "schedule"}
_UPDATE = {"update", "set", "edit", "change", "rename", "modify", "move", "patch"}
_OTHER = {"delete", "remove", "cancel", "archive", "close", "drop", "clear", "unlink", "approve", "reject"}


@dataclass(frozen=True)
class Roles:
    """Which offered tool plays which part."""

    sql: ToolSpec | None
    sql_param: str
    submit: ToolSpec | None
    writes: tuple[ToolSpec, ...]
    decline: ToolSpec | None

    @staticmethod
    def of(tools: dict[str, ToolSpec]) -> Roles:
        """Find the SQL tool, the submit tool, the write tools and `cannot_complete` among `tools`."""
        sql, param = None, "sql"
        for spec in tools.values():
            if len(spec.required) == 1 and spec.required[0] in ("sql", "query"):
                if type_of(spec.properties.get(spec.required[0], {})) == "string":
                    sql, param = spec, spec.required[0]
                    break
        submit = tools.get("submit_task")
        special = {t.name for t in (sql, submit) if t is not None} | {"cannot_complete"}
        writes = tuple(
            spec for name, spec in sorted(tools.items()) if name not in special and verb_of(spec) is not None
        )
        return Roles(sql, param, submit, writes, tools.get("cannot_complete"))


@dataclass
class Plan:
    """One write attempt: the tool, the table its parameters come from, the arguments and their meaning."""

    tool: ToolSpec
    table: str
    kind: str
    """create, update or other (delete, cancel, ...)."""
    keys: dict[str, str]
    """Required parameter -> the column it was filled from."""
    arguments: dict[str, Any]
    change: tuple[str, str, Any] | None = None
    """An update's (parameter, column, new value)."""
    missing: bool = False
    """The first key names a row that does not exist (an infeasible attempt)."""


@dataclass
class Board:
    """What a turn knows: the conversation, the tools' roles, the seed, the tables listed."""

    conv: Conversation
    roles: Roles
    seed: str
    tables: dict[str, list[str]] = field(default_factory=dict)


def sql_result(conv: Conversation, roles: Roles, sql: str) -> PastCall | None:
    """The first successful call of the SQL tool with exactly `sql` whose result has rows."""
    assert roles.sql is not None
    for call in conv.calls_to(roles.sql.name):
        arguments = call.arguments or {}
        if arguments.get(roles.sql_param) == sql and call.ok and rows_of(call.result) is not None:
            return call
    return None


def rows_of(result: Any) -> list[dict[str, Any]] | None:
    """The rows of an SQL result: `{"rows": [...]}` of objects, or of lists beside `columns`."""
    if not isinstance(result, dict) or not isinstance(result.get("rows"), list):
        return None
    rows, columns = result["rows"], result.get("columns")
    if all(isinstance(r, dict) for r in rows):
        return rows
    if isinstance(columns, list) and all(isinstance(r, list) for r in rows):
        names = [c if isinstance(c, str) else str(c.get("name")) for c in columns]
        return [dict(zip(names, r, strict=False)) for r in rows]
    return None


def tables_of(result: Any) -> dict[str, list[str]]:
    """Table -> columns, from the rows of the columns listing (`COLUMNS_SQL`); Stateforge's own skipped."""
    tables: dict[str, list[str]] = {}
    for row in rows_of(result) or []:
        table, column = row.get("table_name"), row.get("column_name")
        if isinstance(table, str) and isinstance(column, str) and not table.startswith("stateforge"):
            tables.setdefault(table, []).append(column)
    return tables


def verb_of(spec: ToolSpec) -> str | None:
    """`create`, `update` or `other` for a write tool (first word, or `WRITE_MARK`); None: not a write."""
    first = spec.name.split("_", 1)[0].lower()
    if first in _CREATE:
        return "create"
    if first in _UPDATE:
        return "update"
    if first in _OTHER or WRITE_MARK in spec.description:
        return "other"
    return None


def _column(param: str, table: str, columns: list[str]) -> str | None:
    if param in columns:
        return param
    prefix = f"{singular(table)}_"
    if param.startswith(prefix) and param[len(prefix) :] in columns:
        return param[len(prefix) :]
    return None


def _candidates(state: Board, infeasible: bool) -> list[tuple[ToolSpec, str, dict[str, str]]]:
    """(tool, table, parameter -> column) for every write tool whose required parameters name columns of
    one table; when the tool's name names one of those tables (`delete_order`: orders), that one only."""
    found = []
    for spec in state.roles.writes:
        if infeasible and verb_of(spec) == "create":
            continue
        mine = []
        for table, columns in sorted(state.tables.items()):
            keys = {p: _column(p, table, columns) for p in spec.required}
            if keys and all(keys.values()):
                mine.append((spec, table, {p: c for p, c in keys.items() if c}))
        noun = spec.name.split("_", 1)[1] if "_" in spec.name else ""
        own = [m for m in mine if noun in (m[1], singular(m[1]))]
        found.extend(own or mine)
    return found


def read_sql(table: str) -> str:
    """The query that reads a table's first `ROWS_READ` rows, in a stable order."""
    return f'SELECT * FROM "{table}" ORDER BY ALL LIMIT {ROWS_READ}'


def plan_write(state: Board, round_no: int, j: int, infeasible: bool) -> Plan | str | None:
    """Attempt `j`'s plan; the SQL to run first when its table's rows are unread; None: nothing to try."""
    rng = random.Random(f"{state.seed}:{round_no}:{j}")
    candidates = _candidates(state, infeasible)
    rng.shuffle(candidates)
    named = {t for t in state.tables if re.search(rf"\b{re.escape(t)}\b", state.conv.opening)}
    candidates.sort(key=lambda c: c[1] not in named)  # a table the request names first (stable sort)
    for spec, table, keys in candidates:
        read = sql_result(state.conv, state.roles, read_sql(table))
        if read is None:
            return read_sql(table)
        rows = [
            r
            for r in rows_of(read.result) or []
            if all(fits(spec.properties.get(p), r.get(c)) for p, c in keys.items())
        ]
        if not rows:
            continue
        plan = _make(spec, table, keys, rows, rng, infeasible)
        if plan is not None:
            return plan
    return None


def _make(
    spec: ToolSpec,
    table: str,
    keys: dict[str, str],
    rows: list[dict[str, Any]],
    rng: random.Random,
    infeasible: bool,
) -> Plan | None:
    kind = verb_of(spec) or "other"
    row = rng.choice(rows)
    if kind == "create":  # each value from its own row: a new combination, as a user would ask for
        arguments = {}
        for param, column in keys.items():
            values = [r[column] for r in rows if sayable(r[column])]
            if not values:
                return None
            arguments[param] = rng.choice(values)
        return Plan(spec, table, kind, keys, arguments)
    arguments = {p: row[c] for p, c in keys.items()}
    change = _change(spec, table, keys, row, rows, rng) if kind == "update" else None
    if kind == "update" and change is None:
        return None
    if change is not None:
        arguments[change[0]] = change[2]
    if infeasible:
        first = next(iter(keys))
        arguments[first] = _absent(row[keys[first]], [r[keys[first]] for r in rows], rng)
    return Plan(spec, table, kind, keys, arguments, change, missing=infeasible)


def _change(
    spec: ToolSpec,
    table: str,
    keys: dict[str, str],
    row: dict[str, Any],
    rows: list[dict[str, Any]],
    rng: random.Random,
) -> tuple[str, str, Any] | None:
    """An optional parameter of an update, and a new value for it: a flipped boolean, or another row's."""
    options = []
    for param, schema in spec.properties.items():
        column = _column(param, table, list(row))
        if param in keys or column is None or column in keys.values():
            continue
        if isinstance(row[column], bool):
            options.append((param, column, not row[column]))
            continue
        others = {
            repr(r[column]): r[column] for r in rows if r[column] is not None and r[column] != row[column]
        }
        values = [others[k] for k in sorted(others) if fits(schema, others[k]) and sayable(others[k])]
        if values:
            options.append((param, column, rng.choice(values)))
    return rng.choice(options) if options else None


def sayable(value: Any) -> bool:
    """A value a user would write out: not a time with fractions of a second (booleans are declared)."""
    return not (isinstance(value, str) and _FRACTION.search(value))


def _absent(value: Any, seen: list[Any], rng: random.Random) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return max([v for v in seen if isinstance(v, int)] + [value]) + 100_000 + rng.randint(0, 99_999)
    return f"{value} {rng.choice(['North', 'Zeta', 'Prime', 'Ultra'])} {rng.randint(100, 999)}"


def type_of(schema: Any) -> str | None:
    """The JSON type a parameter schema asks for (null left out of unions); None when it says none."""
    if not isinstance(schema, dict):
        return None
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        return kinds[0] if kinds else None
    if kind is None:
        for branch in schema.get("anyOf") or schema.get("oneOf") or []:
            found = type_of(branch)
            if found:
                return found
    return kind


def fits(schema: Any, value: Any) -> bool:
    """A non-null `value` the parameter's schema accepts (type and enum; bounds are the tool's to check)."""
    if value is None:
        return False
    enum = schema.get("enum") if isinstance(schema, dict) else None
    if enum is not None and value not in enum:
        return False
    kind = type_of(schema)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, int | float | str) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "string":
        return isinstance(value, str)
    return kind is None
