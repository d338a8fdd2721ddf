"""The `mcp` solver: an external agent per episode on that episode's MCP server. The shipped example agent
(examples/mcp_agent.py: the official `mcp.Client` and `openai` client) solves tasks against the fake
model's scripts; agents that crash, hang or cannot be found are failures or bad input, never
infrastructure errors of the harness."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from stateforge.errors import TerminalError
from stateforge.evaluate import evaluate
from stateforge.evaluate.distractors import distractor_names, with_distractors
from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.fakellm import FakeLLMServer
from stateforge.mcp.target import PLAN_INTRO
from stateforge.tasks import Task
from stateforge.tools import load_toolkit
from tests.evaluate.scripted import pick, post_scripts, tool_script

pytestmark = pytest.mark.xdist_group("evaluate")
ROOT = Path(__file__).resolve().parents[2]
PYTHON = shlex.quote(sys.executable)
SNOOP = (
    "import json, os, sys; "
    "sys.stderr.write(json.dumps({'argv': sys.argv[1:], 'stdin': sys.stdin.read(), "
    "'url': os.environ['STATEFORGE_MCP_URL'], 'instruction': os.environ['STATEFORGE_INSTRUCTION']})); "
    "print('giving up'); sys.exit(3)"
)


@pytest.fixture(scope="module")
def chosen(tasks: list[Task]) -> list[Task]:
    picked = pick(tasks, feasible=1)
    return [picked[0], picked[-1]]


@pytest.fixture(scope="module")
def model(chosen: list[Task]) -> Iterator[FakeLLMServer]:
    with FakeLLMServer(models=("fake",)) as server, pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", "test-key")
        patch.setenv("OPENAI_BASE_URL", server.base_url)
        patch.setenv("STATEFORGE_AGENT_MODEL", "fake")
        post_scripts(server.url, [tool_script(t) for t in chosen])
        yield server


def run(db: Path, out: Path, tasks: list[Task], cmd: str, **options: str) -> dict[str, Any]:
    return evaluate(db, solver="mcp", out=out, options={"cmd": cmd, **options}, concurrency=2,
                    task_filter=",".join(f"id:{t.id}" for t in tasks), report=False)


def records(summary: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (Path(summary["folder"]) / EPISODES_FILE).read_text().splitlines()]


def test_the_example_agent_solves_and_declines_over_mcp(
    pack_db: Path, tmp_path: Path, chosen: list[Task], model: FakeLLMServer
) -> None:
    agent = f"{PYTHON} {shlex.quote(str(ROOT / 'examples' / 'mcp_agent.py'))} {{url}}"
    summary = run(pack_db, tmp_path, chosen, agent)
    assert (summary["episodes"], summary["passed"], summary["infra_errors"]) == (2, 2, 0)
    by_id = {t.id: t for t in chosen}
    for record in records(summary):
        task = by_id[record["task_id"]]
        assert [c["tool"] for c in record["tool_calls"]] == [c.tool for c in task.reference_calls]
        assert record["stop_reason"] == "done" and record["solver_details"]["exit_code"] == 0
        assert record["messages"] == [
            {"role": "user", "content": task.instruction}, {"role": "assistant", "content": "Done."}
        ]
    assert model.stats.drivers and all(k.startswith("script:") for k in model.stats.drivers)


def test_an_agent_that_exits_badly_or_hangs_fails_the_task(
    pack_db: Path, tmp_path: Path, chosen: list[Task], model: FakeLLMServer
) -> None:
    one = chosen[:1]
    crashed = run(pack_db, tmp_path, one, f"{PYTHON} -c {shlex.quote(SNOOP)} --server {{url}} {{task_id}}")
    assert (crashed["failed"], crashed["infra_errors"], crashed["stop_reasons"]) == (1, 0, {"exit 3": 1})
    record = records(crashed)[0]
    seen = json.loads(record["solver_details"]["stderr"])
    assert seen["url"].startswith("http://127.0.0.1:") and seen["url"].endswith("/mcp")
    assert seen["argv"] == ["--server", seen["url"], one[0].id]
    assert seen["stdin"] == seen["instruction"] == one[0].instruction
    assert record["messages"][-1] == {"role": "assistant", "content": "giving up"}
    hung = run(pack_db, tmp_path, one, f"{PYTHON} -c 'import time; time.sleep(60)'", timeout="1")
    assert (hung["failed"], hung["infra_errors"], hung["stop_reasons"]) == (1, 0, {"wall_seconds": 1})
    assert records(hung)[0]["solver_details"]["agent_seconds"] < 30


def test_an_agent_that_cannot_be_found_is_bad_input(
    pack_db: Path, tmp_path: Path, chosen: list[Task]
) -> None:
    with pytest.raises(TerminalError, match="no program 'no-such-agent'"):
        run(pack_db, tmp_path, chosen, "no-such-agent {url}")
    with pytest.raises(TerminalError, match="needs the agent's command"):
        evaluate(pack_db, solver="mcp", out=tmp_path, report=False)
    assert not list(tmp_path.iterdir())  # nothing written


def test_an_agent_that_cannot_be_started_is_an_infrastructure_error(
    pack_db: Path, tmp_path: Path, chosen: list[Task]
) -> None:
    agent = tmp_path / "agent"
    agent.write_text("#!/nonexistent/interpreter\n")  # on PATH and executable, but exec fails
    agent.chmod(0o755)
    summary = evaluate(pack_db, solver="mcp", out=tmp_path / "runs", options={"cmd": f"{agent} {{url}}"},
                       retries=0, task_filter=f"id:{chosen[0].id}", report=False)
    assert (summary["failed"], summary["infra_errors"]) == (0, 1) and not summary["harness"]["ok"]
    assert "the agent could not be started" in records(summary)[0]["reasons"][0]


def test_the_agents_server_lists_the_distractors_and_tells_the_plan(
    pack_db: Path, tmp_path: Path, chosen: list[Task]
) -> None:
    task = chosen[0]
    agent = shlex.quote(str(Path(__file__).with_name("listing_agent.py")))
    summary = evaluate(pack_db, solver="mcp", out=tmp_path, options={"cmd": f"{PYTHON} {agent} {{url}}"},
                       task_filter=f"id:{task.id}", distractors=5, with_plan=True, report=False)
    assert (summary["infra_errors"], summary["distractors"], summary["with_plan"]) == (0, 5, True)
    seen = json.loads(records(summary)[0]["solver_details"]["stderr"])
    base = load_toolkit(pack_db)
    assert seen["tools"] == with_distractors(base, 5, seed=0, key=task.id).names
    assert len(distractor_names(with_distractors(base, 5, seed=0, key=task.id), base)) == 5
    told = seen["instructions"].split(PLAN_INTRO)[1]
    assert all(" ".join(step.split()) in told for step in task.reference_plan)
