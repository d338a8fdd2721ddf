"""A whole build through the LLM path with each fault class of the local server switched on: the audit is
clean, the fault reached the build, and the accounting says which path each row took."""

from __future__ import annotations

from pathlib import Path

import pytest

from stateforge.build import build_domain
from stateforge.fakellm.faults import CONTENT_FAULTS, FAULTS, HTTP_FAULTS, TOOL_FAULTS
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.settings import LLMSettings
from tests.conftest import FIXTURES

DDL = str(FIXTURES / "ddl" / "postgres_dump.sql")


@pytest.mark.parametrize("fault", [f for f in FAULTS if f not in TOOL_FAULTS])  # a fill calls no tools
def test_a_build_with_one_fault_class_on_is_clean_and_counted(fault: str, tmp_path: Path) -> None:
    # a held reply (the timeout fault) outlasts the client's timeout; a normal one never does, loaded or not.
    # Each timeout costs the client's 2 s: every 4th request is enough to reach the build and its retries.
    every = "every:4" if fault == "timeout" else "every:2"
    with FakeLLMServer(faults={fault: every}, seed=1, retry_after=0.01, timeout_delay=60) as server:
        settings = LLMSettings(
            backend="openai",
            model="fake-model",
            api_key="k",
            base_url=server.base_url,
            timeout=2.0,
            backoff_base=0.01,
            backoff_max=0.05,
            cache_dir=tmp_path / "cache",
        )
        report = build_domain(DDL, rows=20, seed=2, out=tmp_path / "out", llm=settings)
        stats = server.stats
    totals = report["llm"]["totals"]
    assert report["totals"]["violations"] == 0
    assert stats.faults.get(fault, 0) > 0  # the fault really reached the build
    assert totals["calls"] == stats.by_path["/v1/chat/completions"]
    assert (
        totals["rows"]
        == totals["rows_llm"] + totals["rows_repaired"] + totals["rows_fallback"] + (totals["rows_transport"])
    )
    if fault in HTTP_FAULTS:
        assert totals["retries"] > 0
    elif fault == "duplicates":  # a repeated row fails only where it breaks a UNIQUE key the model writes
        pass  # (two titles of one artist): whether a batch has one depends on the drawn keys; clean above
    elif fault == "extra_fields":  # an extra field alone is counted and dropped, the row kept (llm/rows.py)
        assert totals["failures"].get("extra_field", 0) > 0
    else:  # content and text faults: caught by reply validation, sent back, or kept offline
        assert sum(totals["failures"].values()) > 0
        assert totals["repair_requests"] > 0 or totals["rows_fallback"] > 0
    if fault in CONTENT_FAULTS or fault in ("malformed", "truncated"):
        assert totals["rows_llm"] + totals["rows_repaired"] > 0  # the LLM still wrote most rows
