"""Installers split over files: follow include commands, statement by statement, with a cycle guard.

    @file, @@file, START file       SQL*Plus (`.sql` added when the name has no extension)
    @&var/file, @&&var.file          SQL*Plus substitution variables, set by an earlier DEFINE
    \\i file, \\ir file               psql
    source file, \\. file             mysql client
    .read file                       sqlite3 / duckdb CLI
    :r file                          SQLCMD (T-SQL)

Paths are taken relative to the including file (then to the top file's folder, where `@` and `\\i` look
when an installer is run from its own folder). Every statement keeps its own file and line, so errors
and notes name the included file. A missing file, an unset variable or a cycle is a SchemaError that
names the including file and line; with `skip_missing` (`--skip-missing-includes`: an installer's data
files that are not beside the schema) a missing file is a note at the include's line instead, and the
statements after it are read.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from stateforge.errors import SchemaError
from stateforge.schema.model import Note
from stateforge.schema.split import Statement, split_statements

_COMMAND = re.compile(
    r"^(?:@@?|start\s+|\\(?:ir|i|include_relative|include)\s+|source\s+|\\\.\s*|\.read\s+|:r\s+)(?P<path>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_DEFINE = re.compile(r"^DEF(?:INE)?\s+(?P<name>\w+)\s*=\s*(?P<value>.*?)\s*;?$", re.IGNORECASE)
_VARIABLE = re.compile(r"&&?(?P<name>\w+)\.?")
_SQLCMD_VARIABLE = re.compile(r"\$\((?P<name>\w+)\)")
_SETVAR = re.compile(r"^:setvar\s+(?P<name>\w+)\s+(?P<value>.*)$", re.IGNORECASE)


@dataclass
class _Includes:
    dialect: str
    top: Path
    """The folder of the top file (a second place to look)."""
    top_label: str
    """That folder as messages name it (the top file's name without its own)."""
    stack: list[Path] = field(default_factory=list)
    variables: dict[str, str] = field(default_factory=dict)
    """SQL*Plus DEFINEs and SQLCMD :setvar values seen so far, by lower-case name."""
    skip_missing: Callable[[Note], None] | None = None
    """Where a missing included file is noted (and skipped); None: a missing file is an error."""

    def statements(self, text: str, source: str | None, here: Path) -> Iterator[Statement]:
        for stmt in split_statements(text, self.dialect, source):
            if stmt.kind == "include":
                yield from self._follow(stmt, here)
                continue
            self._remember(stmt)
            yield stmt

    def _remember(self, stmt: Statement) -> None:
        match = _DEFINE.match(stmt.text) if stmt.kind == "sqlplus" else None
        match = match or (_SETVAR.match(stmt.text) if stmt.kind == "meta" else None)
        if match:
            self.variables[match["name"].lower()] = match["value"].strip().strip("'\"")

    def _follow(self, stmt: Statement, here: Path) -> Iterator[Statement]:
        try:
            path, label = self._resolve(stmt, here)
        except _Missing as missing:
            if self.skip_missing is None:
                raise SchemaError(
                    f"the included file {missing.name!r} does not exist (looked for {missing.looked})",
                    file=stmt.source,
                    line=stmt.line,
                    hint="Put the file beside the one that includes it, fix the path in the include "
                    "command, or pass --skip-missing-includes to read the schema without it.",
                ) from None
            self.skip_missing(Note(
                f"the included file {missing.name!r} is not there (looked for {missing.looked}); skipped "
                "(--skip-missing-includes): whatever it defines or inserts is left out",
                file=stmt.source, line=stmt.line,
            ))
            return
        if path in self.stack:
            chain = " -> ".join(p.name for p in [*self.stack[self.stack.index(path) :], path])
            raise SchemaError(
                f"include cycle: {chain}",
                file=stmt.source,
                line=stmt.line,
                hint="Remove the include that leads back to a file already being read.",
            )
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as err:
            raise SchemaError(
                f"cannot read the included file {path}: {err}",
                file=stmt.source,
                line=stmt.line,
                hint="It must be a readable UTF-8 text file.",
            ) from None
        self.stack.append(path)
        try:
            yield from self.statements(text, label, path.parent)
        finally:
            self.stack.pop()

    def _resolve(self, stmt: Statement, here: Path) -> tuple[Path, str]:
        """The file an include command names (variables substituted, relative to the including file), and
        its name for messages: relative to the including file's name, as the user wrote the paths."""
        match = _COMMAND.match(stmt.text.strip())
        raw = (match["path"] if match else "").strip().rstrip(";").strip()
        if os.sep == "/":
            raw = raw.replace("\\", "/")  # SQLCMD and SQL*Plus scripts written on Windows
        try:
            words = shlex.split(raw)
        except ValueError:
            words = raw.split()
        if not words:
            raise SchemaError(
                f"{stmt.text!r} names no file", file=stmt.source, line=stmt.line, hint="Name the file."
            )
        if self.dialect == "oracle":  # @script arg1 arg2: the script reads them as &1, &2
            self.variables.update({str(i): arg for i, arg in enumerate(words[1:], 1)})
        name = self._substitute(words[0], stmt)
        relative = stmt.text.lstrip().startswith(("@@", "\\ir", "\\include_relative"))
        names = [name + ".sql", name] if self.dialect == "oracle" and not Path(name).suffix else [name]
        label_dir = os.path.dirname(stmt.source or "")
        places = [(here, label_dir)]
        if not relative:  # `@file` and `\\i file` also look where the installer is run from
            places += [(self.top, self.top_label), (None, "")]
        candidates = [
            ((folder / n) if folder is not None else Path(n), os.path.normpath(os.path.join(label, n)))
            for folder, label in places
            for n in names
        ]
        for candidate, label in candidates:
            if candidate.is_file():
                return candidate.resolve(), label
        raise _Missing(name, ", ".join(dict.fromkeys(str(c) for c, _ in candidates)))

    def _substitute(self, raw: str, stmt: Statement) -> str:
        def value(match: re.Match[str]) -> str:
            name = match["name"]
            if name.lower() in self.variables:
                return self.variables[name.lower()]
            raise SchemaError(
                f"{stmt.text.strip()!r} uses the variable {name}, which nothing before it sets",
                file=stmt.source,
                line=stmt.line,
                hint=f"Add `DEFINE {name} = <folder>` (SQL*Plus) or `:setvar {name} <folder>` (SQLCMD) "
                "before the include, or write the path itself.",
            )

        return _SQLCMD_VARIABLE.sub(value, _VARIABLE.sub(value, raw))


class _Missing(Exception):
    """An include command's file is in none of the places looked at."""

    def __init__(self, name: str, looked: str) -> None:
        super().__init__(name)
        self.name, self.looked = name, looked


def read_statements(
    text: str,
    dialect: str,
    source: str | None = None,
    *,
    skip_missing: Callable[[Note], None] | None = None,
) -> Iterator[Statement]:
    """The statements of `text`, with every include command replaced by the statements of its file.

    `source` (the file `text` was read from) anchors relative paths; without it, the current folder.
    `skip_missing(note)`, when given, is told of each include whose file is missing, which is skipped.
    """
    top = Path(source).resolve().parent if source else Path.cwd()
    includes = _Includes(dialect, top, os.path.dirname(source or ""), skip_missing=skip_missing)
    if source:
        includes.stack.append(Path(source).resolve())
    yield from includes.statements(text, source, top)
