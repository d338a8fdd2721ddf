"""The task model: the committed JSON Schema, JSONL round trips, ids, and errors that name file:line."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from stateforge.tasks import Task, read_tasks, task_json_schema, write_tasks
from stateforge.tasks.jsonl import TaskFileError
from stateforge.tasks.model import SCHEMA_FILE, content_id
from stateforge.tasks.summary import summarize_tasks


def make_task(**changes) -> Task:
    data = {
        "id": "x",
        "domain": "shop",
        "db_fingerprint": "0123456789abcdef",
        "instruction": "Rename the customer 'ana@example.org' to 'Ana Lima'.",
        "capabilities": ["cross_step_dependency", "multi_condition_filtering"],
        "difficulty": "easy",
        "feasible": True,
        "reference_calls": [{"tool": "update_customer", "arguments": {"customer_id": 3, "name": "Ana Lima"}}],
        "reference_plan": ["Update customer customer id 3, name 'Ana Lima' (1 row of customers updated)"],
        "expected_diff": {
            "tables": {
                "customers": {
                    "inserted": [],
                    "deleted": [],
                    "updated": [{"key": {"customer_id": 3}, "changes": {"name": ["Ana", "Ana Lima"]}}],
                }
            },
            "summary": {"inserted": 0, "deleted": 0, "updated": 1},
        },
        "policy": {"columns": {"customers.name": "normalized"}},
        "verifiers": [
            {
                "kind": "goal",
                "name": "renamed",
                "sql": "SELECT name FROM customers WHERE customer_id = 3",
                "expected": [{"name": "Ana Lima"}],
            }
        ],
        "provenance": {"generator": "recipe", "recipe": "rename", "seed": 1, "stateforge_version": "0.1.0"},
        "references": [
            {
                "entity": "customer 'ana@example.org'",
                "sql": "SELECT count(*) FROM customers WHERE email = ?",
                "params": ["ana@example.org"],
            }
        ],
    }
    data.update(changes)
    task = Task.model_validate(data)
    return task.model_copy(update={"id": task.content_id()})


def test_the_committed_schema_is_the_models():
    committed = json.loads(SCHEMA_FILE.read_text())
    assert committed == task_json_schema(), (
        "stateforge/tasks/task.schema.json is out of date: run "
        "python -c 'from stateforge.tasks.model import write_schema; write_schema()'"
    )


def test_a_task_line_validates_against_the_schema_and_keeps_the_public_keys():
    line = json.loads(make_task().to_json())
    jsonschema.validate(line, task_json_schema())
    assert set(line) == {
        "id",
        "domain",
        "db_fingerprint",
        "instruction",
        "capabilities",
        "difficulty",
        "feasible",
        "reference_calls",
        "reference_plan",
        "expected_diff",
        "policy",
        "verifiers",
        "provenance",
        "references",
    }
    assert line["capabilities"] == ["multi_condition_filtering", "cross_step_dependency"]  # canonical order
    bad = dict(line, difficulty="extreme")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, task_json_schema())


def test_the_id_is_a_hash_of_the_content_without_provenance():
    task = make_task()
    assert task.id == content_id(task.model_dump(mode="json"))
    other_run = make_task(
        provenance={"generator": "recipe", "recipe": "rename", "seed": 99, "stateforge_version": "9.9.9"}
    )
    assert other_run.id == task.id
    assert make_task(instruction="Rename 'ana@example.org' to 'Ana Lima', please.").id != task.id


def test_jsonl_round_trips_byte_for_byte(tmp_path: Path):
    tasks = [
        make_task(),
        make_task(
            feasible=False,
            expected_diff={"tables": {}, "summary": {"inserted": 0, "deleted": 0, "updated": 0}},
        ),
    ]
    path = write_tasks(tmp_path / "tasks.jsonl", tasks)
    text = path.read_text()
    assert text.count("\n") == 2 and text.splitlines()[0] == tasks[0].to_json()
    again = read_tasks(path)
    assert again == tasks
    write_tasks(tmp_path / "again.jsonl", again)
    assert (tmp_path / "again.jsonl").read_bytes() == path.read_bytes()
    assert list(json.loads(text.splitlines()[0])) == sorted(json.loads(text.splitlines()[0]))


def test_a_bad_line_is_named_by_file_and_line(tmp_path: Path):
    good = make_task().to_json()
    path = tmp_path / "tasks.jsonl"
    path.write_text(good + "\n\n" + good.replace('"easy"', '"extreme"') + "\n")
    with pytest.raises(TaskFileError, match=r"tasks\.jsonl:3: difficulty"):
        read_tasks(path)
    path.write_text(good.replace("Ana Lima'.", "Ana Lima' now.") + "\n")
    with pytest.raises(TaskFileError, match=r"tasks\.jsonl:1: task .* does not hash to its id"):
        read_tasks(path)
    with pytest.raises(TaskFileError, match="no such file"):
        read_tasks(tmp_path / "missing.jsonl")


def test_an_expected_diff_whose_summary_lies_is_refused():
    with pytest.raises(ValueError, match="does not count its rows"):
        make_task(expected_diff={"tables": {}, "summary": {"inserted": 1, "deleted": 0, "updated": 0}})


def test_the_summary_counts_valid_lines_and_names_the_invalid_ones(tmp_path: Path):
    task = make_task()
    path = tmp_path / "tasks.jsonl"
    path.write_text(task.to_json() + "\n" + task.to_json() + "\n" + "{not json\n")
    summary = summarize_tasks(path)
    assert summary["valid"] == 1 and summary["invalid"] == 2
    assert "repeats line 1" in summary["problems"][0] and ":3: not JSON" in summary["problems"][1]
    assert summary["capabilities"]["cross_step_dependency"] == 1


def test_a_task_without_an_actor_keeps_its_line_and_id_and_one_with_an_actor_round_trips(tmp_path: Path):
    plain = make_task()
    line = json.loads(plain.to_json())
    assert "actor" not in line  # tasks made before actors: the same bytes, the same id
    assert plain.id == content_id({k: v for k, v in line.items()})
    acted = make_task(actor={"person": "LC00012345", "roles": ["member"]})
    assert acted.id != plain.id and json.loads(acted.to_json())["actor"] == {
        "person": "LC00012345", "roles": ["member"]}
    jsonschema.validate(json.loads(acted.to_json()), task_json_schema())
    write_tasks(tmp_path / "tasks.jsonl", [plain, acted])
    assert [t.actor for t in read_tasks(tmp_path / "tasks.jsonl")] == [None, acted.actor]
    with pytest.raises(ValueError, match="extra"):
        make_task(actor={"person": "LC1", "roles": [], "name": "Ana"})
