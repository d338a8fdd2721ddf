"""The build-domain flow under a Prefect test server, and a served deployment through a real local server."""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from stateforge.build import BuildRun, run_build
from stateforge.build import build_domain as build_with_functions
from stateforge.store import read_model, table_hashes
from tests.conftest import FIXTURES
from tests.prefect_runs import flow_run_artifacts, recorded_task_runs

pytestmark = pytest.mark.xdist_group("prefect")
BIN = Path(sys.executable).parent


def hashes(path: Path) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return table_hashes(con, read_model(con)[0])


class Interrupted(Exception):
    pass


def interrupt_after(tables: int):
    """A runner that stops the build once `tables` tables are filled (a killed build)."""
    filled: list[str] = []

    def runner(stage, step, work):
        if stage.name == "fill-table" and len(filled) == tables:
            raise Interrupted(step)
        work()
        if stage.name == "fill-table":
            filled.append(step)

    return runner


def without_timings(value):
    """The report with every timing left out (seconds, wall_seconds), for comparing two builds."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in ("seconds", "wall_seconds")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def test_the_flow_and_the_cli_function_resume_to_the_same_report_and_tables(prefect_server, tmp_path: Path):
    from stateforge.flows.build_domain import build_domain

    ddl = str(FIXTURES / "ddl" / "duckdb_schema.sql")
    out = tmp_path / "out"
    run = BuildRun(ddl, rows=40, seed=3, out=out)
    with pytest.raises(Interrupted):
        run_build(run, runner=interrupt_after(2))
    partial = out / ".duckdb_schema.duckdb.partial"
    saved = tmp_path / "saved.partial"
    shutil.copyfile(partial, saved)

    cli = build_with_functions(ddl, rows=40, out=out, seed=3, resume=True)
    cli_hashes = hashes(out / "duckdb_schema.duckdb")
    shutil.copyfile(saved, partial)
    state = build_domain(domain=ddl, rows=40, out=str(out), seed=3, resume=True, return_state=True)
    flow = state.result()

    assert cli["resumed_tables"] == run.planned.plan.order[:2]
    assert without_timings(flow) == without_timings(cli)
    assert hashes(out / "duckdb_schema.duckdb") == cli_hashes
    assert flow["totals"]["violations"] == 0 and (out / "build_report.json").exists()
    (artifact,) = flow_run_artifacts(state.state_details.flow_run_id, "build-duckdb-schema")
    assert artifact.type == "markdown" and "| table | rows |" in artifact.data
    stages = {"parse-and-plan", "open-database", "second-pass-and-rules", "audit", "publish"}
    filled = {f"fill-{t}" for t in run.planned.plan.order[2:]}
    names = {r.name for r in recorded_task_runs(state.state_details.flow_run_id, stages | filled)}
    assert stages | filled <= names
    assert not {f"fill-{t}" for t in run.planned.plan.order[:2]} & names  # resumed: not filled again


def _listening_port() -> int:
    """A free port below the kernel's ephemeral range (32768 and up on Linux).

    A port found free with bind(0) and then released is in the range the kernel hands to every other
    bind(0) (the fake LLM servers of the other worker): it can be taken again before the Prefect server,
    which takes seconds to start, binds it. A random port below the range is never handed out that way.
    """
    low, _ = (int(x) for x in Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    rng = random.Random()
    for _ in range(100):
        port = rng.randrange(20_000, min(low, 32_768))
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free port between 20000 and the ephemeral range")


def _start_server(
    env: dict[str, str], logs: Path, port: int | None = None
) -> tuple[subprocess.Popen[bytes], dict[str, str]]:
    """A Prefect server on `port` (else a free one) and the environment pointing at it (3 tries on free
    ports: ports get taken)."""
    for attempt in range(3 if port is None else 1):
        port = _listening_port() if port is None or attempt else port
        env = {**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"}
        log = logs / f"server-{attempt}.log"
        server = subprocess.Popen(
            [BIN / "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"],
            env={**env, "PREFECT_API_URL": ""},
            stdout=open(log, "w"),
            stderr=subprocess.STDOUT,
        )
        status = subprocess.run(
            [BIN / "prefect", "server", "status", "--wait", "--timeout", "120"],
            env=env, capture_output=True, timeout=150,
        )
        if status.returncode == 0:
            return server, env
        server.terminate()
        server.wait(timeout=20)
        if "address already in use" not in log.read_text().lower():
            raise AssertionError(f"the Prefect server did not start:\n{log.read_text()[-3000:]}")
    raise AssertionError("three ports were taken while the Prefect server started")


@pytest.mark.slow
def test_served_deployment_runs_through_a_real_prefect_server(tmp_path: Path):
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",
        "PREFECT_SERVER_UI_ENABLED": "false",
    }
    logs = tmp_path / "logs"
    logs.mkdir()
    port = _listening_port()
    served = impatient = server = None
    try:
        # Serving starts before the server does: it waits for the API to answer, then registers.
        served = subprocess.Popen(
            [BIN / "stateforge", "serve", "music", "--pid-file", tmp_path / "serve.pid",
             "--api-grace", "300"],
            env={**env, "PREFECT_API_URL": f"http://127.0.0.1:{port}/api"},
            stdout=open(logs / "serve.log", "w"),
            stderr=subprocess.STDOUT,
        )
        waited = time.monotonic() + 120
        while "registering the deployments when it does" not in (logs / "serve.log").read_text():
            assert served.poll() is None and time.monotonic() < waited, (logs / "serve.log").read_text()
            time.sleep(0.5)
        server, env = _start_server(env, logs, port)
        # a second serving process that gives the API 5 s once it is gone
        impatient = subprocess.Popen(
            [BIN / "stateforge", "serve", "game", "--api-grace", "5"],
            env=env,
            stdout=open(logs / "impatient.log", "w"),
            stderr=subprocess.STDOUT,
        )
        out = tmp_path / "out"
        deadline = time.monotonic() + 120
        while True:  # the deployment exists once `serve` has registered it
            done = subprocess.run(
                [
                    BIN / "prefect",
                    "deployment",
                    "run",
                    "build-domain/music",
                    "-p",
                    "scale=0.02",
                    "-p",
                    f"out={out}",
                    "--watch",
                ],
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if (
                done.returncode == 0
                or time.monotonic() > deadline
                or "not found" not in done.stdout + done.stderr
            ):
                break
            time.sleep(2)
        assert done.returncode == 0, done.stdout + done.stderr + (logs / "serve.log").read_text()[-3000:]
        assert (out / "music.duckdb").exists() and (out / "build_report.json").exists()
        audit = subprocess.run(
            [BIN / "stateforge", "audit", out / "music.duckdb"], capture_output=True, text=True
        )
        assert audit.returncode == 0, audit.stdout
        assert (tmp_path / "serve.pid").read_text().strip() == str(served.pid)

        # the impatient one registered its deployments too (a loaded machine may start it slowly)
        waited = time.monotonic() + 120
        while "serving " not in (said := (logs / "impatient.log").read_text()):
            assert impatient.poll() is None and time.monotonic() < waited, said
            time.sleep(0.5)

        # The server goes first (as a careless `serve-stop` would): SIGTERM still stops serving, exit 0.
        server.terminate()
        server.wait(timeout=30)
        time.sleep(3)  # long enough for the serving process to notice the API is gone
        served.send_signal(signal.SIGTERM)
        code = served.wait(timeout=60)  # stops, not hangs: no timing asserted beyond that bound
        log = (logs / "serve.log").read_text()
        assert code == 0, f"exit {code}:\n{log[-3000:]}"
        assert not (tmp_path / "serve.pid").exists()
        assert "Traceback" not in log, log[-3000:]
        assert "could not pause the 4 deployments" in log, log[-3000:]
        # The other one, left alone, says the API is gone and stops by itself, exit 1.
        code = impatient.wait(timeout=60)
        log = (logs / "impatient.log").read_text()
        assert code == 1 and "has not answered for 5 s: stopping" in log, log[-3000:]
        assert log.count("does not answer") == 1 and "Traceback" not in log, log[-3000:]
    finally:
        for proc in (served, impatient, server):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def test_flow_takes_the_llm_options(prefect_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from stateforge.fakellm.server import FakeLLMServer
    from stateforge.flows.build_domain import build_domain

    monkeypatch.setenv("OPENAI_API_KEY", "k")
    monkeypatch.setenv("STATEFORGE_LLM_CACHE", str(tmp_path / "cache"))
    with FakeLLMServer() as server:
        report = build_domain(
            domain=str(FIXTURES / "ddl" / "postgres_dump.sql"),
            rows=10,
            out=str(tmp_path / "out"),
            backend="openai",
            model="fake-model",
            base_url=server.base_url,
        )
        calls = server.stats.by_path["/v1/chat/completions"]
    assert report["totals"]["violations"] == 0
    assert report["llm"]["totals"]["calls"] == calls > 0
    assert report["inputs"]["llm"]["model"] == "fake-model"
