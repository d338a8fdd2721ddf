"""Against a real OpenAI-compatible provider: skipped unless one is configured for tests.

    STATEFORGE_TEST_LLM_MODEL=gpt-4o-mini STATEFORGE_TEST_OPENAI_API_KEY=sk-... \
        [STATEFORGE_TEST_OPENAI_BASE_URL=http://localhost:11434/v1] .venv/bin/python -m pytest -m llm

(The suite clears OPENAI_* from the environment so that no test spends tokens by accident.)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stateforge.build import build_domain
from stateforge.llm.settings import LLMSettings
from tests.conftest import FIXTURES

MODEL = os.environ.get("STATEFORGE_TEST_LLM_MODEL")
KEY = os.environ.get("STATEFORGE_TEST_OPENAI_API_KEY")

pytestmark = [
    pytest.mark.llm,
    pytest.mark.skipif(not (MODEL and KEY), reason="no real LLM provider configured for tests"),
]


def test_a_small_build_with_a_real_provider_is_clean_and_counted(tmp_path: Path) -> None:
    settings = LLMSettings(
        backend="openai",
        model=MODEL,
        api_key=KEY,
        base_url=os.environ.get("STATEFORGE_TEST_OPENAI_BASE_URL"),
        response_format="auto",
        cache_dir=tmp_path / "cache",
    )
    report = build_domain(str(FIXTURES / "ddl" / "postgres_dump.sql"), rows=10, out=tmp_path, llm=settings)
    assert report["totals"]["violations"] == 0
    assert report["llm"]["totals"]["calls"] > 0
    assert report["llm"]["totals"]["llm"]["prompt_tokens"] > 0
