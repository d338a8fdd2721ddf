"""The `openai` and `openai-code` solvers end to end, offline: the real openai client (through LLMClient)
against the project's own OpenAI-compatible server on loopback, in its tool-calling mode, replaying each
task's reference calls from scripts posted to its control endpoint; faults included, and the console
script against `stateforge fake-llm`."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import Limits, evaluate
from stateforge.evaluate.distractors import distractor_names, with_distractors
from stateforge.evaluate.rundir import EPISODES_FILE, RUN_FILE
from stateforge.evaluate.solver import SolverConfig
from stateforge.evaluate.solvers.llm_options import llm_settings
from stateforge.evaluate.solvers.openai_agent import make
from stateforge.fakellm import FakeLLMServer
from stateforge.llm.prompts import prompt_sha256
from stateforge.mcp.target import PLAN_INTRO
from stateforge.tasks import Task
from stateforge.tools import load_toolkit
from tests.evaluate.scripted import code_script, pick, post_scripts, tool_script

pytestmark = pytest.mark.xdist_group("evaluate")
ROOT = Path(__file__).resolve().parents[2]
STATEFORGE = str(Path(sys.executable).with_name("stateforge"))


@pytest.fixture(scope="module")
def chosen(tasks: list[Task]) -> list[Task]:
    return pick(tasks)


@pytest.fixture(scope="module")
def api_key() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", "test-key")
        yield


@pytest.fixture(scope="module")
def tool_server(chosen: list[Task], api_key: None) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(models=("fake",), retry_after=0.05, timeout_delay=3.0) as server:
        post_scripts(server.url, [tool_script(t) for t in chosen])
        yield server


@pytest.fixture(scope="module")
def code_server(chosen: list[Task], api_key: None) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(models=("fake",)) as server:
        post_scripts(server.url, [code_script(t) for t in chosen])
        yield server


def run(db: Path, out: Path, chosen: list[Task], server: FakeLLMServer, solver: str = "openai",
        options: dict[str, str] | None = None, **more: Any) -> dict[str, Any]:
    settings = {"cache": "off", "cache_dir": str(out / "llm-cache"), "backoff": "0.01", **(options or {})}
    return evaluate(
        db, solver=solver, model="fake", base_url=server.base_url, out=out, options=settings,
        task_filter=",".join(f"id:{t.id}" for t in chosen), **more, report=False,
    )


def records(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (Path(summary["folder"]) / EPISODES_FILE).read_text().splitlines()]


def test_openai_solves_the_tasks_and_declines_the_infeasible_one(
    pack_db: Path, tmp_path: Path, chosen: list[Task], tool_server: FakeLLMServer
) -> None:
    summary = run(pack_db, tmp_path, chosen, tool_server, concurrency=2)
    assert (summary["episodes"], summary["passed"], summary["infra_errors"]) == (4, 4, 0)
    assert summary["stop_reasons"] == {"done": 3, "declined": 1}
    by_id = {t.id: t for t in chosen}
    for record in records(summary):
        task = by_id[record["task_id"]]
        assert [c["tool"] for c in record["tool_calls"]] == [c.tool for c in task.reference_calls]
        assert record["turns"] == len(task.reference_calls) + 1 == record["llm_calls"]
        assert record["prompt_tokens"] > 0 and record["completion_tokens"] > 0
        system, user = record["messages"][:2]
        assert system["role"] == "system" and user == {"role": "user", "content": task.instruction}
        assert "Now is" in system["content"] and "cannot_complete" in system["content"]
        assert "CREATE" not in system["content"] and "SELECT" not in system["content"]
        results = [m["content"] for m in record["messages"] if m["role"] == "tool"]
        assert [r.startswith("error:") for r in results] == [not c["ok"] for c in record["tool_calls"]]
        assert record["messages"][-1] == {"role": "assistant", "content": "Done."}
    spec = json.loads((Path(summary["folder"]) / RUN_FILE).read_text())
    assert spec["solver_settings"]["prompt_sha256"] == prompt_sha256("solve_tools")
    assert spec["solver_settings"]["model"] == "fake" and "key" not in json.dumps(spec).lower()


def test_openai_code_runs_the_calls_as_python_in_the_sandbox(
    pack_db: Path, tmp_path: Path, chosen: list[Task], code_server: FakeLLMServer
) -> None:
    summary = run(pack_db, tmp_path, chosen, code_server, solver="openai-code", concurrency=2)
    assert (summary["episodes"], summary["passed"], summary["infra_errors"]) == (4, 4, 0)
    assert summary["stop_reasons"] == {"done": 3, "declined": 1}
    by_id = {t.id: t for t in chosen}
    for record in records(summary):
        task = by_id[record["task_id"]]
        assert [c["tool"] for c in record["tool_calls"]] == [c.tool for c in task.reference_calls]
        assert record["turns"] == 2 and record["solver_details"]["code_runs"] == 1
        output = next(m["content"] for m in record["messages"] if m["role"] == "tool")
        assert output.startswith("stdout:") and "error:" not in output
        if not task.feasible:
            assert "refused:" in output
    spec = json.loads((Path(summary["folder"]) / RUN_FILE).read_text())
    assert spec["solver_settings"]["prompt_sha256"] == prompt_sha256("solve_code")
    assert spec["solver_settings"]["code_timeout"] == 10.0


def test_the_llm_solvers_are_offered_the_distractors_and_told_the_plan(
    pack_db: Path, tmp_path: Path, chosen: list[Task], api_key: None, code_server: FakeLLMServer
) -> None:
    base = load_toolkit(pack_db)
    with FakeLLMServer(models=("fake",), record=64) as server:
        post_scripts(server.url, [tool_script(t) for t in chosen])
        tools = run(pack_db, tmp_path / "tools", chosen, server, distractors=5, with_plan=True)
        offered = [{t["function"]["name"] for t in r.body["tools"]} for r in server.recorded()]
    code = run(pack_db, tmp_path / "code", chosen, code_server, solver="openai-code", distractors=5,
               with_plan=True)
    for summary in (tools, code):  # the scripted model replays the reference: no distractor is needed
        assert (summary["passed"], summary["infra_errors"], summary["distractors"]) == (4, 0, 5)
    assert offered and all(len(names) == len(base) + 5 for names in offered)
    by_id = {t.id: t for t in chosen}
    for record in records(tools) + records(code):
        system = record["messages"][0]["content"]
        assert PLAN_INTRO in system
        assert all(" ".join(step.split()) in system for step in by_id[record["task_id"]].reference_plan)
    for record in records(code):  # the sandbox's functions include the distractors
        extra = distractor_names(with_distractors(base, 5, seed=0, key=record["task_id"]), base)
        assert all(f"{name}(" in record["messages"][0]["content"] for name in extra)


def test_transport_faults_are_retried_and_the_run_still_passes(
    pack_db: Path, tmp_path: Path, chosen: list[Task], tool_server: FakeLLMServer
) -> None:
    tool_server.reset()
    tool_server.set_faults({"rate_limit": "every:3", "server_error": "every:4", "timeout": "every:7"})
    try:
        summary = run(pack_db, tmp_path, chosen, tool_server, concurrency=1,
                      options={"timeout": "0.5", "max_retries": "6"})
    finally:
        tool_server.set_faults(None)
    assert set(tool_server.stats.faults) == {"rate_limit", "server_error", "timeout"}
    assert (summary["passed"], summary["infra_errors"]) == (4, 0)
    found = records(summary)
    retried = sum(r["solver_details"]["retried_requests"] for r in found)
    assert retried == sum(tool_server.stats.faults.values())
    assert sum(r["llm_calls"] for r in found) > sum(r["turns"] for r in found)


def test_a_server_that_stays_down_is_an_infrastructure_error_not_a_fail(
    pack_db: Path, tmp_path: Path, chosen: list[Task], tool_server: FakeLLMServer
) -> None:
    tool_server.set_faults({"unavailable": 1.0})
    try:
        summary = run(pack_db, tmp_path, chosen, tool_server, options={"max_retries": "1"}, retries=1)
    finally:
        tool_server.set_faults(None)
    counts = (summary["episodes"], summary["passed"], summary["failed"], summary["infra_errors"])
    assert counts == (4, 0, 0, 4)
    assert not summary["harness"]["ok"]
    for record in records(summary):
        assert record["attempts"] == 2 and record["outcome"] == "infra_error"
        assert record["reasons"][0].startswith("the model server failed") and "503" in record["reasons"][0]


def test_malformed_calls_the_model_never_fixes_fail_the_tasks(
    pack_db: Path, tmp_path: Path, chosen: list[Task], tool_server: FakeLLMServer
) -> None:
    tool_server.reset()
    tool_server.set_faults({"malformed": 0.4, "truncated": 0.3, "unknown_tool": 0.3})
    try:
        summary = run(pack_db, tmp_path, chosen, tool_server)
    finally:
        tool_server.set_faults(None)
    assert set(tool_server.stats.faults) == {"malformed", "truncated", "unknown_tool"}
    assert (summary["failed"], summary["infra_errors"]) == (4, 0)
    assert summary["harness"]["ok"]
    for record in records(summary):
        assert all(c["error_kind"] == "unknown_tool" for c in record["tool_calls"])  # none was made
        details = record["solver_details"]
        answers = [m["content"] for m in record["messages"] if m["role"] == "tool"]
        broken = [a for a in answers if a.startswith("error: the call was not made")]
        assert len(broken) == details["malformed_calls"] and len(answers) == details["tool_calls_asked"]
        assert len(broken) + len(record["tool_calls"]) == len(answers)


def test_turn_and_token_limits_end_the_episode_as_the_agents_failure(
    pack_db: Path, tmp_path: Path, chosen: list[Task], tool_server: FakeLLMServer
) -> None:
    longer = [t for t in chosen if len(t.reference_calls) >= 2][:1]
    turns = run(pack_db, tmp_path, longer, tool_server, limits=Limits(max_turns=1))
    assert (turns["failed"], turns["infra_errors"], turns["stop_reasons"]) == (1, 0, {"max_turns": 1})
    tokens = run(pack_db, tmp_path, longer, tool_server, options={"max_tokens": "10"})
    assert (tokens["failed"], tokens["stop_reasons"]) == (1, {"max_tokens": 1})
    assert records(tokens)[0]["turns"] == 1


def test_a_budget_spent_inside_the_code_stops_the_run_and_the_episode(
    pack_db: Path, tmp_path: Path, chosen: list[Task], code_server: FakeLLMServer
) -> None:
    longer = [t for t in chosen if len(t.reference_calls) >= 2][:1]
    one_call = Limits(max_tool_calls=1)
    summary = run(pack_db, tmp_path, longer, code_server, solver="openai-code", limits=one_call)
    assert (summary["failed"], summary["infra_errors"], summary["stop_reasons"]) == (
        1, 0, {"max_tool_calls": 1}
    )
    record = records(summary)[0]
    assert len(record["tool_calls"]) == 1 and record["turns"] == 1


def test_options_are_checked_before_anything_runs(api_key: None) -> None:
    with pytest.raises(TerminalError, match='Did you mean "temperature"'):
        make(SolverConfig(model="fake", base_url="http://127.0.0.1:9/v1", options={"temprature": "1"}))
    with pytest.raises(TerminalError, match="is not a number"):
        make(SolverConfig(model="fake", base_url="http://127.0.0.1:9/v1", options={"timeout": "soon"}))
    sampled = llm_settings("openai", SolverConfig(model="m", seed=7, options={"temperature": "0.8"}))
    assert (sampled.temperature, sampled.seed) == (0.8, None)  # trials of a task must differ
    assert llm_settings("openai", SolverConfig(model="m", seed=7)).seed == 7


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_console_script_against_stateforge_fake_llm(
    pack_db: Path, tmp_path: Path, chosen: list[Task]
) -> None:
    port = free_port()
    env = {**os.environ, "OPENAI_API_KEY": "test-key"}
    server = subprocess.Popen(
        [STATEFORGE, "fake-llm", "--port", str(port), "--model", "fake"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert server.stdout is not None and "fake LLM server on" in server.stdout.readline()
        post_scripts(f"http://127.0.0.1:{port}", [tool_script(t) for t in chosen])
        done = subprocess.run(
            [STATEFORGE, "evaluate", str(pack_db), "--solver", "openai", "--model", "fake", "--base-url",
             f"http://127.0.0.1:{port}/v1", "--tasks", ",".join(f"id:{t.id}" for t in chosen), "--json",
             "--out", str(tmp_path), "--option", "cache=off", "--option", f"cache_dir={tmp_path / 'c'}"],
            capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
        )
        assert done.returncode == 0, done.stderr
        summary = json.loads(done.stdout)
        assert (summary["episodes"], summary["passed"], summary["infra_errors"]) == (4, 4, 0)
        unknown = subprocess.run(
            [STATEFORGE, "evaluate", str(pack_db), "--solver", "openai", "--model", "gpt-nope", "--base-url",
             f"http://127.0.0.1:{port}/v1", "--out", str(tmp_path)],
            capture_output=True, text=True, timeout=300, env=env, cwd=ROOT,
        )
        assert unknown.returncode == 2 and "is not served" in unknown.stderr
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
