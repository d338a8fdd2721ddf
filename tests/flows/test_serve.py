"""`stateforge serve` against an API that does not answer: it waits, then says so (no traceback)."""

from __future__ import annotations

import logging

import pytest

from stateforge.flows import serve


def test_serving_waits_for_the_api_then_gives_up_naming_it(monkeypatch: pytest.MonkeyPatch, caplog):
    monkeypatch.setattr(serve, "HEALTH_EVERY", 0.05)
    monkeypatch.setattr(serve, "api_url", lambda: "http://127.0.0.1:9/api")
    tried: list[str] = []

    class Runner:  # never reached: the API never answers
        def add_deployment(self, deployment):
            tried.append(deployment)

    with caplog.at_level(logging.INFO, logger="stateforge.serve"):
        assert serve.register(Runner(), ["one", "two"], api_grace=0.3) is None
    assert tried == []
    text = caplog.text
    assert "http://127.0.0.1:9/api does not answer" in text and "registering the deployments" in text
    assert "has not answered for 0 s: nothing is served" in text and "make serve" in text


def test_a_lost_connection_while_registering_is_retried(monkeypatch: pytest.MonkeyPatch):
    import httpx

    monkeypatch.setattr(serve, "HEALTH_EVERY", 0.01)
    monkeypatch.setattr(serve, "api_problem", lambda: None)
    calls: list[str] = []

    class Runner:
        def add_deployment(self, deployment):
            calls.append(deployment)
            if len(calls) == 1:  # as Prefect wraps it: DeploymentApplyError from the httpx error
                try:
                    raise httpx.ConnectError("All connection attempts failed")
                except httpx.ConnectError as exc:
                    raise RuntimeError("Error while applying deployment") from exc
            return f"id-{deployment}"

    assert serve.register(Runner(), ["one", "two"], api_grace=5) == ["id-one", "id-two"]
    assert calls == ["one", "one", "two"]

    class Broken:
        def add_deployment(self, deployment):
            raise ValueError("a bad deployment")

    with pytest.raises(ValueError, match="a bad deployment"):
        serve.register(Broken(), ["one"], api_grace=5)
