"""The fake OpenAI-compatible server, driven by the real `openai` client over loopback."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import date, datetime
from typing import Any, Literal
from uuid import UUID

import jsonschema
import openai
import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from stateforge.fakellm.faults import choose_fault, parse_faults
from stateforge.fakellm.rows import synthesize
from stateforge.fakellm.server import FakeLLMServer

MODEL = "fake-model"
FIXED_IDS = [3, 7, 11]
ROWS_PROMPT = "Complete these rows: " + json.dumps([{"song_id": i} for i in FIXED_IDS])


class Album(BaseModel):
    model_config = ConfigDict(extra="forbid")
    album_id: int
    name: str


class Song(BaseModel):
    model_config = ConfigDict(extra="forbid")
    song_id: int
    title: str = Field(max_length=40)
    artist_name: str
    artist_email: str = Field(json_schema_extra={"format": "email"})
    released: date
    added_at: datetime
    duration_seconds: int = Field(ge=30, le=900)
    rating: float | None = Field(ge=0, le=5)
    genre: Literal["rock", "pop", "jazz"]
    tags: list[str] = Field(max_length=3)
    uid: UUID
    explicit: bool
    album: Album
    description: str


class SongBatch(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rows: list[Song]


def song_format(schema: dict[str, Any] | None = None) -> dict[str, Any]:
    schema = schema or SongBatch.model_json_schema()
    return {"type": "json_schema", "json_schema": {"name": "SongBatch", "schema": schema, "strict": True}}


def ask(client: openai.OpenAI, prompt: str = ROWS_PROMPT, **options: Any) -> Any:
    """One structured-output request for a batch of songs."""
    options.setdefault("response_format", song_format())
    messages = [{"role": "system", "content": "You fill tables."}, {"role": "user", "content": prompt}]
    return client.chat.completions.create(model=MODEL, messages=messages, **options)


def control(server: FakeLLMServer, path: str, body: Any = None) -> tuple[int, Any]:
    """Call a control endpoint with the standard library: (status, JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"{server.url}/_control/{path}", data=data, method="POST" if data else "GET"
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=7, timeout_delay=10.0, retry_after=0.2) as running:
        yield running


@pytest.fixture
def client(server: FakeLLMServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10) as opened:
        yield opened


def test_models_are_listed_and_retrieved() -> None:
    with (
        FakeLLMServer(models=("small", "large")) as server,
        openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0) as client,
    ):
        assert [m.id for m in client.models.list()] == ["small", "large"]
        assert client.models.retrieve("large").id == "large"
        with pytest.raises(openai.NotFoundError):
            client.models.retrieve("gpt-unknown")


def test_structured_output_validates_and_echoes_fixed_keys(client: openai.OpenAI) -> None:
    completion = ask(client)
    choice = completion.choices[0]
    assert completion.object == "chat.completion" and completion.model == MODEL
    assert choice.finish_reason == "stop" and choice.message.role == "assistant"
    usage = completion.usage
    assert usage.prompt_tokens > 0 and usage.completion_tokens == (len(choice.message.content) + 3) // 4
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    rows = SongBatch.model_validate_json(choice.message.content).rows
    assert [row.song_id for row in rows] == FIXED_IDS
    assert all("@" in row.artist_email and " " in row.artist_name for row in rows)
    assert {row.title for row in rows}.isdisjoint({"string", ""})


def test_parse_helper_returns_the_pydantic_model(client: openai.OpenAI) -> None:
    messages = [{"role": "user", "content": ROWS_PROMPT}]
    completion = client.chat.completions.parse(model=MODEL, messages=messages, response_format=SongBatch)
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, SongBatch)
    assert [row.song_id for row in parsed.rows] == FIXED_IDS


def test_same_request_same_answer(server: FakeLLMServer, client: openai.OpenAI) -> None:
    first, second = ask(client), ask(client)
    assert first.choices[0].message.content == second.choices[0].message.content
    assert (first.id, first.usage) == (second.id, second.usage)
    assert ask(client, ROWS_PROMPT + " ").choices[0].message.content != first.choices[0].message.content
    with FakeLLMServer(seed=8) as other, openai.OpenAI(base_url=other.base_url, api_key="t") as other_client:
        assert ask(other_client).choices[0].message.content != first.choices[0].message.content


