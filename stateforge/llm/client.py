"""The LLM client: JSON replies and tool-calling turns from any OpenAI-compatible server, cached,
retried, bounded and counted.

`LLMClient(settings).complete_json(messages, schema, name=...)` sends one chat completion asking for
JSON (Structured Outputs, or json_object mode with the schema described in the prompt) and returns an
`LLMReply`; `complete_tools(messages, tools, name=...)` sends one turn of a function-calling
conversation and returns a `ToolReply` (tool calls or a final message, `tooluse.py`). A malformed or
truncated reply is data (`data=None`, `error` naming the position; unparsable tool arguments likewise)
for the caller's repair loop, never an exception. Transport trouble is retried here (policy: `retry.py`), then
raised as `TransientError`; a refusal by the server (bad request, auth) is a `TerminalError`.

Concurrency: an `asyncio.Semaphore(settings.concurrency)` per event loop bounds requests in flight;
identical requests in flight at once share one call. Sync code (Prefect tasks, the fill engine) uses
`complete_many` / `run`, which run on the client's own event-loop thread, so they work whether or not
the caller's thread already runs a loop.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Callable, Coroutine, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx2
import openai
from openai.types.chat import ChatCompletion

from stateforge.errors import StateforgeError, TerminalError, TransientError
from stateforge.llm.accounting import LLMStats
from stateforge.llm.cache import CachedReply, ResponseCache, canonical_json, encoded_tools_key, request_key
from stateforge.llm.loop import LoopThread
from stateforge.llm.reply import LLMReply, LLMRequest, Usage, chat_request, parse_json_reply, schema_name
from stateforge.llm.retry import (
    describe_error,
    plan_retry,
    portable_schema,
    refuses_json_schema,
    refuses_schema_keywords,
    server_message,
)
from stateforge.llm.settings import LLMSettings
from stateforge.llm.tooluse import (
    TOOLS_MODE,
    EncodedTools,
    ToolReply,
    encode_tools,
    tool_calls,
    tools_body,
    wire_calls,
)

__all__ = ["LLMClient", "LLMReply", "LLMRequest", "ToolReply", "Usage"]

log = logging.getLogger(__name__)
T = TypeVar("T")
_JSON_POST: dict[str, Any] = {"security": {"bearer_auth": True}}
"""The request options `chat.completions.create` gives its POST (the API key as a bearer token); the
client's default headers say `Content-Type: application/json`."""


@dataclass
class _LoopState:
    """What belongs to one event loop: its HTTP client, its semaphore, its requests in flight."""

    api: openai.AsyncOpenAI
    semaphore: asyncio.Semaphore
    inflight: dict[str, asyncio.Future[None]] = field(default_factory=dict)


_NOT_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)
"""Transport failures that happen before a byte of the request is written: no connection was made
(refused, or not made within the timeout, e.g. while the client's loop was starved on a loaded machine),
or none came free in the pool."""


def _reached_server(error: openai.APIError) -> bool:
    """False when `error` means the request never left the client (the server cannot have seen it);
    True when it did or may have (a read timeout, a dropped connection, any HTTP status)."""
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, _NOT_SENT):
            return False
        cause = cause.__cause__
    return True


