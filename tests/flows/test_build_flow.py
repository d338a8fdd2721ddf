"""The build-domain flow under a Prefect test server, and a served deployment through a real local server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

from pipeline.build import build_domain as build_with_functions
from pipeline.store import read_model, table_hashes
from tests.conftest import FIXTURES

pytestmark = pytest.mark.xdist_group("prefect")
BIN = Path(sys.executable).parent


def hashes(path: Path) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return table_hashes(con, read_model(con)[0])


def test_flow_builds_the_same_database_as_the_cli_functions(prefect_server, tmp_path: Path):
    from flows.build_domain import build_domain

    ddl = FIXTURES / "ddl" / "duckdb_schema.sql"
    report = build_domain(domain=str(ddl), rows=40, out=str(tmp_path / "flow"), seed=3)
    assert report["totals"]["violations"] == 0
    assert (tmp_path / "flow" / "build_report.json").exists()
    with get_client(sync_client=True) as client:
        key = ArtifactFilter(key=ArtifactFilterKey(any_=["build-duckdb-schema"]))
        (artifact,) = client.read_artifacts(artifact_filter=key)
    assert artifact.type == "markdown" and "| table | rows |" in artifact.data
    build_with_functions(str(ddl), rows=40, out=tmp_path / "cli", seed=3)
    name = ddl.stem + ".duckdb"
    assert hashes(tmp_path / "flow" / name) == hashes(tmp_path / "cli" / name)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_served_deployment_runs_through_a_real_prefect_server(tmp_path: Path):
    port = _free_port()
    env = {
        **os.environ,
        "PREFECT_HOME": str(tmp_path / "prefect"),
        "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_RUNNER_POLL_FREQUENCY": "2",
        "PREFECT_SERVER_UI_ENABLED": "false",
    }
    logs = tmp_path / "logs"
    logs.mkdir()
    server = subprocess.Popen(
        [BIN / "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port), "--no-ui"],
        env={**env, "PREFECT_API_URL": ""},
        stdout=open(logs / "server.log", "w"),
        stderr=subprocess.STDOUT,
    )
    served = None
    try:
        subprocess.run(
            [BIN / "prefect", "server", "status", "--wait", "--timeout", "120"],
            env=env,
            check=True,
            capture_output=True,
            timeout=150,
        )
        served = subprocess.Popen(
            [BIN / "stateforge", "serve", "music"],
            env=env,
            stdout=open(logs / "serve.log", "w"),
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
    finally:
        for proc in (served, server):
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()


def test_flow_takes_the_llm_options(prefect_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from flows.build_domain import build_domain
    from pipeline.fakellm.server import FakeLLMServer

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
