"""One tool-calling turn's CPU in the `openai` client, the previous way and now, measured in the same run
(part of bench/solver_overhead.py):

- before: the cache key from the messages and the tools as lists (`tools_key`: both serialised), then
  `chat.completions.create(..., extra_body={"messages", "tools"})` (the client serialises them again);
- now: the tools encoded once for the conversation (`encode_tools`), the messages serialised once for the
  key and the body (`encoded_tools_key`, `tools_body`), the body posted as it is (`AsyncOpenAI.post`).

Both against the fake server (no latency, its own process) with the toolkit's tools and a conversation of
a few turns; CPU of this process only (the client); the median of blocks of turns, interleaved.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from stateforge.llm.cache import canonical_json, encoded_tools_key, tools_key
from stateforge.llm.settings import LLMSettings
from stateforge.llm.tooluse import encode_tools, tool_message, tools_body

MODEL = "fake"
POST = {"security": {"bearer_auth": True}}


def conversation() -> list[dict[str, Any]]:
    """A system prompt of about 4 KB, the request, and two answered tool calls."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You work for a music service. " * 130},
        {"role": "user", "content": "Add the song 'Blue' by Ana to my playlist 'Road trip'."},
    ]
    for n in range(2):
        call = {"id": f"call_{n}", "type": "function",
                "function": {"name": "search_songs", "arguments": '{"title": "Blue"}'}}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        rows = [{"song_id": i, "title": "Blue", "artist": "Ana", "price": "0.99"} for i in range(8)]
        messages.append(tool_message(f"call_{n}", canonical_json({"rows": rows})))
    return messages


def measure(base_url: str, tools: list[dict[str, Any]], blocks: int = 5, turns: int = 40) -> dict[str, float]:
    """CPU ms per turn each way (the median block), and their ratio."""
    settings = LLMSettings(backend="openai", model=MODEL, api_key="bench", seed=1)
    messages, extra = conversation(), {"prompt": "sha", "episode_seed": 1}

    async def run() -> dict[str, list[float]]:
        api = openai.AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)

        async def before() -> None:
            tools_key(settings, MODEL, messages, "solver-openai", tools, "auto", extra)
            await api.chat.completions.create(
                model=MODEL, messages=[], tool_choice="auto", temperature=settings.temperature,
                seed=settings.seed, extra_body={"messages": messages, "tools": tools},
            )

        encoded = encode_tools(tools)  # once per conversation

        async def now() -> None:
            text = canonical_json(messages)
            encoded_tools_key(settings, MODEL, text, "solver-openai", encoded.text, "auto", extra)
            body = tools_body(settings, MODEL, text, encoded, "auto")
            await api.post("/chat/completions", cast_to=ChatCompletion, content=body, options=POST)  # type: ignore[arg-type]

        found: dict[str, list[float]] = {"before": [], "now": []}
        for way in (before, now):
            await way()
        for _ in range(blocks):
            for name, way in (("before", before), ("now", now)):
                start = time.process_time()
                for _ in range(turns):
                    await way()
                found[name].append((time.process_time() - start) / turns)
        await api.close()
        return found

    found = asyncio.run(run())
    old, new = (statistics.median(found[k]) * 1000 for k in ("before", "now"))
    return {"before": old, "now": new, "ratio": new / old if old else 0.0}
