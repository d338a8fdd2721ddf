"""`run_sql`: the generator's privileged, read-only SQL over its episode's current state.

Only a solver never sees SQL; the generator explores with it. One SELECT per call (DuckDB's parser
decides, as for tools' reads), no wall clock or random functions (an episode is deterministic), at most
`max_rows` rows and `max_chars` characters of JSON back, a time limit per query. Every failure is data:
`error (sql): <why>` for the model to read, never an exception.

    {"columns": ["user_id", "username"], "rows": [{"user_id": 7, "username": "mlopez"}], "row_count": 1,
     "truncated": false}
"""

from __future__ import annotations

import json
import threading
from typing import Any

import duckdb

from stateforge.episode import Episode
from stateforge.tools.errors import ToolDefinitionError
from stateforge.tools.sqlcheck import check_read
from stateforge.values import json_value

RUN_SQL = "run_sql"

RUN_SQL_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": RUN_SQL,
        "description": (
            "Privileged: run one read-only SELECT (DuckDB SQL) on the database as it is now, your own "
            "changes included. Returns the columns and up to the row limit of rows as JSON; errors come "
            "back as text. No wall-clock or random functions. Solvers never get this tool."
        ),
        "parameters": {
            "type": "object",
            "properties": {"sql": {"type": "string", "description": "One SELECT statement."}},
            "required": ["sql"],
            "additionalProperties": False,
        },
    },
}
"""The tool as the model sees it (OpenAI function format)."""


def run_sql(episode: Episode, sql: Any, *, max_rows: int, max_chars: int, timeout: float) -> str:
    """The result of `sql` on `episode` as the JSON text the model reads, or `error (sql): ...`."""
    if not isinstance(sql, str) or not sql.strip():
        return "error (arguments): run_sql needs `sql`, one SELECT statement as a string."
    con = episode.connection
    try:
        check_read(con, sql)
    except ToolDefinitionError as exc:
        return f"error (sql): {_readable(str(exc))}"
    timer = threading.Timer(timeout, con.interrupt)
    timer.start()
    try:
        cursor = con.execute(sql)
        names = [d[0] for d in cursor.description or []]
        fetched = cursor.fetchmany(max_rows + 1)
    except duckdb.InterruptException:
        return f"error (sql): the query ran longer than {timeout:g} s and was stopped; narrow it down."
    except duckdb.Error as exc:
        return f"error (sql): {type(exc).__name__}: {str(exc).strip()}"
    finally:
        timer.cancel()
    more = len(fetched) > max_rows
    rows = [{n: json_value(v) for n, v in zip(names, row, strict=True)} for row in fetched[:max_rows]]
    text = _envelope(names, rows, more)
    while len(text) > max_chars and rows:  # halve the rows until the answer fits
        rows, more = rows[: len(rows) // 2], True
        text = _envelope(names, rows, more)
    return text


def _envelope(names: list[str], rows: list[dict[str, Any]], more: bool) -> str:
    """The JSON answer: column order kept (rows are objects, for reading by name)."""
    body = {"columns": names, "rows": rows, "row_count": len(rows), "truncated": more}
    if more:
        body["note"] = "more rows exist: add WHERE conditions, aggregate, or page with LIMIT/OFFSET"
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=json_value)


def _readable(message: str) -> str:
    """`check_read`'s message (written for tool authors) in the words of this tool."""
    first = message.splitlines()[0] if message else message
    if "env.query" in first:
        return "run_sql runs exactly one SELECT statement (no writes, no several statements)."
    return first
