"""The parts of the harness on their own: the solver's handle, the registry, task selection, run folders."""

from __future__ import annotations

import json
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from stateforge.episode import Episode
from stateforge.evaluate import (
    EpisodeAborted,
    EpisodeHandle,
    LimitReached,
    Limits,
    RunFolder,
    SolverConfig,
    SolverError,
    make_solver,
)
from stateforge.evaluate.records import EpisodeRecord, RunSpec, TaskFacts
from stateforge.evaluate.rundir import RunError, new_run_id
from stateforge.evaluate.selection import FilterError, parse_filter, select_tasks
from stateforge.evaluate.solvers.noop import NoopSolver
from stateforge.evaluate.solvers.oracle import OracleSolver
from stateforge.tasks import Task
from stateforge.tools import Toolkit, generic_tools
from tests.evaluate.solvers import SlowNoop, explode

pytestmark = pytest.mark.xdist_group("evaluate")


# --- the handle --------------------------------------------------------------------------------------


def test_the_handle_lists_tools_without_tables_and_tells_the_service_not_the_schema(pack_db: Path) -> None:
    with Episode.open(pack_db) as episode:
        handle = EpisodeHandle(episode, Limits())
        assert handle.tool_names == episode.toolkit.names and handle.tool_names[-1] == "cannot_complete"
        assert all(set(entry) == {"name", "kind", "description", "parameters"} for entry in handle.listing())
        assert [t["function"]["name"] for t in handle.openai_tools()] == handle.tool_names
        assert handle.now == episode.now and episode.now.isoformat() in handle.instructions
        for word in ("CREATE", "REFERENCES", "SELECT"):
            assert word not in handle.instructions
        assert not hasattr(handle, "connection") and not hasattr(handle, "query")


def test_the_handle_enforces_the_tool_call_budget_and_the_wall_time(pack_db: Path) -> None:
    with Episode.open(pack_db) as episode:
        handle = EpisodeHandle(episode, Limits(max_tool_calls=2))
        assert handle.decline("first").ok and handle.decline("second").ok
        with pytest.raises(LimitReached, match="2 tool calls are spent") as caught:
            handle.decline("third")
        assert caught.value.what == "max_tool_calls" == handle.limit_hit
        assert len(episode.log) == 2  # the refused call was not made
    with Episode.open(pack_db) as episode:
        handle = EpisodeHandle(episode, Limits(wall_seconds=0.01))
        time.sleep(0.05)
        with pytest.raises(LimitReached, match="wall time"):
            handle.decline("late")
        assert handle.seconds_left == 0.0 and episode.log == []


def test_a_tool_s_infrastructure_error_aborts_the_episode(pack_db: Path) -> None:
    with Episode.open(pack_db) as probe:
        kit = Toolkit([*generic_tools(probe.schema), explode], name="broken")
    with Episode.open(pack_db, toolkit=kit) as episode:
        handle = EpisodeHandle(episode, Limits())
        with pytest.raises(EpisodeAborted, match="explode failed with an infrastructure error"):
            handle.call("explode")
        assert handle.aborted is not None and handle.aborted.error_kind == "internal"
        assert not handle.call("no_such_tool").ok  # a mistake of the agent's is a result, not an abort


def test_the_handle_serves_its_episode_over_mcp_for_an_external_agent(pack_db: Path) -> None:
    with Episode.open(pack_db) as episode:
        handle = EpisodeHandle(episode, Limits())

        async def agent(url: str) -> tuple[list[str], bool, str | None]:
            async with Client(url) as client:
                tools = [t.name for t in (await client.list_tools()).tools]
                result = await client.call_tool("cannot_complete", {"reason": "over MCP"})
                return tools, result.is_error, client.instructions

        with handle.mcp_server() as url:
            tools, failed, instructions = anyio.run(agent, url)
        assert tools == handle.tool_names and failed is False
        assert instructions == handle.instructions
        assert episode.declined == "over MCP"  # the call landed in this episode's log


