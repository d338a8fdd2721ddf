"""A local OpenAI-compatible HTTP server for tests and benchmarks of the LLM fill path.

Endpoints (OpenAI wire format; errors as `{"error": {"message", "type", "param", "code"}}`):

- `GET /v1/models`, `GET /v1/models/{id}`: the configured model names.
- `POST /v1/chat/completions`, non-streaming (what it answers: `chat`; with `tools`: `toolcalls`, tool
  calls from a script or the rule-based agent). `stream: true` gets a 400: SSE is not implemented. `n`
  and sampling parameters are ignored.
- `GET /_control/stats`, `GET|POST /_control/faults`, `POST /_control/reset`: counters and run-time fault
  switches for tests. `GET|POST /_control/scripts`, `DELETE /_control/scripts[/KEY]`: list, add and
  drop the scripts of tool-calling conversations (`scripts`). Control requests need no API key, are
  never faulted and are not counted.

Determinism: the content, id and usage of an answer are a function of the seed and the request body,
byte for byte. Faults and jitter are a function of the seed and the request's sequence number (1, 2, ...
in arrival order, restarted by a reset), so a sequential client meets the same faults on every run.
"""

from __future__ import annotations

import copy
import logging
import random
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

from stateforge.fakellm.chat import (
    ApiError,
    Reply,
    answer,
    check_chat_request,
    check_model,
    completion_body,
    parse_body,
    request_digest,
)
from stateforge.fakellm.faults import FaultConfig, FaultSpec, choose_fault, parse_faults
from stateforge.fakellm.httpd import FakeHTTPServer
from stateforge.fakellm.scripts import ScriptBook, parse_script
from stateforge.fakellm.toolcalls import tool_answer

log = logging.getLogger(__name__)


