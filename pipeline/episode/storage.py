"""An episode's database: a private copy of the base file, opened on a locked-down DuckDB instance.

Opening costs about a file copy. A DuckDB instance takes ~11 ms to start (its function catalog), so it is
started while the kernel copies the file (`sendfile` runs without the GIL), then the copy is ATTACHed and
made the default catalog; only then are external access, extension loading and every setting switched off
for good:

    enable_external_access = false   no files, no network, no ATTACH, no COPY TO/FROM, no INSTALL
    autoload/autoinstall_known_extensions = false
    lock_configuration = true        no SET can undo any of it

Each episode has its own instance, so concurrent episodes share nothing but the (read-only) base file.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
from pathlib import Path

import duckdb

from pipeline.errors import StoreError
from pipeline.store.sql import quote_ident, quote_literal

CATALOG = "episode"
"""The name the episode's database is attached under (and made the default)."""

LOCKDOWN = (
    "SET enable_external_access = false",
    "SET autoload_known_extensions = false",
    "SET autoinstall_known_extensions = false",
    "SET allow_community_extensions = false",
    "SET lock_configuration = true",
)


def wal_of(path: Path) -> Path:
    """The write-ahead log DuckDB keeps beside a database file."""
    return path.with_name(path.name + ".wal")


def copy_database(base: Path, copy: Path) -> None:
    """Copy a database file (and its WAL, if one is pending) to `copy`."""
    shutil.copyfile(base, copy)
    if wal_of(base).exists():
        shutil.copyfile(wal_of(base), wal_of(copy))


def open_locked(path: Path, *, copy_from: Path | None = None) -> duckdb.DuckDBPyConnection:
    """A locked-down connection whose default catalog is the database at `path`.

    With `copy_from`, `path` is first made a copy of that file (while the instance starts). On any error
    the copy is removed and the error names the file.
    """
    started: dict[str, object] = {}

    def start() -> None:
        try:
            started["con"] = duckdb.connect(":memory:")
        except BaseException as exc:  # noqa: BLE001 - handed to the opening thread
            started["error"] = exc

    worker = threading.Thread(target=start, name="episode-duckdb-start")
    worker.start()
    try:
        if copy_from is not None:
            copy_database(copy_from, path)
    except OSError as exc:
        worker.join()
        _close(started.get("con"))
        remove_database(path)
        raise StoreError(
            f"cannot copy {copy_from} to {path}: {exc}. Check the disk space and the workdir."
        ) from exc
    worker.join()
    if "error" in started:
        raise StoreError(f"DuckDB could not start: {started['error']}") from started["error"]  # type: ignore[misc]
    con: duckdb.DuckDBPyConnection = started["con"]  # type: ignore[assignment]
    try:
        con.execute(f"ATTACH {quote_literal(str(path))} AS {quote_ident(CATALOG)}")
        con.execute(f"USE {quote_ident(CATALOG)}")
        for statement in LOCKDOWN:
            con.execute(statement)
    except duckdb.Error as exc:
        con.close()
        if copy_from is not None:
            remove_database(path)
        raise StoreError(f"{path} cannot be opened as a DuckDB database: {exc}") from exc
    return con


def _close(con: object) -> None:
    if isinstance(con, duckdb.DuckDBPyConnection):
        with contextlib.suppress(duckdb.Error):
            con.close()


def remove_database(path: Path) -> None:
    """Delete a database file and its WAL (missing files are fine)."""
    for item in (path, wal_of(path)):
        with contextlib.suppress(FileNotFoundError):
            item.unlink()
