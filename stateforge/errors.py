"""The error tree. Every error says what went wrong, where, and what to do next.

`TerminalError`: retrying will not help (bad DDL, a bad domain pack, an audit that fails).
`NotCleanError` (a `TerminalError`): the check ran and found the thing checked not clean; the CLI maps it
to exit code 1 and every other `StateforgeError` to 2 (README, "Exit codes").
`TransientError`: retrying may help (a timeout, a rate limit, a 5xx from an LLM server).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from contextlib import contextmanager


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


class InternalError(TerminalError):
    """An unexpected exception inside Stateforge (a bug), caught where it happened.

    The message names the file and line, the stage, the table and the column that were being worked on,
    so that the report says where to look; the original exception is chained as `__cause__`.
    """

    def __init__(
        self,
        stage: str,
        error: BaseException,
        *,
        file: str | None = None,
        line: int | None = None,
        table: str | None = None,
        column: str | None = None,
    ) -> None:
        self.stage, self.error = stage, error
        self.file, self.line, self.table, self.column = file, line, table, column
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        what = f"table {table}" + (f", column {column}" if column else "") + ": " if table else ""
        super().__init__(
            f"{where}{what}internal error while {stage} ({type(error).__name__}: {error}). This is a bug in "
            "Stateforge: please report it with the statement or table named here (run with --debug for "
            "the traceback)."
        )

    def within(self, *, file: str | None = None, line: int | None = None, table: str | None = None,
               column: str | None = None) -> InternalError:
        """The same error with what an enclosing guard knows filled in where this one knew nothing."""
        return InternalError(self.stage, self.error, file=self.file or file,
                             line=self.line if self.file else line, table=self.table or table,
                             column=self.column if self.table else column)


@contextmanager
def guard(
    stage: str,
    *,
    file: str | None = None,
    line: int | None = None,
    table: str | None = None,
    column: str | None = None,
    passthrough: tuple[type[BaseException], ...] = (),
) -> Iterator[None]:
    """Turn any unexpected exception raised inside into an `InternalError` naming where it happened.

    Stateforge's own errors, the machine's (OSError, MemoryError: a full disk is no bug), `passthrough`
    (e.g. a database's I/O errors), KeyboardInterrupt and SystemExit pass through unchanged; an
    InternalError from an inner guard (which names the column, say) gains the file and table this one
    names, when it lacked them.
    """
    try:
        yield
    except InternalError as exc:
        if (file and not exc.file) or (table and not exc.table):
            raise exc.within(file=file, line=line, table=table, column=column) from exc.error
        raise
    except (StateforgeError, OSError, MemoryError, *passthrough):
        raise
    except Exception as exc:
        raise InternalError(stage, exc, file=file, line=line, table=table, column=column) from exc


def suggest(name: str, candidates: list[str]) -> str:
    """' Did you mean "x"?' for the closest candidate, or ''."""
    lowered = {c.lower(): c for c in candidates}
    close = difflib.get_close_matches(name.lower(), list(lowered), n=1, cutoff=0.6)
    return f' Did you mean "{lowered[close[0]]}"?' if close else ""
