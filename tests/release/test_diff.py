"""`release-diff`: identical releases, and a later release with tasks added, removed and changed, rows and
scores moved, seen section by section (terminal and --json)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stateforge.release import MANIFEST, read_manifest
from stateforge.release.compare import release_diff
from stateforge.tasks import read_tasks
from stateforge.tasks.jsonl import write_tasks
from stateforge.tasks.model import content_id
from tests.release.conftest import copy_of, run_cli

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("release")]  # one worker builds the releases


def test_two_releases_of_the_same_inputs_are_identical(release_a: Path, release_b: Path) -> None:
    changes = release_diff(release_a, release_b)
    assert changes["identical"] and changes["inputs"] == {}
    assert changes["schema"] == {"tables_added": [], "tables_removed": [], "tables_changed": {}}
    assert changes["tasks"]["unchanged"] == 6 and not changes["tasks"]["changed"]
    assert all(r["delta"] == 0 for r in changes["rows"].values())
    assert changes["scores"]["oracle"]["avg_at_k"] == {"a": 1.0, "b": 1.0, "delta": 0.0}
    figures = changes["figures"]
    assert figures["horizon.mean"]["a"] == figures["horizon.mean"]["b"] >= 1
    assert figures["tool_sequences"]["a"] == figures["tool_sequences"]["b"] >= 1
    card = (release_a / "README.md").read_text()
    assert "A reference solution (reads, writes and the decline" in card and "distinct sequences" in card


def test_tasks_rows_and_scores_that_moved(release_a: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    later = copy_of(release_a, tmp_path)
    tasks = read_tasks(later / "tasks.jsonl")
    removed, edited = tasks[0], tasks[1]
    data = edited.model_dump(mode="json")
    data["difficulty"] = "easy" if edited.difficulty != "easy" else "hard"
    data["id"] = content_id(data)
    changed = type(edited).model_validate(data)
    write_tasks(later / "tasks.jsonl", [changed, *tasks[2:]])
    manifest = read_manifest(later)
    table = next(iter(manifest.database.tables))
    tables = dict(manifest.database.tables)
    tables[table] = tables[table].model_copy(update={"rows": tables[table].rows + 5})
    noop = manifest.baselines["noop"].model_copy(update={"avg_at_k": 0.5})
    database = manifest.database.model_copy(update={"tables": tables, "rows": manifest.database.rows + 5})
    older = manifest.tasks.model_copy(update={"horizon": None, "tool_sequences": None, "knobs": None})
    moved = manifest.model_copy(update={
        "version": "1.1.0",
        "database": database,
        "baselines": {**manifest.baselines, "noop": noop},
        "tasks": older,  # as a manifest made before the task figures were counted
    })
    (later / MANIFEST).write_text(moved.to_json())

    assert run_cli(["release-diff", str(release_a), str(later), "--json"]) == 0
    changes = json.loads(capsys.readouterr().out)
    assert changes["b"]["version"] == "1.1.0" and not changes["identical"]
    assert changes["tasks"]["removed"][0]["id"] == removed.id and changes["tasks"]["added"] == []
    assert changes["tasks"]["changed"] == [
        {"a": edited.id, "b": changed.id, "instruction": edited.instruction, "fields": ["difficulty"]}
    ]
    assert changes["rows"][table]["delta"] == 5 and changes["rows"]["(total)"]["delta"] == 5
    assert changes["scores"]["noop"]["avg_at_k"]["b"] == 0.5
    # counted from the tasks: a manifest made before it held the figures compares too
    assert changes["figures"]["horizon.max"]["b"] >= 1 and changes["figures"]["horizon.max"]["a"] >= 1

    assert run_cli(["release-diff", str(release_a), str(later)]) == 0
    text = capsys.readouterr().out
    assert "1.0.0 -> postgres_dump 1.1.0" in text and f"- {removed.id}" in text
    assert "4 unchanged, 1 changed, 0 added, 1 removed" in text and "(difficulty)" in text
