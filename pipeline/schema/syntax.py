"""The bridge to sqlglot: tokenize one statement, patch the few tokens sqlglot reads wrongly, parse.

CREATE TABLE and CREATE INDEX are cut after their column list: table options (Oracle storage clauses,
MySQL ENGINE=..., sqlite WITHOUT ROWID) are read here from the tokens, never parsed, so that
sqlglot's gaps there cannot fail a table (quirks.py patches the gaps inside). sqlglot errors become
SchemaErrors with the file's line.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from pipeline.errors import SchemaError
from pipeline.schema.classify import relation_name
from pipeline.schema.quirks import patch_tokens
from pipeline.schema.split import Statement


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
    inherits: list[str] = field(default_factory=list)
    """PostgreSQL `INHERITS (parent, ...)`: bare names of the parents."""


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
        head, tail = _cut(tokens)
        with _quiet():
            trees = sqlglot_dialect.parser(error_level=ErrorLevel.RAISE).parse(head, sql)
    except ParseError as err:
        first = err.errors[0] if err.errors else {}
        near = f" near {first['highlight']!r}" if first.get("highlight") else ""
        raise _error(
            stmt, what, f"{first.get('description', err)}{near}", first.get("line"), source
        ) from None
    except TokenError as err:
        raise _error(stmt, what, str(err), None, source) from None
    if len(trees) != 1 or trees[0] is None:
        raise _error(stmt, what, "expected one statement", None, source)
    parsed = Parsed(trees[0])
    _read_tail(tail, parsed)
    return parsed


def _error(stmt: Statement, what: str, detail: str, line: int | None, source: str | None) -> SchemaError:
    return SchemaError(
        f"cannot parse {what}: {detail} (sqlglot)",
        file=source,
        line=stmt.line + (line - 1 if line else 0),
        table=relation_name(stmt.text) if what.endswith("TABLE") else None,
        hint="Fix the statement, or pass the dialect the file is written in.",
    )


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


def _read_tail(tail: list[Token], parsed: Parsed) -> None:
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


def _names_in_group(tokens: list[Token]) -> list[str]:
    """The bare names in a group `(a.b, c)`: each name that a comma or the closing parenthesis follows."""
    out = []
    for this, after in zip(tokens[1:], tokens[2:], strict=False):
        if this.token_type == TokenType.R_PAREN:
            break
        if this.token_type in (TokenType.VAR, TokenType.IDENTIFIER) and after.token_type in (
            TokenType.COMMA,
            TokenType.R_PAREN,
        ):
            out.append(this.text)
    return out
