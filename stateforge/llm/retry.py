"""The retry policy of the LLM client, as pure functions: which errors are retried, how long to wait,
and what a server's refusal says.

- Retried (transient): 429 (except `insufficient_quota`), 408 and timeouts, 409 and 5xx, connection errors.
- Not retried (terminal): every other 4xx (bad request, auth, unknown model, payload too large).
- The wait: the server's `retry-after-ms` or `Retry-After` (seconds or an HTTP date) when it sends one
  (a wait longer than `MAX_SERVER_WAIT` is not waited out: the request fails as transient at once),
  else full jitter: a uniform draw in [0, min(backoff_max, backoff_base * 2**retry)].
The jitter comes from the client's own `random.Random`, so generated data never depends on it.
`plan_retry` puts these together for the client's retry loop.
"""

from __future__ import annotations

import email.utils
import math
import random
import re
import time
from collections.abc import Mapping
from typing import Any

import openai

from stateforge.errors import TerminalError, TransientError
from stateforge.llm.settings import LLMSettings

MAX_SERVER_WAIT = 120.0
"""Seconds: the longest Retry-After the client waits out (a longer one means a quota, not a blip)."""

_MENTIONS_FORMAT = re.compile(r"json_schema|response_format|structured output", re.IGNORECASE)
_SAYS_NO = re.compile(
    r"support|unknown|unrecogni[sz]ed|not allowed|not permitted|input should be|extra inputs|must be one of",
    re.IGNORECASE,
)


def retry_cause(error: BaseException) -> str | None:
    """The retry cause of `error` (`rate_limit`, `server_error`, `timeout`, `connection`), or None when
    retrying cannot help."""
    if isinstance(error, openai.APITimeoutError):
        return "timeout"
    if isinstance(error, openai.APIConnectionError):
        return "connection"
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status == 429:
            return None if error.code == "insufficient_quota" else "rate_limit"
        if status == 408:
            return "timeout"
        if status == 409 or status >= 500:
            return "server_error"
    return None


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """The wait a server asks for: `retry-after-ms`, else `Retry-After` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {str(k).lower(): str(v) for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / scale
        except ValueError:
            continue
        if math.isfinite(seconds):
            return max(seconds, 0.0)
    date = lowered.get("retry-after")
    if date is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


def backoff_delay(retry: int, base: float, cap: float, rng: random.Random) -> float:
    """Full jitter: a uniform wait in [0, min(cap, base * 2**retry)] seconds (`retry` counts from 0)."""
    return rng.uniform(0.0, min(cap, base * 2.0 ** min(retry, 60)))


def server_message(error: openai.APIError) -> str:
    """The server's own message (`{"error": {"message": ...}}`), without the client's prefix."""
    body = error.body
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, Mapping) else None
        if isinstance(message, str) and message:
            return message
    if isinstance(body, str) and body.strip():
        return body.strip()[:500]
    return error.message


def refuses_json_schema(error: BaseException) -> bool:
    """True when a 400/422 says the server (or model) does not support `response_format` json_schema.

    Servers word it differently ("'response_format' of type 'json_schema' is not supported with this
    model", "Unsupported response_format type 'json_schema'", a validation error listing the types it
    accepts), so this looks for a mention of the format and a word of refusal; an invalid *schema* is
    not a refusal of the format.
    """
    if not isinstance(error, openai.APIStatusError) or error.status_code not in (400, 422):
        return False
    message = server_message(error)
    mentions = _MENTIONS_FORMAT.search(message) or error.param == "response_format"
    return bool(mentions and _SAYS_NO.search(message) and "invalid schema" not in message.lower())


CONSTRAINT_KEYWORDS = (
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
)
"""Schema keywords outside the subset every strict-mode server accepts (types, enums, required, ...)."""


def refuses_schema_keywords(error: BaseException) -> bool:
    """True when a 400/422 says the *schema* is invalid because of a keyword some strict modes reject
    (`'maxLength' is not permitted`, `Invalid schema ... minimum`): the request can go again without them."""
    if not isinstance(error, openai.APIStatusError) or error.status_code not in (400, 422):
        return False
    message = server_message(error)
    return "schema" in message.lower() and any(k in message for k in CONSTRAINT_KEYWORDS)


def portable_schema(schema: Any) -> Any:
    """`schema` without `CONSTRAINT_KEYWORDS` (recursively): the strictest common subset of JSON Schema.

    The constraints still hold: they are in the prompt, and every reply row is validated against the
    column's type, length and CHECK bounds before it is used.
    """
    if isinstance(schema, dict):
        return {k: portable_schema(v) for k, v in schema.items() if k not in CONSTRAINT_KEYWORDS}
    if isinstance(schema, list):
        return [portable_schema(v) for v in schema]
    return schema


def describe_error(error: BaseException) -> str:
    """A short account of a failed request: `HTTP 503: Overloaded`, `timed out`, `APIConnectionError: ...`."""
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {server_message(error)}"
    if isinstance(error, openai.APITimeoutError):
        return "timed out"
    return f"{type(error).__name__}: {error}"


def plan_retry(
    error: openai.APIError,
    *,
    retries: int,
    attempts: int,
    settings: LLMSettings,
    rng: random.Random,
    where: str,
) -> tuple[str, float]:
    """(cause, seconds to wait) before retrying the request that failed with `error`, or raise.

    `retries` is how many retries were made already, `attempts` how many requests were sent, `where`
    names the model and server for messages. Raises TerminalError when retrying cannot help (the
    server's message, and what to check), TransientError when the retries are spent or the server asks
    for a wait longer than `MAX_SERVER_WAIT`.
    """
    cause = retry_cause(error)
    if cause is None:
        status = getattr(error, "status_code", None)
        text = f"{where} refused the request: {describe_error(error).rstrip('. ')}."
        if status in (401, 403):
            text += " Check OPENAI_API_KEY."
        elif status == 404:
            text += " Check --model and that the base URL ends in /v1."
        raise TerminalError(text)
    response = getattr(error, "response", None)
    hint = retry_after_seconds(response.headers if response is not None else None)
    if hint is not None and hint > MAX_SERVER_WAIT:
        raise TransientError(
            f"{where}: the server asks to wait {hint:.0f} s before a retry (a quota?): "
            f"{describe_error(error)}. Try again later or lower --concurrency."
        )
    if retries >= settings.max_retries:
        raise TransientError(
            f"{where}: still failing after {attempts} attempts ({settings.max_retries} retries); last error: "
            f"{describe_error(error)}. Try again later, lower --concurrency, or raise max_retries."
        )
    if hint is not None:
        return cause, hint
    return cause, backoff_delay(retries, settings.backoff_base, settings.backoff_max, rng)
