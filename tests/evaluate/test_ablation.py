"""The ablations of EnterpriseOps-Gym: distractor tools (other packs' tools in each episode's toolkit, none
needed: chosen by seed, callable, changing nothing) and the reference plan told to the solver; both are
recorded in run.json and the summary, and compare-runs says what B - A measures when they differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from stateforge.episode import Episode
from stateforge.evaluate import EpisodeHandle, Limits, compare_runs, evaluate
from stateforge.evaluate.distractors import distractor_names, pool, with_distractors
from stateforge.evaluate.report import render_comparison
from stateforge.evaluate.rundir import RUN_FILE
from stateforge.mcp.target import PLAN_INTRO
from stateforge.tasks import Task
from stateforge.tools import CANNOT_COMPLETE, load_toolkit

pytestmark = pytest.mark.xdist_group("evaluate")


def test_distractors_are_other_packs_tools_chosen_by_seed_that_change_nothing(
    pack_db: Path, tasks: list[Task], tmp_path: Path
) -> None:
    base = load_toolkit(pack_db)
    kit = with_distractors(base, 5, seed=0, key=tasks[0].id)
    extra = distractor_names(kit, base)
    assert len(kit) == len(base) + 5 and len(extra) == 5 and kit.names[-1] == CANNOT_COMPLETE
    assert kit.names == with_distractors(base, 5, seed=0, key=tasks[0].id).names  # the same for every trial
    assert {tuple(distractor_names(with_distractors(base, 5, seed=s, key=tasks[0].id), base))
            for s in range(4)} != {tuple(extra)}  # another seed, another choice
    real = {t.name: t for _, t in pool(base.name)}
    with Episode.open(pack_db, toolkit=kit, workdir=tmp_path) as ep:
        for name in extra:
            tool = kit[name]
            assert tool.mcp()["annotations"] == real[name].mcp()["annotations"]  # listed as the real one
            assert tool.parameters == real[name].parameters
            props = tool.parameters["properties"]
            result = ep.call(name, {p: sample(props[p]) for p in tool.parameters["required"]})
            assert not result.ok and not result.changes and not result.infra_error
            assert result.error_kind == "tool" and "holds none of this session's data" in result.error
            assert not ep.call(name, {"no_such_argument": 1}).ok  # checked as the real tool checks them
        first = tasks[0].reference_calls[0]
        assert ep.call(first.tool, first.arguments).error_kind != "infra"  # the episode goes on


def sample(schema: dict) -> object:
    """A value of a JSON schema's type (the first choice of an enum or a union)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return sample(next(s for s in schema["anyOf"] if s.get("type") != "null"))
    kind = schema.get("type", "string")
    if kind == "array":
        return [sample(schema.get("items", {}))] if schema.get("minItems") else []
    if kind == "string" and schema.get("format") == "date":
        return "2026-06-01"
    if kind == "string" and (schema.get("format") == "date-time" or "pattern" in schema):
        return "2026-06-01T10:00:00"
    lowest = schema.get("minimum", schema.get("exclusiveMinimum", 0)) + 1
    return {"string": "x" * max(1, schema.get("minLength", 1)), "integer": lowest, "number": lowest,
            "boolean": True, "object": {}}.get(kind, "x")


def test_the_handle_tells_the_plan_in_its_instructions(
    pack_db: Path, tasks: list[Task], tmp_path: Path
) -> None:
    plan = tuple(tasks[0].reference_plan)
    with Episode.open(pack_db, workdir=tmp_path) as ep:
        told = EpisodeHandle(ep, Limits(), plan=plan).instructions
        plain = EpisodeHandle(ep, Limits()).instructions
    assert PLAN_INTRO not in plain and told.startswith(plain)
    assert told.endswith("\n".join(f"{i}. {' '.join(s.split())}" for i, s in enumerate(plan, 1)))


def test_runs_record_their_ablation_and_compare_runs_names_the_gain(
    pack_db: Path, tasks: list[Task], tmp_path: Path
) -> None:
    some = ",".join(f"id:{t.id}" for t in tasks[:4])
    plain = evaluate(pack_db, solver="oracle", out=tmp_path, task_filter=some, report=False)
    ablated = evaluate(pack_db, solver="oracle", out=tmp_path, task_filter=some, distractors=5,
                       with_plan=True, report=False)
    assert (plain["distractors"], plain["with_plan"]) == (0, False)
    assert (ablated["distractors"], ablated["with_plan"]) == (5, True)
    assert ablated["passed"] == ablated["episodes"] == 4  # none of them is needed, none breaks an episode
    spec = json.loads((Path(ablated["folder"]) / RUN_FILE).read_text())
    assert (spec["distractors"], spec["with_plan"]) == (5, True)
    result = compare_runs(plain["folder"], ablated["folder"])
    assert result["conditions"] == {"with_plan": [False, True], "distractors": [0, 5]}
    console = Console(record=True, width=200)
    render_comparison(console, result)
    assert "the gain of the plan and the effect of 5 distractors instead of 0" in console.export_text()
    assert compare_runs(plain["folder"], plain["folder"])["conditions"] == {}
