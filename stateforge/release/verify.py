"""Checking a bundle against its manifest: files, database, Parquet, tools and every task replayed.

    result = verify_release("artifacts/releases/music-1.0.0")
    result.ok, result.problems        # [Problem(kind="file", where="data/users.parquet", what="...")]

Checks, in order: every file's sha256 and size (and no file missing or unlisted); the database (listed by
its table hashes, not its bytes) opens, its table hashes are the manifest's, its audit is clean; every
Parquet file holds the database's rows (the same md5 of its rows in key order); the tasks read, were made
on this data (`db_fingerprint`) and are counted as the manifest says; the installed tools are those of
`tools.json`; every task's reference calls, replayed on a fresh episode, give its expected diff and pass
its verifiers (an infeasible task: a refusal and no change). A problem names the file, table or task and
what differs; the checks go on after one.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from stateforge.errors import StateforgeError
from stateforge.release.bundle import FLAT_TASKS, TASKS, TOOLS, flat_tasks
from stateforge.release.files import bundle_files, sha256_file
from stateforge.release.manifest import fingerprint, read_manifest, task_counts
from stateforge.release.model import MANIFEST, Manifest, release_id
from stateforge.schema.model import Schema
from stateforge.store import connect, read_model, table_hashes
from stateforge.store.sql import quote_ident, quote_literal, table_ref
from stateforge.tasks import Task, read_tasks
from stateforge.tasks.gate import REFUSALS
from stateforge.tasks.verifiers import rows_match
from stateforge.tasks.workspace import Workspace
from stateforge.tools import CANNOT_COMPLETE, Toolkit, toolkit_for
from stateforge.validation.audit import audit
from stateforge.values import dumps

SHOWN = 3
"""Offending items named per problem."""


@dataclass(frozen=True)
class Problem:
    """One thing about the bundle that does not hold."""

    kind: str
    """file, database, parquet, tasks, tools or replay."""
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class Verification:
    """The outcome of `verify_release`."""

    folder: Path
    manifest: Manifest
    problems: list[Problem] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)
    """What was checked, counted: files, tables, tasks replayed."""

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, kind: str, where: str, what: str) -> None:
        """Record one problem."""
        self.problems.append(Problem(kind, where, what))

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (`--json`)."""
        return {
            "folder": str(self.folder),
            "domain": self.manifest.domain,
            "version": self.manifest.version,
            "ok": self.ok,
            "checked": self.checked,
            "problems": [{"kind": p.kind, "where": p.where, "what": p.what} for p in self.problems],
        }


def verify_release(folder: str | Path, *, on_task: Callable[[int, int], None] | None = None) -> Verification:
    """Check the bundle in `folder` (see the module docstring). `ReleaseError` when it is not a bundle."""
    root = Path(folder)
    manifest = read_manifest(root)
    result = Verification(root, manifest)
    check_files(result)
    tasks = check_tasks_file(result)
    db = root / manifest.database.file
    if not db.is_file():
        return result
    try:
        with connect(db, read_only=True) as con:
            con.execute("SET TimeZone = 'UTC'")
            schema = read_model(con)[0]
            check_database(result, con, schema)
            check_parquet(result, con, schema)
        if tasks is not None:
            with Workspace(db) as ws:
                toolkit = toolkit_for(ws.schema, ws.domain, pack_dir=_pack_dir(manifest))
                check_tools(result, toolkit)
                replay_tasks(result, ws, toolkit, tasks, on_task=on_task)
    except (StateforgeError, duckdb.Error) as exc:
        result.add("database", manifest.database.file, f"cannot be read: {str(exc).splitlines()[0]}")
    return result


def check_files(result: Verification) -> None:
    """Every listed file present with its sha256 and size; no file missing from the list."""
    root, files = result.folder, result.manifest.files
    if release_id(files, result.manifest.database) != result.manifest.release_id:
        result.add("file", MANIFEST, "release_id is not the hash of the file list: the manifest was edited")
    if not (root / result.manifest.database.file).is_file():
        result.add("database", result.manifest.database.file, "missing")
    for path, entry in sorted(files.items()):
        target = root / path
        if not target.is_file():
            result.add("file", path, "missing")
        elif target.stat().st_size != entry.bytes:
            result.add("file", path, f"{target.stat().st_size} bytes, the manifest says {entry.bytes}")
        elif (digest := sha256_file(target)) != entry.sha256:
            result.add("file", path, f"sha256 {digest[:16]}..., the manifest says {entry.sha256[:16]}...")
    for path in bundle_files(root, skip=(MANIFEST, result.manifest.database.file)):
        if path not in files:
            result.add("file", path, "not in the manifest (added after the release)")
    result.checked["files"] = len(files)


def check_tasks_file(result: Verification) -> list[Task] | None:
    """The tasks, read and checked (ids, counts, fingerprint); None when the file cannot be read."""
    m = result.manifest
    try:
        tasks = read_tasks(result.folder / TASKS)
    except StateforgeError as exc:
        result.add("tasks", TASKS, f"cannot be read: {str(exc).splitlines()[0]}")
        return None
    flat = result.folder / FLAT_TASKS
    try:
        same = not flat.is_file() or pq.read_table(flat).equals(flat_tasks(result.folder / TASKS))
    except (OSError, pa.ArrowException) as exc:
        result.add("tasks", FLAT_TASKS, f"cannot be read: {exc}")
    else:
        if not same:
            result.add("tasks", FLAT_TASKS, f"does not hold the tasks of {TASKS}")
    counts = task_counts(tasks)
    counts = counts.model_copy(update={f: None for f in counts.NEWER if getattr(m.tasks, f) is None})
    if counts != m.tasks:
        result.add("tasks", TASKS, f"{counts.total} tasks ({counts.feasible} feasible), the manifest counts "
                   f"{m.tasks.total} ({m.tasks.feasible} feasible) or other capabilities")
    stale = [t.id for t in tasks if t.db_fingerprint != m.database.fingerprint]
    if stale:
        result.add("tasks", TASKS, f"{len(stale)} tasks were made on other data (db_fingerprint is not "
                   f"{m.database.fingerprint}): {', '.join(stale[:SHOWN])}")
    return tasks


