"""What a tool's read query may be, decided once per distinct SQL text.

`Env.query` runs only a single SELECT (the write helpers are the one write path), never reads the wall
clock or a random generator (an episode is deterministic: use `env.now`), and reports the tables it reads
so that `Episode.call` can check them against the tool's declared `reads`. DuckDB's own parser decides the
statement type; sqlglot finds the tables and the forbidden functions.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import duckdb
import sqlglot
from sqlglot import exp

from pipeline.schema.model import DEFAULT_NAMESPACE, qualified
from pipeline.tools.errors import ToolDefinitionError

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
    info = SqlInfo(tables=_inspect(sql))
    with _LOCK:
        if len(_CACHE) >= _MAX:
            _CACHE.clear()
        _CACHE[sql] = info
    return info


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
