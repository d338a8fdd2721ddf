"""The generate-tasks flow with the LLM backend, under the Prefect test server: its parameters reach the
LLM generator, and the report's artifact carries the LLM's account."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.fakellm.server import FakeLLMServer
from stateforge.tasks import read_tasks
from tests.episode.fixture import build_shop
from tests.prefect_runs import flow_run_artifacts

pytestmark = pytest.mark.xdist_group("prefect")


def test_the_flow_generates_with_the_llm(
    prefect_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from stateforge.flows.generate_tasks import generate_tasks

    db = build_shop(tmp_path / "build")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("STATEFORGE_LLM_CACHE", str(tmp_path / "cache"))
    with FakeLLMServer(seed=4) as server:
        state = generate_tasks(
            domain=str(db),
            n=2,
            out=str(tmp_path / "out"),
            model="fake-model",
            base_url=server.base_url,
            max_turns=15,
            max_tool_calls=30,
            return_state=True,
        )
        report = state.result()
        calls = server.stats.by_path["/v1/chat/completions"]
    assert report["backend"] == "openai" and report["kept"] == 2
    assert report["generator"]["limits"]["max_turns"] == 15 and report["generator"]["llm"]["calls"] == calls
    assert {t.provenance.generator for t in read_tasks(tmp_path / "out" / "tasks.jsonl")} == {"llm"}
    (artifact,) = flow_run_artifacts(state.state_details.flow_run_id, f"tasks-{report['domain']}")
    assert f"LLM fake-model: {calls} calls" in artifact.data
