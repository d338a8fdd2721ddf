"""What goes to the server and what comes back: the chat request for a JSON reply, and `LLMReply`.

Pure functions and plain dataclasses, no I/O: `chat_request` builds the keyword arguments of
`chat.completions.create` for either response format, `parse_json_reply` turns content into data or an
error that names the position (malformed and truncated replies are data for the caller's repair loop,
never exceptions).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from stateforge.llm.settings import LLMSettings

SCHEMA_INSTRUCTION = (
    "Answer with one JSON object and nothing else: no prose, no code fences. "
    "It must conform to this JSON schema (named {name}):\n{schema}"
)
"""Added to the system prompt in json_object mode, where the server does not enforce the schema."""


@dataclass(frozen=True)
class Usage:
    """Tokens the server reported for a reply."""

    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True)
class LLMReply:
    """One JSON reply. `data` is the parsed JSON, or None with `error` saying where parsing failed."""

    content: str
    """The assistant's content, exactly as the server sent it."""
    data: Any | None
    """The parsed JSON (None when `error` is set)."""
    error: str | None
    """Why the content is not JSON, with line, column and character position; None when it is."""
    finish_reason: str | None
    """`stop`, or `length` when the reply was cut off at the token limit."""
    usage: Usage
    cached: bool
    """Served from the cache (or shared with an identical request in flight): no call was made."""
    attempts: int
    """HTTP requests sent for this reply (0 when cached)."""
    seconds: float
    """Wall time of `complete_json`, backoff waits included."""
    mode: str = "json_schema"
    """The response format used: `json_schema` or `json_object`."""
    key: str = ""
    """The request's cache key."""

    @property
    def ok(self) -> bool:
        """The content parsed as JSON."""
        return self.error is None


@dataclass(frozen=True)
class LLMRequest:
    """The arguments of one `complete_json` call, for `complete_many`."""

    messages: list[dict[str, Any]]
    schema: dict[str, Any]
    name: str
    cache_key: dict[str, Any] | None = None


def schema_name(name: str) -> str:
    """`name` as OpenAI accepts it for a json_schema (letters, digits, `_`, `-`; at most 64)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "reply"


def parse_json_reply(content: str, finish_reason: str | None) -> tuple[Any | None, str | None]:
    """(data, None) when `content` is JSON (a surrounding code fence is tolerated), else (None, error)."""
    text = content.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    text = fenced.group(1) if fenced else text
    cut = ""
    if finish_reason == "length":
        cut = " (finish_reason 'length': the reply was cut off at the token limit)"
    if not text:
        return None, f"empty reply{cut}"
    try:
        return json.loads(text), None
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno} (char {error.pos})"
        return None, f"invalid JSON at {where}: {error.msg}{cut}"


def describe_schema(
    messages: list[dict[str, Any]], schema: dict[str, Any], name: str
) -> list[dict[str, Any]]:
    """`messages` with the schema spelled out in the system prompt (json_object mode).

    Appended to a leading system message rather than added as a second one: some chat templates
    (llama.cpp, a few Ollama models) accept a single system message only, and only first.
    """
    schema_text = json.dumps(schema, ensure_ascii=False, sort_keys=True)
    text = SCHEMA_INSTRUCTION.format(name=name, schema=schema_text)
    described = [dict(m) for m in messages]
    first = described[0] if described else {}
    if first.get("role") == "system" and isinstance(first.get("content"), str):
        first["content"] = f"{first['content'].rstrip()}\n\n{text}"
    else:
        described.insert(0, {"role": "system", "content": text})
    return described


def chat_request(
    settings: LLMSettings,
    model: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any],
    name: str,
    mode: str,
) -> dict[str, Any]:
    """The keyword arguments of `chat.completions.create` for a JSON reply in `mode`."""
    request: dict[str, Any] = {"model": model, "messages": messages, "temperature": settings.temperature}
    if settings.seed is not None:
        request["seed"] = settings.seed
    if settings.max_tokens is not None:
        request["max_tokens"] = settings.max_tokens
    if mode == "json_schema":
        spec = {"name": name, "schema": schema, "strict": True}
        request["response_format"] = {"type": "json_schema", "json_schema": spec}
    else:
        request["messages"] = describe_schema(messages, schema, name)
        request["response_format"] = {"type": "json_object"}
    return request
