"""The bridge to sqlglot: tokenize one statement, patch the few tokens sqlglot reads wrongly, parse.

CREATE TABLE and CREATE INDEX are cut after their column list: table options (Oracle storage clauses,
MySQL ENGINE=..., sqlite WITHOUT ROWID, PARTITION BY) are read here from the tokens, never parsed, so that
sqlglot's gaps there cannot fail a table (quirks.py patches the gaps inside).

When sqlglot stops inside a clause (a vendor option of a constraint, say), the clause is left out from
where sqlglot stopped to the end of that item (the next comma or closing parenthesis) and parsing is
tried again: `Parsed.dropped` lists what was left out, for a note. Only a statement that cannot be read
even so (or whose failing item is a whole column) is a SchemaError, with the file's line.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from stateforge.errors import SchemaError
from stateforge.schema.classify import relation_name
from stateforge.schema.namespaces import Ref
from stateforge.schema.quirks import patch_tokens
from stateforge.schema.split import Statement


@dataclass
class Parsed:
    """A parsed statement and what its tail (after the column list) said."""

    expr: exp.Expr
    comment: str | None = None
    """MySQL `COMMENT='...'` table option."""
    without_rowid: bool = False
    """sqlite `WITHOUT ROWID`: an INTEGER PRIMARY KEY is then not an alias of the rowid."""
    partial: bool = False
    """CREATE INDEX ... WHERE: a partial index."""
    inherits: list[Ref] = field(default_factory=list)
    """PostgreSQL `INHERITS (parent, ...)`: the parents, as written."""
    partition_by: str | None = None
    """A `PARTITION BY ...` clause (PostgreSQL, MySQL, Oracle), as written: read and ignored."""
    dropped: list[tuple[int, str]] = field(default_factory=list)
    """Clauses sqlglot could not read, left out: (line in the file, the clause and sqlglot's reason)."""

_SALVAGE_ROUNDS = 8
_BRACKETS = re.compile(r"(^|[\s(,.])\[[A-Za-z_][^\]\n]*\]")


@cache
def _dialect(name: str) -> Dialect:
    return Dialect.get_or_raise(name)


def parse(stmt: Statement, dialect: str, *, source: str | None, what: str, text: str | None = None) -> Parsed:
    """Parse `stmt` (or `text` standing for it) with sqlglot; SchemaError naming `what` on failure.

    Statements that start with CREATE are cut after their first parenthesised group (the column list).
    """
    sql = stmt.text if text is None else text
    sqlglot_dialect = _dialect(dialect)
    try:
        tokens = patch_tokens(sqlglot_dialect.tokenize(sql), dialect)
    except TokenError as err:
        raise _error(stmt, what, str(err), None, source, dialect) from None
    head, tail = _cut(tokens)
    dropped: list[str] = []
    for _ in range(_SALVAGE_ROUNDS):
        try:
            with _quiet():
                trees = sqlglot_dialect.parser(error_level=ErrorLevel.RAISE).parse(head, sql)
            break
        except (AttributeError, TypeError, ValueError, IndexError, KeyError) as err:
            # sqlglot's parser itself failed on this input (e.g. [brackets] outside T-SQL and SQLite)
            detail = f"sqlglot failed ({type(err).__name__}: {err})"
            raise _error(stmt, what, detail, None, source, dialect) from None
        except ParseError as err:
            first = err.errors[0] if err.errors else {}
            near = f" near {first['highlight']!r}" if first.get("highlight") else ""
            reason = f"{first.get('description', err)}{near}"
            span = _failing_item(head, first.get("line"), first.get("col"))
            if span is None:
                raise _error(stmt, what, reason, first.get("line"), source, dialect) from None
            start, end = span
            clause = sql[head[start].start : head[end - 1].end + 1]
            dropped.append((stmt.line + head[start].line - 1, f"{clause!r} ({reason})"))
            head = head[:start] + head[end:]
    else:
        raise _error(stmt, what, "too many clauses sqlglot cannot read", None, source, dialect)
    if len(trees) != 1 or trees[0] is None:
        raise _error(stmt, what, "expected one statement", None, source, dialect)
    parsed = Parsed(_escape_strings(trees[0], dialect), dropped=dropped)
    _read_tail(tail, parsed, sql)
    return parsed


def _escape_strings(tree: exp.Expr, dialect: str) -> exp.Expr:
    """PostgreSQL's escape strings `E'^\\\\d{11}$'` as the plain strings they stand for (sqlglot reads
    them as byte strings, which no CHECK reader understands and most generators refuse)."""
    if dialect not in ("postgres", "duckdb"):
        return tree
    for node in list(tree.find_all(exp.ByteString)):
        if not node.args.get("is_bytes"):
            node.replace(exp.Literal.string(node.this))
    return tree


def _failing_item(tokens: list[Token], line: int | None, col: int | None) -> tuple[int, int] | None:
    """The tokens to leave out after sqlglot stopped at (line, col): from there to the end of the item.

    None when nothing can be left out safely: the failure is in the statement's head (before its first
    parenthesis), or at the start of an item (a whole column would be lost), or its place is unknown.
    """
    at = next((i for i, t in enumerate(tokens) if t.line == line and t.col == col), None)
    if at is None or at == 0:
        return None
    first_paren = next((i for i, t in enumerate(tokens) if t.token_type == TokenType.L_PAREN), len(tokens))
    starts_item = tokens[at - 1].token_type in (TokenType.COMMA, TokenType.L_PAREN)
    if at <= first_paren or (starts_item and tokens[0].token_type == TokenType.CREATE):
        return None
    depth, end = 0, len(tokens)
    for i in range(at, len(tokens)):
        kind = tokens[i].token_type
        if kind == TokenType.L_PAREN:
            depth += 1
        elif kind == TokenType.R_PAREN:
            if depth == 0:
                end = i
                break
            depth -= 1
        elif kind == TokenType.COMMA and depth == 0:
            end = i
            break
    return (at, end) if end > at else None


def _error(
    stmt: Statement, what: str, detail: str, line: int | None, source: str | None, dialect: str
) -> SchemaError:
    hint = "Fix the statement, or pass the dialect the file is written in."
    if _BRACKETS.search(stmt.text) and dialect not in ("tsql", "sqlite"):
        hint = "[Bracketed] names are SQL Server's (or SQLite's): pass --dialect tsql (or sqlite)."
    return SchemaError(
        f"cannot parse {what}: {detail} (sqlglot)",
        file=source,
        line=stmt.line + (line - 1 if line else 0),
        table=relation_name(stmt.text) if what.endswith("TABLE") else None,
        hint=hint,
    )


class _Once(logging.Filter):
    """Lets each distinct message through once: sqlglot warns every time it generates a construct it
    cannot translate ("Byte strings are not supported ...", "Only integer formats are supported ..."), so
    a dump with the construct in fifty tables printed the same line fifty times. The notes say where."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message in self.seen:
            return False
        self.seen.add(message)
        return True


_ONCE = _Once()
logging.getLogger("sqlglot").addFilter(_ONCE)


def warn_once_from_now() -> None:
    """Start a new parse: each distinct sqlglot warning is printed once from here on."""
    _ONCE.seen.clear()


@contextmanager
def _quiet() -> Iterator[None]:
    # sqlglot logs a warning each time it falls back to an opaque Command; callers handle Commands.
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _cut(tokens: list[Token]) -> tuple[list[Token], list[Token]]:
    """Split a CREATE TABLE / INDEX after the group that holds its columns (or tokens after a group)."""
    if not tokens or tokens[0].token_type not in (TokenType.CREATE, TokenType.L_PAREN):
        return tokens, []
    depth = 0
    for i, token in enumerate(tokens):
        if token.token_type == TokenType.ALIAS and depth == 0:
            return tokens, []  # CREATE TABLE ... AS SELECT: nothing to cut
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return tokens[: i + 1], tokens[i + 1 :]
    return tokens, []


def _read_tail(tail: list[Token], parsed: Parsed, sql: str) -> None:
    words = [t.text.upper() for t in tail]
    for i, word in enumerate(words):
        if word == "COMMENT":
            rest = [t for t in tail[i + 1 : i + 3] if t.token_type != TokenType.EQ]
            if rest and rest[0].token_type == TokenType.STRING:
                parsed.comment = rest[0].text
        elif word == "WITHOUT" and words[i + 1 : i + 2] == ["ROWID"]:
            parsed.without_rowid = True
        elif word == "WHERE":
            parsed.partial = True
        elif word == "INHERITS":
            parsed.inherits = _names_in_group(tail[i + 1 :])
        elif parsed.partition_by is None and (word == "PARTITION BY" or (
            word == "PARTITION" and words[i + 1 : i + 2] == ["BY"]
        )):
            end = tail[_group_end(tail, i + 1)]
            parsed.partition_by = " ".join(sql[tail[i].start : end.end + 1].split())


def _group_end(tokens: list[Token], i: int) -> int:
    """The index of the token that ends a `RANGE (d)` / `HASH (id)` / `LIST COLUMNS (a, b)` clause."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].token_type == TokenType.L_PAREN:
            depth += 1
        elif tokens[j].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _names_in_group(tokens: list[Token]) -> list[Ref]:
    """The names in a group `(a.b, c)`, as written: each name that a comma or the closing parenthesis
    follows, with the namespace before it if any."""
    out = []
    for i, (this, after) in enumerate(zip(tokens[1:], tokens[2:], strict=False), start=1):
        if this.token_type == TokenType.R_PAREN:
            break
        if this.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and after.token_type in (
            TokenType.COMMA,
            TokenType.R_PAREN,
        ):
            qualified = i >= 3 and tokens[i - 1].token_type == TokenType.DOT
            out.append(Ref(tokens[i - 2].text if qualified else None, this.text))
    return out
