"""Dump preprocessing: split a DDL file into statements, each with the line it starts on.

Real dumps are not a list of `;`-terminated statements. This splitter understands, per dialect:
quotes ('...', "...", `...`, [...]), `--`, `#` and `/* */` comments, MySQL `/*!40101 ... */` executable
comments (their content is kept, as MySQL runs it), PostgreSQL `$$` / `$tag$` bodies, `COPY ... FROM stdin`
data up to `\\.`, psql and sqlite meta-commands (`\\connect`, `.mode`), MySQL `DELIMITER` changes,
SQL*Plus line commands (`rem`, `Prompt`, `SET ...`, `spool`) and PL/SQL blocks that only a `/` line ends,
BEGIN ... END bodies of sqlite triggers, and T-SQL `GO` batch separators and SQLCMD `:` commands (the
statements of a batch are split further by batches.py). PL bodies are never handed to sqlglot.

Include commands (`@file`, `@@file`, `START file`, `\\i`, `\\ir`, `source`, `.read`, `:r`) become
statements of kind `include`, which includes.py follows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from stateforge.errors import SchemaError


@dataclass(frozen=True)
class Statement:
    """One statement: its text without comments or terminator, and the 1-based line it starts on."""

    text: str
    line: int
    kind: str | None = None
    """Set for client commands recognised by their line (`meta`, `sqlplus`, `set`, `include`, `go`);
    else classify it."""
    source: str | None = None
    """The file the statement comes from (set for every statement of a file, included or not)."""


_SQLPLUS = frozenset(
    "REM REMARK PRO PROMPT SET SPOOL WHENEVER EXIT QUIT CONNECT CONN DISCONNECT DEFINE DEF UNDEFINE "
    "COLUMN COL TTITLE BTITLE SHOW SHO EXEC EXECUTE VARIABLE VAR PRINT CLEAR BREAK COMPUTE HOST PAUSE "
    "ACCEPT STORE TIMING START DESC DESCRIBE RUN".split()
)
# In SQL*Plus these are PL/SQL units: their `;` are part of the body and only a `/` line ends them.
_PLSQL_HEAD = re.compile(
    r"(CREATE\s+(OR\s+REPLACE\s+)?((NON)?EDITIONABLE\s+)?(PACKAGE|PROCEDURE|FUNCTION|TRIGGER|TYPE|LIBRARY"
    r"|JAVA)|DECLARE|BEGIN)\b",
    re.IGNORECASE,
)
# Bodies made of statements (sqlite triggers, postgres BEGIN ATOMIC): a `;` ends the whole only at depth 0.
_COMPOUND_HEAD = re.compile(
    r"CREATE\s+(OR\s+REPLACE\s+)?(TEMP(ORARY)?\s+)?(TRIGGER|FUNCTION|PROCEDURE)\b", re.IGNORECASE
)
_BLOCK_WORD = re.compile(r"\b(BEGIN|CASE|END)\b", re.IGNORECASE)
# T-SQL: modules are alone in their batch (GO ends them); BEGIN TRAN opens no block.
_TSQL_MODULE = re.compile(
    r"(CREATE|ALTER)\s+(OR\s+ALTER\s+)?(PROC|PROCEDURE|FUNCTION|TRIGGER|VIEW)\b", re.IGNORECASE
)
_TSQL_BLOCK_WORD = re.compile(
    r"\b(BEGIN(?!\s+(TRAN|TRANSACTION|DISTRIBUTED|DIALOG|CONVERSATION)\b)|CASE|END)\b", re.IGNORECASE
)
_QUOTED = re.compile(r"'(?:[^']|'')*'|\$(\w*)\$.*?\$\1\$", re.DOTALL)
_COPY_STDIN = re.compile(r"COPY\b.*\bFROM\s+STDIN\b", re.IGNORECASE | re.DOTALL)
_DOLLAR_TAG = re.compile(r"\$([A-Za-z_]\w*)?\$")
_DELIMITER = re.compile(r"\s*DELIMITER\s+(\S+)", re.IGNORECASE)
_MYSQL_EXECUTABLE = re.compile(r"/\*!\d*")
_GO = re.compile(r"\s*GO(\s+\d+)?\s*;?\s*(--.*)?$", re.IGNORECASE)
# Client commands that run another script, per dialect (the whole line; the path is read by includes.py).
_INCLUDES = {
    "postgres": re.compile(r"\\(i|ir|include|include_relative)\s", re.IGNORECASE),
    "duckdb": re.compile(r"\.read\s", re.IGNORECASE),
    "sqlite": re.compile(r"\.read\s", re.IGNORECASE),
    "mysql": re.compile(r"(source|\\\.)\s", re.IGNORECASE),
    "oracle": re.compile(r"(@|start\s)", re.IGNORECASE),
    "tsql": re.compile(r":r\s", re.IGNORECASE),
}
_QUOTE_NAMES = {"'": "string", '"': "quoted name", "`": "quoted name", "]": "bracketed name", "*/": "comment"}


def split_statements(text: str, dialect: str, source: str | None = None) -> Iterator[Statement]:
    """Yield the statements of `text` in order, each marked with `source`.

    SchemaError if a string, quoted name, comment or dollar-quoted body is still open at the end.
    """
    statements = _Splitter(dialect, source).run(text)
    if dialect == "tsql":  # a batch may hold many statements with no `;` between them
        from stateforge.schema.batches import split_batch

        statements = (piece for stmt in statements for piece in split_batch(stmt))
    for stmt in statements:
        yield Statement(stmt.text, stmt.line, stmt.kind, source)


class _Splitter:
    def __init__(self, dialect: str, source: str | None) -> None:
        self.dialect = dialect
        self.source = source
        self.delimiter = ";"
        self.parts: list[str] = []
        self.start: int | None = None  # line of the current statement's first character
        self.close: str | None = None  # what ends the quote, comment or dollar body we are in
        self.opened_at = 0
        self.escapes = False  # backslash escapes inside the current string (MySQL, E'...')
        self.executable = 0  # open MySQL /*! ... */ comments
        self.in_copy = False
        self.special = self._special_chars()

    def _special_chars(self) -> re.Pattern[str]:
        chars = set("'\"-/") | {self.delimiter[0]}
        extra = {"mysql": set("`#*"), "sqlite": {"["}, "tsql": {"["}, "postgres": {"$"}, "duckdb": {"$"}}
        chars |= extra.get(self.dialect, set())
        return re.compile("[" + re.escape("".join(sorted(chars))) + "]")

    def run(self, text: str) -> Iterator[Statement]:
        """Yield the statements of `text`, line by line: client commands first, then SQL text."""
        for lineno, line in enumerate(text.split("\n"), 1):
            if self.in_copy:
                self.in_copy = line.rstrip() != "\\."
                continue
            idle = self.close is None and not self.executable
            if idle and self._ends_batch(line):
                if self.start is not None:
                    yield self._flush()
                continue
            if idle and self.start is None:
                kind = self._line_command(line)
                if kind == "delimiter":
                    continue
                if kind:
                    yield Statement(line.strip(), lineno, kind)
                    continue
            yield from self._scan(line + "\n", lineno)
        if self.close is not None:
            what = _QUOTE_NAMES.get(self.close, "dollar-quoted body")
            raise SchemaError(
                f"a {what} that opens here is never closed",
                file=self.source,
                line=self.opened_at,
                hint=f"Close it (is the file cut short?); {self.close} ends it.",
            )
        if self.start is not None:
            yield self._flush()

    def _ends_batch(self, line: str) -> bool:
        """A line that ends the statement or batch before it: SQL*Plus `/`, T-SQL `GO`."""
        if self.dialect == "oracle":
            return line.strip() == "/"
        return self.dialect == "tsql" and bool(_GO.match(line))

    def _line_command(self, line: str) -> str | None:
        """The kind of a client command that takes the whole line, or None for SQL."""
        stripped = line.strip()
        include = _INCLUDES.get(self.dialect)
        if include is not None and include.match(stripped + " "):
            return "include"
        if stripped.startswith("\\"):
            return "meta"
        if self.dialect in ("sqlite", "duckdb") and stripped.startswith("."):
            return "meta"
        if self.dialect == "tsql" and stripped.startswith(":"):
            return "meta"  # SQLCMD commands: :setvar, :on error exit, ...
        if self.dialect == "mysql" and (match := _DELIMITER.match(line)):
            self.delimiter = match.group(1)
            self.special = self._special_chars()
            return "delimiter"
        if self.dialect == "oracle" and stripped:
            word = re.split(r"[\s;]", stripped, maxsplit=1)[0].upper()
            if word in _SQLPLUS:
                return "set" if word == "SET" else "sqlplus"
        return None

    def _scan(self, line: str, lineno: int) -> Iterator[Statement]:
        i, n = 0, len(line)
        while i < n:
            if self.close is not None:
                i = self._quoted(line, i)
                continue
            match = self.special.search(line, i)
            if match is None:
                self._add(line[i:], lineno)
                return
            j = match.start()
            self._add(line[i:j], lineno)
            c = line[j]
            if line.startswith(self.delimiter, j):
                i = j + len(self.delimiter)
                if self._continues():
                    self._add(self.delimiter, lineno)
                else:
                    yield self._flush()
            elif line.startswith("--", j) or (c == "#" and self.dialect == "mysql"):
                self._add("\n", lineno)  # keep the line break: lines inside a statement stay countable
                return
            elif line.startswith("/*", j):
                executable = _MYSQL_EXECUTABLE.match(line, j) if self.dialect == "mysql" else None
                if executable:
                    self.executable += 1
                    i = executable.end()
                else:
                    self.close, self.opened_at, i = "*/", lineno, j + 2
                self._add(" ", lineno)
            elif c == "*" and self.executable and line.startswith("*/", j):
                self.executable -= 1
                self._add(" ", lineno)
                i = j + 2
            elif c in "'\"`[":
                self.close = "]" if c == "[" else c
                self.opened_at = lineno
                self.escapes = self.dialect == "mysql" or (c == "'" and _e_string(line, j))
                self._add(c, lineno)
                i = j + 1
            elif c == "$" and (tag := _DOLLAR_TAG.match(line, j)):
                self.close, self.opened_at = tag.group(), lineno
                self._add(tag.group(), lineno)
                i = tag.end()
            else:
                self._add(c, lineno)
                i = j + 1

    def _quoted(self, line: str, i: int) -> int:
        """Consume `line` from `i` inside a quote or comment; return where scanning resumes."""
        close = self.close
        assert close is not None
        if close == "*/":
            end = line.find(close, i)
            if end < 0:
                self.parts.append("\n")
                return len(line)
            self.close = None
            return end + 2
        k = i
        while True:
            end = line.find(close, k)
            if self.escapes and 0 <= (slash := line.find("\\", k, end if end >= 0 else len(line))):
                k = slash + 2
                continue
            if end < 0:
                self.parts.append(line[i:])
                return len(line)
            if len(close) == 1 and close != "]" and line.startswith(close * 2, end):
                k = end + 2  # a doubled quote stands for itself
                continue
            end += len(close)
            self.parts.append(line[i:end])
            self.close = None
            return end

    def _continues(self) -> bool:
        """Whether the `;` just met is inside a compound body rather than the end of the statement."""
        if self.delimiter != ";" or self.start is None:
            return False
        text = "".join(self.parts).lstrip()
        if self.dialect == "oracle":
            return bool(_PLSQL_HEAD.match(text))
        if self.dialect == "tsql":
            if _TSQL_MODULE.match(text):
                return True
            words = _TSQL_BLOCK_WORD.findall(_QUOTED.sub("''", text))
            return sum(-1 if w[0].upper() == "END" else 1 for w in words) > 0
        if self.dialect in ("sqlite", "postgres", "duckdb") and _COMPOUND_HEAD.match(text):
            words = _BLOCK_WORD.findall(_QUOTED.sub("''", text))
            return sum(-1 if w.upper() == "END" else 1 for w in words) > 0
        return False

    def _add(self, piece: str, lineno: int) -> None:
        if self.start is None:
            piece = piece.lstrip()
            if not piece:
                return
            self.start = lineno
        self.parts.append(piece)

    def _flush(self) -> Statement:
        assert self.start is not None
        statement = Statement("".join(self.parts).strip(), self.start)
        self.parts, self.start = [], None
        self.in_copy = bool(_COPY_STDIN.match(statement.text))
        return statement


def _e_string(line: str, j: int) -> bool:
    """Whether the quote at `j` opens a PostgreSQL E'...' string (backslash escapes)."""
    return j > 0 and line[j - 1] in "eE" and (j == 1 or not (line[j - 2].isalnum() or line[j - 2] == "_"))
