"""Tool calling over the chat-completions API: the request, the reply, and the messages of a conversation.

Pure functions and plain dataclasses, no I/O (the client, `client.py`, sends and caches). A reply is one
assistant turn: either tool calls (`finish_reason` "tool_calls") or a final message. Each call's arguments
arrive as a JSON *string*; a string that is not a JSON object is data (`ToolCall.error` names the
position), never an exception, so the caller can hand the error back to the model as the call's result.

    reply = await client.complete_tools(messages, tools, name="task-generator")
    messages.append(reply.message())                      # the assistant turn, in wire format
    for call in reply.tool_calls:
        messages.append(tool_message(call.id, run(call)))  # each call's result
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from stateforge.llm.cache import canonical_json, encoded_object
from stateforge.llm.reply import Usage
from stateforge.llm.settings import LLMSettings

TOOLS_MODE = "tools"
"""The `mode` recorded for tool-calling requests (in the cache entry and the reply)."""


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for. `arguments` is the parsed object, or None with `error` saying why."""

    id: str
    name: str
    arguments_text: str
    """The arguments exactly as the server sent them (a JSON string, if the model obeyed)."""
    arguments: dict[str, Any] | None
    error: str | None
    """Why `arguments_text` is not a JSON object (position included); None when it is."""

    def wire(self) -> dict[str, Any]:
        """The call as an assistant message carries it (`{"id", "type", "function": {...}}`)."""
        function = {"name": self.name, "arguments": self.arguments_text}
        return {"id": self.id, "type": "function", "function": function}


@dataclass(frozen=True)
class ToolReply:
    """One assistant turn of a tool-calling conversation."""

    content: str | None
    """The assistant's text (the final answer, or a note beside tool calls); None when there is none."""
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str | None
    """`tool_calls`, `stop`, or `length` when the turn was cut off at the token limit."""
    usage: Usage
    cached: bool
    """Served from the cache (or shared with an identical request in flight): no call was made."""
    attempts: int
    """HTTP requests sent for this turn (0 when cached)."""
    seconds: float
    key: str = ""
    """The request's cache key."""

    @property
    def truncated(self) -> bool:
        """The turn was cut off at the token limit (its last call's arguments are likely broken)."""
        return self.finish_reason == "length"

    @property
    def malformed(self) -> list[ToolCall]:
        """The calls whose arguments are not a JSON object."""
        return [call for call in self.tool_calls if call.error is not None]

    def message(self) -> dict[str, Any]:
        """The assistant message to append to the conversation before the calls' results."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            message["tool_calls"] = [call.wire() for call in self.tool_calls]
        return message


def tool_message(call_id: str, content: str) -> dict[str, Any]:
    """The message that answers tool call `call_id` with `content` (a result, or `error: ...`)."""
    return {"role": "tool", "tool_call_id": call_id, "content": content}


@dataclass(frozen=True)
class EncodedTools:
    """The tools offered in a conversation, as their canonical JSON, made once (`encode_tools`): every
    turn's request body and cache key embed this text instead of serialising the tools again (68 KB a
    turn for a toolkit of 53 tools). The text is what is sent, so later changes to the list cannot make
    the body and the cache key disagree."""

    text: str
    count: int


def encode_tools(tools: list[dict[str, Any]] | EncodedTools) -> EncodedTools:
    """`tools` encoded once (an `EncodedTools` is returned as it is)."""
    if isinstance(tools, EncodedTools):
        return tools
    return EncodedTools(canonical_json(tools), len(tools))


def tools_body(
    settings: LLMSettings,
    model: str,
    messages_json: str,
    tools: EncodedTools,
    tool_choice: str | dict[str, Any],
) -> bytes:
    """The JSON body of one tool-calling turn of `POST /chat/completions`, from the messages' and the tools'
    canonical JSON.

    The same body `chat.completions.create(model=..., messages=..., tools=..., tool_choice=...,
    temperature=..., seed=..., max_tokens=...)` sends (a test compares the two on the wire), made without
    the `openai` client's TypedDict transform of every message and tool schema, nor a second serialisation
    of the 68 KB of tools: the client posts it as it is (`LLMClient._send`).
    """
    fields = {
        "model": canonical_json(model),
        "messages": messages_json,
        "tools": tools.text,
        "tool_choice": canonical_json(tool_choice),
        "temperature": canonical_json(settings.temperature),
    }
    if settings.seed is not None:
        fields["seed"] = canonical_json(settings.seed)
    if settings.max_tokens is not None:
        fields["max_tokens"] = canonical_json(settings.max_tokens)
    return encoded_object(fields).encode()


def parse_arguments(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """(object, None) when `text` is a JSON object ("" counts as `{}`), else (None, why)."""
    if not text.strip():
        return {}, None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno} (char {error.pos})"
        return None, f"the arguments are not valid JSON: {error.msg} at {where}"
    if not isinstance(value, dict):
        return None, f"the arguments must be a JSON object, not {type(value).__name__}"
    return value, None


def wire_calls(message: Any) -> list[dict[str, str]]:
    """The function calls of an SDK `ChatCompletionMessage` as `{"id", "name", "arguments"}` dicts.

    Calls of other types (custom tools) are kept with their name and raw input, so the caller can
    answer them with an error instead of losing them.
    """
    found: list[dict[str, str]] = []
    for call in getattr(message, "tool_calls", None) or []:
        function = getattr(call, "function", None)
        if function is not None:
            found.append({"id": call.id, "name": function.name, "arguments": function.arguments or ""})
        else:
            custom = getattr(call, "custom", None)
            name = getattr(custom, "name", "") if custom is not None else ""
            found.append({"id": call.id, "name": name, "arguments": getattr(custom, "input", "") or ""})
    return found


def tool_calls(stored: list[dict[str, str]] | None) -> tuple[ToolCall, ...]:
    """`ToolCall`s from the stored `{"id", "name", "arguments"}` dicts, arguments parsed."""
    calls = []
    for item in stored or []:
        arguments, error = parse_arguments(item.get("arguments", ""))
        calls.append(ToolCall(item["id"], item.get("name", ""), item.get("arguments", ""), arguments, error))
    return tuple(calls)