def test_row_count_comes_from_the_schema_then_the_prompt_then_the_default(client: openai.OpenAI) -> None:
    fixed = SongBatch.model_json_schema()
    fixed["properties"]["rows"] |= {"minItems": 2, "maxItems": 2}
    assert (
        len(json.loads(ask(client, response_format=song_format(fixed)).choices[0].message.content)["rows"])
        == 2
    )
    assert len(SongBatch.model_validate_json(ask(client).choices[0].message.content).rows) == 3
    no_rows = ask(client, "Invent some songs.").choices[0].message.content
    assert len(SongBatch.model_validate_json(no_rows).rows) == 5


def test_json_object_and_plain_text(client: openai.OpenAI) -> None:
    json_object = {"type": "json_object"}
    rows = json.loads(ask(client, response_format=json_object).choices[0].message.content)["rows"]
    assert [row["song_id"] for row in rows] == FIXED_IDS
    to_fill = 'Fill the nulls: [{"song_id": 3, "title": null, "play_count": null}]'
    (row,) = json.loads(ask(client, to_fill, response_format=json_object).choices[0].message.content)["rows"]
    assert row["song_id"] == 3 and isinstance(row["title"], str) and isinstance(row["play_count"], int)
    assert "answer" in json.loads(
        ask(client, "Say hi.", response_format=json_object).choices[0].message.content
    )
    text = ask(client, "Say hi.", response_format=None).choices[0].message.content
    assert text and not text.startswith("{")


TREE = {
    "type": "object",
    "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#"}}},
    "required": ["label", "children"],
    "additionalProperties": False,
}
EDGE_CASES = {
    "type": "object",
    "properties": {
        "items": {
            "type": "array",
            "minItems": 1,
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer", "exclusiveMinimum": 0, "maximum": 3},
                    "score": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 0.51},
                    "note": {"type": ["string", "null"], "minLength": 30, "maxLength": 40},
                    "kind": {"const": "song"},
                    "level": {"anyOf": [{"type": "integer", "multipleOf": 5}, {"type": "null"}]},
                    "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}, "uniqueItems": True},
                    "counts": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 10}},
                    "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "boolean"}]},
                    "meta": {"allOf": [{"$ref": "#/$defs/Meta"}]},
                    "tree": TREE,
                },
                "required": ["id", "score", "note", "kind", "level", "tags", "counts", "pair", "meta"],
            },
        }
    },
    "required": ["items"],
    "$defs": {
        "Meta": {
            "type": "object",
            "properties": {
                "created_at": {"type": "string", "format": "date-time"},
                "ok": {"type": "boolean"},
            },
            "required": ["created_at", "ok"],
        }
    },
}


@pytest.mark.parametrize(
    "schema",
    [
        SongBatch.model_json_schema(),
        EDGE_CASES,
        {"type": "array", "items": {"type": "string", "format": "uuid"}},
    ],
    ids=["pydantic", "edge-cases", "root-array"],
)
def test_synthesized_documents_conform_to_their_schema(schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    for seed in range(25):
        document = synthesize(schema, random.Random(seed))
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(document)]
        assert not errors, (seed, errors)


@pytest.mark.parametrize("fault", ["malformed", "wrong_types", "missing_fields", "extra_fields"])
def test_broken_answers_fail_validation(server: FakeLLMServer, client: openai.OpenAI, fault: str) -> None:
    server.set_faults({fault: 1.0})
    response = client.chat.completions.with_raw_response.create(
        model=MODEL, messages=[{"role": "user", "content": ROWS_PROMPT}], response_format=song_format()
    )
    content = response.parse().choices[0].message.content
    assert response.headers["x-fake-fault"] == fault
    with pytest.raises(ValidationError):
        SongBatch.model_validate_json(content)
    if fault == "malformed":
        with pytest.raises(json.JSONDecodeError):
            json.loads(content)
    assert server.stats.faults == {fault: 1}


def test_invented_foreign_keys_and_duplicates(server: FakeLLMServer, client: openai.OpenAI) -> None:
    server.set_faults({"invented_fk": "every:1"})
    ids = [row.song_id for row in SongBatch.model_validate_json(ask(client).choices[0].message.content).rows]
    assert len(ids) == 3 and set(ids) - set(FIXED_IDS)
    server.set_faults({"duplicates": "every:1"})
    rows = json.loads(ask(client).choices[0].message.content)["rows"]
    assert len({json.dumps(row, sort_keys=True) for row in rows}) == len(rows) - 1


