"""The fake server with rows by label (the reply shape of the LLM fill) and as a strict decoder that
ignores the prompt, driven by the real `openai` client over loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import openai
import pytest

from stateforge.fakellm.server import FakeLLMServer

LABELS = ["song_id=3", "song_id=7", "song_id=11"]
ROW = {
    "type": "object",
    "properties": {"title": {"type": "string", "maxLength": 40}, "album_id": {"type": ["integer", "null"]}},
    "required": ["title", "album_id"],
    "additionalProperties": False,
}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "rows": {
            "type": "object",
            "properties": {label: {"$ref": "#/$defs/row"} for label in LABELS},
            "required": LABELS,
            "additionalProperties": False,
        }
    },
    "required": ["rows"],
    "additionalProperties": False,
    "$defs": {"row": ROW},
}
PROMPT = "Rows to complete:\n" + json.dumps({
    "song_id=3": {"album_id": 31, "title": None},
    "song_id=7": {"album_id": None, "title": None},
    "song_id=11": {"album_id": 12, "title": None},
})


def ask(client: openai.OpenAI, response_format: dict[str, Any] | None = None) -> dict[str, Any]:
    fmt = response_format or {"type": "json_schema", "json_schema": {"name": "rows", "schema": SCHEMA}}
    messages = [{"role": "user", "content": PROMPT}]
    answer = client.chat.completions.create(model="fake-model", messages=messages, response_format=fmt)
    return json.loads(answer.choices[0].message.content)


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=3) as running:
        yield running


@pytest.fixture
def client(server: FakeLLMServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10) as opened:
        yield opened


def test_rows_by_label_conform_and_echo_the_prompts_fixed_fields(client: openai.OpenAI) -> None:
    answer = ask(client)
    jsonschema.validate(answer, SCHEMA)
    assert list(answer["rows"]) == LABELS
    assert answer["rows"]["song_id=3"]["album_id"] == 31 and answer["rows"]["song_id=11"]["album_id"] == 12


def test_a_server_that_ignores_the_prompt_follows_the_schema_alone() -> None:
    with (
        FakeLLMServer(seed=3, follow_prompt=False) as server,
        openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0) as client,
    ):
        answer = ask(client)
        jsonschema.validate(answer, SCHEMA)
        assert list(answer["rows"]) == LABELS, "the labels come from the schema"
        assert answer["rows"]["song_id=3"]["album_id"] != 31, "fixed values are not echoed"
        array = {"type": "object", "properties": {"rows": {"type": "array", "items": ROW}},
                 "required": ["rows"]}
        rows = ask(client, {"type": "json_schema", "json_schema": {"name": "rows", "schema": array}})["rows"]
        assert len(rows) == 5, "no rows from the prompt: the default count"
        json_object = ask(client, {"type": "json_object"})["rows"]
        assert list(json_object) == LABELS, "json_object mode has only the prompt to follow"


def test_json_object_answers_write_only_the_null_fields_under_each_label(client: openai.OpenAI) -> None:
    rows = ask(client, {"type": "json_object"})["rows"]
    assert {label: list(row) for label, row in rows.items()} == {
        "song_id=3": ["title"], "song_id=7": ["album_id", "title"], "song_id=11": ["title"]}


def test_faults_apply_to_rows_by_label(server: FakeLLMServer, client: openai.OpenAI) -> None:
    server.set_faults({"invented_fk": "every:1"})
    labels = list(ask(client)["rows"])
    assert len(labels) == 3 and len(set(labels) - set(LABELS)) == 1, "one row moved to an invented label"
    server.set_faults({"duplicates": "every:1"})
    rows = ask(client)["rows"]
    assert list(rows) == LABELS and len({json.dumps(r, sort_keys=True) for r in rows.values()}) == 2
    server.set_faults({"missing_fields": "every:1"})
    rows = ask(client)["rows"]
    assert sorted(len(r) for r in rows.values()) == [1, 2, 2]
    assert server.stats.faults == {"invented_fk": 1, "duplicates": 1, "missing_fields": 1}
