"""`stateforge build-domain --backend openai` against the project's local OpenAI-compatible server:
a clean audit with faults on, the accounting in the report, and a rebuild answered by the cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from stateforge.fakellm.server import FakeLLMServer
from stateforge.store import read_model, table_hashes

pytestmark = pytest.mark.slow
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))
FAULTS = {"malformed": 0.1, "truncated": 0.05, "wrong_types": 0.05, "duplicates": 0.05, "rate_limit": 0.05}


def build(server: FakeLLMServer, out: Path, cache: Path, *extra: str) -> dict:
    env = {**os.environ, "OPENAI_API_KEY": "test-key", "STATEFORGE_LLM_CACHE": str(cache)}
    done = subprocess.run(
        [
            STATEFORGE,
            "build-domain",
            "music",
            "--scale",
            "0.02",
            "--out",
            str(out),
            "--json",
            "--backend",
            "openai",
            "--model",
            "fake-model",
            "--base-url",
            server.base_url,
            *extra,
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def hashes(path: Path) -> dict[str, str]:
    with duckdb.connect(str(path), read_only=True) as con:
        return table_hashes(con, read_model(con)[0])


def test_build_with_the_llm_then_rebuild_from_the_cache(tmp_path: Path) -> None:
    with FakeLLMServer(faults=FAULTS, seed=3, retry_after=0.05) as server:
        first = build(server, tmp_path / "a", tmp_path / "cache")
        calls = server.stats.by_path["/v1/chat/completions"]
        llm = first["llm"]["totals"]
        assert first["totals"]["violations"] == 0
        assert llm["calls"] > 0 and llm["rows_llm"] > 0 and llm["llm"]["prompt_tokens"] > 0
        assert llm["calls"] == calls  # every request the server saw is accounted for
        assert sum(llm["failures"].values()) > 0 and llm["rows_repaired"] + llm["rows_fallback"] > 0
        assert first["inputs"]["llm"]["model"] == "fake-model" and first["inputs"]["llm"]["prompts"]
        songs = next(t for t in first["tables"] if t["table"] == "songs")
        assert songs["llm"]["rows_llm"] > 0

        again = build(server, tmp_path / "b", tmp_path / "cache")
        assert (
            server.stats.by_path["/v1/chat/completions"] == calls
        )  # zero calls: every reply came from the cache
        assert again["llm"]["totals"]["calls"] == 0 and again["llm"]["totals"]["cache_hits"] > 0
        assert hashes(tmp_path / "a" / "music.duckdb") == hashes(tmp_path / "b" / "music.duckdb")

        build(server, tmp_path / "c", tmp_path / "cache", "--no-cache")
        assert server.stats.by_path["/v1/chat/completions"] > calls


@pytest.mark.parametrize(
    ("key", "expected"),
    [(None, "OPENAI_API_KEY"), ("k", "127.0.0.1:9")],
    ids=["missing-key", "unreachable-server"],
)
def test_preflight_fails_before_anything_is_written(tmp_path: Path, key: str | None, expected: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"} | (
        {"OPENAI_API_KEY": key} if key else {}
    )
    args = [
        "--out",
        str(tmp_path),
        "--backend",
        "openai",
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
    ]
    done = subprocess.run(
        [STATEFORGE, "build-domain", "music", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []
