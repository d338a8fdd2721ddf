"""A run split into shards of (task, trial) pairs, each run elsewhere (a Prefect work pool's workers,
possibly on several machines), and merged back into the run by its id.

    shards = split(pending_pairs(run), 4)                       # on the machine that asked for the run
    run_shard(run_dir, "s1-3fa2", shards[0], concurrency=4)     # on a worker: shards/s1-3fa2/episodes.jsonl
    merged = merge_shards(folder)                               # back home: into episodes.jsonl, run order

The shared-path assumption: every worker reads the run folder (run.json: the database, the tasks file, the
solver and its settings) and writes its shard's episodes into it, at the same absolute path as the machine
that asked (a shared filesystem, or a release directory copied to the same path everywhere). A worker that
cannot see the folder, the database or the tasks file stops with a `WorkerSetupError` naming the host,
the path and what to do; one that sees other data (another fingerprint, another tasks file) too.

A shard writes each episode as one line, flushed at once, exactly like a local run: a worker killed in the
middle leaves its finished episodes behind, the merge takes them, and `--resume` runs what is missing
(on the pool again, or locally). A shard also writes `worker.json`: the worker, the host, the process, how
many episodes it ran (the run's summary lists them under `shards`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import socket
from pathlib import Path
from typing import Any

from stateforge.errors import TerminalError
from stateforge.evaluate.records import EpisodeRecord, RunSpec
from stateforge.evaluate.rundir import EPISODES_FILE, RUN_FILE, SHARDS_DIR, RunFolder, write_json
from stateforge.evaluate.runner import STAGES, EvalRun, run_all
from stateforge.stages import Runner, direct

SHARD_STAGES = tuple(s for s in STAGES if s.name != "summarize")
"""What a worker runs of a shard: prepare and the episodes (the run is summarized where it was asked)."""

WORKER_FILE = "worker.json"
MERGED = ".merged"
"""The suffix a shard's episodes file gets once its lines are in the run's own file."""


class WorkerSetupError(TerminalError):
    """A worker cannot run its shard: the run folder, the database or the tasks file is not where the run
    says (the shared-path assumption), or holds other data."""


def split(pairs: list[tuple[str, int]], shards: int) -> list[list[tuple[str, int]]]:
    """`pairs` dealt round-robin into at most `shards` non-empty lists (each a mix of tasks and trials,
    so that slow tasks spread out); the order within a shard is the run's order."""
    if shards < 1:
        raise TerminalError(f"--shards must be at least 1, got {shards}.")
    out: list[list[tuple[str, int]]] = [[] for _ in range(min(shards, len(pairs)))]
    for i, pair in enumerate(pairs):
        out[i % len(out)].append(pair)
    return out


def where() -> str:
    """This machine and process, for messages: `host (worker W, pid P)`."""
    worker = os.environ.get("PREFECT__WORKER_NAME")
    return f"{socket.gethostname()} ({'worker ' + worker + ', ' if worker else ''}pid {os.getpid()})"


def check_worker_paths(run_dir: Path) -> RunSpec:
    """The run's spec, after checking that this machine sees its folder, database and tasks file."""
    hint = ("Every worker needs the run folder, the database and the tasks file at the same absolute path as "
            "the machine that started the run: put them on a shared filesystem (or copy the release "
            "directory to that path on every machine). See docs/evaluate.md, \"Scale-out\".")
    if not (run_dir / RUN_FILE).is_file():
        raise WorkerSetupError(
            f"worker on {where()}: no run folder at {run_dir} ({RUN_FILE} is missing). {hint}"
        )
    spec = RunFolder.open(run_dir).spec
    for what, path in (("database", spec.db), ("tasks file", spec.tasks_file)):
        if not Path(path).is_file():
            raise WorkerSetupError(
                f"worker on {where()}: the {what} of run {spec.run_id} is not at {path}. {hint}"
            )
    return spec


def run_pairs(spec: RunSpec) -> list[tuple[str, int]]:
    """Every (task id, trial) of a run, in its order (trial-major, like a local run)."""
    return [(task_id, trial) for trial in range(spec.k) for task_id in spec.task_ids]


