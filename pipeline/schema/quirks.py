"""Token patches for DDL that sqlglot's dialects read wrongly or not at all, one function a dialect.

Patching tokens, not text, keeps string literals and quoted names out of harm's way.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot.tokens import Token, TokenType

_INTERVAL_FIELDS = frozenset({"DAY", "YEAR", "MONTH", "HOUR", "MINUTE", "SECOND"})
_CONSTRAINT_STATES = frozenset({"ENABLE", "DISABLE", "VALIDATE", "NOVALIDATE", "RELY", "NORELY"})


def patch_tokens(tokens: list[Token], dialect: str) -> list[Token]:
    """`tokens` with the known gaps of sqlglot's reader for `dialect` patched."""
    tokens = _index_name(tokens)
    patch = _PATCHES.get(dialect)
    return patch(tokens) if patch else tokens


def _index_name(tokens: list[Token]) -> list[Token]:
    """CREATE INDEX schema.name ON ...: sqlglot reads no schema there; the index name does not matter."""
    for i, token in enumerate(tokens[:6]):
        if (
            token.token_type == TokenType.INDEX
            and len(tokens) > i + 3
            and tokens[i + 2].token_type == TokenType.DOT
        ):
            return tokens[: i + 1] + tokens[i + 3 :]
    return tokens


def _duckdb(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        word = token.text.upper()
        if token.token_type == TokenType.TEXT and word in ("VARCHAR", "CHAR", "BPCHAR", "NVARCHAR"):
            # sqlglot's duckdb parser drops VARCHAR(n)'s length (DuckDB ignores it); generators need n.
            out.append(_retype(token, TokenType.VARCHAR))
        elif word in ("VIRTUAL", "STORED") and out and out[-1].token_type == TokenType.R_PAREN:
            pass  # GENERATED ALWAYS AS (expr) VIRTUAL: sqlglot stops at VIRTUAL
        else:
            out.append(token)
    return out


def _mysql(tokens: list[Token]) -> list[Token]:
    # GEOMETRY /*!80003 SRID 0 */ (sakila): the spatial reference id, which sqlglot does not know.
    return [
        t
        for i, t in enumerate(tokens)
        if not (
            t.text.upper() == "SRID" and i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.NUMBER
        )
        and not (i > 0 and tokens[i - 1].text.upper() == "SRID" and t.token_type == TokenType.NUMBER)
    ]


def _sqlite(tokens: list[Token]) -> list[Token]:
    # PRIMARY KEY ("id" AUTOINCREMENT): the rowid rule makes that key an identity anyway.
    return [
        t
        for i, t in enumerate(tokens)
        if not (
            t.text.upper() == "AUTOINCREMENT"
            and i > 0
            and tokens[i - 1].token_type in (TokenType.VAR, TokenType.IDENTIFIER)
            and tokens[i - 1].text.upper() != "KEY"
        )
    ]


def _postgres(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        if token.text.upper() == "VARYING" and out and out[-1].text.upper() == "BIT":
            out[-1] = _retype(out[-1], TokenType.VAR, "varbit")  # BIT VARYING(n): sqlglot stops at VARYING
        else:
            out.append(token)
    return out


def _oracle(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        word, prev = token.text.upper(), out[-1].text.upper() if out else ""
        quoted = token.token_type == TokenType.IDENTIFIER
        if word == "USING" and i + 1 < n and tokens[i + 1].text.upper() == "INDEX":
            i = _skip_using_index(tokens, i + 2)  # storage of a key's index: not the schema's business
            continue
        if word in _CONSTRAINT_STATES and not quoted and prev in ("NULL", ")"):
            pass  # NOT NULL ENABLE, PRIMARY KEY (...) DISABLE NOVALIDATE
        elif word in ("FLOAT", "REAL") and not quoted:
            # Oracle FLOAT and REAL hold 126 and 63 binary digits (a double); BINARY_FLOAT stays 4 bytes.
            out.append(_retype(token, TokenType.DOUBLE))
        elif word == "LONG" and not quoted:
            out.append(_retype(token, TokenType.TEXT))  # LONG is long text in Oracle, not BIGINT
        elif word == "RAW" and prev == "LONG":
            out[-1] = _retype(out[-1], TokenType.BLOB, "BLOB")
        elif (
            token.token_type == TokenType.STAR
            and prev == "("
            and len(out) > 1
            and (out[-2].text.upper() in ("NUMBER", "NUMERIC", "DECIMAL"))
        ):
            out.append(_retype(token, TokenType.NUMBER, "38"))  # NUMBER(*, s): the largest precision
        elif token.token_type == TokenType.R_PAREN and _interval_precision(out):
            del out[-2:]  # INTERVAL DAY(2) TO SECOND(6): sqlglot knows no field precision
        else:
            out.append(token)
        i += 1
    return out


def _skip_using_index(tokens: list[Token], i: int) -> int:
    """The index just past a `USING INDEX ...` clause that starts at `i`."""
    depth = 0
    while i < len(tokens):
        token = tokens[i]
        if token.token_type == TokenType.L_PAREN:
            depth += 1
        elif token.token_type == TokenType.R_PAREN:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (token.token_type == TokenType.COMMA or token.text.upper() in _CONSTRAINT_STATES):
            return i
        i += 1
    return i


def _interval_precision(out: list[Token]) -> bool:
    """Whether `out` ends with `<DAY|YEAR|...> ( n` inside an INTERVAL type."""
    if len(out) < 4 or out[-1].token_type != TokenType.NUMBER or out[-2].token_type != TokenType.L_PAREN:
        return False
    if out[-3].text.upper() not in _INTERVAL_FIELDS:
        return False
    return any(t.text.upper() == "INTERVAL" for t in out[-8:-3])


def _retype(token: Token, kind: TokenType, text: str | None = None) -> Token:
    text = token.text if text is None else text
    return Token(kind, text, token.line, token.col, token.start, token.end, token.comments)


_PATCHES: dict[str, Callable[[list[Token]], list[Token]]] = {
    "duckdb": _duckdb,
    "postgres": _postgres,
    "oracle": _oracle,
    "sqlite": _sqlite,
    "mysql": _mysql,
}
