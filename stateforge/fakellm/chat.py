"""What the fake model answers: one chat-completion request in, one OpenAI `chat.completion` out.

Pure functions of the request, the seed and the fault chosen for it: no HTTP, no counters, no clock
except the `created` field. `response_format` `json_schema` gets a document that conforms to the schema
(`rows.synthesize`), echoing the fixed fields of the rows the prompt asks to complete, or, with
`follow_prompt=False`, from the schema alone (as a server whose constrained decoding obeys the schema
but whose model ignores the prompt); `json_object` gets a JSON object (`{"rows": ...}` when the prompt
has or asks for rows), no format gets a few sentences; a request with `tools` is answered by
`toolcalls.py` (tool calls in the wire format, then a final message). `max_tokens` /
`max_completion_tokens` cut the content (finish_reason "length"). Tokens are counted as
ceil(characters / 4) (the tools offered and earlier tool calls count as prompt text).
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from stateforge.fakellm.faults import CONTENT_FAULTS, TEXT_FAULTS, corrupt_document, corrupt_text
from stateforge.fakellm.rows import FixedRows, find_fixed_rows, object_answer, synthesize, text_answer

_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 404: "invalid_request_error"}
_ERROR_TYPES |= {413: "invalid_request_error", 429: "requests"}


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, a JSON body and extra headers."""

    status: int
    body: Any
    headers: tuple[tuple[str, str], ...] = ()

    def payload(self) -> bytes:
        """The body as UTF-8 JSON bytes."""
        return json.dumps(self.body, ensure_ascii=False).encode()


class ApiError(Exception):
    """An error answered in OpenAI's format: `{"error": {"message", "type", "param", "code"}}`."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        code: str | None = None,
        param: str | None = None,
        headers: tuple[tuple[str, str], ...] = (),
    ) -> None:
        super().__init__(message)
        kind = _ERROR_TYPES.get(status, "server_error")
        error = {"message": message, "type": kind, "param": param, "code": code}
        self.reply = Reply(status, {"error": error}, headers)


@dataclass(frozen=True)
class Answer:
    """The assistant's content (or tool calls), why it stopped, and the fault applied to it ("" for none)."""

    content: str
    finish_reason: str = "stop"
    fault: str = ""
    tool_calls: tuple[dict[str, str], ...] = ()
    """Tool calls as `{"id", "name", "arguments"}` (arguments a string); the content is then null."""


def parse_body(body: bytes) -> dict[str, Any]:
    """A request's JSON object, or a 400."""
    try:
        value = json.loads(body or b"{}")
    except ValueError as error:
        raise ApiError(400, f"We could not parse the JSON body of your request: {error}.") from error
    if not isinstance(value, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    return value


def check_model(name: Any, models: Sequence[str]) -> str:
    """`name` if it is one of `models`, else the 404 OpenAI answers for an unknown model."""
    if name not in models:
        raise ApiError(404, f"The model `{name}` does not exist.", code="model_not_found", param="model")
    return name


def check_chat_request(request: dict[str, Any]) -> None:
    """400 for a request without messages, or one that asks for streaming (not implemented)."""
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        raise ApiError(400, "'messages' must be a non-empty array of message objects.", param="messages")
    if request.get("stream"):
        message = "stream=true is not supported by the fake server; send non-streaming requests."
        raise ApiError(400, message, param="stream", code="unsupported_parameter")


def request_digest(request: dict[str, Any], seed: int) -> str:
    """A hex digest of the seed and the request body: seeds the answer and names the completion."""
    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(f"{seed}\n{canonical}".encode()).hexdigest()


def answer(request: dict[str, Any], rng: random.Random, fault: str | None, default_rows: int, *,
           follow_prompt: bool = True) -> Answer:
    """The content for `request`, with a content or text `fault` applied where it applies.

    `follow_prompt=False`: a `json_schema` answer is made from the schema alone.
    """
    prompt = last_user_text(request["messages"])
    fixed = find_fixed_rows(prompt)
    if not follow_prompt and _format_type(request) == "json_schema":
        fixed = []
    doc, text = _compose(request, prompt, fixed, rng, default_rows)
    applied, finish = "", "stop"
    if fault in CONTENT_FAULTS and doc is not None:
        corrupted = corrupt_document(fault, doc, fixed, rng)
        doc, applied = (doc, "") if corrupted is None else (corrupted, fault)
    if doc is not None:
        text = json.dumps(doc, ensure_ascii=False)
    if fault in TEXT_FAULTS and (broken := corrupt_text(fault, text, rng)) is not None:
        (text, finish), applied = broken, fault
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    if isinstance(limit, int) and count_tokens(text) > limit:
        text, finish = text[: 4 * limit], "length"
    return Answer(text, finish, applied)


def _format_type(request: dict[str, Any]) -> str | None:
    fmt = request.get("response_format") or {"type": "text"}
    return fmt.get("type") if isinstance(fmt, dict) else None


def _compose(
    request: dict[str, Any], prompt: str, fixed: FixedRows, rng: random.Random, default_rows: int
) -> tuple[Any, str]:
    """(document, "") for the JSON formats, (None, text) for plain text."""
    fmt = request.get("response_format") or {"type": "text"}
    kind = _format_type(request)
    if kind == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema")
        if not isinstance(schema, dict):
            message = "response_format.json_schema.schema must be a JSON schema object."
            raise ApiError(400, message, param="response_format")
        try:
            return synthesize(schema, rng, fixed_rows=fixed, default_rows=default_rows), ""
        except (KeyError, TypeError, ValueError) as error:
            raise ApiError(400, f"Invalid schema: {error!r}", param="response_format") from error
    if kind == "json_object":
        return object_answer(prompt, fixed, rng, default_rows), ""
    if kind == "text":
        return None, text_answer(rng)
    raise ApiError(400, f"Unsupported response_format type {kind!r}.", param="response_format")


def completion_body(request: dict[str, Any], model: str, digest: str, result: Answer) -> dict[str, Any]:
    """The `chat.completion` object for `result`, with deterministic usage."""
    prompt_tokens = sum(count_tokens(message_text(m.get("content"))) + 4 for m in request["messages"])
    calls = [m["tool_calls"] for m in request["messages"] if m.get("tool_calls")]
    prompt_tokens += sum(count_tokens(json.dumps(c)) for c in calls)
    if request.get("tools"):
        prompt_tokens += count_tokens(json.dumps(request["tools"], sort_keys=True))
    message: dict[str, Any] = {"role": "assistant", "content": result.content, "refusal": None}
    completion_tokens = count_tokens(result.content)
    if result.tool_calls:
        message["content"] = None
        message["tool_calls"] = [
            {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}
            for c in result.tool_calls
        ]
        completion_tokens = sum(count_tokens(c["name"] + c["arguments"]) + 3 for c in result.tool_calls)
    return {
        "id": f"chatcmpl-{digest[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": result.finish_reason, "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
        "system_fingerprint": "fp_stateforge_fake",
    }


def count_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: one token per four characters, rounded up."""
    return (len(text) + 3) // 4


def message_text(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def last_user_text(messages: list[dict[str, Any]]) -> str:
    """The text of the last user message ("" when there is none)."""
    return next((message_text(m.get("content")) for m in reversed(messages) if m.get("role") == "user"), "")
