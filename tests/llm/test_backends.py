"""Backends by name, the settings model, the accounting, and the preflight against a real server."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from pydantic import ValidationError

from stateforge.errors import TerminalError
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.accounting import LLMStats
from stateforge.llm.backends import BACKENDS, check_backend, get_backend
from stateforge.llm.client import LLMClient
from stateforge.llm.settings import LLMSettings, Price, llm_settings


def openai_settings(base_url: str, **overrides: object) -> LLMSettings:
    values: dict[str, object] = {
        "backend": "openai",
        "model": "fake-model",
        "base_url": base_url,
        "api_key": "k",
    }
    return LLMSettings(**(values | overrides))


def test_registry_and_did_you_mean() -> None:
    assert set(BACKENDS) >= {"offline", "openai"}
    assert get_backend("OpenAI ").name == "openai"
    assert not get_backend("offline").uses_llm
    with pytest.raises(
        TerminalError, match=r"unknown LLM backend 'opnai'\. Did you mean \"openai\"\? Registered: "
    ):
        get_backend("opnai")
    with pytest.raises(TerminalError, match="unknown LLM backend"):
        LLMSettings(backend="vllm-turbo")


def test_settings_defaults_docs_and_strictness() -> None:
    settings = LLMSettings()
    assert (settings.backend, settings.concurrency, settings.timeout, settings.max_retries) == (
        "offline",
        8,
        60,
        6,
    )
    assert (settings.backoff_base, settings.backoff_max, settings.temperature) == (0.5, 30.0, 0.0)
    assert settings.response_format == "json_schema" and settings.use_cache and not settings.whole_rows
    assert settings.cache_dir == Path.cwd() / "artifacts" / "llm-cache"
    undocumented = [name for name, f in LLMSettings.model_fields.items() if not f.description]
    assert undocumented == []
    with pytest.raises(ValidationError, match="extra_forbidden"):
        LLMSettings(modle="x")
    with pytest.raises(ValidationError):
        LLMSettings(response_format="xml")
    assert "sk-secret" not in repr(LLMSettings(api_key="sk-secret"))


def test_from_env_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "ollama")
    monkeypatch.setenv("STATEFORGE_LLM_MODEL", "llama3.1:8b")
    settings = LLMSettings.from_env(model=None, concurrency=2)
    assert settings.backend == "openai"  # an endpoint is configured: the LLM path
    assert (settings.base_url, settings.model, settings.concurrency) == (
        "http://localhost:11434/v1",
        "llama3.1:8b",
        2,
    )
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "ollama"
    assert LLMSettings.from_env(backend="openai", model="qwen2.5").model == "qwen2.5"
    assert LLMSettings.from_env(backend="offline").backend == "offline"
    monkeypatch.setenv("STATEFORGE_LLM_BACKEND", "offline")
    assert LLMSettings.from_env().backend == "offline"


def test_an_api_key_alone_keeps_the_build_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_BASE_URL", "STATEFORGE_LLM_MODEL", "STATEFORGE_LLM_BACKEND"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-in-the-shell")
    assert LLMSettings.from_env().backend == "offline"
    assert llm_settings() is None
    assert llm_settings(model="gpt-4o-mini").backend == "openai"
    assert llm_settings(backend="openai", model="m", no_cache=True, whole_rows=True).use_cache is False


def test_prices_by_longest_prefix() -> None:
    settings = LLMSettings()
    assert settings.price_for("gpt-4o-mini-2024-07-18") == settings.prices["gpt-4o-mini"]
    assert settings.price_for("gpt-4o-2024-08-06") == settings.prices["gpt-4o"]
    assert settings.price_for("llama3.1:8b") is None


def test_stats_cost_merge_and_threads() -> None:
    stats, price = LLMStats(), Price(prompt_per_1m=1.0, completion_per_1m=2.0)

    def work() -> None:
        for _ in range(1000):
            stats.record_call(0.001, "m", price, prompt_tokens=10, completion_tokens=5)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert stats.calls == 4000 and stats.prompt_tokens == 40_000
    assert stats.cost_usd == pytest.approx((40_000 * 1.0 + 20_000 * 2.0) / 1e6)
    other = LLMStats()
    other.record_call(0.5, "llama3", None, prompt_tokens=7, completion_tokens=3)
    other.record_retry("rate_limit")
    other.record_cache_hit(4, 2)
    other.add_rows(40)
    merged = stats.merge(other).to_dict()
    assert merged["calls"] == 4001 and merged["retries"]["rate_limit"] == 1 and merged["cache_hits"] == 1
    assert merged["unpriced_models"] == ["llama3"] and merged["cost_known"] is False
    assert merged["rows_per_call"] == round(40 / 4001, 3) and merged["cached_prompt_tokens"] == 4


def test_offline_backend_needs_no_server_and_has_no_client() -> None:
    assert check_backend(LLMSettings()) == []
    with pytest.raises(TerminalError, match="does not call an LLM"):
        LLMClient(LLMSettings())


def test_preflight_missing_key_and_model() -> None:
    with pytest.raises(TerminalError, match=r"set OPENAI_API_KEY \(any non-empty value for a local server"):
        check_backend(openai_settings("http://127.0.0.1:9/v1", api_key=" "))
    with pytest.raises(TerminalError, match="pass --model NAME"):
        check_backend(openai_settings("http://127.0.0.1:9/v1", model=None))


def test_preflight_unreachable_server_names_the_url_and_defaults(refused_url: str) -> None:
    url = refused_url
    with pytest.raises(TerminalError) as caught:
        check_backend(openai_settings(url))
    message = str(caught.value)
    assert f"cannot reach the LLM server at {url}" in message
    assert "http://localhost:11434/v1" in message and "http://localhost:8000/v1" in message


def test_preflight_against_the_fake_server(tmp_path: Path) -> None:
    with FakeLLMServer(models=("llama3.1:8b", "qwen2.5:7b"), api_key="secret") as server:
        settings = openai_settings(server.base_url, model="llama3.1:8b", api_key="secret")
        assert check_backend(settings) == ["llama3.1:8b", "qwen2.5:7b"]
        with pytest.raises(
            TerminalError, match=r"'llama3\.1:8' is not served at .*Did you mean \"llama3\.1:8b\"\?"
        ):
            check_backend(settings.model_copy(update={"model": "llama3.1:8"}))
        with pytest.raises(TerminalError, match="refused the API key"):
            check_backend(openai_settings(server.base_url, model="llama3.1:8b", api_key="wrong"))
        with pytest.raises(TerminalError, match="has no GET /models.*ending in /v1"):
            check_backend(openai_settings(server.url, model="llama3.1:8b", api_key="secret"))
        client = get_backend("openai").client(settings.model_copy(update={"cache_dir": tmp_path}))
        assert isinstance(client, LLMClient)
        client.close()
