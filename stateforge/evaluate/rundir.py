"""A run's folder: `run.json`, `episodes.jsonl` (appended as episodes finish) and `summary.json`.

    folder = RunFolder.create(runs_dir, spec)       # or RunFolder.open(runs_dir / run_id) to resume
    folder.append(record)                            # one line, written and flushed at once
    folder.records()                                 # the last record of each (task, trial)

Written so that a run killed at any moment can be resumed: `run.json` and `summary.json` are replaced
atomically (a temporary file moved into place); each episode is one line written with one `write` and
flushed, so a kill leaves at most the last line cut short, which reading skips and reopening truncates.
A (task, trial) recorded twice (an infrastructure error run again on resume) counts by its last line.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
import tempfile
import threading
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from stateforge.errors import TerminalError
from stateforge.evaluate.records import EpisodeRecord, RunSpec
from stateforge.values import dumps

RUN_FILE = "run.json"
EPISODES_FILE = "episodes.jsonl"
SUMMARY_FILE = "summary.json"
SHARDS_DIR = "shards"


class RunError(TerminalError):
    """A run folder is missing, or its files cannot be read; the message names the file and what to do."""


def new_run_id(solver: str, now: dt.datetime | None = None) -> str:
    """`20261130T184301-oracle-3fa2`: the UTC time, the solver, 4 random hex digits (sortable, readable)."""
    now = now or dt.datetime.now(dt.UTC)
    name = re.sub(r"[^a-z0-9]+", "-", solver.lower().rsplit(":", 1)[-1]).strip("-")[:24] or "solver"
    return f"{now:%Y%m%dT%H%M%S}-{name}-{secrets.token_hex(2)}"


def write_json(path: Path, data: Any) -> Path:
    """Write `data` as indented canonical JSON, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dumps(data, indent=2) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class RunFolder:
    """One run's folder (see the module docstring). `append` may be called from many threads."""

    def __init__(self, path: Path, spec: RunSpec, episodes: Path | None = None) -> None:
        self.path = path
        self.spec = spec
        self._episodes = episodes or path / EPISODES_FILE
        self._lock = threading.Lock()
        self._fh: Any = None

    @property
    def run_id(self) -> str:
        return self.spec.run_id

    @property
    def episodes_path(self) -> Path:
        return self._episodes

    def shard(self, name: str) -> RunFolder:
        """The same run, with episodes going to `shards/<name>/episodes.jsonl` (one shard of a run on a work
        pool; `stateforge.evaluate.shards` merges them into the run's own file)."""
        folder = self.path / SHARDS_DIR / name
        folder.mkdir(parents=True, exist_ok=True)
        return RunFolder(self.path, self.spec, folder / EPISODES_FILE)

    @property
    def summary_path(self) -> Path:
        return self.path / SUMMARY_FILE

    @classmethod
    def create(cls, runs_dir: Path, spec: RunSpec) -> RunFolder:
        """A new folder `runs_dir/<run_id>` with its run.json."""
        path = runs_dir / spec.run_id
        if path.exists():
            raise RunError(f"{path} already exists: a run id is used once. Start a new run, or resume it.")
        path.mkdir(parents=True)
        write_json(path / RUN_FILE, spec.model_dump(mode="json"))
        return cls(path, spec)

    @classmethod
    def open(cls, path: Path) -> RunFolder:
        """An existing run's folder (to resume it or read it); `RunError` when it has no readable run.json."""
        file = path / RUN_FILE
        if not file.is_file():
            raise RunError(
                f"no run at {path} ({RUN_FILE} is missing). Give the id of a run under "
                "artifacts/<domain>/runs/ (or its folder)."
            )
        try:
            spec = RunSpec.model_validate_json(file.read_text(encoding="utf-8"))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(top level)"
            raise RunError(f"{file}: {where}: {first['msg']}; the file was edited or is not a run.") from None
        return cls(path, spec)

    # --- episodes ---------------------------------------------------------------------------------

    def records(self) -> list[EpisodeRecord]:
        """The last record of each (task, trial), in the order they were first written. A line cut short
        by a kill (the last one, without its newline) is skipped; any other bad line is a `RunError`."""
        if not self.episodes_path.is_file():
            return []
        latest: dict[tuple[str, int], EpisodeRecord] = {}
        text = self.episodes_path.read_text(encoding="utf-8")
        lines = text.split("\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            last = number == len(lines)  # no newline after it: written in part
            try:
                record = EpisodeRecord.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError) as exc:
                if last:
                    break
                raise RunError(
                    f"{self.episodes_path}:{number}: not an episode record ({str(exc).splitlines()[0]}). "
                    "Delete that line to resume (its episode runs again)."
                ) from None
            if last:
                break
            latest.pop(record.key, None)
            latest[record.key] = record
        return list(latest.values())

    def append(self, record: EpisodeRecord) -> None:
        """Write one record as one line and flush it (thread-safe)."""
        line = dumps(record.model_dump(mode="json")) + "\n"
        with self._lock:
            if self._fh is None:
                self._fh = self._open_for_append()
            self._fh.write(line)
            self._fh.flush()

    def sync(self) -> None:
        """Make the lines written so far durable (fsync), e.g. after each batch."""
        with self._lock:
            if self._fh is not None:
                os.fsync(self._fh.fileno())

    def _open_for_append(self) -> Any:
        """Open episodes.jsonl to append, first cutting a line a kill left unfinished."""
        path = self.episodes_path
        if path.is_file():
            data = path.read_bytes()
            end = data.rfind(b"\n") + 1
            if end != len(data):
                with path.open("r+b") as fh:
                    fh.truncate(end)
        return path.open("a", encoding="utf-8", newline="\n")

    def write_summary(self, summary: dict[str, Any]) -> Path:
        """Write summary.json atomically."""
        return write_json(self.summary_path, summary)

    def close(self) -> None:
        """Flush, sync and close episodes.jsonl."""
        with self._lock:
            if self._fh is not None:
                self._fh.flush()
                os.fsync(self._fh.fileno())
                self._fh.close()
                self._fh = None


def find_run(run: str | Path, runs_dirs: list[Path]) -> Path:
    """The folder of a run given by its folder or its id (looked up under each of `runs_dirs`)."""
    path = Path(run)
    if (path / RUN_FILE).is_file():
        return path
    for folder in runs_dirs:
        if (folder / str(run) / RUN_FILE).is_file():
            return folder / str(run)
    where = ", ".join(str(d) for d in runs_dirs) or "artifacts/<domain>/runs"
    raise RunError(f"no run {str(run)!r}: not a run folder, and no such id under {where}.")
