"""A whole pack filled through the engine's `enrich` hook with the LLM fill, against the fake server with
faults on: a clean audit, the accounting, and a rebuild answered by the cache (zero calls, same bytes).

Goes through `build_domain(..., llm=settings)`, the stages the CLI and the flow run; the LLM fill is the
engine's `enrich` hook there.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.settings import LLMSettings
from stateforge.validation.audit import audit

pytestmark = pytest.mark.slow

SEED = 7
FAULTS = {"malformed": 0.08, "duplicates": 0.08, "invented_fk": 0.05, "missing_fields": 0.05,
          "rate_limit": 0.05, "server_error": 0.05}


def table_hashes(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """An md5 of every user table's rows (the determinism fingerprint)."""
    tables = [r[0] for r in con.sql(
        "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY table_name").fetchall()]
    query = "SELECT md5(string_agg(x::VARCHAR, '|' ORDER BY x::VARCHAR)) FROM main.\"{}\" AS x"
    return {t: con.sql(query.format(t)).fetchall()[0][0] for t in tables}


def build(out: Path, settings: LLMSettings | None) -> tuple[dict[str, str], dict | None]:
    """Build the music pack at a small scale into `out` (with the LLM when `settings`), audit it."""
    built = build_domain("music", scale=0.02, seed=SEED, out=out, llm=settings)
    with duckdb.connect(str(out / "music.duckdb"), read_only=True) as con:
        report = audit(con)
        assert report.clean, report.to_dict()
        hashes = table_hashes(con)
    return hashes, built["llm"]


def test_a_pack_built_with_the_llm_is_clean_counted_and_rebuilt_from_the_cache(tmp_path: Path) -> None:
    offline, _ = build(tmp_path / "offline", None)
    with FakeLLMServer(seed=4, faults=FAULTS, retry_after=0.01) as server:
        settings = LLMSettings(
            backend="openai", model="fake-model", base_url=server.base_url, api_key="test",
            cache_dir=tmp_path / "cache", max_retries=4, backoff_base=0.01, backoff_max=0.05,
        )
        first, report = build(tmp_path / "first", settings)
        chat = "/v1/chat/completions"
        requests = server.stats.by_path[chat]
        assert sum(server.stats.faults.values()) > 0
        again, report2 = build(tmp_path / "again", settings)  # the build's preflight lists the models
        assert server.stats.by_path[chat] == requests, "the rebuild made no completion call"
    assert again == first
    assert report is not None and report2 is not None
    totals = report["totals"]
    assert set(report["tables"]) == {"artists", "albums", "songs", "playlists"}
    assert totals["rows"] == sum(t["rows"] for t in report["tables"].values()) > 500
    paths = totals["rows_llm"] + totals["rows_repaired"] + totals["rows_fallback"] + totals["rows_transport"]
    assert paths == totals["rows"] and totals["rows_llm"] > 0.7 * totals["rows"]
    assert totals["calls"] >= totals["chunks"] > 0 and sum(totals["failures"].values()) > 0
    assert totals["repair_requests"] > 0 or totals["retries"] > 0
    assert report2["totals"]["calls"] == 0 and report2["totals"]["cache_hits"] > 0
    assert report["prompts"].keys() >= {"fill_rows", "repair_rows"}
    # the LLM wrote the meaning columns; tables without any are byte-identical to the offline build
    assert first["songs"] != offline["songs"] and first["albums"] != offline["albums"]
    # tables whose times are fitted to their parents' left out (payments, plays, devices): the fill fits
    # them with numpy offline and with SQL on the LLM path (stateforge/fill/time_fit.py); both hold every
    # time order, their values differ (to reconcile)
    for table in ("users", "chart_entries"):
        assert first[table] == offline[table], table
