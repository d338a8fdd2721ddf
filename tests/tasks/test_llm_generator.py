"""The LLM task generator end to end, offline: the real `openai` client against the project's own server on
loopback (its rule-based agent, or a script), on a small built pack (the shop), through the runner."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.fakellm.server import FakeLLMServer
from stateforge.llm.prompts import prompt_sha256
from stateforge.llm.settings import LLMSettings
from stateforge.tasks import generate_tasks, read_tasks
from stateforge.tasks.llm import GeneratorLimits
from stateforge.tasks.workspace import Workspace
from stateforge.tools import toolkit_for
from tests.episode.fixture import build_shop

MODEL = "fake-model"


@pytest.fixture(scope="module")
def shop_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_shop(tmp_path_factory.mktemp("shop-build"))


@pytest.fixture(scope="module")
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer(seed=11, retry_after=0.01) as running:
        yield running


@pytest.fixture
def fresh(server: FakeLLMServer) -> FakeLLMServer:
    """The module's server with no faults, no scripts and zeroed counters."""
    server.set_faults(None)
    server.scripts.remove()
    server.reset()
    return server


def chats(server: FakeLLMServer) -> int:
    """Chat completions the server answered (the preflight's GET /v1/models is not one)."""
    return server.stats.by_path.get("/v1/chat/completions", 0)


def settings_for(server: FakeLLMServer, cache: Path, **overrides: Any) -> LLMSettings:
    values: dict[str, Any] = {
        "backend": "openai",
        "model": MODEL,
        "base_url": server.base_url,
        "api_key": "test",
        "cache_dir": cache,
        "timeout": 10.0,
        "max_retries": 4,
        "backoff_base": 0.01,
        "backoff_max": 0.02,
    }
    return LLMSettings(**(values | overrides))


def generate(db: Path, out: Path, settings: LLMSettings, n: int, **options: Any) -> dict[str, Any]:
    limits = options.pop("limits", None)
    generator_options = {"settings": settings} | ({"limits": limits} if limits else {})
    return generate_tasks(
        db, n=n, seed=0, backend="openai", out=out, generator_options=generator_options, **options
    )


def test_tasks_pass_the_gate_replay_exactly_and_a_rerun_makes_no_call(
    shop_db: Path, fresh: FakeLLMServer, tmp_path: Path
) -> None:
    settings = settings_for(fresh, tmp_path / "cache")
    report = generate(shop_db, tmp_path / "first", settings, n=5, max_attempts=10)
    assert report["kept"] == 5 and report["backend"] == "openai"
    tasks = read_tasks(tmp_path / "first" / "tasks.jsonl")
    assert {t.feasible for t in tasks} == {True, False}
    for task in tasks:
        assert task.provenance.generator == "llm" and task.provenance.model == MODEL
        assert task.provenance.prompt_hashes == {"generate_task": prompt_sha256("generate_task")}
        assert task.provenance.details["conversation"]["submissions"] >= 1
    # the ground truth holds on its own: each feasible task's calls, replayed, give its expected diff
    with Workspace(shop_db) as ws:
        toolkit = toolkit_for(ws.schema, ws.domain)
        for task in (t for t in tasks if t.feasible):
            episode = ws.episode(toolkit)
            assert all(episode.call(c.tool, c.arguments).ok for c in task.reference_calls)
            with ws.end_state(episode) as end:
                assert end.diff.to_dict() == task.expected_diff and not end.diff.empty
    llm = report["generator"]["llm"]
    served = fresh.stats
    assert llm["calls"] == chats(fresh) == report["generator"]["conversations"]["turns"]
    assert (llm["prompt_tokens"], llm["completion_tokens"]) == (
        served.prompt_tokens,
        served.completion_tokens,
    )
    assert served.drivers == {"agent": chats(fresh)} and served.by_path["/v1/models"] == 1

    again = generate(shop_db, tmp_path / "again", settings, n=5, max_attempts=10)
    assert chats(fresh) == llm["calls"]  # not one more completion
    assert again["generator"]["llm"]["calls"] == 0 and again["generator"]["llm"]["cache_hits"] == llm["calls"]
    first = (tmp_path / "first" / "tasks.jsonl").read_bytes()
    assert (tmp_path / "again" / "tasks.jsonl").read_bytes() == first


def test_faults_are_survived_and_counted(shop_db: Path, fresh: FakeLLMServer, tmp_path: Path) -> None:
    fresh.set_faults(
        {
            "rate_limit": 0.1,
            "server_error": 0.05,
            "malformed": 0.1,
            "unknown_tool": 0.1,
            "truncated": 0.05,
            "wrong_types": 0.05,
        }
    )
    report = generate(shop_db, tmp_path / "out", settings_for(fresh, tmp_path / "cache"), n=3, max_attempts=8)
    assert report["kept"] >= 2
    llm, conversations, served = report["generator"]["llm"], report["generator"]["conversations"], fresh.stats
    assert llm["retries"]["rate_limit"] == served.faults.get("rate_limit", 0) > 0
    assert llm["retries"]["server_error"] == served.faults.get("server_error", 0)
    assert llm["calls"] == chats(fresh)
    assert (llm["prompt_tokens"], llm["completion_tokens"]) == (
        served.prompt_tokens,
        served.completion_tokens,
    )
    told = conversations["faults"]
    broken = served.faults.get("malformed", 0) + served.faults.get("truncated", 0)
    assert told["malformed_arguments"] == broken > 0 and llm["malformed"] == broken
    assert told["unknown_tool"] == served.faults["unknown_tool"] > 0
    for task in read_tasks(tmp_path / "out" / "tasks.jsonl"):
        assert task.provenance.details["conversation"]["turns"] >= 3


