"""The `release` flow under a Prefect test server: every stage a task, and the same bundle, byte for byte,
as the library's (the manifest holds every file's hash)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

from stateforge.release import MANIFEST, read_manifest
from tests.release.conftest import DDL, OPTIONS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("prefect")]


def test_the_flow_runs_the_stages_as_tasks_and_writes_the_same_bundle(
    prefect_server, release_a: Path, tmp_path: Path
) -> None:
    from stateforge.flows.release import release

    out = tmp_path / "pg-1.0.0"
    state = release(domain=str(DDL), version="1.0.0", out=str(out), baseline="oracle,noop", return_state=True,
                    **OPTIONS)
    manifest = state.result()
    assert (out / MANIFEST).read_text() == (release_a / MANIFEST).read_text()
    assert manifest["release_id"] == read_manifest(release_a).release_id and manifest["tasks"]["total"] == 6
    with get_client(sync_client=True) as client:
        this_run = FlowRunFilter(id=FlowRunFilterId(any_=[state.state_details.flow_run_id]))
        runs = client.read_task_runs(flow_run_filter=this_run)
    assert sorted(r.name for r in runs) == sorted(
        ["build", "generate-tasks", "baseline-oracle", "baseline-noop", "bundle", "document", "publish"]
    )
