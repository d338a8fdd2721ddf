"""generate-tasks through the real console script (exit codes 0, 1, 2) and as a Prefect flow under a test
server (the same bytes as the library call, task runs named after the stages, a markdown artifact)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stateforge.errors import TerminalError
from stateforge.tasks import generate_tasks
from stateforge.tasks.runner import GenerationRun, run_generation
from tests.prefect_runs import flow_run_artifacts, recorded_task_runs

STATEFORGE = [str(Path(sys.executable).with_name("stateforge"))]


def run(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        STATEFORGE + [str(a) for a in args], capture_output=True, text=True, timeout=600, cwd=cwd
    )


@pytest.mark.slow
def test_the_cli_writes_tasks_and_exits_by_the_outcome(duck_db: Path, tmp_path: Path):
    out = tmp_path / "out"
    done = run("generate-tasks", duck_db, "--n", "3", "--seed", "2", "--out", out, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["kept"] == 3 and report["target_met"] and report["tasks_file"] == str(out / "tasks.jsonl")
    assert json.loads((out / "generation_report.json").read_text())["kept"] == 3

    checked = run("tasks", out / "tasks.jsonl", "--json")
    assert checked.returncode == 0, checked.stderr
    assert json.loads(checked.stdout)["valid"] == 3
    text = run("tasks", out / "tasks.jsonl")
    assert text.returncode == 0 and "3 tasks in" in text.stdout
    broken = tmp_path / "broken.jsonl"
    broken.write_text((out / "tasks.jsonl").read_text().replace('"feasible":', '"feasable":', 1))
    invalid = run("tasks", broken)
    assert invalid.returncode == 1 and "broken.jsonl:1:" in invalid.stderr
    assert run("tasks", tmp_path / "nothing.jsonl").returncode == 2


def test_bad_input_exits_2(duck_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    unknown = run("generate-tasks", "musc", cwd=tmp_path)
    assert unknown.returncode == 2 and 'Did you mean "music"' in unknown.stderr
    unbuilt = run("generate-tasks", "music", cwd=tmp_path)
    assert unbuilt.returncode == 2 and "build it first" in unbuilt.stderr
    backend = run("generate-tasks", duck_db, "--backend", "llama", "--out", tmp_path)
    assert backend.returncode == 2 and "unknown task generator 'llama'" in backend.stderr
    keyless = run("generate-tasks", duck_db, "--backend", "openai", "--out", tmp_path)
    assert keyless.returncode == 2 and "needs an API key: set OPENAI_API_KEY" in keyless.stderr
    monkeypatch.chdir(tmp_path)  # no artifacts/music here: the same error the CLI turns into exit 2
    with pytest.raises(TerminalError, match=r"no database at .*music\.duckdb: build it first"):
        generate_tasks("music", n=1)


def test_too_few_tasks_exit_1_with_the_file_and_the_reason(bare_db: Path):
    done = run("generate-tasks", bare_db, "--n", "5")
    assert done.returncode == 1, done.stderr
    assert "0 of 5 tasks passed the gate" in done.stderr and "every recipe was retired" in done.stderr
    assert (bare_db.parent / "tasks.jsonl").read_text() == ""
    report = json.loads((bare_db.parent / "generation_report.json").read_text())
    assert report["kept"] == 0 and not report["target_met"] and report["skipped"]


@pytest.mark.xdist_group("prefect")
def test_the_flow_runs_the_stages_as_tasks_and_publishes_the_report(
    prefect_server, duck_db: Path, bare_db: Path, tmp_path: Path
):
    from stateforge.flows.generate_tasks import generate_tasks

    state = generate_tasks(domain=str(duck_db), n=3, seed=2, out=str(tmp_path / "flow"), return_state=True)
    report = state.result()
    assert report["kept"] == 3
    run_generation(GenerationRun(duck_db, n=3, seed=2, out=tmp_path / "lib"))
    assert (tmp_path / "flow" / "tasks.jsonl").read_bytes() == (tmp_path / "lib" / "tasks.jsonl").read_bytes()
    key = f"tasks-{report['domain'].replace('_', '-')}"
    (artifact,) = flow_run_artifacts(state.state_details.flow_run_id, key)
    runs = recorded_task_runs(state.state_details.flow_run_id, ["prepare", "generate-1", "write", "report"])
    assert artifact.type == "markdown" and "| capability | tasks | share |" in artifact.data
    assert {r.name for r in runs} >= {"prepare", "generate-1", "write", "report"}

    failed = generate_tasks(domain=str(bare_db), n=2, out=str(tmp_path / "few"), return_state=True)
    assert failed.is_failed() and (tmp_path / "few" / "tasks.jsonl").is_file()


def test_served_deployments_cover_every_flow():
    from stateforge.flows.serve import deployments

    names = {(d.flow_name, d.name) for d in deployments(["music"])}
    assert names == {
        ("build-domain", "music"), ("generate-tasks", "music"), ("evaluate", "music"), ("release", "music")
    }
