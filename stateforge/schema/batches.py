"""Statements inside statements: T-SQL batches, IF ... BEGIN ... END wrappers, CREATE SCHEMA elements.

A T-SQL batch (the text between two `GO` lines) may hold many statements with no `;` between them, and
SSMS wraps DDL in `IF NOT EXISTS (...) BEGIN ... END`. A `CREATE SCHEMA s CREATE TABLE ... CREATE VIEW
...` (SQL standard, PostgreSQL, T-SQL) holds its elements the same way. Both are cut here into the
statements they hold, each with its own first line, using sqlglot's tokenizer (so quotes and brackets
are respected). T-SQL modules (procedures, functions, triggers, views) are kept whole: they are alone in
their batch.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, Tokenizer, TokenType

from stateforge.schema.split import Statement

# Words that start a T-SQL statement (at the top level of a batch), unless `_continues` says otherwise.
_STARTERS = frozenset(
    "CREATE ALTER DROP INSERT UPDATE DELETE MERGE SET USE EXEC EXECUTE GRANT DENY REVOKE PRINT DECLARE "
    "IF ELSE BEGIN TRUNCATE COMMIT ROLLBACK RAISERROR THROW RETURN WHILE SAVE".split()
)
_OBJECTS = frozenset(
    "TABLE VIEW PROCEDURE PROC FUNCTION TRIGGER INDEX SCHEMA TYPE SEQUENCE DATABASE SYNONYM USER ROLE LOGIN "
    "UNIQUE CLUSTERED NONCLUSTERED PRIMARY XML SPATIAL FULLTEXT COLUMNSTORE STATISTICS ASSEMBLY DEFAULT RULE "
    "OR PARTITION".split()
)
_MODULES = frozenset({"PROCEDURE", "PROC", "FUNCTION", "TRIGGER", "VIEW"})
_TRANSACTION = frozenset({"TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"})
_QUOTED = (TokenType.IDENTIFIER, TokenType.STRING, TokenType.NATIONAL_STRING)
# What a CREATE SCHEMA may hold, in PostgreSQL and the standard (T-SQL's batches are cut by `_STARTERS`).
_ELEMENTS = frozenset({"CREATE", "GRANT"})


@cache
def _tokenizer(name: str) -> Tokenizer:
    """The dialect's tokenizer without "commands" (T-SQL's PRINT and END would swallow the rest)."""
    dialect = Dialect.get_or_raise(name)
    words = type("Words", (dialect.tokenizer_class,), {"COMMANDS": set()})
    return words(dialect=dialect)


def _word(token: Token) -> str:
    return "" if token.token_type in _QUOTED else token.text.upper()


def _tokens(stmt: Statement, dialect: str) -> list[Token] | None:
    try:
        return _tokenizer(dialect).tokenize(stmt.text)
    except TokenError:
        return None  # the parser will report it, with the line


def _piece(stmt: Statement, tokens: list[Token], start: int, end: int, kind: str | None = None) -> Statement:
    """The statement made of tokens[start:end] of `stmt`, with its own first line."""
    first, last = tokens[start], tokens[end - 1]
    text = stmt.text[first.start : last.end + 1].strip().rstrip(";").strip()
    return Statement(text, stmt.line + first.line - 1, kind, stmt.source)


def split_batch(stmt: Statement) -> Iterator[Statement]:
    """The statements of one T-SQL batch piece, with IF / BEGIN ... END wrappers opened."""
    if stmt.kind is not None:
        yield stmt
        return
    tokens = _tokens(stmt, "tsql")
    if not tokens:
        if tokens is None:
            yield stmt
        return
    words = [_word(t) for t in tokens]
    if words[0] in ("CREATE", "ALTER") and _module(words):
        yield stmt  # CREATE PROCEDURE ... AS BEGIN ...; END: one statement, the whole batch
        return
    for start, end in _statements(words):
        yield from _unwrap(stmt, tokens, words, start, end)


def _module(words: list[str]) -> bool:
    head = [w for w in words[1:4] if w not in ("OR", "ALTER")]
    return bool(head) and head[0] in _MODULES


def _statements(words: list[str]) -> Iterator[tuple[int, int]]:
    """(start, end) token ranges of the top-level statements of a batch.

    An IF (or WHILE) holds its condition, then one statement or BEGIN ... END block, then optionally
    ELSE and another: `cond` is True while the next statement is still part of it.
    """
    start, depth, blocks, cond = 0, 0, 0, False
    for i, word in enumerate(words):
        if i == start:
            cond = word in ("IF", "WHILE")
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
        elif depth > 0:
            continue
        elif word == "CASE" or (word == "BEGIN" and not _transaction(words, i)):
            if word == "BEGIN" and blocks == 0 and i > start:
                if cond:
                    cond = False  # IF ... BEGIN: the IF's body
                else:
                    yield start, i
                    start = i
            blocks += 1
        elif word == "END":
            blocks = max(blocks - 1, 0)
        elif blocks > 0:
            continue
        elif word == ";":
            if i > start:
                yield start, i
            start = i + 1
        elif word == "ELSE":
            cond = True  # the statement after ELSE belongs to the IF
        elif i > start and _starts(words, start, i):
            if cond:
                cond = False
                continue
            yield start, i
            start = i
            cond = word in ("IF", "WHILE")
    if start < len(words):
        yield start, len(words)


def _transaction(words: list[str], i: int) -> bool:
    """Whether the BEGIN at `i` is BEGIN TRAN(SACTION) (a statement, not a block)."""
    return words[i + 1 : i + 2] != [] and words[i + 1] in _TRANSACTION


def _starts(words: list[str], start: int, i: int) -> bool:
    """Whether words[i] starts a new statement inside the batch (the current one began at `start`)."""
    word, prev, first = words[i], words[i - 1], words[start]
    after = words[i + 1] if i + 1 < len(words) else ""
    if word not in _STARTERS or word == "ELSE":
        return False
    if first in ("GRANT", "DENY", "REVOKE") or prev in ("ON", ",", "FOR", "OF", "AFTER", "INSTEAD"):
        return False  # GRANT CREATE TABLE, ON DELETE SET NULL, AFTER INSERT, UPDATE
    if word == "SET" and (first in ("UPDATE", "MERGE", "ALTER") or prev in ("DELETE", "UPDATE")):
        return False  # UPDATE t SET, ALTER TABLE t SET (LOCK_ESCALATION = ...), ALTER DATABASE d SET
    if word in ("ALTER", "DROP", "CREATE") and after not in _OBJECTS:
        return False  # ALTER TABLE t ALTER COLUMN c, ALTER TABLE t DROP CONSTRAINT k
    return word != "BEGIN"  # a BEGIN block is handled by the caller


def _unwrap(
    stmt: Statement, tokens: list[Token], words: list[str], start: int, end: int
) -> Iterator[Statement]:
    """The statement tokens[start:end]; an IF or BEGIN ... END wrapper yields the statements it holds."""
    first = words[start]
    if first == "BEGIN" and not _transaction(words, start):
        close = _matching_end(words, start, end)
        inner = start + 2 if words[start + 1 : start + 2] in (["TRY"], ["CATCH"]) else start + 1
        yield from _pieces(stmt, tokens, inner, close)
        return
    if first == "IF":
        body = _condition_end(words, start + 1, end)
        if body < end:
            stop = _else_at(words, body, end)
            yield from _pieces(stmt, tokens, body, stop)
            if stop < end:
                yield _piece(stmt, tokens, stop, end, kind="else")
            return
    yield _piece(stmt, tokens, start, end)


def _pieces(stmt: Statement, tokens: list[Token], start: int, end: int) -> Iterator[Statement]:
    """The statements inside tokens[start:end] (a block's body), split as a batch of their own."""
    if start >= end:
        return
    text_start, text_end = tokens[start].start, tokens[end - 1].end + 1
    # Blank out what comes before (keeping line breaks), so that lines stay those of the whole statement.
    before = "".join(c if c == "\n" else " " for c in stmt.text[:text_start])
    yield from split_batch(Statement(before + stmt.text[text_start:text_end], stmt.line, None, stmt.source))


def _matching_end(words: list[str], start: int, end: int) -> int:
    """The index of the END that closes the BEGIN at `start` (or `end`)."""
    depth = 0
    for i in range(start, end):
        if words[i] == "CASE" or (words[i] == "BEGIN" and not _transaction(words, i)):
            depth += 1
        elif words[i] == "END":
            depth -= 1
            if depth == 0:
                return i
    return end


def _condition_end(words: list[str], start: int, end: int) -> int:
    """Where the condition of an IF that starts at `start` ends: its body's first token."""
    depth = 0
    for i in range(start, end):
        if words[i] == "(":
            depth += 1
        elif words[i] == ")":
            depth -= 1
        elif depth == 0 and words[i] in _STARTERS and words[i] not in ("SET", "ELSE"):
            return i
    return end


def _else_at(words: list[str], body: int, end: int) -> int:
    """The index of the ELSE that ends an IF's body (or `end`)."""
    depth = blocks = 0
    for i in range(body, end):
        word = words[i]
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
        elif depth == 0 and (word == "CASE" or (word == "BEGIN" and not _transaction(words, i))):
            blocks += 1
        elif depth == 0 and word == "END":
            blocks -= 1
        elif depth == 0 and blocks == 0 and word == "ELSE":
            return i
    return end


def schema_elements(stmt: Statement, dialect: str) -> list[Statement]:
    """The statements a `CREATE SCHEMA s [AUTHORIZATION u] CREATE TABLE ... GRANT ...` holds ([] if none)."""
    tokens = _tokens(stmt, "postgres" if dialect == "duckdb" else dialect)
    if not tokens:
        return []
    words = [_word(t) for t in tokens]
    depth, starts = 0, []
    for i, word in enumerate(words):
        if word == "(":
            depth += 1
        elif word == ")":
            depth -= 1
        elif depth == 0 and i > 0 and word in _ELEMENTS and words[i - 1] not in ("GRANT", ",", "ON"):
            starts.append(i)
    bounds = [*starts, len(tokens)]
    return [_piece(stmt, tokens, a, b) for a, b in zip(bounds, bounds[1:], strict=False)]
