"""Token patches for DDL that sqlglot's dialects read wrongly or not at all, one function a dialect.

Patching tokens, not text, keeps string literals and quoted names out of harm's way.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot.tokens import Token, TokenType

_INTERVAL_FIELDS = frozenset({"DAY", "YEAR", "MONTH", "HOUR", "MINUTE", "SECOND"})
_CONSTRAINT_STATES = frozenset({"ENABLE", "DISABLE", "VALIDATE", "NOVALIDATE", "RELY", "NORELY"})
# Words of a constraint's state (Oracle, and the standard's deferral): they change nothing in the model.
_STATE_WORDS = _CONSTRAINT_STATES | {"DEFERRABLE", "INITIALLY", "DEFERRED", "IMMEDIATE"}
# What a constraint can end with, before its state: a column list, NOT NULL, an ON DELETE action.
_CONSTRAINT_ENDS = frozenset({")", "NULL", "CASCADE", "ACTION", "RESTRICT", "DEFAULT"})


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
    tokens = _unsigned_floats(tokens)
    # GEOMETRY /*!80003 SRID 0 */ (sakila): the spatial reference id, which sqlglot does not know.
    return [
        t
        for i, t in enumerate(tokens)
        if not (
            t.text.upper() == "SRID" and i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.NUMBER
        )
        and not (i > 0 and tokens[i - 1].text.upper() == "SRID" and t.token_type == TokenType.NUMBER)
    ]


def _unsigned_floats(tokens: list[Token]) -> list[Token]:
    """FLOAT / REAL [(p, s)] UNSIGNED: sqlglot has no unsigned FLOAT; read it as DOUBLE UNSIGNED (a wider
    type; MySQL's REAL is a DOUBLE anyway), which becomes DOUBLE with a `>= 0` CHECK."""
    out = list(tokens)
    for i, token in enumerate(tokens):
        if token.text.upper() not in ("FLOAT", "REAL") or token.token_type == TokenType.IDENTIFIER:
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].token_type == TokenType.L_PAREN:
            while j < len(tokens) and tokens[j].token_type != TokenType.R_PAREN:
                j += 1
            j += 1
        if j < len(tokens) and tokens[j].text.upper() == "UNSIGNED":
            out[i] = _retype(token, TokenType.DOUBLE, "DOUBLE")
    return out


_CONFLICT_ACTIONS = frozenset({"ROLLBACK", "ABORT", "FAIL", "IGNORE", "REPLACE"})


def _sqlite(tokens: list[Token]) -> list[Token]:
    # PRIMARY KEY ON CONFLICT REPLACE, UNIQUE ON CONFLICT IGNORE: what an INSERT does on a clash.
    tokens = [
        t
        for i, t in enumerate(tokens)
        if not any(
            j >= 0 and j + 2 < len(tokens) and tokens[j].text.upper() == "ON"
            and tokens[j + 1].text.upper() == "CONFLICT" and tokens[j + 2].text.upper() in _CONFLICT_ACTIONS
            for j in (i, i - 1, i - 2)
        )
    ]
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
        word = token.text.upper()
        if word == "VARYING" and out and out[-1].text.upper() == "BIT":
            out[-1] = _retype(out[-1], TokenType.VAR, "varbit")  # BIT VARYING(n): sqlglot stops at VARYING
        elif word == "VIRTUAL" and out and out[-1].token_type == TokenType.R_PAREN:
            pass  # PostgreSQL 18: GENERATED ALWAYS AS (expr) VIRTUAL; sqlglot knows STORED only
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
        if not quoted and _is_state(tokens, i, prev):
            pass  # NOT NULL ENABLE, PRIMARY KEY (...) DISABLE NOVALIDATE, ON DELETE CASCADE ENABLE
        elif word == "EXCEPTIONS" and i + 2 < n and tokens[i + 1].text.upper() == "INTO":
            i += 3  # EXCEPTIONS INTO table: where Oracle logs rows that break a validated constraint
            continue
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


