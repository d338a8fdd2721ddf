"""tasks.jsonl: one task a line, canonical JSON (sorted keys, compact), written atomically.

write_tasks("artifacts/music/tasks.jsonl", tasks)     # all or nothing: a failure keeps the old file
tasks = read_tasks("artifacts/music/tasks.jsonl")      # TaskFileError naming file:line otherwise
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from pydantic import ValidationError

from stateforge.errors import TerminalError
from stateforge.tasks.model import Task


class TaskFileError(TerminalError):
    """A tasks file is missing or a line of it is not a valid task; the message names file:line."""


def write_tasks(path: str | Path, tasks: Iterable[Task]) -> Path:
    """Write `tasks` to `path`, one canonical line each, atomically (a temporary file moved into place)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for task in tasks:
                fh.write(task.to_json() + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def iter_tasks(path: str | Path, *, check_ids: bool = True) -> Iterator[tuple[int, Task]]:
    """(line number, task) for every non-blank line; `TaskFileError` at the first bad one."""
    path = Path(path)
    if not path.is_file():
        raise TaskFileError(
            f"{path}: no such file. Generate tasks first (`stateforge generate-tasks DOMAIN`)."
        )
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            yield number, parse_task(line, f"{path}:{number}", check_id=check_ids)


def read_tasks(path: str | Path, *, check_ids: bool = True) -> list[Task]:
    """Every task of a tasks.jsonl file (see `iter_tasks`)."""
    return [task for _, task in iter_tasks(path, check_ids=check_ids)]


def parse_task(text: str, where: str = "task", *, check_id: bool = True) -> Task:
    """One task from its JSON text; `TaskFileError` naming `where`, the key and the problem otherwise."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise TaskFileError(f"{where}: not JSON ({exc.msg} at column {exc.colno}).") from None
    try:
        task = Task.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
        more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
        raise TaskFileError(
            f"{where}: {loc}: {first['msg']}{more}. A task line has the keys of docs/tasks.md."
        ) from None
    if check_id and task.id != task.content_id():
        raise TaskFileError(
            f"{where}: task {task.id} does not hash to its id ({task.content_id()}): the line was edited "
            "by hand. Generate the tasks again, or restore the line."
        )
    return task
