"""`stateforge generate-tasks --backend openai` as a user runs it, against the project's own server on
loopback: tasks and the LLM line of the report, the limits as options, and the preflight's exit code 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from stateforge.fakellm.server import FakeLLMServer
from stateforge.tasks import read_tasks
from tests.episode.fixture import build_shop

pytestmark = pytest.mark.slow
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))


def generate(db: Path, out: Path, cache: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "STATEFORGE_LLM_CACHE": str(cache)}
    return subprocess.run(
        [STATEFORGE, "generate-tasks", str(db), "--n", "2", "--out", str(out), *extra],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_generate_tasks_with_an_llm_from_the_command_line(tmp_path: Path) -> None:
    db = build_shop(tmp_path / "build")
    with FakeLLMServer(seed=2) as server:
        url = server.base_url
        done = generate(
            db,
            tmp_path / "out",
            tmp_path / "cache",
            "--model",
            "fake-model",
            "--base-url",
            url,
            "--max-turns",
            "12",
        )
        assert done.returncode == 0, done.stderr[-3000:]
        calls = server.stats.by_path["/v1/chat/completions"]
        assert f"LLM fake-model: {calls} calls (0 from the cache)" in done.stdout
        assert "2 of 2 tasks kept" in done.stdout
        report = json.loads((tmp_path / "out" / "generation_report.json").read_text())
        assert report["backend"] == "openai" and report["generator"]["limits"]["max_turns"] == 12
        assert len(read_tasks(tmp_path / "out" / "tasks.jsonl")) == 2

        wrong = generate(db, tmp_path / "x", tmp_path / "cache", "--model", "gpt-nope", "--base-url", url)
    assert wrong.returncode == 2
    assert "model 'gpt-nope' is not served" in wrong.stderr and not (tmp_path / "x").exists()
