"""`LLMClient.complete_tools` against the fake server's tool-calling mode: wire messages, cache, retries,
malformed arguments as data, and accounting that matches the server's own counters."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.errors import TerminalError
from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.client import LLMClient
from stateforge.llm.settings import LLMSettings, Price
from stateforge.llm.tooluse import ToolReply, tool_message

MODEL = "fake-model"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} a user",
            "parameters": {
                "type": "object",
                "properties": {"user_id": {"type": "integer"}},
                "required": ["user_id"],
                "additionalProperties": False,
            },
        },
    }
    for name in ("get_user", "delete_user")
]
SCRIPT = {
    "key": "tidy-up",
    "turns": [
        [{"name": "get_user", "arguments": {"user_id": 5}}],
        [{"name": "delete_user", "arguments": {"user_id": {"$from": [0, "user_id"]}}}],
        "User 5 is deleted.",
    ],
}


def settings_for(server: FakeLLMServer, tmp_path: Path, **overrides: Any) -> LLMSettings:
    values: dict[str, Any] = {
        "backend": "openai",
        "model": MODEL,
        "base_url": server.base_url,
        "api_key": "test",
        "cache_dir": tmp_path / "llm-cache",
        "timeout": 5.0,
        "max_retries": 3,
        "backoff_base": 0.01,
        "backoff_max": 0.05,
        "prices": {MODEL: Price(prompt_per_1m=1.0, completion_per_1m=2.0)},
    }
    return LLMSettings(**(values | overrides))


def conversation(client: LLMClient) -> tuple[list[ToolReply], list[dict[str, Any]]]:
    """Run the scripted conversation to its end, answering each call with the user it names."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "tidy-up: delete user 5"}]
    replies = []
    for _ in range(5):
        reply = client.run(client.complete_tools(messages, TOOLS, name="test-agent"))
        replies.append(reply)
        messages.append(reply.message())
        if not reply.tool_calls:
            break
        for call in reply.tool_calls:
            result = f"error: {call.error}" if call.error else json.dumps({"user_id": 5, "name": "Ana"})
            messages.append(tool_message(call.id, result))
    return replies, messages


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=5, retry_after=0.05) as running:
        running.add_script(SCRIPT)
        yield running


def test_a_conversation_runs_then_replays_from_the_cache(server: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(settings_for(server, tmp_path)) as client:
        replies, messages = conversation(client)
        stats = client.stats.snapshot()
    assert [r.finish_reason for r in replies] == ["tool_calls", "tool_calls", "stop"]
    assert [c.name for r in replies for c in r.tool_calls] == ["get_user", "delete_user"]
    assert replies[1].tool_calls[0].arguments == {"user_id": 5}
    assert replies[2].content == "User 5 is deleted." and replies[2].tool_calls == ()
    assert messages[1]["tool_calls"][0]["function"]["name"] == "get_user" and messages[1]["content"] is None
    served = server.stats
    assert stats.calls == served.requests == 3
    assert (stats.prompt_tokens, stats.completion_tokens) == (served.prompt_tokens, served.completion_tokens)
    assert stats.cost_usd == pytest.approx(
        (served.prompt_tokens * 1.0 + served.completion_tokens * 2.0) / 1e6
    )
    with LLMClient(settings_for(server, tmp_path)) as again:
        replayed, replayed_messages = conversation(again)
        assert again.stats.calls == 0 and again.stats.cache_hits == 3
        assert again.stats.cached_prompt_tokens == served.prompt_tokens
    assert replayed_messages == messages and all(r.cached for r in replayed)
    assert server.stats.requests == 3


def test_retries_and_malformed_arguments_are_counted(server: FakeLLMServer, tmp_path: Path) -> None:
    server.set_faults({"rate_limit": "every:2", "malformed": "every:3"})
    with LLMClient(settings_for(server, tmp_path)) as client:
        messages: list[dict[str, Any]] = [{"role": "user", "content": "tidy-up"}]
        first = client.run(client.complete_tools(messages, TOOLS, name="t"))  # request 1: fine
        assert first.tool_calls[0].arguments == {"user_id": 5} and first.attempts == 1
        messages += [first.message(), tool_message(first.tool_calls[0].id, '{"user_id": 5}')]
        second = client.run(client.complete_tools(messages, TOOLS, name="t"))  # 2: 429, 3: malformed
        assert second.attempts == 2 and not second.cached
        [broken] = second.malformed
        assert broken.arguments is None and "not valid JSON" in (broken.error or "")
        stats = client.stats.snapshot()
    assert stats.retries["rate_limit"] == 1 and stats.malformed == 1 and stats.calls == 3
    assert server.stats.faults == {"rate_limit": 1, "malformed": 1}


def test_a_refusal_is_terminal(server: FakeLLMServer, tmp_path: Path) -> None:
    with LLMClient(settings_for(server, tmp_path)) as client:
        bad_tools = [{"type": "function", "function": {"name": "no spaces allowed"}}]
        with pytest.raises(TerminalError, match="refused the request.*must match"):
            client.run(client.complete_tools([{"role": "user", "content": "x"}], bad_tools, name="t"))
        assert client.stats.errors == 1