class LLMClient:
    """JSON completions from the server in `settings`, with cache, retries, a concurrency bound and stats."""

    def __init__(self, settings: LLMSettings, *, stats: LLMStats | None = None) -> None:
        from stateforge.llm.backends import get_backend

        if not get_backend(settings.backend).uses_llm:
            get_backend(settings.backend).client(settings)  # raises: this backend calls no LLM
        if not settings.model:
            raise TerminalError("the openai backend needs a model: pass --model NAME")
        if settings.api_key is None:
            raise TerminalError(
                "set OPENAI_API_KEY (any non-empty value for a local server such as vLLM or Ollama)"
            )
        self.settings = settings
        self.model: str = settings.model
        self.base_url = settings.resolved_base_url
        self.stats = stats if stats is not None else LLMStats()
        self.cache = ResponseCache(settings.cache_dir)
        self._price = settings.price_for(settings.model)
        self._jitter = random.Random()  # backoff waits only: never feeds data
        self._json_object = settings.response_format == "json_object"
        self._portable = False  # set once a server rejects length/range keywords in the schema
        self._states: dict[asyncio.AbstractEventLoop, _LoopState] = {}
        self._lock = threading.Lock()
        self._runner: LoopThread | None = None

    @property
    def mode(self) -> str:
        """The response format requests use now (`auto` turns to `json_object` after a refusal)."""
        return "json_object" if self._json_object else "json_schema"

    # -- the async API -------------------------------------------------------------------------------

    async def complete_json(
        self,
        messages: list[dict[str, Any]],
        schema: dict[str, Any],
        *,
        name: str,
        cache_key: dict[str, Any] | None = None,
    ) -> LLMReply:
        """A JSON reply to `messages` conforming (if the model obeys) to `schema`, named `name`.

        `cache_key`: extra values that tell otherwise identical requests apart in the cache (a prompt
        version, a repair attempt). Raises TransientError after `max_retries`, TerminalError when the
        server refuses the request.
        """
        started = time.perf_counter()
        name = schema_name(name)
        key = request_key(self.settings, self.model, messages, name, schema, cache_key)

        def build() -> tuple[dict[str, Any], str]:
            sent_schema = portable_schema(schema) if self._portable else schema
            mode = self.mode
            return chat_request(self.settings, self.model, messages, sent_schema, name, mode), mode

        entry, cached, attempts = await self._complete(key, build, json_reply=True)
        data, error = parse_json_reply(entry.content, entry.finish_reason)
        if error is not None:
            self.stats.record("malformed")
        usage = Usage(entry.prompt_tokens, entry.completion_tokens)
        found = (entry.finish_reason, usage, cached, attempts, time.perf_counter() - started)
        return LLMReply(entry.content, data, error, *found, entry.mode, entry.key)

    async def complete_tools(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | EncodedTools,
        *,
        name: str,
        tool_choice: str | dict[str, Any] = "auto",
        cache_key: dict[str, Any] | None = None,
    ) -> ToolReply:
        """One assistant turn of a tool-calling conversation: tool calls, or a final message.

        `tools` are OpenAI function tools (`Toolkit.openai_tools()` entries), or those encoded once for
        the whole conversation (`tooluse.encode_tools`: each turn then serialises only the messages, once
        for the key and the body); `name` labels the
        conversation in the cache key; `cache_key` as for `complete_json`. The same cache, retries,
        concurrency bound and accounting as `complete_json`: a rerun of the same conversation makes no
        call. Arguments that are not a JSON object come back as data (`ToolCall.error`, counted as
        `malformed`), for the caller to answer the model with. Raises as `complete_json` does.
        """
        started = time.perf_counter()
        encoded = encode_tools(tools)
        messages_json = canonical_json(messages)
        key = encoded_tools_key(self.settings, self.model, messages_json, name, encoded.text, tool_choice,
                                cache_key)

        def build() -> tuple[bytes, str]:
            return tools_body(self.settings, self.model, messages_json, encoded, tool_choice), TOOLS_MODE

        entry, cached, attempts = await self._complete(key, build, json_reply=False)
        calls = tool_calls(entry.tool_calls)
        if any(call.error is not None for call in calls):
            self.stats.record("malformed")
        usage = Usage(entry.prompt_tokens, entry.completion_tokens)
        seconds = time.perf_counter() - started
        content = entry.content if entry.content or not calls else None
        return ToolReply(content, calls, entry.finish_reason, usage, cached, attempts, seconds, entry.key)

    async def _complete(
        self, key: str, build: Callable[[], tuple[dict[str, Any] | bytes, str]], *, json_reply: bool
    ) -> tuple[CachedReply, bool, int]:
        """(entry, cached, attempts) for the request `build` makes: from the cache, from an identical
        request in flight, or from the server (then cached)."""
        if not self.settings.use_cache:
            entry, attempts = await self._fresh(key, build, json_reply)
            return entry, False, attempts
        state = self._state()
        while True:
            entry = self.cache.get(key)
            if entry is not None:
                self.stats.record_cache_hit(entry.prompt_tokens, entry.completion_tokens)
                return entry, True, 0
            leader = state.inflight.get(key)
            if leader is None:
                break
            await asyncio.wait({leader})  # an identical request is in flight: share its reply
            if not leader.cancelled() and isinstance(leader.exception(), StateforgeError):
                error = leader.exception()
                raise type(error)(str(error)) from error
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        state.inflight[key] = future
        try:
            entry, attempts = await self._fresh(key, build, json_reply)
            future.set_result(None)
            return entry, False, attempts
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: followers may or may not look at it
            raise
        finally:
            if not future.done():
                future.cancel()
            state.inflight.pop(key, None)

    async def _fresh(
        self, key: str, build: Callable[[], tuple[dict[str, Any] | bytes, str]], json_reply: bool
    ) -> tuple[CachedReply, int]:
        """Call the server (no cache read), cache the completed reply: (entry, requests sent)."""
        completion, attempts, mode = await self._send(build, json_reply)
        choice = completion.choices[0] if completion.choices else None
        usage = completion.usage
        calls = wire_calls(choice.message) if choice is not None and not json_reply else []
        entry = CachedReply(
            key=key,
            model=self.model,
            mode=mode,
            content=(choice.message.content if choice else None) or "",
            finish_reason=choice.finish_reason if choice else None,
            tool_calls=calls or None,
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
        )
        try:
            self.cache.put(entry)
        except OSError as error:
            log.warning("LLM cache: cannot write %s (%s); the reply is used but not kept", key, error)
        return entry, attempts

    async def _send(
        self, build: Callable[[], tuple[dict[str, Any] | bytes, str]], json_reply: bool
    ) -> tuple[Any, int, str]:
        """POST the request `build` makes until it succeeds: (completion, requests sent, mode used).

        `build` is asked again before every attempt, so a fallback (json_object, the portable schema)
        decided after a refusal applies to the next attempt.
        """
        s, state = self.settings, self._state()
        attempts = retries = 0
        while True:
            portable = self._portable  # what `build` sends: a refusal of it falls back even if another
            request, mode = build()  # request in flight has already switched
            attempts += 1
            async with state.semaphore:
                sent = time.perf_counter()
                try:
                    if isinstance(request, bytes):  # a body made already (`tools_body`): posted as it is
                        completion = await state.api.post(
                            "/chat/completions", cast_to=ChatCompletion, content=request, options=_JSON_POST
                        )
                    else:
                        completion = await state.api.chat.completions.create(**request)
                except openai.APIError as error:
                    self.stats.record_call(time.perf_counter() - sent, self.model, self._price,
                                           sent=_reached_server(error))
                    failure: openai.APIError = error
                except BaseException:  # cancelled in flight: the request may have gone out, so it counts
                    self.stats.record_call(time.perf_counter() - sent, self.model, self._price)
                    raise
                else:
                    usage = completion.usage
                    tokens = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
                    self.stats.record_call(time.perf_counter() - sent, self.model, self._price, *tokens)
                    return completion, attempts, mode
            if json_reply and self._fall_back(mode, portable, failure):
                continue
            where = f"{self.model} at {self.base_url}"
            try:
                cause, delay = plan_retry(
                    failure, retries=retries, attempts=attempts, settings=s, rng=self._jitter, where=where
                )
            except TerminalError as error:
                self.stats.record("errors")
                raise error from failure
            except TransientError as error:
                self.stats.record("gave_up")
                raise error from failure
            self.stats.record_retry(cause)
            log.info("%s: %s, retry %d in %.2f s", where, describe_error(failure), retries + 1, delay)
            retries += 1
            await asyncio.sleep(delay)

    def _fall_back(self, mode: str, portable: bool, failure: openai.APIError) -> bool:
        """Switch to json_object, or to the portable schema, when `failure` is a refusal of either: True
        when the request should go again at once. Logged and counted once per client (requests in flight
        when the first refusal came back are refused too, and resent)."""
        if mode != "json_schema":
            return False
        if self.settings.response_format == "auto" and refuses_json_schema(failure):
            if not self._json_object:
                log.info("%s at %s refuses json_schema (%s); using json_object",
                         self.model, self.base_url, server_message(failure))
                self._json_object = True
                self.stats.record("fallbacks")
            return True
        if not portable and refuses_schema_keywords(failure):
            if not self._portable:
                log.info("%s at %s rejects schema keywords (%s); sending the portable subset",
                         self.model, self.base_url, server_message(failure))
                self._portable = True
                self.stats.record("fallbacks")
            return True
        return False

    def _state(self) -> _LoopState:
        """This event loop's HTTP client and semaphore (made on first use; closed loops are dropped)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            for dead in [lp for lp in self._states if lp.is_closed()]:
                del self._states[dead]
            state = self._states.get(loop)
            if state is None:
                assert self.settings.api_key is not None
                api = openai.AsyncOpenAI(
                    base_url=self.base_url,
                    api_key=self.settings.api_key.get_secret_value(),
                    max_retries=0,  # retries happen in `_send`, where they are counted
                    timeout=self.settings.timeout,
                )
                state = self._states[loop] = _LoopState(api, asyncio.Semaphore(self.settings.concurrency))
            return state

    # -- the sync API --------------------------------------------------------------------------------

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the client's event-loop thread and wait for its result (for sync callers)."""
        with self._lock:
            if self._runner is None:
                self._runner = LoopThread()
            runner = self._runner
        return runner.run(coro)

    def complete_many(
        self, requests: Iterable[LLMRequest | Mapping[str, Any]], *, return_exceptions: bool = False
    ) -> list[Any]:
        """`complete_json` for every request, concurrently (bounded); replies in request order.

        With `return_exceptions`, a failed request's slot holds its TransientError / TerminalError
        instead of the first failure being raised.
        """
        batch = [r if isinstance(r, LLMRequest) else LLMRequest(**r) for r in requests]

        async def gather() -> list[Any]:
            calls = (
                self.complete_json(r.messages, r.schema, name=r.name, cache_key=r.cache_key) for r in batch
            )
            return await asyncio.gather(*calls, return_exceptions=return_exceptions)

        return self.run(gather())

    # -- lifecycle -----------------------------------------------------------------------------------

    def close(self) -> None:
        """Close the HTTP client of the sync helpers' loop and stop that loop's thread."""
        with self._lock:
            runner, self._runner = self._runner, None
        if runner is not None:
            state = self._states.pop(runner.loop, None)
            if state is not None:
                runner.run(state.api.close())
            runner.stop()

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop."""
        with self._lock:
            state = self._states.pop(asyncio.get_running_loop(), None)
        if state is not None:
            await state.api.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()
        if self._runner is not None:
            await asyncio.to_thread(self.close)
