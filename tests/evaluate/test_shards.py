"""Shards of a run, run here one after the other as workers would run them: the merge gives the run a
local run gives (same records in the same order, same summary), a resume takes what shards left, and a
worker that cannot see the run's files says where and what to do."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import EvalRun, evaluate
from stateforge.evaluate.rundir import RUN_FILE, SHARDS_DIR, RunFolder
from stateforge.evaluate.runner import prepare, release
from stateforge.evaluate.shards import WorkerSetupError, merge_shards, run_pairs, run_shard, split, workers

pytestmark = pytest.mark.xdist_group("evaluate")
KEPT = ("episodes", "passed", "failed", "infra_errors", "avg_at_k", "pass_at_k", "pass_hat_k", "groups",
        "failures", "ci", "complete")


def new_run(db: Path, out: Path, **options: object) -> Path:
    """A run folder with its run.json and no episode (what `evaluate --pool` makes before submitting)."""
    run = EvalRun(db, out=out, **options)  # type: ignore[arg-type]
    try:
        prepare(run)
    finally:
        release(run)
    assert run.folder is not None
    return run.folder.path


def test_split_deals_pairs_round_robin() -> None:
    pairs = [(f"t{i}", 0) for i in range(7)]
    parts = split(pairs, 3)
    assert parts == [[pairs[0], pairs[3], pairs[6]], [pairs[1], pairs[4]], [pairs[2], pairs[5]]]
    assert split(pairs[:2], 5) == [[pairs[0]], [pairs[1]]]
    with pytest.raises(TerminalError, match="at least 1"):
        split(pairs, 0)


def test_shards_merge_into_the_run_a_local_run_gives(pack_db: Path, tmp_path: Path) -> None:
    local = evaluate(pack_db, solver="noop", k=2, out=tmp_path / "local", report=False)
    folder = new_run(pack_db, tmp_path / "pool", solver="noop", k=2)
    spec = RunFolder.open(folder).spec
    parts = split(run_pairs(spec), 2)
    done = [run_shard(folder, f"s-{i}", pairs, concurrency=2) for i, pairs in enumerate(parts)]
    assert [d["episodes_run"] for d in done] == [len(p) for p in parts]
    assert {w["shard"] for w in workers(RunFolder.open(folder))} == {"s-0", "s-1"}

    # merges, runs nothing
    summary = evaluate(pack_db, resume=folder.name, out=tmp_path / "pool", report=False)
    assert summary["timing"]["session_episodes"] == 0
    assert {k: summary[k] for k in KEPT} == {k: local[k] for k in KEPT}
    ours = [(r.task_id, r.trial) for r in RunFolder.open(folder).records()]
    theirs = [(r.task_id, r.trial) for r in RunFolder.open(Path(local["folder"])).records()]
    assert ours == theirs == run_pairs(spec)  # the run's order, whatever shard ran what
    assert merge_shards(RunFolder.open(folder)) == 0  # merged once: nothing comes twice
    assert len((folder / "episodes.jsonl").read_text().splitlines()) == len(ours)


def test_a_resume_runs_only_what_the_shards_did_not(pack_db: Path, tmp_path: Path) -> None:
    folder = new_run(pack_db, tmp_path, solver="oracle")
    pairs = run_pairs(RunFolder.open(folder).spec)
    run_shard(folder, "half", pairs[: len(pairs) // 2])
    again = run_shard(folder, "half", pairs[: len(pairs) // 2])  # a shard run twice: its episodes are done
    assert again["episodes_run"] == 0
    summary = evaluate(pack_db, resume=str(folder), out=tmp_path, report=False)
    assert summary["timing"]["session_episodes"] == len(pairs) - len(pairs) // 2
    assert summary["complete"] and summary["passed"] == len(pairs)


def test_a_worker_that_cannot_see_the_files_says_where_and_what_to_do(pack_db: Path, tmp_path: Path) -> None:
    with pytest.raises(WorkerSetupError, match=r"no run folder at .*Scale-out"):
        run_shard(tmp_path / "nowhere", "s", [])
    folder = new_run(pack_db, tmp_path / "runs", solver="noop")
    pairs = run_pairs(RunFolder.open(folder).spec)
    with pytest.raises(TerminalError, match="is not part of run"):
        run_shard(folder, "s", [(pairs[0][0], 7)])
    moved = tmp_path / "moved.duckdb"
    spec = json.loads((folder / RUN_FILE).read_text())
    spec["db"] = str(moved)
    (folder / RUN_FILE).write_text(json.dumps(spec))
    with pytest.raises(WorkerSetupError, match=rf"database of run .* is not at {moved}.*same absolute path"):
        run_shard(folder, "s", pairs[:1])
    shutil.copy(pack_db, moved)
    assert run_shard(folder, "s", pairs[:1])["episodes_run"] == 1
    assert (folder / SHARDS_DIR / "s" / "episodes.jsonl").is_file()


def test_run_json_holds_absolute_paths_so_workers_start_anywhere(
    pack_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    folder = new_run(Path(os.path.relpath(pack_db, here)), Path("runs"), solver="noop")
    spec = RunFolder.open(folder).spec
    assert folder.is_absolute() and Path(spec.db).is_absolute() and Path(spec.tasks_file).is_absolute()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # a worker's own working directory
    assert run_shard(folder, "s", run_pairs(spec)[:1])["episodes_run"] == 1