# --- the registry ------------------------------------------------------------------------------------


def test_solvers_by_name_by_factory_and_unknown_ones(tasks: list[Task]) -> None:
    config = SolverConfig(options={"delay": "0.01"})
    assert isinstance(make_solver("oracle", config, tasks={t.id: t for t in tasks}), OracleSolver)
    assert isinstance(make_solver("noop", config), NoopSolver)
    custom = make_solver("tests.evaluate.solvers:slow_noop", config)
    assert isinstance(custom, SlowNoop) and custom.delay == 0.01
    with pytest.raises(SolverError, match='unknown solver .noup.. Did you mean "noop"'):
        make_solver("noup", config)
    with pytest.raises(SolverError, match="cannot import no_such_module"):
        make_solver("no_such_module:make", config)
    with pytest.raises(SolverError, match="has no attribute nothing"):
        make_solver("tests.evaluate.solvers:nothing", config)


# --- selection ---------------------------------------------------------------------------------------


def test_filters_combine_kinds_with_and_and_words_of_a_kind_with_or(tasks: list[Task]) -> None:
    chosen = parse_filter("easy, hard,infeasible,cross_step_dependency")
    assert chosen.difficulties == {"easy", "hard"} and chosen.feasibility == {False}
    picked = select_tasks(tasks, "infeasible")
    assert picked == [t for t in tasks if not t.feasible]
    assert select_tasks(tasks, f"{tasks[1].id[:6]},id:{tasks[0].id[:5]}") == tasks[:2]
    assert select_tasks(tasks, "feasible", limit=1) == [next(t for t in tasks if t.feasible)]
    with pytest.raises(FilterError, match='Did you mean "medium"'):
        parse_filter("meduim")
    with pytest.raises(FilterError, match="--limit must be at least 1"):
        select_tasks(tasks, None, limit=0)


# --- run folders -------------------------------------------------------------------------------------


def spec(run_id: str) -> RunSpec:
    return RunSpec(
        run_id=run_id, domain="d", solver="noop", k=1, db="d.duckdb", db_fingerprint="f", tasks_file="t",
        tasks_sha256="s", task_ids=["a", "b"], solver_config=SolverConfig(), stateforge_version="0",
        created_at="2026-01-01T00:00:00+00:00",
    )


def record(task_id: str, outcome: str = "pass") -> EpisodeRecord:
    facts = TaskFacts(domain="d", feasible=True, capabilities=["multi_condition_filtering"],
                      difficulty="easy", plan_steps=1, reference_calls=1)
    return EpisodeRecord(task_id=task_id, trial=0, outcome=outcome, task=facts)


def test_a_run_folder_survives_a_line_cut_short_and_counts_the_last_record(tmp_path: Path) -> None:
    run_id = new_run_id("tests.evaluate.solvers:slow_noop")
    assert "-slow-noop-" in run_id
    folder = RunFolder.create(tmp_path, spec(run_id))
    folder.append(record("a", "infra_error"))
    folder.close()
    path = folder.episodes_path
    path.write_text(path.read_text() + '{"task_id": "b", "tri')  # killed in the middle of a line
    reopened = RunFolder.open(tmp_path / run_id)
    assert [r.task_id for r in reopened.records()] == ["a"]
    reopened.append(record("b"))
    reopened.append(record("a"))  # run again: the last record of (a, 0) counts
    reopened.close()
    assert [(r.task_id, r.outcome) for r in reopened.records()] == [("b", "pass"), ("a", "pass")]
    assert all(json.loads(line) for line in path.read_text().splitlines())  # the cut line is gone
    with pytest.raises(RunError, match="already exists"):
        RunFolder.create(tmp_path, spec(run_id))
    with pytest.raises(RunError, match="run.json is missing"):
        RunFolder.open(tmp_path / "nope")
    lines = path.read_text().splitlines()
    path.write_text("\n".join(["not json", *lines]) + "\n")
    with pytest.raises(RunError, match=r"episodes.jsonl:1: not an episode record"):
        reopened.records()
