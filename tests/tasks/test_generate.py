"""Generation on bare DDLs (the generic recipes through the generic toolkit): 30+ tasks that pass the gate on
two parser fixtures, each one replaying independently to its diff; the same seed gives the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import jsonschema
import pytest

from stateforge.diff import diff_files
from stateforge.episode import Episode
from stateforge.tasks import CAPABILITIES, Gate, Workspace, domain_policy, read_tasks, task_json_schema
from stateforge.tasks.gate import draft_of
from stateforge.tasks.generic import GENERIC_RECIPES
from stateforge.tasks.runner import GenerationRun, run_generation
from stateforge.tasks.verifiers import rows_match
from stateforge.tasks.workspace import fetch
from stateforge.tools import toolkit_for

pytestmark = pytest.mark.slow


def replays_to_its_diff(db: Path, task, workdir: Path) -> None:
    """Independently of the gate: the reference calls on a fresh episode give the expected diff, and every
    verifier holds on the state they leave."""
    with Episode.open(db, workdir=workdir, keep=True) as episode:
        results = [episode.call(c.tool, c.arguments) for c in task.reference_calls]
        path = episode.path
    if task.feasible:
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
    else:
        assert [r.ok for r in results][-2:] == [False, True] and episode.declined  # refused, then declined
    assert diff_files(db, path).to_dict() == task.expected_diff
    with duckdb.connect(str(path), read_only=True) as con:
        for verifier in task.verifiers:
            assert rows_match(fetch(con, verifier.sql), verifier.expected), (task.id, verifier.name)
    path.unlink()


@pytest.mark.parametrize("fixture", ["pg_db", "duck_db"])
def test_a_bare_ddl_yields_thirty_tasks_that_pass_the_gate(
    fixture: str, request: pytest.FixtureRequest, tmp_path: Path
):
    db: Path = request.getfixturevalue(fixture)
    run = GenerationRun(db, n=30, seed=11, out=tmp_path)
    report = run_generation(run)
    assert report["target_met"] and report["kept"] == 30, report["why"]
    assert report["errors"] == []
    tasks = read_tasks(tmp_path / "tasks.jsonl")
    assert len(tasks) == 30 and len({t.id for t in tasks}) == 30
    assert {t.provenance.recipe for t in tasks} <= {r.name for r in GENERIC_RECIPES}
    assert len({t.provenance.recipe for t in tasks}) >= 6  # the set is varied, not one recipe thirty times
    schema = task_json_schema()
    for line in (tmp_path / "tasks.jsonl").read_text().splitlines():
        jsonschema.validate(json.loads(line), schema)
    for task in tasks:
        assert task.feasible == (not task.diff.empty)
        assert any(v.kind == "goal" for v in task.verifiers)
    assert report["feasible"] + report["infeasible"] == 30
    assert set(report["capabilities"]) == set(CAPABILITIES)
    assert report["diversity"]["distinct_tool_sequences"] >= 5
    assert report["changed_rows"]["max"] >= 10
    chosen = [tasks[0], max(tasks, key=lambda t: sum(t.diff.summary.values()))]
    chosen += [t for t in tasks if not t.feasible][:1]
    chosen = list({t.id: t for t in chosen}.values())
    for task in chosen:
        replays_to_its_diff(db, task, tmp_path)
    with Workspace(db) as ws:  # a stored task checked anew by a fresh gate is the same task (its plan
        gate = Gate(ws, toolkit_for(ws.schema, ws.domain), defaults=domain_policy(ws.config, ws.schema))
        same = {"id", "reference_plan"}  # is derived again from the calls: the recipe's own words are gone)
        for task in chosen:
            again = gate.check(draft_of(task))
            assert again.task is not None, again.rejection
            assert again.task.model_dump(exclude=same) == task.model_dump(exclude=same)


def test_the_same_seed_gives_the_same_bytes(pg_db: Path, tmp_path: Path):
    first = run_generation(GenerationRun(pg_db, n=4, seed=3, out=tmp_path / "a"))
    second = run_generation(GenerationRun(pg_db, n=4, seed=3, out=tmp_path / "b"))
    assert first["kept"] == second["kept"] == 4
    assert (tmp_path / "a" / "tasks.jsonl").read_bytes() == (tmp_path / "b" / "tasks.jsonl").read_bytes()


def test_a_failed_run_leaves_the_previous_file(pg_db: Path, tmp_path: Path):
    run_generation(GenerationRun(pg_db, n=2, seed=1, out=tmp_path))
    before = (tmp_path / "tasks.jsonl").read_bytes()

    def explode(stage, label, work):
        if stage.name == "write":
            raise KeyboardInterrupt("killed while writing")
        work()

    with pytest.raises(KeyboardInterrupt):
        run_generation(GenerationRun(pg_db, n=3, seed=2, out=tmp_path), runner=explode)
    assert (tmp_path / "tasks.jsonl").read_bytes() == before
    assert not list(tmp_path.glob(".tasks.jsonl.*"))


def moves_rows_between_states(task) -> bool:
    """Whether the task's first update sets a column its searches filtered on to another value."""
    searched = {
        f["column"]: f["value"]
        for call in task.reference_calls
        if call.tool.startswith("search_")
        for f in call.arguments.get("filters", [])
        if f["op"] == "eq"
    }
    updates = [c.arguments for c in task.reference_calls if c.tool.startswith("update_")]
    return bool(updates) and any(k in searched and v != searched[k] for k, v in updates[0].items())


def test_generic_recipes_on_a_namespaced_ddl(ns_db: Path, tmp_path: Path):
    """On a DDL whose tables all live in the `shop` namespace: the recipes whose SQL reaches a second table
    (the rows a delete would orphan, the children counted per parent) name it with its namespace and never
    err; and `bulk_update_filter` also moves every row in one state that meets a second condition to another
    state (the search filters on the state the update leaves)."""
    names = {"delete_named", "bulk_delete_filter", "top_parent_update", "busy_parents_update"}
    recipes = [r for r in GENERIC_RECIPES if r.name in names | {"bulk_update_filter"}]
    report = run_generation(GenerationRun(ns_db, n=12, seed=2, out=tmp_path, recipes=recipes))
    assert report["errors"] == [], report["errors"][:2]
    tasks = read_tasks(tmp_path / "tasks.jsonl")
    assert {"top_parent_update", "busy_parents_update", "bulk_update_filter"} <= {
        t.provenance.recipe for t in tasks
    }, report["recipes"]
    moved = [t for t in tasks if t.provenance.recipe == "bulk_update_filter" and moves_rows_between_states(t)]
    assert moved, "no state change among the kept tasks"
    replays_to_its_diff(ns_db, moved[0], tmp_path)
