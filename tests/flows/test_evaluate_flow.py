"""The evaluate flow under a Prefect test server: the stages as tasks (a batch of episodes each), the same
run folder and metrics as the functions the CLI calls, the summary as a markdown artifact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateforge.evaluate import evaluate as evaluate_with_functions
from stateforge.tasks import read_tasks
from tests.evaluate.pack import built_pack
from tests.prefect_runs import flow_run_artifacts, recorded_task_runs

pytestmark = pytest.mark.xdist_group("prefect")

KEPT = ("episodes", "passed", "failed", "infra_errors", "avg_at_k", "pass_at_k", "pass_hat_k", "groups",
        "failures", "ci")


def test_the_flow_runs_batches_of_episodes_as_tasks_and_reports_like_the_cli(
    prefect_server, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    from stateforge.flows.evaluate import evaluate

    db = built_pack(tmp_path_factory)
    tasks = read_tasks(db.parent / "tasks.jsonl")
    state = evaluate(domain=str(db), solver="noop", k=2, concurrency=2, out=str(tmp_path), return_state=True)
    flow = state.result()
    cli = evaluate_with_functions(db, solver="noop", k=2, concurrency=2, out=tmp_path)
    assert {k: flow[k] for k in KEPT} == {k: cli[k] for k in KEPT}
    assert flow["passed"] == 2 * sum(not t.feasible for t in tasks)
    records = (Path(flow["folder"]) / "episodes.jsonl").read_text().splitlines()
    assert [json.loads(r)["task_id"] for r in records] == [t.id for t in tasks] * 2

    (markdown,) = flow_run_artifacts(state.state_details.flow_run_id, "evaluate-postgres-dump")
    runs = recorded_task_runs(state.state_details.flow_run_id, ["episodes-1", "prepare", "summarize"])
    assert markdown.type == "markdown" and f"# Evaluation {flow['run_id']}" in markdown.data
    assert "| feasibility | infeasible | " in markdown.data
    names = sorted(r.name for r in runs)
    assert names == ["episodes-1", "prepare", "summarize"]  # one batch of episodes, not a task each


def test_the_flow_fails_when_the_harness_did_and_resumes_a_run(
    prefect_server, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    from stateforge.flows.evaluate import evaluate

    db = built_pack(tmp_path_factory)
    crashed = evaluate(domain=str(db), solver="tests.evaluate.solvers:crashing", limit=1, retries=0,
                       out=str(tmp_path), return_state=True)
    assert crashed.is_failed() and "every one of the 1 episodes" in str(crashed.message)
    run_id = next(tmp_path.iterdir()).name
    resumed = evaluate(domain=str(db), resume=run_id, out=str(tmp_path), return_state=True)
    assert resumed.is_failed()  # the crashing solver crashes again: its infrastructure error is run again
    records = (tmp_path / run_id / "episodes.jsonl").read_text().splitlines()
    assert len(records) == 2 and all(json.loads(r)["outcome"] == "infra_error" for r in records)
