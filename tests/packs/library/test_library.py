"""The teaching pack end to end, as docs/domain-packs.md walks through it: it builds clean with its rules
and policies holding, its tools act for the signed-in member (`env.actor`), its recipes make tasks the gate
keeps (the policy detour and the procedure test among them), each naming its actor, the harness binds that
actor for every solver (the oracle, a mutant, an in-process solver, an MCP agent), a solver that breaks
the procedure fails by name, and doing nothing solves only the infeasible ones."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

import duckdb
import pytest

from stateforge.build import build_domain
from stateforge.domain import load_domain
from stateforge.episode import Episode
from stateforge.evaluate import evaluate
from stateforge.evaluate.htmlreport import write_run_report
from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.tasks.runner import generate_tasks
from stateforge.tools.actor import Actor, NoActor

pytestmark = pytest.mark.xdist_group("library_pack")

NOW = "TIMESTAMP '2026-06-30 23:59:59'"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("library")
    report = build_domain("library", out=out)
    assert report["totals"]["violations"] == 0
    return out / "library.duckdb"


@pytest.fixture(scope="module")
def tasks(built: Path) -> list[dict]:
    generate_tasks(built, n=24, seed=3, out=built.parent)
    return [json.loads(line) for line in (built.parent / "tasks.jsonl").read_text().splitlines()]


def test_the_data_keeps_the_policies_it_states(built: Path):
    checks = {p.name: p.check for p in load_domain("library").config.policies if p.check}
    with duckdb.connect(str(built), read_only=True) as con:
        for name, sql in checks.items():
            assert con.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0] == 0, name
        late = con.execute(f"SELECT count(*) FROM loans WHERE returned_at > {NOW} OR borrowed_at > {NOW}")
        assert late.fetchone()[0] == 0
        blocked = con.execute(
            "SELECT count(DISTINCT member_id) FROM loans "
            f"WHERE returned_at IS NULL AND due_on < CAST({NOW} AS DATE)"
        ).fetchone()[0]
    assert blocked >= 10  # enough members with overdue books for the detour


def test_borrowing_is_refused_by_name_while_a_book_is_overdue(built: Path, tmp_path: Path):
    with duckdb.connect(str(built), read_only=True) as con:
        card, barcode = con.execute(
            "SELECT m.card_number, (SELECT min(barcode) FROM copies WHERE status = 'on_shelf') "
            "FROM members AS m JOIN loans AS l USING (member_id) "
            f"WHERE l.returned_at IS NULL AND l.due_on < CAST({NOW} AS DATE) "
            "ORDER BY 1 LIMIT 1"
        ).fetchone()
    with Episode.open(built, workdir=tmp_path, actor=card) as ep:
        refused = ep.call("borrow_copy", {"barcode": barcode})
        assert not refused.ok and refused.policy == "overdue_blocks_borrowing"
        overdue = ep.call("list_loans", {"state": "overdue", "limit": 20}).value
        codes = [row["barcode"] for row in overdue["rows"]]
        assert ep.call("return_copies", {"barcodes": codes}).ok
        assert ep.call("borrow_copy", {"barcode": barcode}).ok


def test_every_recipe_keeps_tasks_and_the_oracle_solves_them(built: Path, tasks: list[dict], tmp_path: Path):
    recipes = {t["provenance"]["recipe"] for t in tasks}
    assert recipes == {"return_overdue_books", "borrow_a_title", "return_then_borrow",
                       "borrow_titles_one_copy_each", "borrow_a_title_already_out"}
    assert any(not t["feasible"] for t in tasks)
    oracle = evaluate(built, solver="oracle", out=tmp_path / "oracle", report=False)
    assert oracle["passed"] == oracle["episodes"] == len(tasks)
    kinds = oracle["verifier_kinds"]
    assert {k: v["pass_rate"] for k, v in kinds.items()} == dict.fromkeys(kinds, 1.0)
    procedure = oracle["policies"]["one_copy_per_title"]
    assert procedure["passed"] == procedure["episodes"] >= 1
    noop = evaluate(built, solver="noop", out=tmp_path / "noop", report=False)
    assert noop["passed"] == sum(not t["feasible"] for t in tasks)


def card_of(db: Path, where: str = "TRUE") -> str:
    with duckdb.connect(str(db), read_only=True) as con:
        sql = f"SELECT card_number FROM members WHERE {where} ORDER BY member_id LIMIT 1"
        return con.execute(sql).fetchone()[0]


def test_the_tools_act_for_the_signed_in_member_and_no_one_else(built: Path, tmp_path: Path):
    card = card_of(built)
    with Episode.open(built, workdir=tmp_path, actor=card) as ep:
        assert ep.actor == Actor(person=card, roles=("member",))  # the roles domain.yaml gives a member
        assert ep.call("get_member", {}).value["card_number"] == card
        schemas = [ep.toolkit[name].parameters for name in ("get_member", "list_loans", "borrow_copy")]
        assert not [s for s in schemas if "card_number" in s.get("properties", {})]
        other = ep.call("list_loans", {"card_number": card_of(built, f"card_number <> '{card}'")})
        assert not other.ok and other.error_kind == "arguments"  # no argument names someone else
    with Episode.open(built, workdir=tmp_path) as anonymous:  # opened as no one: the tools refuse
        refused = anonymous.call("get_member", {})
        assert not refused.ok and "no one is signed in" in refused.error
    with pytest.raises(NoActor, match="no members row has card_number = 'LC00000000'"):
        Episode.open(built, workdir=tmp_path, actor="LC00000000")
    with pytest.raises(NoActor, match="does not hold the role 'librarian' .their roles: member."):
        Episode.open(built, workdir=tmp_path, actor=Actor(person=card, roles=("librarian",)))


def test_every_task_names_its_actor_and_a_variant_acts_as_the_member_it_swapped_in(
    built: Path, tasks: list[dict]
):
    assert all(t["actor"]["roles"] == ["member"] for t in tasks)
    with duckdb.connect(str(built), read_only=True) as con:
        names = dict(con.execute("SELECT card_number, name FROM members").fetchall())
    for task in tasks:  # the member who speaks is the one the episode acts as
        assert names[task["actor"]["person"]] in task["instruction"], task["id"]
    for task in tasks:  # the gate proved the card names one member (a variant's: the swapped-in one)
        person = task["actor"]["person"]
        assert any(r["entity"].startswith("actor ") and r["params"] == [person] for r in task["references"])


def test_a_solver_that_breaks_the_procedure_fails_by_its_name(built: Path, tasks: list[dict], tmp_path: Path):
    tested = [t for t in tasks if t["provenance"]["recipe"] == "borrow_titles_one_copy_each"]
    assert tested and all(
        any(v["kind"] == "policy" and v["name"] == "policy one_copy_per_title" for v in t["verifiers"])
        for t in tested
    )
    naive = evaluate(built, solver="tests.packs.library.naive:make", out=tmp_path,
                     task_filter=",".join(f"id:{t['id']}" for t in tested), report=False)
    assert (naive["failed"], naive["infra_errors"]) == (len(tested), 0)
    records = [json.loads(line) for line in (Path(naive["folder"]) / EPISODES_FILE).read_text().splitlines()]
    broke = 0
    for record in records:  # the harness bound the actor: the reads and writes went through as the member
        lent = [c for c in record["tool_calls"] if c["tool"] == "borrow_copy" and c["ok"]]
        if len(lent) == 2:
            broke += 1
            assert "policy check one_copy_per_title" in record["failures"], record["failures"]
            assert any("'policy one_copy_per_title' failed" in r for r in record["reasons"])
    assert broke >= 1
    assert naive["policies"]["one_copy_per_title"]["passed"] == len(tested) - broke
    assert naive["verifier_kinds"]["policy"]["episodes_passed"] == len(tested) - broke
    page = write_run_report(naive["folder"]).read_text()  # the HTML report's tile of verifier kinds
    assert "Verifiers passed, by kind" in page and "one_copy_per_title" in page


def test_a_request_the_procedure_declines_is_found_by_working_and_doing_it_fails_by_name(
    built: Path, tasks: list[dict], tmp_path: Path
):
    declined = [t for t in tasks if t["provenance"]["recipe"] == "borrow_a_title_already_out"]
    assert declined
    for task in declined:  # the reference looks at the member's loans and declines; nothing is lent
        why = task["provenance"]["infeasible"]
        assert not task["feasible"] and why["policy"] == "one_copy_per_title"
        assert "borrow_copy would break procedure one_copy_per_title" in why["error"]
        tools = [c["tool"] for c in task["reference_calls"]]
        assert tools[0] == "list_loans" and tools[-1] == "cannot_complete" and "borrow_copy" not in tools
        assert "policy one_copy_per_title" in {v["name"] for v in task["verifiers"]}
        assert list(task["provenance"]["knobs"]) == ["found_by_working"]
    naive = evaluate(built, solver="tests.packs.library.naive:make", out=tmp_path,
                     task_filter=",".join(f"id:{t['id']}" for t in declined), report=False)
    assert (naive["failed"], naive["infra_errors"]) == (len(declined), 0)
    for line in (Path(naive["folder"]) / EPISODES_FILE).read_text().splitlines():
        record = json.loads(line)  # it lent the second copy the tools allow: the procedure names the failure
        assert "policy check one_copy_per_title" in record["failures"], record["failures"]


def test_a_write_that_keeps_the_procedure_proves_no_decline(built: Path, tmp_path: Path):
    from stateforge.tasks import Gate, domain_policy
    from stateforge.tasks.draft import Call, Draft
    from stateforge.tasks.model import Infeasibility
    from stateforge.tasks.workspace import Workspace
    from stateforge.tools import load_toolkit

    with duckdb.connect(str(built), read_only=True) as con:  # a member and a shelf copy of a title not out
        card, barcode = con.execute(
            "SELECT m.card_number, min(s.barcode) FROM members AS m JOIN copies AS s "
            "ON s.branch_id = m.home_branch_id AND s.status = 'on_shelf' "
            "WHERE NOT EXISTS (SELECT 1 FROM loans AS l JOIN copies AS c USING (copy_id) "
            "WHERE l.member_id = m.member_id AND c.book_id = s.book_id) "
            "AND NOT EXISTS (SELECT 1 FROM loans AS l WHERE l.member_id = m.member_id "
            f"AND l.returned_at IS NULL AND l.due_on < CAST({NOW} AS DATE)) "
            "GROUP BY m.card_number ORDER BY m.card_number LIMIT 1"
        ).fetchone()
    with Workspace(built, workdir=tmp_path) as ws:
        gate = Gate(ws, load_toolkit("library"), defaults=domain_policy(ws.config, ws.schema))
        draft = Draft(
            instruction="I'd like to borrow this copy.", capabilities=("cross_step_dependency",),
            difficulty="easy", calls=[Call("list_loans", {"state": "open"}), Call("borrow_copy",
                                                                                   {"barcode": barcode})],
            feasible=False, actor=Actor(person=card, roles=("member",)),
            infeasible=Infeasibility(kind="forbidden", because="one copy a title",
                                     policy="one_copy_per_title"),
        )
        result = gate.check(draft)
    assert result.task is None and result.rejection.reason == "infeasible_procedure_kept"
    assert "borrow_copy keeps procedure one_copy_per_title" in result.rejection.detail


def test_the_harness_binds_the_tasks_actor_for_mutants_and_mcp_agents(
    built: Path, tasks: list[dict], tmp_path: Path
):
    some = [t for t in tasks if t["feasible"]][:2]
    ids = ",".join(f"id:{t['id']}" for t in some)
    mutant = evaluate(built, solver="mutant:stop-early", out=tmp_path / "mutant", task_filter=ids,
                      report=False)
    assert mutant["infra_errors"] == 0
    for line in (Path(mutant["folder"]) / EPISODES_FILE).read_text().splitlines():
        assert json.loads(line)["tool_calls"][0]["ok"]  # as no one, the first call would be refused
    agent = Path(__file__).with_name("whoami_agent.py")
    mcp = evaluate(built, solver="mcp", out=tmp_path / "mcp", task_filter=ids, report=False,
                   options={"cmd": f"{shlex.quote(sys.executable)} {shlex.quote(str(agent))} {{url}}"})
    assert mcp["infra_errors"] == 0
    by_id = {t["id"]: t for t in some}
    for line in (Path(mcp["folder"]) / EPISODES_FILE).read_text().splitlines():
        record = json.loads(line)
        seen = json.loads(record["solver_details"]["stderr"])
        card = by_id[record["task_id"]]["actor"]["person"]
        assert seen["card"] == card
        assert f"You act for members {card} (card_number), acting as member" in seen["instructions"]
        assert "Procedures you must follow" in seen["instructions"]
        assert "Fair lending" in seen["instructions"].split("Procedures you must follow")[1]


def test_a_procedure_declined_task_checked_anew_is_the_same_task(
    built: Path, tasks: list[dict], tmp_path: Path
):
    from stateforge.tasks import Gate, Task, domain_policy
    from stateforge.tasks.gate import draft_of
    from stateforge.tasks.workspace import Workspace
    from stateforge.tools import load_toolkit

    task = Task.model_validate(
        next(t for t in tasks if t["provenance"]["recipe"] == "borrow_a_title_already_out")
    )
    assert task.provenance.infeasible.proof.tool == "borrow_copy"  # the proof write, kept out of the calls
    with Workspace(built, workdir=tmp_path) as ws:
        gate = Gate(ws, load_toolkit("library"), defaults=domain_policy(ws.config, ws.schema))
        again = gate.check(draft_of(task))
    assert again.task is not None, again.rejection
    same = {"id", "reference_plan"}
    assert again.task.model_dump(exclude=same) == task.model_dump(exclude=same)
