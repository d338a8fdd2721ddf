"""The ITSM pack's procedures under evaluation: tasks whose straightforward solution breaks one (a P1
resolved with nobody informed, a high-risk change started without the CAB) are solved by the oracle; the
`ignore-procedure` mutant leaves the procedure's steps out and fails every task it applies to, by the
procedure's name, the P1 ones with their goal reached; an episode signed in as the wrong person (the actor
is bound by the harness, not chosen by the solver) fails by the name of the policy that refused it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
import pytest

from stateforge.evaluate import evaluate
from stateforge.evaluate.rundir import EPISODES_FILE
from stateforge.packs.itsm.tasks.changes import high_risk_through_cab
from stateforge.packs.itsm.tasks.stories import close_unresolved, resolve_p1_quietly
from stateforge.tasks import Task, generate_tasks, read_tasks
from stateforge.tools.actor import Actor

pytestmark = pytest.mark.xdist_group("itsm_pack")

PROCEDURES = {
    "resolve_p1_quietly": "major_incident_procedure",
    "high_risk_through_cab": "high_risk_cab_review",
}


@pytest.fixture(scope="module")
def procedure_db(itsm_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the small build whose open P1s have no major-incident manager informed yet, the situation
    of resolve_p1_quietly (the history informs for the resolved P1s only, and this scale has one open P1,
    informed or not by chance); every rule and policy still holds (an open P1 may be uninformed)."""
    db = tmp_path_factory.mktemp("itsm-procedures") / "itsm.duckdb"
    shutil.copyfile(itsm_db, db)
    with duckdb.connect(str(db)) as con:
        con.execute("DELETE FROM notifications WHERE incident_id IN (SELECT incident_id FROM incidents "
                    "WHERE priority = 1 AND state IN ('in_progress', 'on_hold'))")
    return db


@pytest.fixture(scope="module")
def procedure_tasks(procedure_db: Path) -> Path:
    """A task of each recipe whose reference follows a procedure, and an infeasible one (the generator keeps
    a share of them): tasks.jsonl."""
    out = procedure_db.parent
    generate_tasks(procedure_db, n=3, seed=0, out=out,
                   recipes=[resolve_p1_quietly, high_risk_through_cab, close_unresolved])
    found = read_tasks(out / "tasks.jsonl")
    assert {t.provenance.recipe for t in found if t.feasible} == set(PROCEDURES), "a recipe kept no task"
    return out / "tasks.jsonl"


def feasible(tasks_file: Path) -> list[Task]:
    return [t for t in read_tasks(tasks_file) if t.feasible]


def records(summary: dict) -> list[dict]:
    return [json.loads(line) for line in (Path(summary["folder"]) / EPISODES_FILE).read_text().splitlines()]


def test_the_reference_follows_the_procedure_and_passes(
    procedure_db: Path, procedure_tasks: Path, tmp_path: Path
):
    for task in feasible(procedure_tasks):  # each is checked by its procedure's policy verifier
        assert f"policy {PROCEDURES[task.provenance.recipe]}" in {v.name for v in task.verifiers}
    oracle = evaluate(procedure_db, tasks_file=procedure_tasks, solver="oracle", out=tmp_path, report=False)
    assert oracle["passed"] == oracle["episodes"] == len(read_tasks(procedure_tasks))


def test_ignoring_the_procedure_fails_by_its_name(procedure_db: Path, procedure_tasks: Path, tmp_path: Path):
    by_id = {t.id: t for t in feasible(procedure_tasks)}
    mutant = evaluate(procedure_db, tasks_file=procedure_tasks, solver="mutant:ignore-procedure",
                      task_filter="feasible", out=tmp_path, report=False)
    assert (mutant["failed"], mutant["infra_errors"]) == (len(by_id), 0)
    for record in records(mutant):
        recipe = by_id[record["task_id"]].provenance.recipe
        procedure = PROCEDURES[recipe]
        assert record["solver_details"]["applicable"], record["solver_details"]["why"]
        assert f"ignored {procedure}" in record["solver_details"]["did"][0]
        assert f"policy check {procedure}" in record["failures"]
        assert any(f"'policy {procedure}' failed" in r for r in record["reasons"]), record["reasons"]
        if recipe == "resolve_p1_quietly":  # the caller's goal reached, the procedure broken
            assert all(v["passed"] for v in record["verifiers"] if v["kind"] == "goal")
    assert mutant["verifier_kinds"]["policy"]["episodes_passed"] == 0


def test_acting_as_the_wrong_actor_fails_by_the_policy_that_refused_it(
    procedure_db: Path, procedure_tasks: Path, people: dict[str, str], tmp_path: Path
):
    """The reference replayed by an episode signed in as someone else (an employee without the roles): the
    solver cannot choose whom to act as, so the harness binds the task's actor, here the wrong one."""
    tasks = feasible(procedure_tasks)
    wrong_file = tmp_path / "wrong-actor.jsonl"
    rebound = [t.model_copy(update={"actor": Actor(person=people["employee"])}) for t in tasks]
    lines = [t.model_copy(update={"id": t.content_id()}).to_json() for t in rebound]
    wrong_file.write_text("\n".join(lines) + "\n")
    wrong = evaluate(procedure_db, tasks_file=wrong_file, solver="oracle", out=tmp_path / "run", report=False)
    assert (wrong["failed"], wrong["infra_errors"]) == (len(tasks), 0)
    for record in records(wrong):
        refused = {c["policy"] for c in record["tool_calls"] if not c["ok"] and c.get("policy")}
        assert refused & {"itil_role_required", "ticket_visibility"}, record["tool_calls"]
        named = [r for r in record["reasons"] if r.startswith("the policy ") and " refused " in r]
        assert named, record["reasons"]
