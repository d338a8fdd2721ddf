"""The retry policy and the reply parsing, as pure functions (errors built as the `openai` client builds
them from a real `httpx2` response)."""

from __future__ import annotations

import email.utils
import random
import time
from typing import Any

import httpx2
import openai
import pytest

from stateforge.errors import TerminalError, TransientError
from stateforge.llm.reply import chat_request, describe_schema, parse_json_reply, schema_name
from stateforge.llm.retry import (
    backoff_delay,
    plan_retry,
    refuses_json_schema,
    retry_after_seconds,
    retry_cause,
)
from stateforge.llm.settings import LLMSettings

URL = "http://127.0.0.1:9/v1/chat/completions"


def status_error(status: int, message: str, headers: dict[str, str] | None = None, **error: Any) -> Any:
    """The exception the openai client raises for an HTTP error answer."""
    response = httpx2.Response(status, headers=headers, request=httpx2.Request("POST", URL))
    classes = {400: openai.BadRequestError, 401: openai.AuthenticationError, 429: openai.RateLimitError}
    cls = classes.get(status, openai.InternalServerError if status >= 500 else openai.APIStatusError)
    return cls(f"Error code: {status} - {message}", response=response, body={"message": message, **error})


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert retry_after_seconds({"Retry-After": "2"}) == 2.0
    assert retry_after_seconds({"retry-after": "0.05"}) == 0.05
    in_a_minute = email.utils.formatdate(time.time() + 60, usegmt=True)
    assert 55 <= retry_after_seconds({"Retry-After": in_a_minute}) <= 61
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({}) is None and retry_after_seconds(None) is None


def test_backoff_is_full_jitter_capped() -> None:
    rng = random.Random(1)
    draws = [backoff_delay(retry, 0.5, 30.0, rng) for retry in range(12) for _ in range(50)]
    assert all(0.0 <= d <= 30.0 for d in draws)
    assert max(backoff_delay(0, 0.5, 30.0, rng) for _ in range(200)) <= 0.5
    assert max(backoff_delay(10, 0.5, 30.0, rng) for _ in range(200)) > 20.0  # capped, not tiny


def test_causes() -> None:
    assert retry_cause(status_error(429, "slow down")) == "rate_limit"
    assert (
        retry_cause(status_error(429, "You exceeded your current quota", code="insufficient_quota")) is None
    )
    assert retry_cause(status_error(503, "Overloaded")) == "server_error"
    assert retry_cause(status_error(400, "bad")) is None
    request = httpx2.Request("POST", URL)
    assert retry_cause(openai.APITimeoutError(request)) == "timeout"
    assert retry_cause(openai.APIConnectionError(request=request)) == "connection"


def test_plan_retry_prefers_the_servers_wait_and_gives_up_as_told() -> None:
    settings = LLMSettings(max_retries=2, backoff_base=1.0, backoff_max=1.0)
    rng = random.Random(0)
    plan = {"settings": settings, "rng": rng, "where": "m at http://x/v1"}
    assert plan_retry(status_error(429, "wait", {"retry-after-ms": "20"}), retries=0, attempts=1, **plan) == (
        "rate_limit",
        0.02,
    )
    cause, wait = plan_retry(status_error(500, "oops"), retries=1, attempts=2, **plan)
    assert cause == "server_error" and 0.0 <= wait <= 1.0
    with pytest.raises(
        TransientError, match=r"m at http://x/v1: still failing after 3 attempts.*HTTP 500: oops"
    ):
        plan_retry(status_error(500, "oops"), retries=2, attempts=3, **plan)
    with pytest.raises(TransientError, match="asks to wait 3600 s"):
        plan_retry(status_error(429, "quota", {"retry-after": "3600"}), retries=0, attempts=1, **plan)
    with pytest.raises(TerminalError, match=r"refused the request: HTTP 400: bad field\. *$"):
        plan_retry(status_error(400, "bad field."), retries=0, attempts=1, **plan)


@pytest.mark.parametrize(
    ("message", "param", "refused"),
    [
        (
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
            None,
            True,
        ),
        ("Unsupported response_format type 'json_schema'.", "response_format", True),
        ("response_format.type: Input should be 'text' or 'json_object'", None, True),
        ("Invalid schema: KeyError('items')", "response_format", False),
        ("'messages' must be a non-empty array of message objects.", "messages", False),
    ],
)
def test_refusals_of_json_schema(message: str, param: str | None, refused: bool) -> None:
    assert refuses_json_schema(status_error(400, message, param=param)) is refused


def test_parse_json_reply_names_the_position() -> None:
    assert parse_json_reply('{"a": [1, 2]}', "stop") == ({"a": [1, 2]}, None)
    assert parse_json_reply('```json\n{"a": 1}\n```', "stop") == ({"a": 1}, None)
    data, error = parse_json_reply('{"a": [1,\n 2', "length")
    assert data is None and "line 2, column" in error and "cut off at the token limit" in error
    assert parse_json_reply("  ", "stop") == (None, "empty reply")


def test_json_object_requests_carry_the_schema_in_the_system_prompt() -> None:
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    messages = [{"role": "system", "content": "You fill tables."}, {"role": "user", "content": "Go."}]
    described = describe_schema(messages, schema, "T")
    assert len(described) == 2 and described[0]["content"].startswith("You fill tables.\n\n")
    assert (
        '"x": {"type": "integer"}' in described[0]["content"] and messages[0]["content"] == "You fill tables."
    )
    assert describe_schema(messages[1:], schema, "T")[0]["role"] == "system"
    settings = LLMSettings(seed=7, max_tokens=100)
    strict = chat_request(settings, "m", messages, schema, "T", "json_schema")
    assert strict["response_format"]["json_schema"] == {"name": "T", "schema": schema, "strict": True}
    assert (strict["seed"], strict["max_tokens"], strict["temperature"]) == (7, 100, 0.0)
    assert chat_request(settings, "m", messages, schema, "T", "json_object")["response_format"] == {
        "type": "json_object"
    }
    assert schema_name("table songs.rows") == "table_songs_rows"
