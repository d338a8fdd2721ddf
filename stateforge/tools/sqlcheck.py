"""What a tool's read query may be, decided once per distinct SQL text.

`Env.query` runs only a single SELECT (the write helpers are the one write path), never reads the wall
clock or a random generator (an episode is deterministic: use `env.now`), and reports the tables it reads
so that `Episode.call` can check them against the tool's declared `reads`. DuckDB's own parser decides the
statement type and whether anything in it writes: a SELECT may hold a data-modifying CTE (`WITH d AS
(DELETE ... RETURNING *) SELECT ...` deletes rows) or call a function that changes the database
(`nextval`, `checkpoint`), and such a write would reach no write log, so the grader would not see it.
sqlglot finds the tables and the forbidden functions.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass
from typing import Any

import duckdb
import sqlglot
from sqlglot import exp

from stateforge.schema.model import DEFAULT_NAMESPACE, qualified
from stateforge.tools.errors import ToolDefinitionError

_READ_TYPES = {duckdb.StatementType.SELECT}
_NONDETERMINISTIC = {
    "now",
    "today",
    "current_timestamp",
    "current_date",
    "current_time",
    "current_localtime",
    "current_localtimestamp",
    "get_current_timestamp",
    "get_current_time",
    "transaction_timestamp",
    "localtimestamp",
    "localtime",
    "random",
    "uuid",
    "gen_random_uuid",
    "uuidv4",
    "uuidv7",
    "setseed",
}
_READ_NODES = {"SELECT_NODE", "SET_OPERATION_NODE", "RECURSIVE_CTE_NODE", "CTE_NODE"}
"""The query nodes of DuckDB's parse tree that only read (any other, e.g. DELETE_QUERY_NODE, writes)."""
_WRITING_FUNCTIONS = {"nextval", "setval", "checkpoint", "force_checkpoint"}
_DML = (exp.Insert, exp.Update, exp.Delete, exp.Merge, exp.Copy)
_WORDS = re.compile(r"\b(" + "|".join(sorted(_NONDETERMINISTIC)) + r")\b", re.I)
_CLOCK_NODES = (exp.CurrentTimestamp, exp.CurrentDate, exp.CurrentTime, exp.Rand)
_CACHE: dict[str, SqlInfo] = {}
_LOCK = threading.Lock()
_MAX = 4096


@dataclass(frozen=True)
class SqlInfo:
    """What one read query touches: the table names it mentions (lower case), or None when unknown."""

    tables: frozenset[str] | None


def check_read(con: duckdb.DuckDBPyConnection, sql: str) -> SqlInfo:
    """`SqlInfo` of `sql`, or `ToolDefinitionError` if it is not one deterministic SELECT (cached)."""
    info = _CACHE.get(sql)
    if info is not None:
        return info
    try:
        statements = con.extract_statements(sql)
    except duckdb.Error as exc:
        raise ToolDefinitionError(f"this query does not parse: {exc}\n{sql}") from None
    if len(statements) != 1 or statements[0].type not in _READ_TYPES:
        kinds = ", ".join(s.type.name for s in statements) or "nothing"
        raise ToolDefinitionError(
            f"env.query/one/scalar run one SELECT; this SQL holds {kinds}. Write with env.insert, "
            f"env.update(_where) or env.delete(_where), which enforce the foreign keys.\n{sql}"
        )
    _check_no_write(con, sql)
    info = SqlInfo(tables=_inspect(sql))
    with _LOCK:
        if len(_CACHE) >= _MAX:
            _CACHE.clear()
        _CACHE[sql] = info
    return info


def _check_no_write(con: duckdb.DuckDBPyConnection, sql: str) -> None:
    """`ToolDefinitionError` if the SELECT `sql` writes: a data-modifying CTE or a writing function, found
    in DuckDB's own parse tree (sqlglot's where DuckDB cannot serialize it)."""
    [(text,)] = con.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()
    tree = json.loads(text)
    if tree.get("error"):
        try:
            parsed = sqlglot.parse_one(sql, read="duckdb")
        except sqlglot.errors.SqlglotError:
            return  # neither parser can tell; DuckDB said it is one SELECT statement
        found = next((type(n).__name__.upper() for n in parsed.walk() if isinstance(n, _DML)), None)
        functions: set[str] = set()
    else:
        nodes, functions = set(), set()
        _walk(tree, nodes, functions)
        found = next(iter(sorted(n for n in nodes - _READ_NODES if n.endswith("_QUERY_NODE"))), None)
    if found:
        raise ToolDefinitionError(
            f"env.query/one/scalar only read; this SELECT holds {found.replace('_QUERY_NODE', '')}, a write "
            "no write log would record. Write with env.insert, env.update(_where) or env.delete(_where)."
            f"\n{sql}"
        )
    writing = sorted(functions & _WRITING_FUNCTIONS)
    if writing:
        raise ToolDefinitionError(
            f"a query calls {writing[0]}, which changes the database, not only reads it; a tool's query "
            f"only reads (write with the env.insert / update / delete helpers).\n{sql}"
        )


def _walk(node: Any, nodes: set[str], functions: set[str]) -> None:
    """Collect the query node types and function names of DuckDB's serialized parse tree."""
    if isinstance(node, dict):
        kind = node.get("type")
        if isinstance(kind, str) and kind.endswith("_NODE"):
            nodes.add(kind)
        name = node.get("function_name")
        if isinstance(name, str):
            functions.add(name.lower())
        for value in node.values():
            _walk(value, nodes, functions)
    elif isinstance(node, list):
        for value in node:
            _walk(value, nodes, functions)


def _inspect(sql: str) -> frozenset[str] | None:
    """The tables `sql` reads; raises for a wall-clock or random function; None if sqlglot cannot parse."""
    try:
        tree = sqlglot.parse_one(sql, read="duckdb")
    except sqlglot.errors.SqlglotError:
        found = _WORDS.search(sql)
        if found:
            _nondeterministic(found.group(1), sql)
        return None
    for node in tree.walk():
        if isinstance(node, _CLOCK_NODES):
            _nondeterministic(node.sql("duckdb"), sql)
        if isinstance(node, exp.Anonymous | exp.Func) and not isinstance(node, exp.Column):
            fname = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if fname in _NONDETERMINISTIC:
                _nondeterministic(fname, sql)
    return tables_of(tree)


def tables_of(tree: exp.Expr) -> frozenset[str]:
    """Lower-case identities (`Table.name`: `orders`, `sales.orders`) of the tables a parsed statement
    mentions, CTE names left out."""
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    names = set()
    for table in tree.find_all(exp.Table):
        name = table.name.lower()
        if not name or isinstance(table.this, exp.Func) or (not table.db and name in ctes):
            continue
        names.add(qualified(table.db or DEFAULT_NAMESPACE, name).lower())
    return frozenset(names)


def _nondeterministic(what: str, sql: str) -> None:
    raise ToolDefinitionError(
        f"a query calls {what}: an episode has a frozen clock and no randomness, so the same calls give the "
        f"same results. Pass env.now (or env.today) as a parameter instead.\n{sql}"
    )
