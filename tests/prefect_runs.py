"""Reading a finished flow's task runs from the Prefect API, which records them after the flow returns.

Prefect 3.9 never creates a task run through the API: the task engine builds it in memory
(`task_engine._create_task_run_locally`) and only emits `prefect.task-run.*` state events, which the
client's `EventsWorker` thread sends over a websocket, and the server's `TaskRunRecorder` queues and
writes to the database in batches (`flush_every`). The flow run's own final state, by contrast, is set by
a direct API call. So when a flow returns, its task runs may not be in the API yet, and on a loaded
machine the lag is seconds. Artifacts need no wait: `create_markdown_artifact` is a direct POST that has
completed before the flow returns.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from uuid import UUID

from prefect.client.orchestration import get_client
from prefect.client.schemas.filters import (
    ArtifactFilter,
    ArtifactFilterFlowRunId,
    ArtifactFilterKey,
    FlowRunFilter,
    FlowRunFilterId,
)
from prefect.client.schemas.objects import Artifact, TaskRun

DEADLINE_SECONDS = 180.0


def recorded_task_runs(
    flow_run_id: UUID, expected: Iterable[str], deadline: float = DEADLINE_SECONDS
) -> list[TaskRun]:
    """The task runs of `flow_run_id` once every name in `expected` is recorded and every run is final.

    Polls the API until the server has recorded a task run for each expected name and each run it holds
    is in a final state. A run the flow should not have started would have sent its events before those
    of the runs that followed it, so once those are recorded and final, an absence check means something.
    Fails after `deadline` seconds, naming the runs still missing or unfinished.
    """
    wanted = set(expected)
    this_run = FlowRunFilter(id=FlowRunFilterId(any_=[flow_run_id]))
    give_up = time.monotonic() + deadline
    with get_client(sync_client=True) as client:
        while True:
            runs = client.read_task_runs(flow_run_filter=this_run)
            missing = wanted - {r.name for r in runs}
            unfinished = sorted(r.name for r in runs if r.state is None or not r.state.is_final())
            if not missing and not unfinished:
                return runs
            if time.monotonic() > give_up:
                raise AssertionError(
                    f"flow run {flow_run_id}: after {deadline:.0f} s the Prefect API still lacks the task "
                    f"runs {sorted(missing)} and has {unfinished} unfinished; recorded: "
                    f"{sorted(r.name for r in runs)}. Either the flow did not run those tasks or the "
                    "server's task-run recorder is stuck (see the Prefect server log)."
                )
            time.sleep(0.2)


def flow_run_artifacts(flow_run_id: UUID, key: str) -> list[Artifact]:
    """The artifacts named `key` that the flow run `flow_run_id` created (not those of other runs of the
    session with the same key). Read at once: artifacts are created by a direct API call."""
    found = ArtifactFilter(
        key=ArtifactFilterKey(any_=[key]), flow_run_id=ArtifactFilterFlowRunId(any_=[flow_run_id])
    )
    with get_client(sync_client=True) as client:
        return client.read_artifacts(artifact_filter=found)
