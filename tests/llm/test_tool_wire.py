"""What `LLMClient.complete_tools` puts on the wire: the body it makes itself (`tooluse.tools_body`, posted
as it is) against the body of the `openai` client's normal path (`chat.completions.create` with every
parameter), both as the fake server received them; and the cache key of the encoded tools against the
key recipe applied to the whole request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai

from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.cache import cache_key, canonical_json, encoded_tools_key, tools_key
from stateforge.llm.client import LLMClient
from stateforge.llm.settings import LLMSettings
from stateforge.llm.tooluse import encode_tools, tool_message

MODEL = "fake-model"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "find_song",
            "description": "Find songs by title (accents kept: «Café»)",
            "parameters": {
                "type": "object",
                "properties": {"title": {"type": "string", "maxLength": 200}, "limit": {"type": "integer"}},
                "required": ["title"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "cannot_complete",
            "description": "Decline the request.",
            "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
        },
    },
]
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You help with a music service. Today is 2026-01-02."},
    {"role": "user", "content": "Add «Café ✓» to my playlist \"Road\"\nplease."},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_1", "type": "function",
        "function": {"name": "find_song", "arguments": '{"title": "Café ✓"}'},
    }]},
    tool_message("call_1", '{"rows": [{"song_id": 7, "title": "Café ✓", "price": "0.99"}]}'),
]


def settings_for(server: FakeLLMServer, tmp_path: Path, **more: Any) -> LLMSettings:
    values: dict[str, Any] = {
        "backend": "openai", "model": MODEL, "base_url": server.base_url, "api_key": "wire-key",
        "cache_dir": tmp_path / "llm-cache", "timeout": 5.0, "max_retries": 0,
    }
    return LLMSettings(**(values | more))


def test_the_body_posted_is_the_one_the_openai_client_would_send(tmp_path: Path) -> None:
    with FakeLLMServer(api_key="wire-key", models=(MODEL,), record=4) as server:
        for index, extra in enumerate(({"seed": 11, "max_tokens": 300, "temperature": 0.5}, {})):
            settings = settings_for(server, tmp_path / str(index), **extra)
            with LLMClient(settings) as client:
                reply = client.run(client.complete_tools(MESSAGES, TOOLS, name="wire", tool_choice="auto"))
            assert reply.attempts == 1
            given = {k: v for k, v in (("seed", settings.seed), ("max_tokens", settings.max_tokens))
                     if v is not None}
            with openai.OpenAI(base_url=server.base_url, api_key="wire-key", max_retries=0) as plain:
                plain.chat.completions.create(
                    model=MODEL, messages=MESSAGES, tools=TOOLS, tool_choice="auto",  # type: ignore[arg-type]
                    temperature=settings.temperature, **given,
                )
            ours, theirs = server.recorded()[-2:]
            assert ours.body == theirs.body
            assert set(ours.body) == {"model", "messages", "tools", "tool_choice", "temperature", *given}
            for header in ("authorization", "content-type"):
                assert ours.headers[header] == theirs.headers[header], header


def test_the_key_of_encoded_tools_is_the_recipes_key(tmp_path: Path) -> None:
    settings = LLMSettings(backend="openai", model=MODEL, api_key="k", seed=3, max_tokens=50,
                           cache_dir=tmp_path)
    extra = {"prompt": "abc", "episode_seed": 9}
    whole = cache_key(
        model=MODEL, messages=MESSAGES, name="solver-openai", mode="tools",
        schema={"tools": TOOLS, "tool_choice": "auto"}, temperature=settings.temperature,
        seed=settings.seed, max_tokens=settings.max_tokens, extra=extra,
    )
    encoded = encode_tools(TOOLS)
    assert encoded.text == canonical_json(TOOLS) and encode_tools(encoded) is encoded
    assert tools_key(settings, MODEL, MESSAGES, "solver-openai", TOOLS, "auto", extra) == whole
    spliced = encoded_tools_key(settings, MODEL, canonical_json(MESSAGES), "solver-openai", encoded.text,
                                "auto", extra)
    assert spliced == whole
    assert encoded_tools_key(settings, MODEL, canonical_json(MESSAGES[:2]), "solver-openai", encoded.text,
                             "auto", extra) != whole
