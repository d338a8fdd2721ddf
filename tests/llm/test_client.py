"""The LLM client against the fake OpenAI-compatible server on loopback, through the real `openai` client."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from stateforge.errors import TerminalError, TransientError
from stateforge.fakellm.chat import ApiError, Reply
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.client import LLMClient, LLMReply, LLMRequest
from stateforge.llm.settings import LLMSettings, Price
from tests.llm.servers import StrictKeywordsServer

MODEL = "fake-model"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"song_id": {"type": "integer"}, "title": {"type": "string"}},
                "required": ["song_id", "title"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["rows"],
    "additionalProperties": False,
}


def ask(batch: int = 0) -> list[dict[str, Any]]:
    """The messages of one request; a different `batch` is a different request."""
    rows = json.dumps([{"song_id": batch * 10 + i, "title": None} for i in range(3)])
    return [
        {"role": "system", "content": "You fill database tables with realistic rows."},
        {"role": "user", "content": f"Complete these rows of table songs: {rows}"},
    ]


def settings_for(server: FakeLLMServer | str, tmp_path: Path, **overrides: Any) -> LLMSettings:
    """Settings for the fake `server` (or a base URL)."""
    values: dict[str, Any] = {
        "backend": "openai",
        "model": MODEL,
        "base_url": server if isinstance(server, str) else server.base_url,
        "api_key": "test",
        "cache_dir": tmp_path / "llm-cache",
        "timeout": 5.0,
        "max_retries": 3,
        "backoff_base": 0.01,
        "backoff_max": 0.05,
    }
    return LLMSettings(**(values | overrides))


def complete(client: LLMClient, batch: int = 0, **options: Any) -> LLMReply:
    [reply] = client.complete_many([LLMRequest(ask(batch), SCHEMA, "songs", **options)])
    return reply


def chat_requests(server: FakeLLMServer) -> int:
    return server.stats.by_path.get("/v1/chat/completions", 0)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=3, retry_after=0.05, timeout_delay=3.0) as running:
        yield running


@pytest.fixture
def client(server: FakeLLMServer, tmp_path: Path) -> Iterator[LLMClient]:
    with LLMClient(settings_for(server, tmp_path)) as opened:
        yield opened


def test_structured_request_returns_parsed_data(server: FakeLLMServer, client: LLMClient) -> None:
    reply = complete(client, 1)
    assert reply.ok and reply.error is None and reply.finish_reason == "stop"
    assert [row["song_id"] for row in reply.data["rows"]] == [10, 11, 12]
    assert all(isinstance(row["title"], str) and row["title"] for row in reply.data["rows"])
    assert json.loads(reply.content) == reply.data
    assert (reply.cached, reply.attempts, reply.mode) == (False, 1, "json_schema")
    assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
    stats = client.stats.to_dict()
    assert stats["calls"] == 1 == chat_requests(server)
    assert stats["prompt_tokens"] == server.stats.prompt_tokens


def test_identical_request_is_served_from_the_cache(
    server: FakeLLMServer, client: LLMClient, tmp_path: Path
) -> None:
    first = complete(client)
    second = complete(client)
    assert chat_requests(server) == 1
    assert second.cached and second.attempts == 0 and second.content == first.content
    assert (client.stats.cache_hits, client.stats.cached_completion_tokens) == (
        1,
        first.usage.completion_tokens,
    )
    # A rebuild (a new client on the same cache) makes no call and costs nothing.
    priced = {MODEL: Price(prompt_per_1m=1.0, completion_per_1m=2.0)}
    with LLMClient(settings_for(server, tmp_path, prices=priced)) as rebuild:
        assert complete(rebuild).content == first.content
        assert rebuild.stats.calls == 0 and rebuild.stats.to_dict()["cost_usd"] == 0.0
    assert chat_requests(server) == 1


def test_cache_misses_on_other_inputs_and_no_cache_still_calls(
    server: FakeLLMServer, client: LLMClient, tmp_path: Path
) -> None:
    complete(client)
    complete(client, 2)  # other messages
    complete(client, cache_key={"prompt": "v2"})  # other caller extras
    with LLMClient(settings_for(server, tmp_path, seed=99)) as other_seed:
        assert not complete(other_seed).cached
    assert chat_requests(server) == 4
    with LLMClient(settings_for(server, tmp_path, use_cache=False)) as no_cache:
        reply = complete(no_cache)
        assert not reply.cached and reply.attempts == 1
    assert chat_requests(server) == 5
    assert client.cache.get(reply.key) is not None  # written all the same


def test_identical_requests_in_flight_share_one_call(tmp_path: Path) -> None:
    with FakeLLMServer(latency=0.2) as server, LLMClient(settings_for(server, tmp_path)) as client:
        replies = client.complete_many([LLMRequest(ask(), SCHEMA, "songs")] * 5)
        assert chat_requests(server) == 1
        assert len({r.content for r in replies}) == 1
        assert sorted(r.cached for r in replies) == [False] + [True] * 4


def test_rate_limit_waits_retry_after_and_is_counted(tmp_path: Path) -> None:
    # Retry-After 0.3 s and no backoff of our own: the wait can only come from the header.
    with FakeLLMServer(retry_after=0.3, faults={"rate_limit": "every:2"}) as server:
        settings = settings_for(server, tmp_path, backoff_base=0.0, backoff_max=0.0)
        with LLMClient(settings) as client:
            complete(client, 1)  # request 1 passes; request 2 gets the 429
            started = time.perf_counter()
            reply = complete(client, 2)
            assert time.perf_counter() - started >= 0.3
            assert reply.ok and reply.attempts == 2
            assert client.stats.retries["rate_limit"] == 1 and client.stats.calls == 3
            assert server.stats.by_status["429"] == 1


@pytest.mark.parametrize("fault", ["server_error", "unavailable"])
def test_5xx_is_retried_then_succeeds(fault: str, tmp_path: Path) -> None:
    with (
        FakeLLMServer(faults={fault: "every:2"}) as server,
        LLMClient(settings_for(server, tmp_path)) as client,
    ):
        complete(client, 1)
        reply = complete(client, 2)
        assert reply.ok and reply.attempts == 2
        assert client.stats.retries["server_error"] == 1 and server.stats.faults == {fault: 1}


def test_persistent_5xx_raises_transient_after_max_retries(tmp_path: Path) -> None:
    with FakeLLMServer(faults={"server_error": 1.0}) as server:
        with LLMClient(settings_for(server, tmp_path, max_retries=2)) as client:
            with pytest.raises(TransientError) as caught:
                complete(client)
            message = str(caught.value)
            assert MODEL in message and server.base_url in message and "HTTP 500" in message
            assert "3 attempts" in message
            assert chat_requests(server) == 3
            assert client.stats.retries["server_error"] == 2 and client.stats.gave_up == 1
            assert len(client.cache) == 0  # transport failures are never cached


def test_timeout_is_retried(tmp_path: Path) -> None:
    # The client's timeout is short next to the held reply (closing the server answers it) but long next to
    # a normal reply on a loaded machine: an answered request never times out, so the counts are exact.
    with FakeLLMServer(faults={"timeout": "every:2"}, timeout_delay=60) as server:
        with LLMClient(settings_for(server, tmp_path, timeout=2.0)) as client:
            complete(client, 1)
            reply = complete(client, 2)
            assert reply.ok and reply.attempts == 2
            assert client.stats.retries["timeout"] == 1


def test_connection_refused_is_retried_then_transient(tmp_path: Path, refused_url: str) -> None:
    with LLMClient(settings_for(refused_url, tmp_path, max_retries=1)) as client:
        with pytest.raises(TransientError, match="APIConnectionError"):
            complete(client)
        # a refused connection carries no request: two attempts, no call (the server saw nothing)
        assert client.stats.retries["connection"] == 1
        assert client.stats.calls == 0 and client.stats.unsent == 2


def test_a_connection_not_made_in_time_is_an_attempt_but_not_a_call(
    tmp_path: Path, unconnectable_url: str
) -> None:
    # On a loaded machine a connect can outlast the timeout: the attempt is retried like any timeout,
    # but no request went out, so `calls` (compared with what a server counted) leaves it out.
    with LLMClient(settings_for(unconnectable_url, tmp_path, timeout=0.2, max_retries=1)) as client:
        with pytest.raises(TransientError, match="timed out"):
            complete(client)
        assert client.stats.retries["timeout"] == 1 and client.stats.gave_up == 1
        assert client.stats.calls == 0 and client.stats.unsent == 2


def test_a_request_timed_out_after_it_was_sent_is_a_call(tmp_path: Path) -> None:
    # the reply is held past the client's timeout (long next to a connect or a read, loaded or not)
    with FakeLLMServer(faults={"timeout": 1.0}, timeout_delay=60) as server:
        with LLMClient(settings_for(server, tmp_path, timeout=2.0, max_retries=0)) as client:
            with pytest.raises(TransientError, match="timed out"):
                complete(client)
            assert client.stats.gave_up == 1 and client.stats.unsent == 0
            assert client.stats.calls == 1 == chat_requests(server)


def test_malformed_reply_is_data_and_is_cached(server: FakeLLMServer, client: LLMClient) -> None:
    server.set_faults({"malformed": 1.0})
    reply = complete(client)
    assert reply.data is None and not reply.ok
    assert "invalid JSON at line 1, column" in reply.error and "(char " in reply.error
    server.set_faults({})
    again = complete(client)  # the same bad reply, so a rebuild repairs it the same way
    assert again.cached and again.content == reply.content and again.error == reply.error
    assert client.stats.malformed == 2 and chat_requests(server) == 1


def test_truncated_reply_says_so(server: FakeLLMServer, client: LLMClient) -> None:
    server.set_faults({"truncated": 1.0})
    reply = complete(client)
    assert reply.data is None and reply.finish_reason == "length"
    assert "cut off at the token limit" in reply.error


def test_wrong_api_key_is_terminal_and_not_retried(tmp_path: Path) -> None:
    with FakeLLMServer(api_key="secret") as server:
        with LLMClient(settings_for(server, tmp_path, api_key="wrong")) as client:
            with pytest.raises(
                TerminalError,
                match=r"refused the request: HTTP 401: Incorrect API key provided\. Check OPENAI_API_KEY",
            ):
                complete(client)
            assert server.stats.requests == 1 and client.stats.errors == 1


def test_bad_request_and_unknown_model_are_terminal(server: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(settings_for(server, tmp_path)) as client:
        with pytest.raises(TerminalError, match="HTTP 400: 'messages' must be a non-empty array"):
            client.run(client.complete_json([], SCHEMA, name="songs"))
    with LLMClient(settings_for(server, tmp_path, model="gpt-nope")) as client:
        with pytest.raises(TerminalError, match="HTTP 404.*gpt-nope.*Check --model"):
            complete(client)
    assert server.stats.requests == 2


def test_concurrency_is_bounded_and_requests_overlap(tmp_path: Path) -> None:
    with (
        FakeLLMServer(latency=0.2) as server,
        LLMClient(settings_for(server, tmp_path, concurrency=8)) as client,
    ):
        replies = client.complete_many([LLMRequest(ask(i), SCHEMA, "songs") for i in range(32)])
        assert all(r.ok for r in replies)
        assert [r.data["rows"][0]["song_id"] for r in replies] == [i * 10 for i in range(32)]
        assert server.stats.max_in_flight == 8


def test_gather_of_100_requests_on_the_callers_loop(tmp_path: Path) -> None:
    async def main(server: FakeLLMServer) -> list[LLMReply]:
        async with LLMClient(settings_for(server, tmp_path, concurrency=16)) as client:
            return await asyncio.gather(
                *(client.complete_json(ask(i), SCHEMA, name="songs") for i in range(100))
            )

    with FakeLLMServer(latency=0.01) as server:
        replies = asyncio.run(main(server))
        assert len(replies) == 100 and all(r.ok for r in replies)
        assert 1 < server.stats.max_in_flight <= 16


def test_sync_helper_works_inside_a_running_loop(server: FakeLLMServer, client: LLMClient) -> None:
    async def caller() -> LLMReply:
        return complete(client, 4)  # sync code called from async code: runs on the client's own loop

    assert asyncio.run(caller()).ok


def test_complete_many_can_return_exceptions(server: FakeLLMServer, client: LLMClient) -> None:
    good = {"messages": ask(5), "schema": SCHEMA, "name": "songs"}
    bad = {"messages": [], "schema": SCHEMA, "name": "songs"}
    replies = client.complete_many([good, bad], return_exceptions=True)
    assert isinstance(replies[0], LLMReply) and isinstance(replies[1], TerminalError)


def test_json_object_mode_describes_the_schema(server: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(settings_for(server, tmp_path, response_format="json_object")) as client:
        reply = complete(client, 6)
        assert reply.ok and reply.mode == "json_object"
        assert [row["song_id"] for row in reply.data["rows"]] == [60, 61, 62]


class NoSchemaServer(FakeLLMServer):
    """A server that, like older vLLM / llama.cpp builds, refuses `response_format` json_schema."""

    refused = 0

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes) -> Reply:
        if target.endswith("/chat/completions"):
            kind = (json.loads(body).get("response_format") or {}).get("type")
            if kind == "json_schema":
                self.refused += 1
                message = "response_format type 'json_schema' is not supported; use 'json_object'."
                return ApiError(400, message, param="response_format").reply
        return super().handle(method, target, headers, body)


def test_auto_falls_back_to_json_object_once_per_client(tmp_path: Path) -> None:
    with NoSchemaServer() as server:
        with LLMClient(settings_for(server, tmp_path, response_format="auto")) as client:
            first, second = complete(client, 1), complete(client, 2)
            assert first.ok and second.ok and first.mode == second.mode == "json_object"
            assert (first.attempts, second.attempts) == (2, 1)
            assert server.refused == 1 and client.stats.fallbacks == 1
        with LLMClient(settings_for(server, tmp_path, response_format="auto")) as rebuild:
            assert complete(rebuild, 1).cached  # the key holds the configured mode, `auto`
        with LLMClient(settings_for(server, tmp_path, response_format="json_schema")) as strict:
            with pytest.raises(TerminalError, match="not supported"):
                complete(strict, 3)


def test_schema_keywords_a_server_rejects_are_dropped_once_per_client(tmp_path: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"title": {"type": "string", "maxLength": 40}, "n": {"type": "integer", "minimum": 1}},
        "required": ["title", "n"],
        "additionalProperties": False,
    }
    with StrictKeywordsServer() as server:
        with LLMClient(settings_for(server, tmp_path)) as client:
            first = client.run(client.complete_json([{"role": "user", "content": "one"}], schema, name="t"))
            second = client.run(client.complete_json([{"role": "user", "content": "two"}], schema, name="t"))
            assert first.ok and second.ok and (first.attempts, second.attempts) == (2, 1)
            assert server.refused == 1 and client.stats.fallbacks == 1
    sent = server.schemas[0]["properties"]
    assert sent == {"title": {"type": "string"}, "n": {"type": "integer"}}
