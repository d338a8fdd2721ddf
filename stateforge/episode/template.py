"""The file an episode copies: the base without its audit views, made once per base content.

ATTACH reads a file's whole catalog, and rebuilds every view's query as it does. The audit views a build
installs in the `stateforge` schema (`stateforge.validation.views.VIEWS`: 84 KB of SQL for the music pack)
cost
more than the rest of the catalog together: ATTACH of a 50 MB music database takes 5.9 ms with them and
2.6 ms without (12 and 2-4 ms on a loaded machine), on every episode's path. An episode never reads them
(the audit runs on the built file), so episodes copy a **template** instead of the base itself: a copy
of the base with those views dropped and checkpointed, every table, row, key and metadata row as the
base has them.

    source = template_for(base, workdir)      # the template's path, or the base when it has no views

A template is made on first use (a copy, the DROPs, a checkpoint: ~100 ms for 50 MB) into
`<workdir>/.templates/`, under a name derived from the base's path and content key (path, size, mtime and
inode of the file and of its WAL), and used by every later episode of that base content in any process
sharing the workdir; it is written under a temporary name and renamed into place, so a reader never sees
half of one. When the base changes, its key changes: a new template is made and the old ones of that base
are deleted. The base itself is never written. An episode opened with `keep=True` copies the base (a
file a person inspects keeps everything the build wrote).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import uuid
from pathlib import Path

import duckdb

from stateforge.episode.pool import POOL
from stateforge.errors import StoreError
from stateforge.store.sql import METADATA_SCHEMA, quote_ident
from stateforge.validation.views import VIEWS

FOLDER = ".templates"
"""The subfolder of an episode workdir that holds its templates."""

_MADE: dict[tuple[str, Path], Path] = {}
_LOCK = threading.Lock()


def content_key(base: Path) -> str:
    """The base's resolved path and the size, mtime and inode of it and of its WAL (if any)."""
    parts = [str(base.resolve())]
    for item in (base, base.with_name(base.name + ".wal")):
        try:
            stat = item.stat()
        except FileNotFoundError:
            parts.append("-")
            continue
        parts.append(f"{stat.st_size}:{stat.st_mtime_ns}:{stat.st_ino}")
    return "|".join(parts)


def template_for(base: Path, workdir: Path, *, key: str | None = None) -> Path:
    """The file an episode of `base` copies: its template in `workdir` (made if missing), or `base`
    itself when it has no audit views to drop. `key`: the base's `content_key`, if already known."""
    key = key or content_key(base)
    memo = (key, workdir)
    with _LOCK:
        found = _MADE.get(memo)
        if found is not None and (found == base or found.exists()):
            return found
        folder = workdir / FOLDER
        stem = f"{base.stem}-{_digest(str(base.resolve()))[:8]}-"
        path = folder / f"{stem}{_digest(key)[:16]}.duckdb"
        if not path.exists():
            folder.mkdir(parents=True, exist_ok=True)
            if not _make(base, path):
                _MADE[memo] = base
                return base
            _remove_stale(folder, stem, path)
        _MADE[memo] = path
        return path


def forget(base: Path, workdir: Path) -> None:
    """Drop what this process remembers of `base`'s templates in `workdir` (the next `template_for`
    looks at the disk again)."""
    where = str(base.resolve()) + "|"
    with _LOCK:
        for memo in [m for m in _MADE if m[1] == workdir and m[0].startswith(where)]:
            del _MADE[memo]


def _make(base: Path, path: Path) -> bool:
    """Write the template of `base` at `path`; False (and nothing written) when `base` has no audit
    views. The copy is made under a temporary name and renamed into place once complete."""
    from stateforge.episode.storage import copy_database, remove_database  # storage imports this module

    partial = path.with_name(f".{path.stem}.{uuid.uuid4().hex[:8]}.partial")
    try:
        copy_database(base, partial)
        with duckdb.connect(str(partial), config={"threads": 1}) as con:
            names = [
                row[0]
                for row in con.execute(
                    "SELECT view_name FROM duckdb_views() WHERE database_name = current_database() "
                    "AND schema_name = ? AND NOT internal",
                    [METADATA_SCHEMA],
                ).fetchall()
                if row[0] in VIEWS
            ]
            if not names:
                return False
            for name in names:
                con.execute(f"DROP VIEW {quote_ident(METADATA_SCHEMA)}.{quote_ident(name)}")
            con.execute("CHECKPOINT")
        os.replace(partial, path)
        return True
    except (OSError, duckdb.Error) as exc:
        raise StoreError(
            f"cannot make the episode template of {base} in {path.parent}: {exc}. Check the disk space and "
            "the workdir, or that the base is a DuckDB database no other process is writing."
        ) from exc
    finally:
        remove_database(partial)


def _remove_stale(folder: Path, stem: str, keep: Path) -> None:
    """Delete the templates of earlier contents of the same base (a process still copying one keeps
    reading it; one about to open it makes the new template)."""
    for item in folder.glob(f"{stem}*.duckdb"):
        if item != keep:
            POOL.drop_source(str(item) + "|", keep="")
            with contextlib.suppress(OSError):
                item.unlink()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
