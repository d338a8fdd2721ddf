"""The fake server's tool-calling mode, driven by the real `openai` client over loopback: scripts, the
rule-based agent's protocol, faults, and the checks OpenAI makes of a tool-calling conversation."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import openai
import pytest

from stateforge.fakellm.agent_plans import COLUMNS_SQL
from stateforge.fakellm.scripts import decline_script, replay_script
from stateforge.fakellm.server import FakeLLMServer

MODEL = "fake-model"


def function(
    name: str, required: dict[str, str], optional: dict[str, str] | None = None, text: str = ""
) -> dict:
    props = {k: {"type": v} for k, v in {**required, **(optional or {})}.items()}
    parameters = {
        "type": "object",
        "properties": props,
        "required": list(required),
        "additionalProperties": False,
    }
    return {"type": "function", "function": {"name": name, "description": text, "parameters": parameters}}


SHOP_TOOLS = [
    function("search_users", {"name": "string"}),
    function("delete_user", {"user_id": "integer"}),
    function("rename_user", {"user_id": "integer", "name": "string"}),
]


def control(server: FakeLLMServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{server.url}/_control/{path}", data=data, method=method)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def converse(
    client: openai.OpenAI,
    prompt: str,
    answer: Callable[[str, dict[str, Any]], Any],
    tools: list[dict] = SHOP_TOOLS,
    turns: int = 8,
) -> tuple[list[Any], list[dict[str, Any]]]:
    """Run a conversation to its final message; `answer(name, arguments)` is each call's result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    choices = []
    for _ in range(turns):
        choice = client.chat.completions.create(model=MODEL, messages=messages, tools=tools).choices[0]
        choices.append(choice)
        messages.append(choice.message.model_dump(exclude_none=True))
        if not choice.message.tool_calls:
            break
        for call in choice.message.tool_calls:
            result = answer(call.function.name, json.loads(call.function.arguments))
            content = result if isinstance(result, str) else json.dumps(result)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return choices, messages


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=3) as running:
        yield running


@pytest.fixture
def client(server: FakeLLMServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="test", max_retries=0, timeout=10) as opened:
        yield opened


def users(name: str, arguments: dict[str, Any]) -> Any:
    if name == "search_users":
        return {"rows": [{"user_id": 41, "name": "Ana"}, {"user_id": 42, "name": "Ana Lopez"}]}
    return {"ok": True, "arguments": arguments}


def test_a_script_answers_in_the_wire_format_and_refers_to_earlier_results(server, client) -> None:
    status, listing = control(
        server,
        "POST",
        "scripts",
        {
            "key": "remove-ana",
            "match": "remove Ana Lopez",
            "turns": [
                [{"name": "search_users", "arguments": {"name": "Ana"}}],
                [
                    {"name": "delete_user", "arguments": {"user_id": {"$from": [0, "rows", 1, "user_id"]}}},
                    {
                        "name": "rename_user",
                        "arguments": {"user_id": {"$from": [-1, "rows", 0, "user_id"]}, "name": "Ann"},
                    },
                ],
                [
                    {
                        "name": "rename_user",
                        "arguments": {"user_id": 7, "name": {"$from": [[1, 1], "arguments", "name"]}},
                    }
                ],
                "Done: Ana Lopez is gone.",
            ],
        },
    )
    assert status == 200 and listing["scripts"][0] | {"served": 0} == {
        "key": "remove-ana",
        "match": "remove Ana Lopez",
        "turns": 4,
        "served": 0,
    }
    choices, messages = converse(client, "Please remove Ana Lopez.", users)
    first = choices[0]
    assert first.finish_reason == "tool_calls" and first.message.content is None
    assert first.message.tool_calls[0].type == "function"
    assert json.loads(first.message.tool_calls[0].function.arguments) == {"name": "Ana"}
    second = [(c.function.name, json.loads(c.function.arguments)) for c in choices[1].message.tool_calls]
    assert second == [("delete_user", {"user_id": 42}), ("rename_user", {"user_id": 41, "name": "Ann"})]
    assert json.loads(choices[2].message.tool_calls[0].function.arguments) == {"user_id": 7, "name": "Ann"}
    assert (choices[3].finish_reason, choices[3].message.content) == ("stop", "Done: Ana Lopez is gone.")
    ids = [c.id for choice in choices[:3] for c in choice.message.tool_calls]
    assert len(set(ids)) == len(ids)
    stats = server.stats
    assert stats.drivers == {"script:remove-ana": 4} and stats.tool_calls == 4