def test_truncated_answers_stop_for_length(server: FakeLLMServer, client: openai.OpenAI) -> None:
    server.set_faults({"truncated": 1})
    choice = ask(client).choices[0]
    assert choice.finish_reason == "length"
    with pytest.raises(json.JSONDecodeError):
        json.loads(choice.message.content)
    with pytest.raises(openai.LengthFinishReasonError):
        client.chat.completions.parse(
            model=MODEL, messages=[{"role": "user", "content": "x"}], response_format=SongBatch
        )
    assert ask(client, max_tokens=5, response_format=None).choices[0].finish_reason == "length"


def test_http_faults_raise_the_matching_client_errors(server: FakeLLMServer, client: openai.OpenAI) -> None:
    server.set_faults({"rate_limit": 1})
    with pytest.raises(openai.RateLimitError) as limited:
        ask(client)
    assert limited.value.response.headers["retry-after"] == "0.2"
    assert limited.value.code == "rate_limit_exceeded"
    for fault, status in (("server_error", 500), ("unavailable", 503)):
        server.set_faults({fault: 1})
        with pytest.raises(openai.InternalServerError) as failed:
            ask(client)
        assert failed.value.status_code == status
    server.set_faults({"timeout": 1})
    with pytest.raises(openai.APITimeoutError):
        ask(client.with_options(timeout=0.3))
    assert server.stats.faults == {"rate_limit": 1, "server_error": 1, "unavailable": 1, "timeout": 1}


def test_the_client_retries_after_a_rate_limit(server: FakeLLMServer) -> None:
    server.set_faults({"rate_limit": "every:2"})
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=2) as client:
        assert ask(client).choices[0].message.content == ask(client).choices[0].message.content
    stats = server.stats
    assert (stats.requests, stats.faults, stats.by_status) == (3, {"rate_limit": 1}, {"200": 2, "429": 1})


def test_faults_follow_the_seed() -> None:
    rules = parse_faults(["malformed=0.3", "rate_limit=0.2"])
    drawn = [choose_fault(rules, 1, seq) for seq in range(1, 401)]
    assert drawn == [choose_fault(rules, 1, seq) for seq in range(1, 401)]
    assert drawn != [choose_fault(rules, 2, seq) for seq in range(1, 401)]
    assert 90 < drawn.count("malformed") < 150 and 50 < drawn.count("rate_limit") < 110
    every = parse_faults({"server_error": "every:3"})
    assert [seq for seq in range(1, 10) if choose_fault(every, 0, seq)] == [3, 6, 9]


def test_bad_fault_configs_say_what_to_fix() -> None:
    with pytest.raises(ValueError, match="Did you mean 'malformed'"):
        FakeLLMServer(faults={"malformd": 0.1})
    for bad in ({"timeout": "every:0"}, {"timeout": 1.5}, {"timeout": 0.6, "malformed": 0.6}, ["timeout"]):
        with pytest.raises(ValueError):
            parse_faults(bad)


def test_control_endpoints_switch_faults_at_run_time(server: FakeLLMServer, client: openai.OpenAI) -> None:
    assert control(server, "faults", {"server_error": 1}) == (200, {"faults": {"server_error": 1}})
    with pytest.raises(openai.InternalServerError):
        ask(client)
    assert control(server, "faults", {}) == (200, {"faults": {}})
    ask(client)
    status, stats = control(server, "stats")
    assert status == 200 and stats["requests"] == 2 and stats["faults"] == {"server_error": 1}
    assert stats["by_path"] == {"/v1/chat/completions": 2} and stats["completion_tokens"] > 0
    assert control(server, "faults", {"nope": 1})[0] == 400
    assert control(server, "reset", {})[1]["requests"] == 0
    assert server.stats.requests == 0


def test_concurrent_requests_overlap() -> None:
    async def burst(base_url: str) -> list[str]:
        async with openai.AsyncOpenAI(base_url=base_url, api_key="test", max_retries=0) as client:
            calls = [
                client.chat.completions.create(
                    model=MODEL, messages=[{"role": "user", "content": f"row {i}"}]
                )
                for i in range(32)
            ]
            return [c.choices[0].message.content for c in await asyncio.gather(*calls)]

    with FakeLLMServer(latency=0.3) as server:
        answers = asyncio.run(burst(server.base_url))
        stats = server.stats
    assert len(answers) == 32 and all(answers)
    assert stats.max_in_flight >= 16 and stats.requests == 32  # they overlapped: no timing needed


