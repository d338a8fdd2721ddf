"""The error tree. Every error says what went wrong, where, and what to do next.

`TerminalError`: retrying will not help (bad DDL, a bad domain pack, an audit that fails).
`NotCleanError` (a `TerminalError`): the check ran and found the thing checked not clean; the CLI maps it
to exit code 1 and every other `StateforgeError` to 2 (README, "Exit codes").
`TransientError`: retrying may help (a timeout, a rate limit, a 5xx from an LLM server).
"""

from __future__ import annotations


class StateforgeError(Exception):
    """Base of every error Stateforge raises on purpose."""


class TerminalError(StateforgeError):
    """Stop and explain: the input must change before a retry can succeed."""


class TransientError(StateforgeError):
    """Retry: the same call may succeed later."""


class SchemaError(TerminalError):
    """A DDL file or a schema model is wrong.

    The message names the file and line (where known), the table and column, and what to fix.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        table: str | None = None,
        column: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.table = table
        self.column = column
        self.hint = hint
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        elif self.line:
            where = f"line {self.line}: "
        what = ""
        if self.table:
            what = f"table {self.table}" + (f", column {self.column}" if self.column else "") + ": "
        text = f"{where}{what}{self.message}"
        if self.hint:
            text = text if text.endswith((".", "?", "!", ":")) else text + "."
            text += f" {self.hint}"
        return text


class DomainError(TerminalError):
    """A domain pack (`domain.yaml`, its rules or hints) is wrong or missing."""


class BuildError(TerminalError):
    """A build could not produce a clean database; the previous good one is left untouched."""


class NotCleanError(TerminalError):
    """The thing checked is not clean: an audit found violations (the CLI exits 1, not 2).

    Raised after the check ran to the end, so the message can give counts and what to run next.
    """


class StoreError(TerminalError):
    """A DuckDB file is missing, is not a Stateforge database, or does not match its model."""