def test_concurrent_conversations_follow_their_own_scripts(server, client) -> None:
    for k in range(4):
        server.add_script(
            {
                "key": f"conv-{k}",
                "match": f"[conversation {k}]",
                "turns": [[{"name": "delete_user", "arguments": {"user_id": k}}], f"finished {k}"],
            }
        )
    results: dict[int, list[Any]] = {}

    def run(k: int) -> None:
        results[k] = converse(client, f"[conversation {k}] go", users)[0]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for k in range(4):
        assert json.loads(results[k][0].message.tool_calls[0].function.arguments) == {"user_id": k}
        assert results[k][1].message.content == f"finished {k}"


def test_the_longest_match_wins_and_scripts_can_be_dropped(server, client) -> None:
    control(
        server,
        "POST",
        "scripts",
        {
            "scripts": [
                {"key": "short", "match": "Ana", "turns": ["short script"]},
                {"key": "long", "match": "Ana Lopez", "turns": ["long script"]},
            ]
        },
    )
    assert converse(client, "About Ana Lopez", users)[0][0].message.content == "long script"
    assert converse(client, "About Ana", users)[0][0].message.content == "short script"
    status, body = control(server, "DELETE", "scripts/long")
    assert status == 200 and body["removed"] == 1 and [s["key"] for s in body["scripts"]] == ["short"]
    assert converse(client, "About Ana Lopez", users)[0][0].message.content == "short script"
    assert control(server, "DELETE", "scripts")[1]["removed"] == 1


def test_script_mistakes_are_loud(server, client) -> None:
    status, body = control(server, "POST", "scripts", {"key": "x", "turns": [[{"tool": "a"}]]})
    assert status == 400 and "script x, turn 0, call 0" in body["error"]["message"]
    server.add_script(
        {
            "key": "bad-path",
            "turns": [
                [{"name": "search_users", "arguments": {"name": "A"}}],
                [{"name": "delete_user", "arguments": {"user_id": {"$from": [0, "rows", 5, "user_id"]}}}],
            ],
        }
    )
    with pytest.raises(
        openai.BadRequestError, match=r"script 'bad-path', turn 1.*nothing at \[0, 'rows', 5\]"
    ):
        converse(client, "bad-path", users)
    server.add_script({"key": "short-one", "turns": [[{"name": "search_users", "arguments": {"name": "A"}}]]})
    with pytest.raises(openai.BadRequestError, match="has 1 turn.*asks for turn 2"):
        converse(client, "short-one", users)


def test_raw_arguments_and_the_protocol_checks(server, client) -> None:
    server.add_script({"key": "raw", "turns": [[{"name": "delete_user", "raw_arguments": '{"user_id": 4'}]]})
    reply = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "raw"}], tools=SHOP_TOOLS
    ).choices[0]
    assert reply.message.tool_calls[0].function.arguments == '{"user_id": 4'
    unanswered = [{"role": "user", "content": "raw"}, reply.message.model_dump(exclude_none=True)]
    with pytest.raises(openai.BadRequestError, match="did not have response messages"):
        client.chat.completions.create(model=MODEL, messages=unanswered, tools=SHOP_TOOLS)
    stray = [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "call_9", "content": "{}"}]
    with pytest.raises(openai.BadRequestError, match="no pending call has id 'call_9'"):
        client.chat.completions.create(model=MODEL, messages=stray, tools=SHOP_TOOLS)
    with pytest.raises(openai.BadRequestError, match="tools\\[0\\]"):
        client.chat.completions.create(model=MODEL, messages=stray[:1], tools=[{"type": "function"}])
    none = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "raw"}], tools=SHOP_TOOLS, tool_choice="none"
    ).choices[0]
    assert none.finish_reason == "stop" and none.message.tool_calls is None