def _is_state(tokens: list[Token], i: int, prev: str) -> bool:
    """Whether tokens[i] is a constraint-state word (or NOT of NOT DEFERRABLE) right after a constraint."""
    word = tokens[i].text.upper()
    after = tokens[i + 1].text.upper() if i + 1 < len(tokens) else ""
    if word == "NOT" and after == "DEFERRABLE":
        return prev in _CONSTRAINT_ENDS
    if word not in _STATE_WORDS:
        return False
    # `prev` is the last token kept, so after a dropped state word it is still the constraint's end.
    return prev in _CONSTRAINT_ENDS


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


_TSQL_DROPPED = frozenset({"ROWGUIDCOL", "CLUSTERED", "NONCLUSTERED", "SPARSE", "FILESTREAM"})


def _tsql(tokens: list[Token]) -> list[Token]:
    """SQL Server's storage words: ROWGUIDCOL, (NON)CLUSTERED, index options `WITH (...)`, filegroups
    `ON [PRIMARY]`, `WITH [NO]CHECK` before ADD, NOT FOR REPLICATION, and a column's `FOREIGN KEY
    REFERENCES` (written without a column list)."""
    out: list[Token] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        word = "" if token.token_type == TokenType.IDENTIFIER else token.text.upper()
        after = tokens[i + 1].text.upper() if i + 1 < n else ""
        prev = out[-1].text.upper() if out and out[-1].token_type != TokenType.IDENTIFIER else ""
        if word in _TSQL_DROPPED and not (word in ("CLUSTERED", "NONCLUSTERED") and after == "INDEX"):
            i += 1
        elif word in ("ASC", "DESC") and after in (",", ")") and out:
            i += 1  # UNIQUE ([Name] ASC): the order of a key's index, which sqlglot refuses there
        elif token.text.upper() == "FLOAT" and after != "(" and _column_type_position(out):
            out.append(_retype(token, TokenType.DOUBLE))  # FLOAT is FLOAT(53), 8 bytes; REAL is 4
            i += 1
        elif word == "WITH" and after in ("CHECK", "NOCHECK"):
            i += 2  # ALTER TABLE t WITH CHECK ADD CONSTRAINT ...
        elif word == "NOT" and after == "FOR" and i + 2 < n and tokens[i + 2].text.upper() == "REPLICATION":
            i += 3
        elif word == "WITH" and after == "(" and out and out[-1].token_type == TokenType.R_PAREN:
            i = _group_end(tokens, i + 1) + 1  # PRIMARY KEY (...) WITH (PAD_INDEX = OFF, ...)
        elif word == "ON" and prev == ")" and i + 1 < n and after not in ("DELETE", "UPDATE"):
            i += 2  # ON [PRIMARY], ON ps_scheme ([col])
            if i < n and tokens[i].token_type == TokenType.L_PAREN:
                i = _group_end(tokens, i) + 1
        elif token.token_type == TokenType.FOREIGN_KEY and after == "REFERENCES":
            i += 1  # [c] int FOREIGN KEY REFERENCES t (id): the column's own reference
        else:
            out.append(token)
            i += 1
    return out


def _column_type_position(out: list[Token]) -> bool:
    """Whether the next token is a column's type: after `(` or `,` and the column's name."""
    names = (TokenType.IDENTIFIER, TokenType.VAR)
    return len(out) >= 2 and out[-1].token_type in names and out[-2].token_type in (
        TokenType.L_PAREN, TokenType.COMMA
    )


def _group_end(tokens: list[Token], i: int) -> int:
    """The index of the parenthesis that closes the one at `i`."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j].token_type == TokenType.L_PAREN:
            depth += 1
        elif tokens[j].token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return j
    return len(tokens) - 1


def _retype(token: Token, kind: TokenType, text: str | None = None) -> Token:
    text = token.text if text is None else text
    return Token(kind, text, token.line, token.col, token.start, token.end, token.comments)


_PATCHES: dict[str, Callable[[list[Token]], list[Token]]] = {
    "duckdb": _duckdb,
    "postgres": _postgres,
    "oracle": _oracle,
    "sqlite": _sqlite,
    "mysql": _mysql,
    "tsql": _tsql,
}
