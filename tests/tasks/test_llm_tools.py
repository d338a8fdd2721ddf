"""What the LLM generator offers the model: `run_sql` on a real episode, `submit_task`'s schema and parsing,
the domain's tools with their writes marked, and the opening messages."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from stateforge.episode import Episode
from stateforge.llm.prompts import prompt_sha256
from stateforge.tasks.draft import Call
from stateforge.tasks.generators import Want
from stateforge.tasks.llm.generator import WRITE_MARK, generator_tools
from stateforge.tasks.llm.prompt import opening
from stateforge.tasks.llm.sql import run_sql
from stateforge.tasks.llm.submit import Submission, parse_submission, to_draft
from stateforge.tasks.model import CAPABILITIES
from stateforge.tasks.workspace import Workspace
from stateforge.tools import toolkit_for
from tests.episode.fixture import build_shop

LIMITS = {"max_turns": 9, "max_tool_calls": 19, "max_submissions": 2, "sql_rows": 7}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workspace]:
    with Workspace(build_shop(tmp_path_factory.mktemp("shop-build"))) as ws:
        yield ws


@pytest.fixture
def episode(workspace: Workspace) -> Iterator[Episode]:
    episode = workspace.episode(toolkit_for(workspace.schema, workspace.domain), diffed=False)
    yield episode
    workspace.discard(episode)


def sql(episode: Episode, text: object, **limits: float) -> str:
    options = {"max_rows": 5, "max_chars": 20_000, "timeout": 10.0} | limits
    return run_sql(episode, text, **options)  # type: ignore[arg-type]


def test_run_sql_reads_the_episode_as_it_is_now(episode: Episode) -> None:
    before = json.loads(sql(episode, "SELECT count(*) AS n FROM invoices"))
    assert before == {"columns": ["n"], "rows": [{"n": 15}], "row_count": 1, "truncated": False}
    assert episode.call("delete_invoice", {"invoice_id": 3}).ok
    assert json.loads(sql(episode, "SELECT count(*) AS n FROM invoices"))["rows"] == [{"n": 14}]
    page = json.loads(sql(episode, "SELECT invoice_id, amount FROM invoices ORDER BY invoice_id"))
    assert page["row_count"] == 5 and page["truncated"] and "LIMIT/OFFSET" in page["note"]
    assert page["columns"] == ["invoice_id", "amount"] and isinstance(page["rows"][0]["amount"], str)


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("DELETE FROM invoices", "exactly one SELECT"),
        ("SELECT 1; SELECT 2", "exactly one SELECT"),
        ("SELECT now()", "now"),
        ("SELECT * FROM no_such_table", "CatalogException"),
        ("SELEC 1", "does not parse"),
        ("", "needs `sql`"),
        (42, "needs `sql`"),
    ],
)
def test_run_sql_errors_are_data(episode: Episode, query: object, says: str) -> None:
    answer = sql(episode, query)
    assert answer.startswith("error (") and says in answer
    assert json.loads(sql(episode, "SELECT count(*) AS n FROM invoices"))["rows"] == [{"n": 15}]


def test_run_sql_bounds_size_and_time(episode: Episode) -> None:
    wide = json.loads(
        sql(episode, "SELECT repeat('x', 900) AS t FROM range(40)", max_rows=40, max_chars=4_000)
    )
    assert wide["truncated"] and 0 < wide["row_count"] < 5
    slow = sql(episode, "SELECT count(*) FROM range(100000000000) a", timeout=0.2)
    assert slow.startswith("error (sql): the query ran longer than 0.2 s")


def test_submission_errors_name_every_field() -> None:
    answer = parse_submission(
        {"instruction": "", "capabilities": ["speed"], "difficulty": "easy", "extra": 1}
    )
    assert isinstance(answer, str) and answer.startswith("error (arguments): submit_task:")
    for field in ("instruction", "capabilities.0", "feasible", "extra"):
        assert f"{field}:" in answer


def test_a_submission_becomes_the_gates_draft() -> None:
    submission = Submission.model_validate(
        {
            "instruction": "Cancel order 7.",
            "capabilities": ["cross_step_dependency", "cross_step_dependency"],
            "difficulty": "medium",
            "feasible": False,
            "references": [
                {
                    "entity": "order 7",
                    "sql": "SELECT count(*) FROM orders WHERE order_id = ?",
                    "params": [7],
                    "expected": 0,
                }
            ],
            "infeasible": {"kind": "missing", "because": "There is no order 7."},
            "policy": {"orders.note": "ignore"},
        }
    )
    draft = to_draft(submission, [Call("delete_order", {"order_id": 7})], {"generator": "llm"})
    assert draft.capabilities == ("cross_step_dependency",) and not draft.feasible
    assert draft.infeasible is not None and draft.infeasible.kind == "missing"
    assert draft.references[0].expected == 0 and draft.policy == {"orders.note": "ignore"}


def test_the_model_gets_sql_the_domain_tools_and_submit(workspace: Workspace) -> None:
    toolkit = toolkit_for(workspace.schema, workspace.domain)
    tools = generator_tools(toolkit)
    names = [t["function"]["name"] for t in tools]
    assert names[0] == "run_sql" and names[-1] == "submit_task" and "cannot_complete" not in names
    assert set(names[1:-1]) == {t.name for t in toolkit} - {"cannot_complete"}
    marked = {t["function"]["name"] for t in tools if t["function"]["description"].startswith(WRITE_MARK)}
    assert marked == {t.name for t in toolkit if t.kind == "write"} and "delete_invoice" in marked
    submit = tools[-1]["function"]["parameters"]
    assert submit["properties"]["capabilities"]["items"]["enum"] == list(CAPABILITIES)
    assert "$defs" not in json.dumps(submit) and submit["additionalProperties"] is False


def test_the_opening_states_the_request_and_varies_the_start(workspace: Workspace) -> None:
    toolkit = toolkit_for(workspace.schema, workspace.domain)
    feasible = opening(workspace, toolkit, Want(1, "aggregation_computation", False), seed=3, limits=LIMITS)
    system, user = (m["content"] for m in feasible.messages)
    assert "CREATE TABLE invoices" in system and "shipped_orders_have_a_shipment" in system
    assert "19 tool calls" in system and "at most 7 rows" in system
    assert "aggregation_computation" in user and "infeasible" not in user
    infeasible = opening(workspace, toolkit, Want(2, None, True), seed=3, limits=LIMITS)
    assert "infeasible" in infeasible.messages[1]["content"]
    assert not any(c in infeasible.messages[1]["content"] for c in CAPABILITIES)
    starts = {opening(workspace, toolkit, Want(k), seed=3, limits=LIMITS).start_table for k in range(1, 13)}
    assert len(starts) > 3 and feasible.prompt_sha256 == prompt_sha256("generate_task")
