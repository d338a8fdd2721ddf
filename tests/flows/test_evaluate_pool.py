"""Scale-out on a Prefect work pool: two real `prefect worker` processes (as if on two machines) poll a
process pool; `evaluate_on_pool` splits an evaluation of the small pack into shards, one flow run each; the
merged run equals a local run, and both workers did work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stateforge.evaluate import EvalRun
from stateforge.evaluate import evaluate as evaluate_here
from stateforge.evaluate.rundir import RunFolder
from tests.evaluate.pack import built_pack

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("prefect")]
PREFECT = str(Path(sys.executable).with_name("prefect"))
ROOT = Path(__file__).resolve().parents[2]
POOL = "stateforge-test-pool"
KEPT = ("episodes", "passed", "failed", "infra_errors", "avg_at_k", "pass_at_k", "pass_hat_k", "groups",
        "failures", "ci", "complete")
WAIT = 120.0
"""Seconds to wait for the workers to come online (generous: a loaded 2-core machine is slow)."""


@pytest.fixture
def two_workers(prefect_server, tmp_path: Path) -> Iterator[list[str]]:
    """Two `prefect worker start --pool POOL --type process --limit 1` processes, stopped afterwards."""
    from prefect.settings import PREFECT_API_URL

    from stateforge.flows.evaluate_pool import ensure_pool, online_workers

    ensure_pool(POOL)
    env = {**os.environ, "PREFECT_API_URL": str(PREFECT_API_URL.value()), "PREFECT_WORKER_QUERY_SECONDS": "1",
           "PREFECT_WORKER_HEARTBEAT_SECONDS": "5", "PYTHONPATH": str(ROOT)}
    names = ["worker-a", "worker-b"]
    procs, logs = [], []
    for name in names:
        log = (tmp_path / f"{name}.log").open("w")
        logs.append(log)
        procs.append(subprocess.Popen(
            [PREFECT, "worker", "start", "--pool", POOL, "--type", "process", "--name", name, "--limit", "1"],
            env=env, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        ))
    try:
        deadline = time.monotonic() + WAIT
        while sorted(online_workers(POOL)) != names:
            dead = [n for n, p in zip(names, procs, strict=True) if p.poll() is not None]
            assert not dead, f"{dead} exited: {(tmp_path / f'{dead[0]}.log').read_text()[-3000:]}"
            online = online_workers(POOL)
            assert time.monotonic() < deadline, f"workers not online after {WAIT:.0f} s: {online}"
            time.sleep(1)
        yield names
    finally:
        for proc in procs:  # the worker and the flow-run processes it started (its own session)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=30)
        for log in logs:
            log.close()


def test_shards_on_two_workers_merge_into_the_run_a_local_run_gives(
    two_workers: list[str], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    from stateforge.flows.evaluate_pool import evaluate_on_pool

    db = built_pack(tmp_path_factory)
    said: list[str] = []
    pooled = evaluate_on_pool(EvalRun(db, solver="oracle", k=2, concurrency=2, out=tmp_path / "pool"), POOL,
                              shards=2, timeout=600, say=said.append)
    assert pooled["harness"]["ok"], pooled["harness"]["why"]
    local = evaluate_here(db, solver="oracle", k=2, concurrency=2, out=tmp_path / "local")
    assert {k: pooled[k] for k in KEPT} == {k: local[k] for k in KEPT}
    assert pooled["passed"] == pooled["episodes"] > 0
    shards = pooled["shards"]
    assert [s["state"] for s in shards] == ["COMPLETED", "COMPLETED"], shards
    assert sorted(s["worker"] for s in shards) == two_workers, f"each worker should run a shard: {shards}"
    assert sum(s["episodes_run"] for s in shards) == pooled["episodes"]
    order = [r.key for r in RunFolder.open(Path(pooled["folder"])).records()]
    assert order == [r.key for r in RunFolder.open(Path(local["folder"])).records()]
    assert Path(pooled["report"]).is_file() and pooled["pool"] == POOL
    assert any("2 shards on work pool" in s for s in said), said


def test_a_shard_on_a_worker_that_cannot_see_the_run_fails_saying_so(prefect_server, tmp_path: Path) -> None:
    from stateforge.flows.evaluate_pool import evaluate_shard

    state = evaluate_shard(run_dir=str(tmp_path / "elsewhere"), shard="s1", pairs=[["t", 0]],
                           return_state=True)
    assert state.is_failed()
    assert "WorkerSetupError" in str(state.message) and "same absolute path" in str(state.message)
