"""The harness on a small built pack with generated tasks: the oracle scores 100%, noop exactly the
infeasible share, a wrong solver fails with reasons in words, crashes and broken tools are infrastructure
errors (retried, counted apart), limits hold, runs resume, and two runs compare."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import EvalRun, Limits, SolverError, compare_runs, evaluate, run_evaluation
from stateforge.evaluate.rundir import EPISODES_FILE, RUN_FILE, SUMMARY_FILE
from stateforge.tasks import Task
from stateforge.tasks.workspace import Workspace
from stateforge.tools import Toolkit, generic_tools
from tests.evaluate.solvers import (
    CallsBrokenTool,
    Crashing,
    FlakyOracle,
    ReportsInfra,
    SkipLastCall,
    explode,
)

pytestmark = pytest.mark.xdist_group("evaluate")


def lines(folder: str | Path) -> list[dict]:
    return [json.loads(line) for line in (Path(folder) / EPISODES_FILE).read_text().splitlines()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("runs")


@pytest.fixture(scope="module")
def oracle(pack_db: Path, runs: Path) -> dict:
    return evaluate(pack_db, solver="oracle", k=2, concurrency=3, out=runs, report=False)


@pytest.fixture(scope="module")
def noop(pack_db: Path, runs: Path) -> dict:
    return evaluate(pack_db, solver="noop", out=runs, report=False)


def test_the_oracle_scores_every_task_on_every_trial(oracle: dict, tasks: list[Task]) -> None:
    assert (oracle["episodes"], oracle["passed"], oracle["failed"], oracle["infra_errors"]) == (
        2 * len(tasks), 2 * len(tasks), 0, 0,
    )
    assert oracle["avg_at_k"] == oracle["pass_at_k"] == oracle["pass_hat_k"] == 1.0
    assert oracle["complete"] and oracle["harness"]["ok"]
    for kind in ("capability", "difficulty", "plan_length", "feasible"):
        assert all(group["avg_at_k"] == 1.0 for group in oracle["groups"][kind].values())
    assert oracle["groups"]["feasible"]["infeasible"]["tasks"] == sum(not t.feasible for t in tasks)
    infeasible = 2 * sum(not t.feasible for t in tasks)
    assert oracle["refusal"] == {
        "infeasible_episodes": infeasible, "refused": infeasible, "accuracy": 1.0,
        "feasible_episodes": 2 * len(tasks) - infeasible, "false_refusals": 0, "false_refusal_rate": 0.0,
    }


def test_the_run_folder_holds_what_was_asked_every_episode_and_the_summary(
    oracle: dict, tasks: list[Task], pack_db: Path
) -> None:
    folder = Path(oracle["folder"])
    spec = json.loads((folder / RUN_FILE).read_text())
    assert spec["solver"] == "oracle" and spec["k"] == 2 and spec["task_ids"] == [t.id for t in tasks]
    with Workspace(pack_db) as ws:
        assert spec["db_fingerprint"] == ws.fingerprint()
    assert spec["toolkit"]["tools"][-1] == "cannot_complete"
    assert json.loads((folder / SUMMARY_FILE).read_text()) == json.loads(json.dumps(oracle))
    records = lines(folder)
    # trial-major, in the tasks' order, whatever order the 3 threads finished in
    assert [(r["task_id"], r["trial"]) for r in records] == [(t.id, k) for k in range(2) for t in tasks]
    by_id = {t.id: t for t in tasks}
    for record in records:
        task = by_id[record["task_id"]]
        assert [c["tool"] for c in record["tool_calls"]] == [c.tool for c in task.reference_calls]
        assert record["diff"]["inserted"] + record["diff"]["deleted"] + record["diff"]["updated"] == sum(
            task.diff.summary.values()
        )
        assert [v["passed"] for v in record["verifiers"]] == [True] * len(task.verifiers)
        assert record["declined"] == (None if task.feasible else task.reference_calls[-1].arguments["reason"])
        assert record["timings"].keys() >= {"open", "solve", "verifiers", "diff", "close", "compare"}


def test_noop_passes_exactly_the_infeasible_tasks(noop: dict, tasks: list[Task]) -> None:
    infeasible = sum(not t.feasible for t in tasks)
    assert noop["passed"] == infeasible and noop["failed"] == len(tasks) - infeasible
    assert noop["avg_at_k"] == pytest.approx(infeasible / len(tasks), abs=1e-6)
    assert noop["groups"]["feasible"]["infeasible"]["avg_at_k"] == 1.0
    assert noop["groups"]["feasible"]["feasible"]["avg_at_k"] == 0.0
    assert noop["failures"]["declined a feasible task"] == len(tasks) - infeasible
    assert noop["refusal"]["accuracy"] == 1.0 and noop["refusal"]["false_refusal_rate"] == 1.0
    for record in lines(noop["folder"]):
        if record["outcome"] == "fail":
            assert record["reasons"][0].startswith("declined (cannot_complete: ")
            assert any("is missing" in r or "check" in r for r in record["reasons"][1:])


def test_a_wrong_solver_fails_with_reasons_in_words(pack_db: Path, runs: Path, tasks: list[Task]) -> None:
    summary = evaluate(pack_db, solver_object=SkipLastCall({t.id: t for t in tasks}), out=runs, report=False)
    assert summary["passed"] == 0 and summary["failed"] == len(tasks) and summary["infra_errors"] == 0
    assert summary["refusal"]["accuracy"] == 0.0  # the infeasible tasks' refused calls, never declined
    by_id = {t.id: t for t in tasks}
    for record in lines(summary["folder"]):
        task = by_id[record["task_id"]]
        reasons = " | ".join(record["reasons"])
        if task.feasible:  # the last write is missing: the verdict says which row, a check says which goal
            assert "expected" in reasons and ("missing" in reasons or "got" in reasons), reasons
        else:  # the decline is missing (the refused call changed nothing)
            assert record["reasons"] == [
                f"did not decline the task, which cannot be done ({task.provenance.infeasible.because}): it "
                "should call cannot_complete"
            ]
            assert record["failures"] == ["not declined"]
        assert record["messages"] == [{"content": task.instruction, "role": "user"}] and record["turns"] == 1


def test_a_crashing_solver_gives_infrastructure_errors_retried_and_kept_apart(
    pack_db: Path, runs: Path
) -> None:
    summary = evaluate(pack_db, solver_object=Crashing(), limit=2, retries=1, out=runs, report=False)
    assert (summary["passed"], summary["failed"], summary["infra_errors"]) == (0, 0, 2)
    assert summary["avg_at_k"] is None and summary["tasks"] == 0
    assert not summary["harness"]["ok"] and "every one of the 2 episodes" in summary["harness"]["why"]
    for record in lines(summary["folder"]):
        assert record["outcome"] == "infra_error" and record["attempts"] == 2
        assert record["infra_errors"] == ["the solver crashed: RuntimeError: the solver fell over"] * 2
        assert "RuntimeError" in record["solver_details"]["traceback"]


def test_a_transient_failure_is_retried_and_then_graded(pack_db: Path, runs: Path, tasks: list[Task]) -> None:
    solver = FlakyOracle({t.id: t for t in tasks})
    summary = evaluate(pack_db, solver_object=solver, limit=3, concurrency=2, out=runs, report=False)
    assert (summary["passed"], summary["infra_errors"]) == (3, 0) and summary["harness"]["ok"]
    assert summary["usage"]["retried_episodes"] == 3 and summary["usage"]["prompt_tokens"] == 300
    for record in lines(summary["folder"]):
        assert record["attempts"] == 2
        assert record["infra_errors"] == [
            "the solver crashed: TransientError: the model server timed out (simulated)"
        ]


def test_a_solver_reporting_infrastructure_trouble_and_a_broken_tool(
    pack_db: Path, runs: Path, tasks: list[Task]
) -> None:
    reported = evaluate(pack_db, solver_object=ReportsInfra(), limit=1, retries=0, out=runs, report=False)
    assert reported["infra_errors"] == 1
    assert lines(reported["folder"])[0]["reasons"] == ["the model server is unreachable (simulated)"]
    with Workspace(pack_db) as ws:
        kit = Toolkit([*generic_tools(ws.schema), explode], name="broken")
    broken = evaluate(
        pack_db, solver_object=CallsBrokenTool(), toolkit=kit, limit=2, retries=1, max_infra_share=1.0,
        out=runs, report=False,
    )
    assert broken["infra_errors"] == 2 and not broken["harness"]["ok"]  # never ok when every one crashed
    record = lines(broken["folder"])[0]
    assert record["reasons"][0].startswith("tool explode failed (internal: infrastructure): ")
    assert record["attempts"] == 2
    assert [c["tool"] for c in record["tool_calls"]] == ["explode"]  # stopped at the broken call


def test_the_tool_call_limit_ends_an_episode_as_the_agent_s_failure(
    pack_db: Path, runs: Path, tasks: list[Task]
) -> None:
    longer = [t for t in tasks if len(t.reference_calls) > 1]
    summary = evaluate(
        pack_db, solver="oracle", task_filter=longer[0].id, limits=Limits(max_tool_calls=1), out=runs,
        report=False,
    )
    record = lines(summary["folder"])[0]
    assert record["outcome"] == "fail" and record["stop_reason"] == "max_tool_calls"
    assert record["n_tool_calls"] == 1 and summary["stop_reasons"] == {"max_tool_calls": 1}


class Stop(Exception):
    pass


def stop_after_first_batch():
    seen = []

    def runner(stage, label, work):
        if label == "episodes-2":
            raise Stop(label)
        work()
        seen.append(label)

    return runner


def test_a_stopped_run_resumes_without_running_finished_episodes_again(
    pack_db: Path, runs: Path, tasks: list[Task]
) -> None:
    first = EvalRun(pack_db, solver="noop", k=2, batch=3, out=runs)
    with pytest.raises(Stop):
        run_evaluation(first, runner=stop_after_first_batch())
    folder = first.folder.path
    before = lines(folder)
    assert len(before) == 3
    with open(folder / EPISODES_FILE, "a") as fh:  # a kill in the middle of writing a line
        fh.write('{"task_id": "cut sh')
    summary = evaluate(pack_db, resume=first.folder.run_id, out=runs, report=False)
    after = lines(folder)
    assert after[:3] == before and len(after) == 2 * len(tasks)
    assert len({(r["task_id"], r["trial"]) for r in after}) == 2 * len(tasks)
    assert summary["complete"] and summary["timing"]["session_episodes"] == 2 * len(tasks) - 3
    with pytest.raises(TerminalError, match="cannot be resumed with k 3"):
        evaluate(pack_db, resume=first.folder.run_id, k=3, out=runs, report=False)


def test_two_runs_compare_on_their_shared_tasks(
    oracle: dict, noop: dict, runs: Path, tasks: list[Task]
) -> None:
    result = compare_runs(oracle["run_id"], noop["folder"], runs_dirs=[runs])
    feasible = sum(t.feasible for t in tasks)
    assert result["shared_tasks"] == len(tasks)
    assert result["paired"]["difference"] == pytest.approx(-feasible / len(tasks), abs=1e-6)
    assert (result["paired"]["a_better"], result["paired"]["b_better"]) == (feasible, 0)
    assert result["paired"]["sign_test_p"] == pytest.approx(2 / 2**feasible, rel=1e-5)  # 6 significant digits
    assert result["a"]["avg_at_k"] == 1.0 and result["b"]["k"] == 1


def test_bad_input_is_refused_before_anything_is_written(pack_db: Path, tmp_path: Path) -> None:
    with pytest.raises(SolverError, match='Did you mean "oracle"'):
        evaluate(pack_db, solver="oracel", out=tmp_path, report=False)
    with pytest.raises(TerminalError, match="matches none"):
        evaluate(pack_db, solver="noop", task_filter="hard,0000000", out=tmp_path, report=False)
    other = tmp_path / "other.duckdb"
    shutil.copyfile(pack_db, other)
    with duckdb.connect(str(other)) as con:  # the same tables, other data
        sql = "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main' ORDER BY 1 LIMIT 1"
        table = con.execute(sql).fetchone()
        con.execute(f'DELETE FROM "{table[0]}" WHERE rowid = (SELECT min(rowid) FROM "{table[0]}")')
    with pytest.raises(TerminalError, match="was made on other data"):
        evaluate(other, solver="noop", tasks_file=pack_db.parent / "tasks.jsonl", out=tmp_path, report=False)
    assert not any(tmp_path.glob("*/run.json"))
