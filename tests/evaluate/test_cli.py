"""`stateforge evaluate` and `stateforge compare-runs` through the real console script: the JSON summary,
the table, exit codes, and a run killed in the middle then resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.tasks import Task

pytestmark = pytest.mark.xdist_group("evaluate")
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}  # the test solvers are importable as module:attribute


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [STATEFORGE, *map(str, args)], capture_output=True, text=True, timeout=300, env=ENV, cwd=ROOT
    )


def test_json_summary_table_and_comparison(pack_db: Path, tasks: list[Task], tmp_path: Path) -> None:
    done = run("evaluate", pack_db, "--solver", "oracle", "-k", "2", "--concurrency", "2", "--json",
               "--out", tmp_path)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    contract = (
        "run_id", "episodes", "passed", "failed", "infra_errors", "avg_at_k", "pass_at_k", "pass_hat_k"
    )
    assert set(contract) <= set(summary)
    n = 2 * len(tasks)
    assert (summary["episodes"], summary["passed"], summary["pass_hat_k"]) == (n, n, 1.0)
    assert set(summary["groups"]) == {"domain", "capability", "difficulty", "plan_length", "feasible"}
    for group in summary["groups"]["difficulty"].values():
        assert set(contract[-3:]) <= set(group)

    table = run("evaluate", pack_db, "--solver", "noop", "--tasks", "infeasible", "--out", tmp_path)
    assert table.returncode == 0, table.stderr
    assert "Avg@1" in table.stdout and "Pass^1" in table.stdout and "100.0%" in table.stdout
    noop_id = next(p.name for p in tmp_path.iterdir() if "-noop-" in p.name)

    compared = run("compare-runs", tmp_path / summary["run_id"], tmp_path / noop_id, "--json")
    assert compared.returncode == 0, compared.stderr
    result = json.loads(compared.stdout)
    assert result["shared_tasks"] == sum(not t.feasible for t in tasks)
    assert result["paired"]["difference"] == 0.0 and result["paired"]["ties"] == result["shared_tasks"]


def test_exit_codes_bad_input_and_a_harness_that_failed(pack_db: Path, tmp_path: Path) -> None:
    unknown = run("evaluate", pack_db, "--solver", "oracel", "--out", tmp_path)
    assert unknown.returncode == 2 and 'Did you mean "oracle"' in unknown.stderr
    no_solver = run("evaluate", pack_db, "--out", tmp_path)
    assert no_solver.returncode == 2 and "--solver" in no_solver.stderr
    crashed = run("evaluate", pack_db, "--solver", "tests.evaluate.solvers:crashing", "--limit", "2",
                  "--retries", "0", "--max-infra-share", "1", "--json", "--out", tmp_path)
    assert crashed.returncode == 1, crashed.stderr  # never 0 with every episode crashed
    assert "every one of the 2 episodes was an infrastructure error" in crashed.stderr
    assert json.loads(crashed.stdout)["infra_errors"] == 2


def test_a_killed_run_resumes_and_skips_its_finished_episodes(
    pack_db: Path, tasks: list[Task], tmp_path: Path
) -> None:
    args = [STATEFORGE, "evaluate", str(pack_db), "--solver", "tests.evaluate.solvers:slow_noop", "--option",
            "delay=0.3", "-k", "2", "--concurrency", "1", "--out", str(tmp_path), "--json"]
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        episodes: Path | None = None
        while time.monotonic() < deadline:
            found = list(tmp_path.glob(f"*/{EPISODES_FILE}"))
            if found and len(found[0].read_text().splitlines()) >= 3:
                episodes = found[0]
                break
            assert child.poll() is None, "the run ended before it could be killed"
            time.sleep(0.05)
        assert episodes is not None, "no episode was written in time"
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    before = episodes.read_text().splitlines()
    total = 2 * len(tasks)
    assert 3 <= len(before) < total
    resumed = run("evaluate", pack_db, "--resume", episodes.parent.name, "--out", tmp_path, "--json")
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    after = episodes.read_text().splitlines()
    kept = [line for line in before if line.endswith("}")]  # a line the kill cut short is dropped
    assert after[: len(kept)] == kept and len(after) == total
    assert summary["complete"] and summary["timing"]["session_episodes"] == total - len(kept)
    assert summary["passed"] == 2 * sum(not t.feasible for t in tasks)