def check_database(result: Verification, con: duckdb.DuckDBPyConnection, schema: Schema) -> None:
    """Table hashes as the manifest says, fingerprint, and a clean audit."""
    m = result.manifest
    hashes = table_hashes(con, schema)
    wrong = [t for t, entry in m.database.tables.items() if hashes.get(t) != entry.md5]
    extra = sorted(set(hashes) - set(m.database.tables))
    if wrong or extra:
        result.add("database", m.database.file, "rows differ from the manifest in table(s) "
                   + ", ".join(wrong + [f"{t} (unlisted)" for t in extra]))
    elif fingerprint(hashes) != m.database.fingerprint:
        result.add("database", m.database.file, "fingerprint differs from the manifest's")
    report = audit(con, schema)
    if not report.clean:
        result.add("database", m.database.file, f"audit: {report.total:,} violations in "
                   f"{len(report.violations)} checks (run `stateforge audit` on it)")
    result.checked["tables"] = len(hashes)


def check_parquet(result: Verification, con: duckdb.DuckDBPyConnection, schema: Schema) -> None:
    """Every table's Parquet file holds the database's rows: the same md5 of the rows in key order."""
    for name, entry in result.manifest.database.tables.items():
        path = result.folder / entry.parquet
        if not path.is_file():
            continue  # reported by check_files
        table = schema.table(name)
        key = table.primary_key or entry.columns
        cols = ", ".join(
            f"CAST({quote_ident(c)} AS VARCHAR) AS {quote_ident(c)}" if c in entry.cast_to_text
            else quote_ident(c) for c in entry.columns
        )
        order = ", ".join(f"t.{quote_ident(c)}" for c in key)
        digest = f"SELECT md5(coalesce(string_agg(t::VARCHAR, '|' ORDER BY {order}), '')) FROM ({{}}) t"
        try:
            [(ours,)] = con.execute(digest.format(f"SELECT {cols} FROM {table_ref(name)}")).fetchall()
            [(theirs,)] = con.execute(digest.format(
                f"SELECT {cols} FROM read_parquet({quote_literal(str(path))})"
            )).fetchall()
        except duckdb.Error as exc:
            result.add("parquet", entry.parquet, f"cannot be read: {str(exc).splitlines()[0]}")
            continue
        if ours != theirs:
            result.add("parquet", entry.parquet, f"rows differ from table {name} in the database")


def check_tools(result: Verification, toolkit: Toolkit) -> None:
    """The tools the tasks replay with are those the release lists (`tools.json`)."""
    path = result.folder / TOOLS
    try:
        listed = json.loads(path.read_text(encoding="utf-8"))["tools"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        result.add("tools", TOOLS, f"cannot be read: {exc}")
        return
    if dumps(listed) != dumps(toolkit.mcp_tools()):
        ours = {t["name"] for t in toolkit.mcp_tools()}
        theirs = {t["name"] for t in listed}
        changed = sorted(ours ^ theirs) or ["their descriptions or parameters"]
        result.add("tools", TOOLS, "the installed tools differ from the release's ("
                   + ", ".join(changed[:SHOWN]) + "): install the Stateforge version of the manifest")


def replay_tasks(
    result: Verification, ws: Workspace, toolkit: Toolkit, tasks: list[Task],
    *, on_task: Callable[[int, int], None] | None = None,
) -> None:
    """Replay every task's reference calls on a fresh episode and compare with its expected diff."""
    for number, task in enumerate(tasks, 1):
        why = replay_one(ws, toolkit, task)
        if why:
            result.add("replay", f"task {task.id}", why)
        if on_task is not None:
            on_task(number, len(tasks))
    result.checked["tasks_replayed"] = len(tasks)


def replay_one(ws: Workspace, toolkit: Toolkit, task: Task) -> str | None:
    """Why `task` does not replay as recorded, or None when it does."""
    episode = ws.episode(toolkit)
    failure = None
    try:
        for call in task.reference_calls:
            if call.tool == CANNOT_COMPLETE:
                continue
            outcome = episode.call(call.tool, dict(call.arguments))
            if not outcome.ok:
                failure = outcome
                break
    except BaseException:
        ws.discard(episode)
        raise
    with ws.end_state(episode) as end:
        if task.feasible and failure is not None:
            return f"call {failure.tool} failed ({failure.error_kind}): {failure.error}"
        if not task.feasible and (failure is None or failure.error_kind not in REFUSALS):
            return "infeasible, but every reference call succeeded" if failure is None else (
                f"infeasible, but {failure.tool} failed with {failure.error_kind}, not a refusal")
        if end.diff.to_json() != task.diff.to_json():
            got, want = end.diff.summary, task.diff.summary
            return f"the replay's diff differs from the expected diff (got {got}, expected {want})"
        for verifier in task.verifiers:
            if not rows_match(end.query(verifier.sql), verifier.expected):
                return f"{verifier.kind} verifier {verifier.name!r} fails on the replayed end state"
    return None


def _pack_dir(manifest: Manifest) -> Path | None:
    from stateforge.domain.loader import list_domains, schemas_dir

    pack = manifest.inputs.pack
    return schemas_dir() / pack if pack and pack in list_domains() else None