def test_an_unrecoverable_fault_is_a_counted_skip(
    shop_db: Path, fresh: FakeLLMServer, tmp_path: Path
) -> None:
    fresh.set_faults({"server_error": 1.0})
    settings = settings_for(fresh, tmp_path / "cache", max_retries=1)
    report = generate(shop_db, tmp_path / "out", settings, n=2, max_attempts=2)
    assert report["kept"] == 0 and report["skipped"] == {"llm_unavailable": 2}
    assert "still failing after 2 attempts" in report["examples"]["llm_unavailable"]
    assert report["generator"]["llm"]["gave_up"] == 2 and chats(fresh) == 4


def submit(goals: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "name": "submit_task",
        "arguments": {
            "instruction": "Please delete invoice 14: it was issued by mistake.",
            "capabilities": ["cross_step_dependency"],
            "difficulty": "easy",
            "feasible": True,
            "references": [
                {
                    "entity": "invoice 14",
                    "sql": "SELECT count(*) FROM invoices WHERE invoice_id = ?",
                    "params": [14],
                }
            ],
            "goals": goals,
        },
    }


def test_a_declaration_rejection_goes_back_to_the_model_and_keeps_the_state(
    shop_db: Path, fresh: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A set of one feasible task: its only place is not held back for an infeasible one.
    monkeypatch.setattr("stateforge.tasks.runner.MIN_INFEASIBLE_SHARE", 0.0)
    goal = {
        "name": "invoice 14 is gone",
        "sql": "SELECT count(*) AS n FROM invoices WHERE invoice_id = ?",
        "params": [14],
    }
    delete = [{"name": "delete_invoice", "arguments": {"invoice_id": 14}}]
    fresh.add_script(
        {
            "key": "retry",
            "match": "Attempt 1,",
            "turns": [delete, [submit([])], [submit([goal])], "Submitted."],
        }
    )
    report = generate(shop_db, tmp_path / "out", settings_for(fresh, tmp_path / "cache"), n=1, max_attempts=1)
    assert report["kept"] == 1
    [task] = read_tasks(tmp_path / "out" / "tasks.jsonl")
    conversation = task.provenance.details["conversation"]
    assert conversation["rejections"] == ["no_goal"] and conversation["submissions"] == 2
    assert conversation["faults"] == {}  # no_goal is about the declarations: the delete is kept, not redone
    assert [(c.tool, c.arguments) for c in task.reference_calls] == [("delete_invoice", {"invoice_id": 14})]
    assert task.verifiers[0].kind == "goal" and task.verifiers[0].expected == [{"n": 0}]
    assert fresh.stats.drivers == {"script:retry": 3}  # accepted at the 3rd turn: no 4th request


def test_limits_and_silence_end_a_conversation_as_counted_skips(
    shop_db: Path, fresh: FakeLLMServer, tmp_path: Path
) -> None:
    fresh.add_script(
        {
            "key": "explorer",
            "match": "Attempt 1,",
            "turns": [[{"name": "run_sql", "arguments": {"sql": "SELECT count(*) AS n FROM orders"}}]] * 5,
        }
    )
    fresh.add_script({"key": "quiet", "match": "Attempt 2,", "turns": ["I think we are done.", "Bye."]})
    fresh.add_script(
        {
            "key": "sloppy",
            "match": "Attempt 3,",
            "turns": [
                [
                    {"name": "cancel_everything", "arguments": {}},
                    {"name": "run_sql", "raw_arguments": '{"sql": '},
                ],
                [
                    {"name": "submit_task", "arguments": {"instruction": "x"}},
                    {"name": "run_sql", "arguments": {"sql": "SELECT 1"}},
                ],
            ],
        }
    )
    limits = GeneratorLimits(max_turns=3, max_tool_calls=3)
    report = generate(
        shop_db, tmp_path / "out", settings_for(fresh, tmp_path / "cache"), n=3, max_attempts=3, limits=limits
    )
    assert report["kept"] == 0
    assert report["skipped"] == {"llm_turn_limit": 1, "llm_no_submission": 1, "llm_tool_call_limit": 1}
    assert report["examples"]["llm_no_submission"].endswith("Bye.")
    faults = report["generator"]["conversations"]["faults"]
    assert faults == {"bad_submission": 1, "malformed_arguments": 1, "unknown_tool": 1}
    assert fresh.stats.drivers == {"script:explorer": 3, "script:quiet": 2, "script:sloppy": 2}


def test_the_report_shows_the_llm_line(shop_db: Path, fresh: FakeLLMServer, tmp_path: Path) -> None:
    generate(shop_db, tmp_path / "out", settings_for(fresh, tmp_path / "cache"), n=1, max_attempts=2)
    saved = json.loads((tmp_path / "out" / "generation_report.json").read_text())
    from stateforge.tasks.report import llm_line, report_markdown

    line = llm_line(saved)
    assert line.startswith(f"LLM {MODEL}: {chats(fresh)} calls (0 from the cache)")
    assert "cost unknown" in line and line in report_markdown(saved)