def test_an_api_key_is_required_when_configured() -> None:
    with FakeLLMServer(api_key="sekret") as server:
        with openai.OpenAI(base_url=server.base_url, api_key="wrong", max_retries=0) as client:
            with pytest.raises(openai.AuthenticationError) as denied:
                client.models.list()
            assert denied.value.code == "invalid_api_key"
        with openai.OpenAI(base_url=server.base_url, api_key="sekret", max_retries=0) as client:
            assert [m.id for m in client.models.list()] == [MODEL]


def test_unsupported_requests_are_refused(client: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError, match="stream"):
        client.chat.completions.create(model=MODEL, messages=[{"role": "user", "content": "x"}], stream=True)
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="other", messages=[{"role": "user", "content": "x"}])


def test_close_wakes_held_requests_and_frees_the_port() -> None:
    server = FakeLLMServer(faults={"timeout": 1}, timeout_delay=60).start()
    client = openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=30)
    held = threading.Thread(target=_swallow, args=(ask, client))
    held.start()
    deadline = time.monotonic() + 5
    while server.stats.in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert server.stats.faults == {"timeout": 1}
    server.close()
    held.join(timeout=10)  # the held request is answered (with an error) rather than left hanging
    assert not held.is_alive()
    with pytest.raises(openai.APIConnectionError):
        ask(client)
    client.close()


def _swallow(call: Any, *args: Any) -> None:
    try:
        call(*args)
    except openai.OpenAIError:
        pass


SERVE = "from stateforge.fakellm.server import serve; serve(port=0, faults=['malformed=every:2'])"
# What a non-interactive shell does to a command it starts with `&`: SIGINT ignored, kept across exec.
IGNORING_SIGINT = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
    "os.execv(sys.executable, [sys.executable, '-c', sys.argv[1]])"
)


def _serve_in_child(ignore_sigint: bool = False) -> tuple[subprocess.Popen[str], str]:
    """`stateforge fake-llm` in a child process: (the process, its base URL read from the banner)."""
    args = [sys.executable, "-c", IGNORING_SIGINT, SERVE] if ignore_sigint else [sys.executable, "-c", SERVE]
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}  # SIGABRT dumps every thread: see _stopped
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    banner = process.stdout.readline()
    assert "malformed=every:2" in banner, banner + process.stderr.read()
    return process, banner.split(" on ", 1)[1].split(" ", 1)[0]


def _stopped(process: subprocess.Popen[str], sig: int) -> int:
    """Send `sig` and wait for the exit code; a child still running after 30 s fails the test with the
    stack of each of its threads (faulthandler, on SIGABRT), which says what it waits for."""
    process.send_signal(sig)
    try:
        return process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        _, stderr = process.communicate(timeout=30)
        pytest.fail(f"the server did not stop on signal {sig}; its threads:\n{stderr[-6000:]}")


@pytest.mark.parametrize(
    ("sig", "ignore_sigint"),
    [(signal.SIGINT, False), (signal.SIGINT, True), (signal.SIGTERM, False)],
    ids=["ctrl-c", "ctrl-c-in-a-background-job", "sigterm"],
)
def test_serve_runs_in_the_foreground_until_a_stop_signal(sig: int, ignore_sigint: bool) -> None:
    process, base_url = _serve_in_child(ignore_sigint)
    try:
        with openai.OpenAI(base_url=base_url, api_key="test", max_retries=0) as client:
            assert [m.id for m in client.models.list()] == [MODEL]
        assert _stopped(process, sig) == 0
        with pytest.raises(openai.APIConnectionError), openai.OpenAI(
            base_url=base_url, api_key="test", max_retries=0
        ) as client:
            client.models.list()  # the port is closed
    finally:
        process.kill()
        process.communicate()


class LateServer(FakeLLMServer):
    """A real server whose thread is slow to enter its loop, as a thread on a loaded machine can be."""

    def serve_forever(self) -> None:
        time.sleep(0.3)
        super().serve_forever()


def test_close_right_after_start_stops_the_serving_thread() -> None:
    server = LateServer().start()
    server.close()  # before the thread serves: it must not start serving afterwards
    assert not [t for t in threading.enumerate() if t.name == "fake-llm-server" and t.is_alive()]
