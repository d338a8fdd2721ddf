"""Source-dialect expressions (defaults, CHECKs, generated columns) -> DuckDB SQL.

sqlglot does the transpiling: every expression is parsed in the DDL's dialect and written as DuckDB SQL.
This module adds what sqlglot leaves opaque: vendor functions with a DuckDB equivalent (UUID makers, the
many spellings of "now", JSON validity) and SQLite's `'now'` time strings. Whether DuckDB accepts the
result is decided by DuckDB itself (probe.py); nothing here guesses that.
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp

# Anonymous functions (as sqlglot leaves them, upper case) -> a DuckDB expression builder.
_UUIDS = {"UUID_GENERATE_V1", "UUID_GENERATE_V1MC", "UUID_GENERATE_V4", "SYS_GUID", "NEWSEQUENTIALID", "UUID"}
_NOWS = {
    "NOW", "GETUTCDATE", "SYSUTCDATETIME", "SYSDATETIMEOFFSET", "TRANSACTION_TIMESTAMP",
    "STATEMENT_TIMESTAMP", "CLOCK_TIMESTAMP", "SYSDATE", "SYSTIMESTAMP", "LOCALTIMESTAMP", "UTC_TIMESTAMP",
    "CURRENT_TIMESTAMP", "GETDATE", "SYSDATETIME", "LOCALTIME",
}  # fmt: skip
_JSON_VALID = {"JSON_VALID", "ISJSON"}
_SQLITE_NOW = {"DATETIME": exp.CurrentTimestamp, "DATE": exp.CurrentDate, "TIME": exp.CurrentTime}


def to_duckdb(expr: exp.Expr, *, copy: bool = True) -> exp.Expr:
    """`expr` (parsed in any dialect) with vendor spellings replaced by DuckDB's: a copy, unless `copy` is
    False (the caller owns `expr` and gives it up)."""
    return expr.transform(_rewrite, copy=copy)


def duckdb_sql(expr: exp.Expr) -> str:
    """`expr` as DuckDB SQL, vendor spellings translated."""
    return to_duckdb(expr).sql("duckdb")


def _rewrite(node: exp.Expr) -> exp.Expr:
    if isinstance(node, (exp.Systimestamp, exp.Localtimestamp, exp.UtcTimestamp)):
        return exp.CurrentTimestamp()
    if isinstance(node, exp.CurrentTimestamp) and node.this is not None:
        return exp.CurrentTimestamp()  # CURRENT_TIMESTAMP(3): DuckDB takes no precision
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.JSON):
        return exp.func("json_valid", node.this)  # Oracle: x IS JSON
    if isinstance(node, exp.Anonymous):
        name = node.name.upper()
        if name in _UUIDS and not node.expressions:
            return exp.Uuid()
        if name in _NOWS and not node.expressions:
            return exp.CurrentTimestamp()
        if name in _JSON_VALID and len(node.expressions) == 1:
            return exp.func("json_valid", node.expressions[0])
        if name in _SQLITE_NOW and _is_now(node.expressions[:1]):
            return _SQLITE_NOW[name]()  # datetime('now'), date('now'), time('now') (modifiers dropped)
    if isinstance(node, (exp.Date, exp.TsOrDsToDate)) and _is_now([node.this]):
        return exp.CurrentDate()
    if isinstance(node, exp.Cast) and _is_now([node.this]):
        return exp.CurrentDate() if node.to.this == exp.DType.DATE else exp.CurrentTimestamp()
    if isinstance(node, exp.Literal) and _is_now([node]) and _inside_time_function(node):
        return exp.CurrentTimestamp()  # strftime('%Y', 'now')
    return node


def bracket_likes(expr: exp.Expr) -> exp.Expr:
    """SQL Server's LIKE with bracket classes (`pub_id LIKE '99[0-9][0-9]'`, `Shelf LIKE '[A-Za-z]'`) as
    the regular expression it means, matched in full (`regexp_full_match`): DuckDB's LIKE reads brackets
    as themselves. `%` becomes `.*`, `_` `.`, a class stays a class (`[^...]` too), the rest is literal.
    A LIKE without brackets, or with an ESCAPE clause, is left as it is."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        pattern = node.expression if isinstance(node, exp.Like) else None
        if not (isinstance(pattern, exp.Literal) and pattern.is_string and "[" in pattern.this):
            return node
        if node.args.get("escape") is not None:
            return node
        regex = _like_regex(pattern.this)
        if regex is None:
            return node
        match = exp.RegexpFullMatch(this=node.this, expression=exp.Literal.string(regex))
        return exp.Not(this=match) if node.args.get("negate") else match

    return expr.transform(rewrite, copy=False)


def _like_regex(pattern: str) -> str | None:
    """The regular expression of a T-SQL LIKE pattern; None for an unclosed bracket."""
    out, at = [], 0
    while at < len(pattern):
        char = pattern[at]
        if char == "[":
            end = pattern.find("]", at + 2)
            if end < 0:
                return None
            out.append(pattern[at : end + 1].replace("\\", "\\\\"))
            at = end + 1
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        at += 1
    return "".join(out)


def _is_now(nodes: list[exp.Expr | None]) -> bool:
    return bool(nodes) and isinstance(nodes[0], exp.Literal) and nodes[0].is_string and (
        nodes[0].name.lower() == "now"
    )


def _inside_time_function(node: exp.Expr) -> bool:
    parent = node.parent
    return isinstance(parent, (exp.Func, exp.Cast)) and not isinstance(parent, (exp.In, exp.Coalesce))


def concatenate_text(sql: str, text_columns: set[str]) -> str:
    """SQL Server's `+` on strings as DuckDB's `||`: `first + N' ' + last` -> `first || ' ' || last`.

    A `+` is a concatenation when either side is text: a string literal, a column in `text_columns`
    (lower-case names), or another concatenation. `sql` is DuckDB SQL; it is returned unchanged when it
    has no such `+`.
    """
    tree = sqlglot.parse_one(sql, read="duckdb")

    def is_text(node: exp.Expr) -> bool:
        node = node.unnest()
        if isinstance(node, exp.Literal):
            return node.is_string
        if isinstance(node, exp.Column):
            return node.name.lower() in text_columns
        return isinstance(node, exp.DPipe)

    changed = False
    while True:  # an inner concatenation makes the `+` around it one too: repeat until none is left
        adds = [a for a in tree.find_all(exp.Add) if is_text(a.this) or is_text(a.expression)]
        if not adds:
            return tree.sql("duckdb") if changed else sql
        for add in adds:
            pipe = exp.DPipe(this=add.this, expression=add.expression, safe=True)
            tree = pipe if add is tree else tree
            add.replace(pipe)
        changed = True