def shard_names(folder: RunFolder) -> list[str]:
    """The shards of a run that have a folder, by name."""
    root = folder.path / SHARDS_DIR
    return sorted(p.name for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


def write_worker_file(folder: RunFolder, shard: str, pairs: int, ran: int, started: str) -> Path:
    """shards/<shard>/worker.json: who ran the shard, where, and how much."""
    return write_json(folder.path / SHARDS_DIR / shard / WORKER_FILE, {
        "shard": shard,
        "worker": os.environ.get("PREFECT__WORKER_NAME"),
        "flow_run": os.environ.get("PREFECT__FLOW_RUN_ID"),
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "pairs": pairs,
        "episodes_run": ran,
        "started_at": started,
        "finished_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    })


def workers(folder: RunFolder) -> list[dict[str, Any]]:
    """The worker.json of every shard of the run that wrote one."""
    out = []
    for name in shard_names(folder):
        file = folder.path / SHARDS_DIR / name / WORKER_FILE
        if file.is_file():
            out.append(json.loads(file.read_text(encoding="utf-8")))
    return out


def merge_shards(folder: RunFolder) -> int:
    """Append the episodes every shard recorded to the run's episodes.jsonl, in the run's order, and mark
    each shard's file merged; return how many records were appended. Idempotent: a merged file is not read
    again, and a record the run already holds with the same outcome is not appended twice."""
    order = {pair: i for i, pair in enumerate(run_pairs(folder.spec))}
    held = {r.key: r for r in folder.records()}
    found: dict[tuple[str, int], EpisodeRecord] = {}
    files = []
    for name in shard_names(folder):
        shard = folder.shard(name)
        if not shard.episodes_path.is_file():
            continue
        files.append(shard.episodes_path)
        for record in shard.records():
            if record.key not in order:
                raise TerminalError(
                    f"{shard.episodes_path}: episode {record.task_id} trial {record.trial} is not part of "
                    f"run {folder.run_id}; the shard belongs to another run. Move it away and resume."
                )
            before = found.get(record.key) or held.get(record.key)
            if before is None or before.outcome == "infra_error":  # a graded episode is never replaced
                found[record.key] = record
    merged = sorted(found.values(), key=lambda r: order[r.key])
    for record in merged:
        folder.append(record)
    folder.sync()
    for path in files:
        path.replace(path.with_name(EPISODES_FILE + MERGED))
    return len(merged)


def run_shard(
    run_dir: str | Path,
    shard: str,
    pairs: list[tuple[str, int]] | list[list[Any]],
    *,
    concurrency: int = 4,
    workdir: str | Path | None = None,
    runner: Runner = direct,
) -> dict[str, Any]:
    """Run one shard of a run on this machine (a worker): its (task id, trial) pairs that the shard has
    not finished yet, each episode appended to shards/<shard>/episodes.jsonl. Returns what worker.json says.

    `WorkerSetupError` when this machine does not see the run's folder, database or tasks file;
    `TerminalError` for a pair that is not part of the run."""
    folder = Path(run_dir)
    spec = check_worker_paths(folder)
    wanted = [(str(t), int(n)) for t, n in pairs]
    known = set(run_pairs(spec))
    stray = [p for p in wanted if p not in known]
    if stray:
        raise TerminalError(
            f"shard {shard}: task {stray[0][0]} trial {stray[0][1]} is not part of run {spec.run_id} "
            f"(k={spec.k}, {len(spec.task_ids)} tasks); submit the shards of this run again."
        )
    started = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    run = EvalRun(spec.db, db=spec.db, tasks_file=spec.tasks_file, resume=str(folder),
                  concurrency=concurrency, workdir=workdir, shard=shard, pairs=wanted)
    run_all(run, SHARD_STAGES, runner)
    assert run.folder is not None
    write_worker_file(run.folder, shard, len(wanted), run.done, started)
    return json.loads((folder / SHARDS_DIR / shard / WORKER_FILE).read_text(encoding="utf-8"))