@pytest.mark.parametrize(
    ("fault", "check"),
    [
        ("malformed", lambda c, f: f == "tool_calls" and _not_json(c.function.arguments)),
        ("truncated", lambda c, f: f == "length" and _not_json(c.function.arguments)),
        ("unknown_tool", lambda c, f: c.function.name not in {"search_users", "delete_user", "rename_user"}),
        ("wrong_types", lambda c, f: json.loads(c.function.arguments)["user_id"] == "n/a"),
        ("extra_fields", lambda c, f: "extra_note" in json.loads(c.function.arguments)),
        ("missing_fields", lambda c, f: json.loads(c.function.arguments) == {}),
    ],
)
def test_faults_break_tool_calls(server, client, fault: str, check: Callable[[Any, str], bool]) -> None:
    server.add_script({"key": "one-call", "turns": [[{"name": "delete_user", "arguments": {"user_id": 12}}]]})
    server.set_faults({fault: 1.0})
    reply = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "one-call"}], tools=SHOP_TOOLS
    )
    choice = reply.choices[0]
    assert check(choice.message.tool_calls[0], choice.finish_reason)
    assert server.stats.faults == {fault: 1}


def _not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def test_max_tokens_cuts_the_calls(server, client) -> None:
    server.add_script(
        {
            "key": "long-args",
            "turns": [
                [{"name": "rename_user", "arguments": {"user_id": 1, "name": "A very long name " * 20}}]
            ],
        }
    )
    choice = client.chat.completions.create(
        model=MODEL, messages=[{"role": "user", "content": "long-args"}], tools=SHOP_TOOLS, max_tokens=20
    ).choices[0]
    assert choice.finish_reason == "length"
    assert _not_json(choice.message.tool_calls[0].function.arguments)


GENERATOR_TOOLS = [
    function("run_sql", {"sql": "string"}),
    function("delete_user", {"user_id": "integer"}),
    function("submit_task", {"instruction": "string"}),
]


def test_the_agent_explores_first_and_a_solver_without_script_declines(server, client) -> None:
    messages = [{"role": "user", "content": "Make a task."}]
    first = client.chat.completions.create(model=MODEL, messages=messages, tools=GENERATOR_TOOLS).choices[0]
    call = first.message.tool_calls[0]
    assert call.function.name == "run_sql" and json.loads(call.function.arguments) == {"sql": COLUMNS_SQL}
    again = client.chat.completions.create(model=MODEL, messages=messages, tools=GENERATOR_TOOLS).choices[0]
    assert again.message.tool_calls[0].id == call.id  # same request, same answer
    solver_tools = [*SHOP_TOOLS, function("cannot_complete", {"reason": "string"})]
    choices, _ = converse(client, "Delete user 5", users, tools=solver_tools)
    assert choices[0].message.tool_calls[0].function.name == "cannot_complete"
    assert choices[1].finish_reason == "stop"
    assert server.stats.drivers == {"agent": 4}


def test_replay_and_decline_scripts_play_a_solver(server, client) -> None:
    reference = [
        {"tool": "delete_user", "arguments": {"user_id": 3}},
        {"tool": "rename_user", "arguments": {"user_id": 4, "name": "Bo"}},
    ]
    server.add_script(replay_script("task-1", "Remove user 3 and rename 4", reference, final="All done."))
    server.add_script(decline_script("task-2", "Delete user 99", "There is no user 99."))
    made: list[tuple[str, dict[str, Any]]] = []

    def record(name: str, arguments: dict[str, Any]) -> Any:
        made.append((name, arguments))
        return {"ok": True}

    choices, _ = converse(client, "Remove user 3 and rename 4 to Bo", record)
    assert (
        made == [(c["tool"], c["arguments"]) for c in reference]
        and choices[-1].message.content == "All done."
    )
    made.clear()
    choices, _ = converse(client, "Delete user 99, please", record)
    assert made == [("cannot_complete", {"reason": "There is no user 99."})]
    assert choices[-1].message.content == "I cannot do this: There is no user 99."