@dataclass
class FakeStats:
    """Counters since start or the last reset (control requests are not counted)."""

    requests: int = 0
    by_path: dict[str, int] = field(default_factory=dict)
    by_status: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)
    """Faults actually injected, by name (one that did not apply to an answer is not counted)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tool_calls: int = 0
    """Tool calls sent in answers (tool-calling mode)."""
    drivers: dict[str, int] = field(default_factory=dict)
    """Tool-calling turns answered, by who chose them: `agent`, `script:<key>`, `none`."""
    in_flight: int = 0
    max_in_flight: int = 0
    """The most requests served at the same time: proof that concurrent requests overlapped."""

    def to_dict(self) -> dict[str, Any]:
        """The counters as JSON-ready data (the body of `GET /_control/stats`)."""
        return asdict(self)


@dataclass(frozen=True)
class RecordedRequest:
    """A chat-completion request as the server received it."""

    headers: dict[str, str]
    """Lower-case names."""
    body: Any
    """The parsed JSON body."""


class FakeLLMServer:
    """An OpenAI-compatible server on loopback, run in a background thread (or the foreground).

    Use it as a context manager: `with FakeLLMServer(latency=0.2, faults={"malformed": 0.1}) as server:
    client = openai.OpenAI(base_url=server.base_url, api_key="test")`. The port is bound on construction
    (`port=0` picks a free one). `latency` seconds, plus up to `jitter` more, delay every chat completion
    except a rate-limit refusal; the `timeout` fault holds its answer `timeout_delay` seconds; a 429 carries
    `Retry-After: retry_after`. With `api_key`, `/v1` requests need `Authorization: Bearer <api_key>`.
    `record=N` keeps the last N chat-completion requests as they arrived (`recorded()`: headers and parsed
    body), for tests of what a client puts on the wire. `follow_prompt=False` makes `json_schema` answers
    from the schema alone, ignoring the rows the prompt asks to complete: a server whose decoding obeys the
    schema while its model ignores the prompt.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        latency: float = 0.0,
        jitter: float = 0.0,
        faults: FaultConfig = None,
        seed: int = 0,
        models: Sequence[str] = ("fake-model",),
        api_key: str | None = None,
        default_rows: int = 5,
        timeout_delay: float = 30.0,
        retry_after: float = 1.0,
        follow_prompt: bool = True,
        record: int = 0,
    ) -> None:
        self.latency, self.jitter, self.seed = latency, jitter, seed
        self.follow_prompt = follow_prompt
        self.models, self.api_key, self.default_rows = tuple(models), api_key, default_rows
        self.timeout_delay, self.retry_after = timeout_delay, retry_after
        self._rules = parse_faults(faults)
        self._lock = threading.Lock()
        self._stats = FakeStats()
        self._seq = 0
        self._closing = threading.Event()
        self._serving = threading.Event()
        self._thread: threading.Thread | None = None
        self.scripts = ScriptBook()
        """The scripts of tool-calling conversations (`add_script`, `/_control/scripts`)."""
        self._recorded: deque[RecordedRequest] = deque(maxlen=record)
        self._httpd = FakeHTTPServer((host, port), self.handle)

    # -- lifecycle ---------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (the one the OS picked when constructed with `port=0`)."""
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """The server's root, e.g. `http://127.0.0.1:8123` (control endpoints live under it)."""
        return f"http://{self._httpd.server_address[0]}:{self.port}"

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as `base_url`, e.g. `http://127.0.0.1:8123/v1`."""
        return f"{self.url}/v1"

    def start(self) -> FakeLLMServer:
        """Serve in a background daemon thread; returns self."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.serve_forever, name="fake-llm-server", daemon=True)
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until `close()` (from another thread) or Ctrl-C."""
        self._serving.set()
        try:
            self._httpd.serve_forever(poll_interval=0.1)
        finally:
            self._serving.clear()

    def close(self) -> None:
        """Stop serving: wake delayed requests, drop open connections, free the port. Idempotent."""
        if self._closing.is_set():
            return
        self._closing.set()
        if self._serving.is_set() or self._thread is not None:
            # A started thread may not have entered serve_forever yet: shutdown() still stops it (the loop
            # sees the request on entry), where a check of `_serving` alone would leave it serving.
            self._httpd.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd.close_connections()
        self._httpd.server_close()

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- run-time configuration ----------------------------------------------------------------------

    @property
    def faults(self) -> dict[str, FaultSpec]:
        """The active fault rules, as `{"malformed": 0.2, "rate_limit": "every:3"}`."""
        return {name: rule.spec for name, rule in self._rules.items()}

    def set_faults(self, faults: FaultConfig) -> None:
        """Replace every fault rule (`{}` or None switches faults off); the request count goes on."""
        rules = parse_faults(faults)
        with self._lock:
            self._rules = rules

    def add_script(self, script: Mapping[str, Any]) -> None:
        """Register a tool-calling script (`{"key", "match"?, "turns"}`; see `scripts`); ValueError if bad."""
        self.scripts.add(parse_script(dict(script)))

    @property
    def stats(self) -> FakeStats:
        """A snapshot of the counters."""
        with self._lock:
            return copy.deepcopy(self._stats)

    def recorded(self) -> list[RecordedRequest]:
        """The last chat-completion requests kept (`record=N`), oldest first."""
        with self._lock:
            return list(self._recorded)

    def reset(self) -> None:
        """Zero the counters and restart the request sequence (faults and jitter replay from the start)."""
        with self._lock:
            in_flight = self._stats.in_flight
            self._stats, self._seq = FakeStats(in_flight=in_flight, max_in_flight=in_flight), 0

    # -- request handling ---------------------------------------------------------------------------

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes) -> Reply:
        """Answer one HTTP request (`headers` with lower-case names). Never raises."""
        path = urlsplit(target).path.rstrip("/") or "/"
        if path.startswith("/_control/"):
            return self._guard(lambda: self._control(method, path, body))
        self._begin(path)
        reply = self._guard(lambda: self._route(method, path, headers, body))
        self._end(reply)
        return reply

    def _guard(self, respond: Callable[[], Reply]) -> Reply:
        try:
            return respond()
        except ApiError as error:
            return error.reply
        except Exception as error:  # a bug here must reach the client as a 500, not kill the thread
            log.exception("fake LLM server failed on a request")
            return ApiError(500, f"fake server error: {error!r}", code="fake_server_bug").reply

    def _route(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Reply:
        if self.api_key and headers.get("authorization") != f"Bearer {self.api_key}":
            raise ApiError(401, "Incorrect API key provided.", code="invalid_api_key")
        if method == "GET" and path == "/v1/models":
            return Reply(200, {"object": "list", "data": [_model(name) for name in self.models]})
        if method == "GET" and path.startswith("/v1/models/"):
            return Reply(200, _model(check_model(path.removeprefix("/v1/models/"), self.models)))
        if method == "POST" and path == "/v1/chat/completions":
            request = parse_body(body)
            if self._recorded.maxlen:
                with self._lock:
                    self._recorded.append(RecordedRequest(dict(headers), copy.deepcopy(request)))
            return self._chat(request)
        raise ApiError(404, f"Unknown request URL: {method} {path}.", code="unknown_url")

    def _chat(self, request: dict[str, Any]) -> Reply:
        model = check_model(request.get("model"), self.models)
        check_chat_request(request)
        seq = self._next_seq()
        fault = choose_fault(self._rules, self.seed, seq)
        self._delay_or_refuse(fault, seq)
        digest = request_digest(request, self.seed)
        driver = None
        if request.get("tools"):
            rng = random.Random(digest)
            result, driver = tool_answer(request, rng, fault, self.scripts, self.seed, digest)
        else:
            result = answer(request, random.Random(digest), fault, self.default_rows,
                            follow_prompt=self.follow_prompt)
        body = completion_body(request, model, digest, result)
        with self._lock:
            self._stats.prompt_tokens += body["usage"]["prompt_tokens"]
            self._stats.completion_tokens += body["usage"]["completion_tokens"]
            self._stats.tool_calls += len(result.tool_calls)
            if driver is not None:
                self._stats.drivers[driver] = self._stats.drivers.get(driver, 0) + 1
        if result.fault:
            self._injected(result.fault)
        headers = (("x-fake-request", str(seq)),) + (
            (("x-fake-fault", result.fault),) if result.fault else ()
        )
        return Reply(200, body, headers)

    def _delay_or_refuse(self, fault: str | None, seq: int) -> None:
        """Wait out the latency (and a timeout fault), or raise the HTTP fault chosen for this request."""
        if fault == "rate_limit":
            self._injected(fault)
            retry_after = (("Retry-After", f"{self.retry_after:g}"),)
            message = "Rate limit reached (injected by the fake server)."
            raise ApiError(429, message, code="rate_limit_exceeded", headers=retry_after)
        self._closing.wait(self.latency + self.jitter * random.Random(f"{self.seed}:jitter:{seq}").random())
        if fault == "timeout":
            self._injected(fault)
            self._closing.wait(self.timeout_delay)
        if fault in ("server_error", "unavailable"):
            self._injected(fault)
            status, text = (
                (500, "The server had an error") if fault == "server_error" else (503, "Overloaded")
            )
            raise ApiError(status, f"{text} (injected by the fake server).", code=fault)

    def _control(self, method: str, path: str, body: bytes) -> Reply:
        if method == "GET" and path == "/_control/stats":
            return Reply(200, self.stats.to_dict())
        if path == "/_control/faults" and method in ("GET", "POST"):
            if method == "POST":
                try:
                    self.set_faults(parse_body(body))
                except ValueError as error:
                    raise ApiError(400, str(error), param="faults") from error
            return Reply(200, {"faults": self.faults})
        if method == "POST" and path == "/_control/reset":
            self.reset()
            return Reply(200, self.stats.to_dict())
        if path == "/_control/scripts" and method in ("GET", "POST"):
            if method == "POST":
                data = parse_body(body)
                try:
                    for script in data["scripts"] if set(data) == {"scripts"} else [data]:
                        self.add_script(script)
                except (ValueError, TypeError) as error:
                    raise ApiError(400, str(error), param="scripts") from error
            return Reply(200, {"scripts": self.scripts.listing()})
        if method == "DELETE" and (path == "/_control/scripts" or path.startswith("/_control/scripts/")):
            key = path.removeprefix("/_control/scripts").lstrip("/") or None
            return Reply(200, {"removed": self.scripts.remove(key), "scripts": self.scripts.listing()})
        raise ApiError(404, f"Unknown control URL: {method} {path}.", code="unknown_url")

    # -- counters -----------------------------------------------------------------------------------

    def _next_seq(self) -> int:
        with self._lock:
            self._seq += 1
            return self._seq

    def _begin(self, path: str) -> None:
        with self._lock:
            stats = self._stats
            stats.requests += 1
            stats.by_path[path] = stats.by_path.get(path, 0) + 1
            stats.in_flight += 1
            stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)

    def _end(self, reply: Reply) -> None:
        with self._lock:
            status = str(reply.status)
            self._stats.by_status[status] = self._stats.by_status.get(status, 0) + 1
            self._stats.in_flight -= 1

    def _injected(self, fault: str) -> None:
        with self._lock:
            self._stats.faults[fault] = self._stats.faults.get(fault, 0) + 1


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
"""Signals that stop `serve`: Ctrl-C, and what `kill` and process managers send."""


def serve(host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
    """Run a `FakeLLMServer` in the foreground until Ctrl-C or SIGTERM (the `stateforge fake-llm` command).

    `options` are `FakeLLMServer`'s keywords; `faults` may be CLI flags such as `["malformed=0.2"]`.
    The server answers from a background thread; this one installs its own SIGINT and SIGTERM handlers
    (a process started in the background by a non-interactive shell inherits SIGINT *ignored*, and would
    otherwise never stop on Ctrl-C or `kill -INT`), prints the banner once both are ready, waits for a
    signal, then closes the server (held requests are answered, connections dropped, the port freed).
    """
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("serve() waits for signals, which only the main thread receives; "
                           "use FakeLLMServer(...).start() from other threads")
    server = FakeLLMServer(host, port, **options)
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda signum, _: received.append(signum)) for sig in STOP_SIGNALS}
    try:
        server.start()
        faults = ", ".join(f"{k}={v}" for k, v in server.faults.items()) or "none"
        print(
            f"fake LLM server on {server.base_url} (models: {', '.join(server.models)}; faults: {faults}); "
            "Ctrl-C stops it",
            flush=True,
        )
        while not received:  # the handler only appends: nothing a signal can interrupt half-way
            time.sleep(0.05)
    finally:
        server.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _model(name: str) -> dict[str, Any]:
    return {"id": name, "object": "model", "created": 0, "owned_by": "stateforge"}
