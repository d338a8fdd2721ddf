"""The generate-tasks flow with the LLM backend, under the Prefect test server: its parameters reach the
LLM generator, and the report's artifact carries the LLM's account."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

from pipeline.fakellm.server import FakeLLMServer
from pipeline.tasks import read_tasks
from tests.episode.fixture import build_shop

pytestmark = pytest.mark.xdist_group("prefect")


def test_the_flow_generates_with_the_llm(
    prefect_server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flows.generate_tasks import generate_tasks

    db = build_shop(tmp_path / "build")
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("STATEFORGE_LLM_CACHE", str(tmp_path / "cache"))
    with FakeLLMServer(seed=4) as server:
        report = generate_tasks(
            domain=str(db),
            n=2,
            out=str(tmp_path / "out"),
            model="fake-model",
            base_url=server.base_url,
            max_turns=15,
            max_tool_calls=30,
        )
        calls = server.stats.by_path["/v1/chat/completions"]
    assert report["backend"] == "openai" and report["kept"] == 2
    assert report["generator"]["limits"]["max_turns"] == 15 and report["generator"]["llm"]["calls"] == calls
    assert {t.provenance.generator for t in read_tasks(tmp_path / "out" / "tasks.jsonl")} == {"llm"}

    async def artifact() -> str:
        async with get_client() as client:
            found = await client.read_artifacts(
                artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=[f"tasks-{report['domain']}"]))
            )
            return found[-1].data

    assert f"LLM fake-model: {calls} calls" in asyncio.run(artifact())
